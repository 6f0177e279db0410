"""The thrower's button on a Pi's pins: its edges read from the kernel's GPIO character device
(senet_pi/hardware/edges.py), not through lgpio's alert thread. The requests are checked against
linux/gpio.h here; the kernel itself answers them in the gpio-sim test (tests/test_gpio_sim.py)."""

from __future__ import annotations

import os
import struct
import sys
import threading
import types

import pytest
from gpiozero import DigitalInputDevice

from senet_pi.errors import BackendError
from senet_pi.hardware import edges
from senet_pi.hardware import thrower as thrower_module
from senet_pi.hardware.edges import EVENT_SIZE, KernelButton, decode_events, kernel_chip, line_request, open_line
from senet_pi.hardware.thrower import StickThrower
from tests.journal_helpers import ScriptClock


def event(kind: int, seqno: int = 1) -> bytes:
    """A struct gpio_v2_line_event: timestamp_ns, id, offset, seqno, line_seqno, padding[6]."""
    return struct.pack("=QIIII6I", 123, kind, 4, seqno, seqno, *[0] * 6)


def test_the_requests_are_linux_s_own():
    """The ioctl numbers as linux/gpio.h makes them, and the line request's fields where the kernel reads them."""
    assert edges.GET_LINE_IOCTL == 0xC250B407  # _IOWR(0xB4, 0x07, struct gpio_v2_line_request), 592 bytes
    assert edges.GET_VALUES_IOCTL == 0xC010B40E  # _IOWR(0xB4, 0x0E, struct gpio_v2_line_values)
    assert EVENT_SIZE == len(event(1)) == 48
    request = line_request(4, "senet-pi button", 0.02)
    assert len(request) == 592
    assert struct.unpack_from("=2I", request, 0) == (4, 0)  # offsets[0], and no second line
    assert request[256:288].rstrip(b"\0") == b"senet-pi button"
    flags, num_attrs = struct.unpack_from("=QI", request, 288)
    assert flags == 0x4 | 0x10 | 0x20 | 0x100  # input, both edges, pulled up
    assert num_attrs == 1
    assert struct.unpack_from("=IIIIQ", request, 320) == (3, 0, 20000, 0, 1)  # debounce, 20 ms, line 0
    assert struct.unpack_from("=IIi", request, 560) == (1, 0, 0)  # num_lines; the fd comes back at 588
    assert struct.unpack_from("=i", request, 588) == (0,)


def test_edges_decode_as_presses_and_releases():
    data = event(2) + event(1) + event(2) + b"\0" * 10  # a torn tail is left for the next read
    assert decode_events(data) == [True, False, True]


@pytest.fixture
def line():
    """A pipe standing in for a line request's file: the test writes the kernel's edge events."""
    read, write = os.pipe()
    yield read, write
    os.close(write)


def test_a_press_and_a_release_reach_the_handlers_from_the_line_s_file(line):
    read, write = line
    button = KernelButton(read, pressed=False)
    seen: list[str] = []
    done = threading.Event()
    button.when_activated = lambda: seen.append("down")
    button.when_deactivated = lambda: (seen.append("up"), done.set())
    assert not button.is_active
    os.write(write, event(2))
    os.write(write, event(2) + event(1))  # a second falling edge while down is no second press
    assert done.wait(10)
    assert seen == ["down", "up"]
    assert not button.is_active
    assert button._thread.name == "senet-pi button"
    button.close()
    button.close()  # twice is safe
    assert button.closed
    assert not button._thread.is_alive()


def test_an_error_in_a_handler_is_said_once_and_the_button_goes_on(line, capfd):
    read, write = line
    button = KernelButton(read, pressed=False)
    done = threading.Event()

    def broken() -> None:
        raise ValueError("no game")

    button.when_activated = broken
    button.when_deactivated = done.set
    os.write(write, event(2) + event(1) + event(2))
    assert done.wait(10)
    button.when_deactivated = None
    released = threading.Event()
    button.when_activated = released.set
    os.write(write, event(1) + event(2))
    assert released.wait(10)
    button.close()
    said = capfd.readouterr().err
    assert said.count("internal error after a press of the button: ValueError: no game") == 1


def test_a_held_press_is_timed_as_on_gpiozero_s_pins(line, mock_factory, pinmap, monkeypatch):
    """The thrower's gestures through kernel edges: a short press throws, a held one offers (on a
    scripted clock); its LEDs stay gpiozero's."""
    read, write = line
    monkeypatch.setattr(thrower_module, "open_button", lambda pin, factory: KernelButton(read, pressed=False))
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
            os.write(write, event(2))
            assert edge.wait(10)
            button.when_activated = down
            edge.clear()
            clock.t += hold
            os.write(write, event(1))
            assert edge.wait(10)
            edge.clear()
    assert presses == [0.2]
    assert holds == [2.0]
    assert button.closed


def test_mock_pins_keep_gpiozero_s_input_device(mock_factory, pinmap):
    assert kernel_chip(mock_factory) is None
    assert kernel_chip(None) is None  # gpiozero's default here: the mock
    with StickThrower(pinmap.button, pinmap.leds, pin_factory=mock_factory) as thrower:
        assert isinstance(thrower.button, DigitalInputDevice)


def test_gpiozero_s_lgpio_factory_reads_the_button_from_its_chip(monkeypatch):
    """The factory's own chip (a Pi 5's may be gpiochip4), found without importing lgpio here."""

    class LGPIOFactory:
        chip = 4

    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", types.SimpleNamespace(LGPIOFactory=LGPIOFactory))
    assert kernel_chip(LGPIOFactory()) == "/dev/gpiochip4"  # type: ignore[arg-type]


def test_a_chip_that_will_not_open_is_one_clear_error(tmp_path):
    with pytest.raises(BackendError, match=r"the thrower's button: cannot open .*gpiochip9: No such file"):
        open_line(str(tmp_path / "gpiochip9"), 4)
    not_a_chip = tmp_path / "plain"
    not_a_chip.write_text("")
    with pytest.raises(BackendError, match=r"GPIO 4 of .*plain cannot be read: .*another program"):
        open_line(str(not_a_chip), 4)


def test_the_board_reads_its_columns_without_watching_them(pinmap):
    """A column is read by each scan; watched for edges (a DigitalInputDevice's doing) it would keep
    lgpio's alert thread polling on a Pi, as the button did."""
    from gpiozero.pins.mock import MockFactory

    from senet_pi.hardware.board import ReedSwitchBoard

    factory = MockFactory()
    with ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=factory) as board:
        assert [factory.pin(p).when_changed for p in pinmap.columns] == [None] * 5
        assert board.read() == 0
