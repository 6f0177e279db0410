"""The LED strip on the Pi's pins: the exact SPI byte stream for a frame, its timing against the
WS2812B datasheet, the pin map's [lights], and the simulated board's strip showing the lights."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from senet_pi.errors import PinMapError
from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap, pinmap_from
from senet_pi.hardware.strip import SPI_HZ, FakeSpi, SpiStrip, decode_ws2812, glow_frame, ws2812_bytes
from senet_pi.service import Service
from senet_pi.service.lights import LightSettings

NS = 1e9 / SPI_HZ  # one SPI bit, in nanoseconds (416.7 at 2.4 MHz)
#: WS2812B datasheet windows, nanoseconds: high and low time of a 0 and a 1 bit (+/- 150 ns), and the reset.
T0H, T1H, T0L, T1L = (250, 550), (650, 950), (700, 1000), (300, 600)
RESET_NS = 280_000


def test_the_exact_bytes_of_one_led():
    """Green 0x80, red 0x01, blue 0x00: GRB, most significant bit first, 110 a one, 100 a zero."""
    g, r, b = "110" + "100" * 7, "100" * 7 + "110", "100" * 8
    bits = g + r + b
    expected = bytes(int(bits[i : i + 8], 2) for i in range(0, 72, 8))
    data = ws2812_bytes([(0x01, 0x80, 0x00)])
    assert data == bytes(1) + expected + bytes(90)
    assert data[1:10].hex() == "d24924" + "924926" + "924924"  # G, R, B


def pulses(data: bytes) -> list[tuple[float, float]]:
    """(high ns, low ns) of each pulse on the MOSI line, the line low before and after."""
    bits = "".join(f"{byte:08b}" for byte in data)
    out = []
    i = bits.index("1")
    while i < len(bits):
        high = len(bits[i:]) - len(bits[i:].lstrip("1"))
        rest = bits[i + high :]
        low = len(rest) - len(rest.lstrip("0"))
        out.append((high * NS, low * NS))
        i += high + low
    return out


@given(st.lists(st.tuples(*[st.integers(0, 255)] * 3), min_size=1, max_size=42))
def test_every_bit_is_inside_the_ws2812_timing_and_the_strip_resets_after(colours):
    data = ws2812_bytes(colours)
    shape = pulses(data)
    assert len(shape) == 24 * len(colours), "one pulse a bit"
    for high, low in shape[:-1]:
        zero = T0H[0] <= high <= T0H[1] and T0L[0] <= low <= T0L[1]
        one = T1H[0] <= high <= T1H[1] and T1L[0] <= low <= T1L[1]
        assert zero or one, (high, low)
    assert shape[-1][1] >= RESET_NS, "the line rests low long enough to latch"
    assert decode_ws2812(data) == colours


def test_a_stream_that_is_no_ws2812_signal_is_refused():
    with pytest.raises(ValueError, match="no WS2812 bit"):
        decode_ws2812(bytes(1) + b"\xff" * 9 + bytes(90))


def test_the_simulated_board_s_strip_shows_a_lifted_piece_s_destinations():
    service = Service(None, variant="secret", lights=LightSettings(brightness=100))
    backend = SimBackend(load_pinmap(), rng=random.Random(1), spin=0)
    backend.start(service, scan=False)
    try:
        service.handle("throw", 3)
        service.handle("lift", 10)
        shown = decode_ws2812(backend.spi.frames[-1])
        assert len(shown) == 34  # 30 squares and the 4 sticks, as the pin map says
        assert shown[12] == (0x00, 0x72, 0xB2)  # square 13: blue, steady
        assert [i for i, c in enumerate(shown) if c != (0, 0, 0)] == [12]
    finally:
        backend.close()
    assert decode_ws2812(backend.spi.frames[-1]) == [(0, 0, 0)] * 34, "closed, the strip goes dark"
    assert backend.spi.closed


def test_a_blinking_square_is_written_again_only_when_it_changes():
    spi = FakeSpi()
    strip = SpiStrip(spi, LightSettings(brightness=100))
    strip.show({"14": "fix_from", "10": "fix_to"})
    first = len(spi.frames)
    strip.paint()
    strip.paint()
    assert len(spi.frames) == first, "nothing changed: nothing written"
    strip.show({})
    assert decode_ws2812(spi.frames[-1]) == [(0, 0, 0)] * 34


def test_the_glow_frame_has_a_place_for_each_square_the_sticks_and_the_button():
    frame = glow_frame({"1": "move", "30": "fault", "sticks": "bonus", "button": "bonus"})
    assert len(frame) == 32
    assert frame[0] == "1" and frame[29] == "A" and frame[30] == frame[31] == "B", frame


@pytest.mark.parametrize(
    ("lights", "says"),
    [
        ({"data": 18}, "lights.data must be GPIO 10"),
        ({"data": 10, "sticks": 5}, "lights.sticks must be a whole number of LEDs from 0 to 4"),
        ({"ring": -1}, "lights.ring"),
        ({"ring": True}, "lights.ring"),
        ("yes", "[lights] must be a section"),
    ],
)
def test_a_wrong_lights_section_in_the_pin_map_is_named(lights, says):
    data = {
        "matrix": {"rows": [17, 27, 22, 5, 6, 13], "columns": [19, 26, 16, 20, 21]},
        "thrower": {"button": 4, "leds": [12, 18, 23, 24]},
        "lights": lights,
    }
    with pytest.raises(PinMapError, match=says.replace("[", r"\[").replace("]", r"\]")):
        pinmap_from(data)


def test_the_strip_s_pin_is_checked_against_the_others():
    data = {
        "matrix": {"rows": [17, 27, 22, 5, 6, 13], "columns": [19, 26, 16, 20, 21]},
        "thrower": {"button": 10, "leds": [12, 18, 23, 24]},
        "lights": {"data": 10},
    }
    with pytest.raises(PinMapError, match="GPIO 10 is used twice"):
        pinmap_from(data)


def test_on_a_pi_the_strip_sets_the_spi_clock_and_mode_and_writes_the_bytes(monkeypatch):
    """python3-spidev, as the Pi has it (a stand-in module here): 2.4 MHz, mode 0, one write a frame."""
    import sys
    import types

    opened: list[object] = []

    class SpiDev:
        def open(self, bus: int, device: int) -> None:
            opened.append(self)
            self.where, self.data = (bus, device), b""

        def writebytes2(self, data: bytes) -> None:
            self.data = data

        def close(self) -> None:
            self.where = None

    monkeypatch.setitem(sys.modules, "spidev", types.SimpleNamespace(SpiDev=SpiDev))
    from senet_pi.hardware.strip import open_spi

    writer, problem = open_spi()
    assert problem is None
    strip = SpiStrip(writer, LightSettings(brightness=100))
    strip.show({"3": "move"})
    (device,) = opened
    assert (device.where, device.max_speed_hz, device.mode) == ((0, 0), 2_400_000, 0)
    assert decode_ws2812(device.data)[2] == (0x00, 0x72, 0xB2)
    strip.close()
    assert device.where is None


def test_without_python3_spidev_the_board_runs_on_and_says_what_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "spidev", None)  # import spidev fails, as on a Pi without the package
    from senet_pi.hardware.strip import open_spi

    writer, problem = open_spi()
    assert writer is None
    assert "sudo apt install python3-spidev" in str(problem)


def _spidev_that_fails(monkeypatch, error: OSError) -> None:
    """python3-spidev as on a Pi whose /dev/spidev0.0 cannot be opened (a stand-in module)."""
    import sys
    import types

    class SpiDev:
        def open(self, bus: int, device: int) -> None:
            raise error

    monkeypatch.setitem(sys.modules, "spidev", types.SimpleNamespace(SpiDev=SpiDev))


@pytest.fixture(params=[False, True], ids=["Raspberry Pi OS", "the card"])
def on_card(request, monkeypatch, tmp_path) -> bool:
    """senet-pi on Raspberry Pi OS, or on the card (which alone has the card's manifest)."""
    from senet_pi.hardware import strip

    manifest = tmp_path / "manifest"
    if request.param:
        manifest.write_text("# senet-pi card\n")
    monkeypatch.setattr(strip, "CARD_MANIFEST", manifest)
    return bool(request.param)


def test_a_missing_spi_device_is_said_with_what_turns_spi_on_there(monkeypatch, on_card):
    """Raspberry Pi OS turns SPI on with raspi-config; a card has none: its SPI is its own overlay,
    named in config.txt on SENET-BOOT, which is what a technician can check from any computer."""
    from senet_pi.hardware import strip

    _spidev_that_fails(monkeypatch, FileNotFoundError(2, "No such file or directory"))
    writer, problem = strip.open_spi()
    assert writer is None
    assert str(problem).startswith("cannot open /dev/spidev0.0 (No such file or directory): ")
    if on_card:
        assert "dtoverlay=senet-pi-spi" in str(problem)
        assert "overlays/senet-pi-spi.dtbo" in str(problem)
        assert "(see The card)" in str(problem)
        assert "turn SPI on" not in str(problem)
    else:
        assert str(problem).endswith(": turn SPI on (see Building)")
    assert "\n" not in str(problem)


def test_a_refused_spi_device_is_said_with_the_group_that_opens_it(monkeypatch, on_card):
    """The device is there but not for this user: SPI is on, so "turn SPI on" would mislead; the
    udev rule gives /dev/spidev* to the group spi, on a card and under Raspberry Pi OS alike."""
    from senet_pi.hardware import strip

    _spidev_that_fails(monkeypatch, PermissionError(13, "Permission denied"))
    writer, problem = strip.open_spi()
    assert writer is None
    assert str(problem) == (
        "cannot open /dev/spidev0.0 (Permission denied): join the group spi"
        " (sudo adduser $USER spi, then log in again; see Troubleshooting)"
    )


def test_a_pi_that_cannot_drive_the_strip_runs_on_and_its_hardware_view_says_why(monkeypatch):
    import sys

    from gpiozero.pins.mock import MockFactory

    from senet_pi.hardware.backend import GpioBackend

    monkeypatch.setitem(sys.modules, "spidev", None)  # no python3-spidev
    backend = GpioBackend(load_pinmap(), pin_factory=MockFactory(), spin=0)
    service = Service(None, variant="secret")
    try:
        backend.start(service, scan=False)
        service.handle("throw", 3)
        described = backend.describe()
        assert backend.strip is None
        said = "lights: python3-spidev is not installed: sudo apt install python3-spidev (see Building)"
        assert described["faults"] == [said]
    finally:
        backend.close()


@pytest.mark.parametrize("pattern", list("SBLADPWC"))
def test_a_pattern_looks_the_same_until_its_next_change(pattern):
    """`next_change` (what the strip's thread sleeps for) never skips a change: a light's level is
    the same at every place from a moment until the change it names, for every moment of a cycle."""
    from firmware_bridge.glow import level, next_change

    for ms in range(0, 2500, 7):
        wait = next_change(pattern, ms)
        if pattern == "S":
            assert wait is None
            continue
        assert wait is not None
        if pattern in "PW":
            assert wait == 0  # changes all the time: redrawn every frame
            continue
        assert wait > 0
        for index in range(32):
            assert {level(pattern, ms + k, index) for k in range(wait)} == {level(pattern, ms, index)}
        assert any(level(pattern, ms + wait, i) != level(pattern, ms + wait - 1, i) for i in range(32))


def test_the_strip_sleeps_until_the_next_edge_not_every_frame():
    """A board at rest showing the attract chase wakes 8 times a second, a blink at its edges, a
    pulse every frame (PAINT); steady lights need no thread at all."""
    from senet_pi.hardware.strip import PAINT

    strip = SpiStrip(FakeSpi())
    strip.show({str(sq): "attract" for sq in range(1, 31)})
    assert strip.next_redraw(1000) == 0.125
    assert strip.next_redraw(1100) == 0.025
    strip.show({"7": "fix_from"})  # blink: 250 ms on, 250 off
    assert strip.next_redraw(1100) == 0.15
    strip.show({"7": "fix_from", "9": "question"})  # and a pulse: every frame
    assert strip.next_redraw(1100) == PAINT
    strip.show({"7": "fix_to"})
    assert strip.next_redraw(1100) is None
    strip.close()
