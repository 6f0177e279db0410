"""The thrower's button on a Pi: its presses wait in the kernel until they come.

gpiozero watches a pin's edges through its pin factory; on a Pi that is lgpio, whose alert thread
polls every watched line every 0.5 ms (`ppoll` with a fixed timeout in lgpio's C library) for as
long as one is watched: about 2,000 wake-ups a second, all day, for one button (found under
emulation, docs/benchmarks.md, "Scanning the board"). So on gpiozero's lgpio factory the button is
read here instead, through the kernel's GPIO character device (its uAPI v2, a stable ABI): one line
asked for with both edges, the pull-up and the kernel's own debounce, and one thread asleep on the
line's file until an edge comes. Everywhere else (gpiozero's mock pins) it stays a gpiozero
`DigitalInputDevice`. Both have the same face: `when_activated`, `when_deactivated`, `is_active`,
`close()`.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

from gpiozero import DigitalInputDevice

from ..errors import BackendError

if TYPE_CHECKING:
    from gpiozero.pins import Factory

#: Seconds a button's line must stay put before its change counts (a press's contacts bounce).
BOUNCE = 0.02

# linux/gpio.h, uAPI v2 (Linux 5.10 on; every Pi OS since 2021)
_IOCTL_MAGIC = 0xB4
_LINE_REQUEST_SIZE = 592  # struct gpio_v2_line_request
_LINE_VALUES_SIZE = 16  # struct gpio_v2_line_values
EVENT_SIZE = 48  # struct gpio_v2_line_event
FLAG_INPUT = 1 << 2
FLAG_EDGE_RISING = 1 << 4
FLAG_EDGE_FALLING = 1 << 5
FLAG_BIAS_PULL_UP = 1 << 8
ATTR_DEBOUNCE = 3
EVENT_RISING = 1
EVENT_FALLING = 2


def _iowr(number: int, size: int) -> int:
    """The kernel's _IOWR(0xB4, number, size): a read-write ioctl of the GPIO character device."""
    return (3 << 30) | (size << 16) | (_IOCTL_MAGIC << 8) | number


GET_LINE_IOCTL = _iowr(0x07, _LINE_REQUEST_SIZE)
GET_VALUES_IOCTL = _iowr(0x0E, _LINE_VALUES_SIZE)


class ButtonLine(Protocol):
    """What the thrower needs of its button's line, on any pins."""

    when_activated: Callable[[], object] | None
    when_deactivated: Callable[[], object] | None

    @property
    def is_active(self) -> bool: ...

    def close(self) -> None: ...


def line_request(offset: int, consumer: str, debounce: float) -> bytearray:
    """A `struct gpio_v2_line_request` for one input line: both edges, pulled up, debounced."""
    request = bytearray(_LINE_REQUEST_SIZE)
    struct.pack_into("=I", request, 0, offset)  # offsets[64]: the first
    struct.pack_into("=32s", request, 256, consumer.encode("ascii", "replace")[:31])
    flags = FLAG_INPUT | FLAG_EDGE_RISING | FLAG_EDGE_FALLING | FLAG_BIAS_PULL_UP
    struct.pack_into("=QI", request, 288, flags, 1)  # config: flags, num_attrs (then padding[5])
    # config.attrs[0]: the debounce period (id, padding, the union's u32) for the lines in mask 1
    struct.pack_into("=III4xQ", request, 320, ATTR_DEBOUNCE, 0, round(debounce * 1e6), 1)
    struct.pack_into("=I", request, 560, 1)  # num_lines (event_buffer_size 0: the kernel's default)
    return request


def decode_events(data: bytes) -> list[bool]:
    """Each whole `struct gpio_v2_line_event` in `data`: True for a falling edge (pressed: the
    button pulls its line to ground), False for a rising one."""
    found = []
    for start in range(0, len(data) - EVENT_SIZE + 1, EVENT_SIZE):
        _, kind = struct.unpack_from("=QI", data, start)
        if kind in (EVENT_RISING, EVENT_FALLING):
            found.append(kind == EVENT_FALLING)
    return found


class KernelButton:
    """A push button between a GPIO line and ground, its edges read from the line's file.

    `line_fd`: the file of a line request (`open_line`); `pressed`: whether it is down now. The
    handlers run in the thread "senet-pi button", which sleeps in `select` until an edge comes."""

    def __init__(self, line_fd: int, pressed: bool) -> None:
        self.when_activated: Callable[[], object] | None = None
        self.when_deactivated: Callable[[], object] | None = None
        self._fd: int | None = line_fd
        self._pressed = pressed
        self._quit_read, self._quit_write = os.pipe()
        self._thread = threading.Thread(target=self._watch, name="senet-pi button", daemon=True)
        self._thread.start()

    @property
    def is_active(self) -> bool:
        """Whether the button is down (as of its last debounced edge)."""
        return self._pressed

    @property
    def closed(self) -> bool:
        return self._fd is None

    def _watch(self) -> None:
        fd, said = self._fd, ""
        assert fd is not None
        while True:
            try:
                ready, _, _ = select.select([fd, self._quit_read], [], [])
                if self._quit_read in ready:
                    return
                data = os.read(fd, EVENT_SIZE * 16)
            except (OSError, ValueError):
                return  # closed under us (by a handler of its own, say)
            if not data:
                return
            for pressed in decode_events(data):
                said = self._edge(pressed, said)

    def _edge(self, pressed: bool, last_error: str) -> str:
        """One debounced edge: its handler (an error in it is said once, and the watch goes on)."""
        if pressed == self._pressed:
            return last_error
        self._pressed = pressed
        handler = self.when_activated if pressed else self.when_deactivated
        try:
            if handler is not None:
                handler()
        except Exception as exc:
            said = f"senet-pi: internal error after a press of the button: {type(exc).__name__}: {exc}"
            if said != last_error:
                print(said, file=sys.stderr, flush=True)
            return said
        return last_error

    def close(self) -> None:
        """Stop watching and let go of the line; safe to call twice."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        os.write(self._quit_write, b"q")
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        for f in (fd, self._quit_read, self._quit_write):
            os.close(f)


def open_line(chip: str, offset: int, debounce: float = BOUNCE) -> tuple[int, bool]:
    """Ask the kernel for one button line of `chip` (a /dev/gpiochipN): the line's file, and
    whether the button is down now. BackendError, saying which line, when the kernel refuses."""
    try:
        chip_fd = os.open(chip, os.O_RDWR | os.O_CLOEXEC)
    except OSError as exc:
        raise BackendError(f"the thrower's button: cannot open {chip}: {exc.strerror}") from None
    try:
        request = line_request(offset, "senet-pi button", debounce)
        fcntl.ioctl(chip_fd, GET_LINE_IOCTL, request, True)
    except OSError as exc:
        raise BackendError(
            f"the thrower's button: GPIO {offset} of {chip} cannot be read: {exc.strerror}"
            " (is another program using it?)"
        ) from None
    finally:
        os.close(chip_fd)
    (line_fd,) = struct.unpack_from("=i", request, 588)
    values = bytearray(struct.pack("=QQ", 0, 1))
    try:
        fcntl.ioctl(line_fd, GET_VALUES_IOCTL, values, True)
    except OSError as exc:
        os.close(line_fd)
        raise BackendError(f"the thrower's button: GPIO {offset} of {chip} cannot be read: {exc.strerror}") from None
    (bits,) = struct.unpack_from("=Q", values, 0)
    return line_fd, not bits & 1  # pulled up: low is pressed


def kernel_chip(factory: Factory | None) -> str | None:
    """The GPIO character device under gpiozero's lgpio factory (`/dev/gpiochipN`), or None for any
    other factory (mock pins), whose edges cost nothing at rest. None: gpiozero's default, if chosen."""
    if factory is None:
        from gpiozero import Device

        factory = Device.pin_factory
    lgpio_pins = sys.modules.get("gpiozero.pins.lgpio")  # loaded whenever such a factory exists
    if factory is None or lgpio_pins is None or not isinstance(factory, lgpio_pins.LGPIOFactory):
        return None
    chip: int = cast(Any, factory).chip  # the stubs do not know LGPIOFactory
    return f"/dev/gpiochip{chip}"


def open_button(pin: int, factory: Factory | None) -> ButtonLine:
    """The thrower's button on `pin` (pulled up, pressed when low, debounced BOUNCE s): read from
    the kernel under lgpio, else a gpiozero `DigitalInputDevice` on `factory`."""
    chip = kernel_chip(factory)
    if chip is None:
        return DigitalInputDevice(pin, pull_up=True, bounce_time=BOUNCE, pin_factory=factory)
    return KernelButton(*open_line(chip, pin))
