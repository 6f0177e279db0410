"""`senet-pi selftest` walks the LED strip when the pin map has one: each square lights alone, 1 to 30,
in the board's S order; the simulated strip's bytes are read back, a person at a real board is asked."""

from __future__ import annotations

from dataclasses import replace

from senet_pi.cli import selftest as selftests
from senet_pi.cli.selftest import STRIP_WRONG, selftest
from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.hardware.strip import FakeSpi, decode_ws2812, ws2812_bytes


class DeadLed(FakeSpi):
    """A simulated strip whose LED under square 12 is dead: it never lights."""

    def write(self, data: bytes) -> None:
        colours = decode_ws2812(data)
        colours[11] = (0, 0, 0)
        super().write(ws2812_bytes(colours))


class Spi:
    """An SPI device whose bytes nobody reads back: as on a Pi, a person must look at the strip."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.frames.append(bytes(data))

    def close(self) -> None:
        pass


def walked(backend: SimBackend, ask=lambda question: "y") -> tuple[selftests.SelfTestReport, list[str]]:
    said: list[str] = []
    try:
        return selftest(backend, say=said.append, ask=ask, auto=True), said
    finally:
        backend.close()


def test_the_simulated_strip_lights_each_square_alone_in_order():
    backend = SimBackend(load_pinmap())
    lit: list[list[int]] = []
    record = backend.spi.write

    def write(data: bytes) -> None:
        lit.append([n for n, rgb in enumerate(decode_ws2812(data)) if any(rgb)])
        record(data)

    backend.spi.write = write  # type: ignore[method-assign]
    report, said = walked(backend)
    assert report.strip == "ok"
    assert report.ok, report.summary()
    assert [leds for leds in lit if leds][:30] == [[sq - 1] for sq in range(1, 31)]  # square by square, in order
    assert lit[-1] == []  # dark again after the walk
    assert "Checked the simulated LED strip (its SPI bytes read back): ok." in said
    assert "LED strip: ok" in said[-2]


def test_a_dead_led_is_named_and_fails_the_self_test():
    backend = SimBackend(load_pinmap())
    backend.spi = DeadLed()
    report, _ = walked(backend)
    assert report.strip == "squares [12] did not light alone"
    assert not report.ok


def test_at_a_real_strip_a_person_is_told_what_to_watch_and_asked(monkeypatch):
    monkeypatch.setattr(selftests, "STRIP_STEP", 0)
    backend = SimBackend(load_pinmap())
    spi = Spi()
    backend.spi = spi  # type: ignore[assignment]
    asked: list[str] = []
    report, said = walked(backend, ask=lambda question: asked.append(question) or "n")
    assert any("Watch the LED strip" in line and "S" in line for line in said)
    assert asked[-1].startswith("Did the squares light one at a time, 1 to 30")
    assert report.strip == STRIP_WRONG
    assert not report.ok
    assert len([f for f in spi.frames if any(map(any, decode_ws2812(f)))]) == 30  # each square, one frame
    assert not any(map(any, decode_ws2812(spi.frames[-1])))  # and dark again


def test_a_board_without_a_strip_skips_it():
    report, said = walked(SimBackend(replace(load_pinmap(), lights=None)))
    assert report.strip == "not fitted"
    assert not [line for line in said if "LED strip (" in line]
