"""The thrower's button on a Pi's pins: its edges read from the kernel through libgpiod's bindings
(`gpiod`, senet_pi/hardware/edges.py), not through lgpio's alert thread. Here the request asked of
libgpiod is checked and a stand-in request feeds it edges; the kernel itself answers in the gpio-sim
test (tests/test_gpio_sim.py)."""

from __future__ import annotations

import errno
import os
import queue
import sys
import threading
import types
from datetime import timedelta

import gpiod
import pytest
from gpiod import EdgeEvent
from gpiod.line import Bias, Direction, Edge, Value
from gpiozero import DigitalInputDevice

from senet_pi.errors import BackendError
from senet_pi.hardware import edges
from senet_pi.hardware import thrower as thrower_module
from senet_pi.hardware.edges import KernelButton, have_gpiod, kernel_chip, open_button, request_button
from senet_pi.hardware.thrower import StickThrower
from tests.journal_helpers import ScriptClock

RISING, FALLING = EdgeEvent.Type.RISING_EDGE.value, EdgeEvent.Type.FALLING_EDGE.value


class StandInRequest:
    """A libgpiod line request whose edges come from the test: each is queued, then a byte on a
    pipe wakes the reader, as the kernel's event makes the request's file readable."""

    def __init__(self, pressed: bool = False) -> None:
        self._read, self._write = os.pipe()
        self._events: queue.SimpleQueue[EdgeEvent] = queue.SimpleQueue()
        self._seqno = 0
        self.value = Value.ACTIVE if pressed else Value.INACTIVE
        self.released = 0

    @property
    def fd(self) -> int:
        return self._read

    def get_value(self, line: int) -> Value:
        return self.value

    def edges(self, *kinds: int) -> None:
        """Edges as the kernel reports them for an active-low line: RISING is pressed."""
        for kind in kinds:
            self._seqno += 1
            self._events.put(EdgeEvent(kind, 123, 4, self._seqno, self._seqno))
        os.write(self._write, b"e")

    def read_edge_events(self, max_events: int | None = None) -> list[EdgeEvent]:
        os.read(self._read, 4096)
        found = []
        while not self._events.empty():
            found.append(self._events.get())
        return found

    def release(self) -> None:
        self.released += 1
        os.close(self._read)
        os.close(self._write)


def test_the_line_is_asked_of_libgpiod_as_a_button_needs(monkeypatch):
    """An input, pulled up, active low (so a press is a rising edge and ACTIVE), both edges, and the
    kernel's 20 ms debounce; named so `gpioinfo` says whose line it is."""
    asked = {}

    def request_lines(path, config, consumer=None, **kwargs):
        asked.update(path=path, config=config, consumer=consumer)
        return StandInRequest()

    monkeypatch.setattr(gpiod, "request_lines", request_lines)
    request = request_button("/dev/gpiochip0", 4)
    assert isinstance(request, StandInRequest)
    assert asked == {
        "path": "/dev/gpiochip0",
        "consumer": "senet-pi button",
        "config": {
            4: gpiod.LineSettings(
                direction=Direction.INPUT,
                edge_detection=Edge.BOTH,
                bias=Bias.PULL_UP,
                active_low=True,
                debounce_period=timedelta(milliseconds=20),
            )
        },
    }


def test_a_press_and_a_release_reach_the_handlers_from_the_request_s_file():
    request = StandInRequest()
    button = KernelButton(request, 4)  # type: ignore[arg-type]
    seen: list[str] = []
    done = threading.Event()
    button.when_activated = lambda: seen.append("down")
    button.when_deactivated = lambda: (seen.append("up"), done.set())
    assert not button.is_active
    request.edges(RISING)
    request.edges(RISING, FALLING)  # a second press edge while down is no second press
    assert done.wait(10)
    assert seen == ["down", "up"]
    assert not button.is_active
    assert button._thread.name == "senet-pi button"
    button.close()
    button.close()  # twice is safe
    assert button.closed
    assert not button._thread.is_alive()
    assert request.released == 1


def test_a_button_held_down_at_start_is_active():
    request = StandInRequest(pressed=True)
    button = KernelButton(request, 4)  # type: ignore[arg-type]
    assert button.is_active
    button.close()


def test_an_error_in_a_handler_is_said_once_and_the_button_goes_on(capfd):
    request = StandInRequest()
    button = KernelButton(request, 4)  # type: ignore[arg-type]
    done = threading.Event()

    def broken() -> None:
        raise ValueError("no game")

    button.when_activated = broken
    button.when_deactivated = done.set
    request.edges(RISING, FALLING, RISING)
    assert done.wait(10)
    button.when_deactivated = None
    released = threading.Event()
    button.when_activated = released.set
    request.edges(FALLING, RISING)
    assert released.wait(10)
    button.close()
    said = capfd.readouterr().err
    assert said.count("internal error after a press of the button: ValueError: no game") == 1


def test_a_held_press_is_timed_as_on_gpiozero_s_pins(mock_factory, pinmap, monkeypatch):
    """The thrower's gestures through kernel edges: a short press throws, a held one offers (on a
    scripted clock); its LEDs stay gpiozero's."""
    request = StandInRequest()
    monkeypatch.setattr(thrower_module, "open_button", lambda pin, factory: KernelButton(request, pin))  # type: ignore[arg-type]
    clock = ScriptClock()
    presses: list[float] = []
    holds: list[float] = []
    with StickThrower(pinmap.button, pinmap.leds, pin_factory=mock_factory, clock=clock) as thrower:
        assert isinstance(thrower.button, KernelButton)
        button = thrower.button
        edge = threading.Event()
        thrower.when_pressed = lambda: (presses.append(clock.t), edge.set())
        thrower.when_held = lambda seconds: (holds.append(seconds), edge.set())
        down = button.when_activated
        assert down is not None
        for hold in (0.2, 2.0):
            button.when_activated = lambda: (down(), edge.set())
            request.edges(RISING)
            assert edge.wait(10)
            button.when_activated = down
            edge.clear()
            clock.t += hold
            request.edges(FALLING)
            assert edge.wait(10)
            edge.clear()
    assert presses == [0.2]
    assert holds == [2.0]
    assert button.closed
    assert request.released == 1


def test_mock_pins_keep_gpiozero_s_input_device(mock_factory, pinmap):
    assert kernel_chip(mock_factory) is None
    assert kernel_chip(None) is None  # gpiozero's default here: the mock
    with StickThrower(pinmap.button, pinmap.leds, pin_factory=mock_factory) as thrower:
        assert isinstance(thrower.button, DigitalInputDevice)


class LGPIOFactory:
    chip = 4


@pytest.fixture
def lgpio_factory(monkeypatch):
    """gpiozero's lgpio factory as edges.py recognises it, without importing lgpio here."""
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", types.SimpleNamespace(LGPIOFactory=LGPIOFactory))
    return LGPIOFactory()


def test_gpiozero_s_lgpio_factory_reads_the_button_from_its_chip(lgpio_factory, monkeypatch):
    """The factory's own chip (a Pi 5's may be gpiochip4), through libgpiod."""
    assert kernel_chip(lgpio_factory) == "/dev/gpiochip4"
    asked = []
    request = StandInRequest()
    monkeypatch.setattr(edges, "request_button", lambda chip, pin: (asked.append((chip, pin)), request)[1])
    button = open_button(17, lgpio_factory)
    assert isinstance(button, KernelButton)
    assert asked == [("/dev/gpiochip4", 17)]
    button.close()


def test_without_gpiod_a_pi_s_button_still_works_and_says_its_cost_once(lgpio_factory, monkeypatch, capsys):
    """A 32-bit Pi (PyPI has no armv7l wheel of gpiod): gpiozero's input device, watched by lgpio."""
    made = []
    monkeypatch.setattr(edges, "have_gpiod", lambda: False)
    monkeypatch.setattr(edges, "DigitalInputDevice", lambda pin, **kw: made.append((pin, kw)) or "device")
    assert open_button(17, lgpio_factory) == "device"
    assert made == [(17, {"pull_up": True, "bounce_time": 0.02, "pin_factory": lgpio_factory})]
    said = capsys.readouterr().err
    assert said.count("\n") == 1
    assert "2,000 times a second" in said
    assert f"{sys.executable} -m pip install gpiod" in said


def test_only_libgpiod_2_counts_as_gpiod(monkeypatch):
    """Debian 12's python3-libgpiod is the 1.x API (no request_lines): the button goes without it."""
    assert have_gpiod()
    monkeypatch.setitem(sys.modules, "gpiod", types.SimpleNamespace(Chip=object))
    assert not have_gpiod()
    monkeypatch.setitem(sys.modules, "gpiod", None)  # not installed
    assert not have_gpiod()


def test_a_chip_that_will_not_open_is_one_clear_error(tmp_path):
    """Through libgpiod itself: a missing chip, and a file that is no chip."""
    with pytest.raises(BackendError, match=r"the thrower's button: cannot open .*gpiochip9: No such file"):
        request_button(str(tmp_path / "gpiochip9"), 4)
    not_a_chip = tmp_path / "plain"
    not_a_chip.write_text("")
    with pytest.raises(BackendError, match=r"GPIO 4 of .*plain cannot be read: \w"):
        request_button(str(not_a_chip), 4)


@pytest.mark.parametrize(
    ("code", "hint"),
    [(errno.EBUSY, "is another program using it?"), (errno.EACCES, "in the group gpio?"), (errno.EIO, "")],
)
def test_a_refused_line_says_what_to_look_at(monkeypatch, code, hint):
    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(gpiod, "request_lines", refuse)
    with pytest.raises(BackendError) as caught:
        request_button("/dev/gpiochip0", 4)
    said = str(caught.value)
    assert said.startswith(f"the thrower's button: GPIO 4 of /dev/gpiochip0 cannot be read: {os.strerror(code)}")
    assert said.endswith(f"{hint})" if hint else os.strerror(code))


def test_the_board_reads_its_columns_without_watching_them(pinmap):
    """A column is read by each scan; watched for edges (a DigitalInputDevice's doing) it would keep
    lgpio's alert thread polling on a Pi, as the button did."""
    from gpiozero.pins.mock import MockFactory

    from senet_pi.hardware.board import ReedSwitchBoard

    factory = MockFactory()
    with ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=factory) as board:
        assert [factory.pin(p).when_changed for p in pinmap.columns] == [None] * 5
        assert board.read() == 0
