"""The thrower's button on a Pi: its presses wait in the kernel until they come.

gpiozero watches a pin's edges through its pin factory; on a Pi that is lgpio, whose alert thread
polls every watched line every 0.5 ms (`ppoll` with a fixed timeout in lgpio's C library) for as
long as one is watched: about 2,000 wake-ups a second, all day, for one button (found under
emulation, docs/benchmarks.md, "Scanning the board"). So on gpiozero's lgpio factory the button is
read through libgpiod's official Python bindings (`gpiod`, the `pi` extra on a 64-bit Pi): one line
asked of the kernel with both edges, the pull-up and the kernel's own debounce, and one thread
asleep on the request's file until an edge comes. Everywhere else (gpiozero's mock pins, or a Pi
without `gpiod`) it stays a gpiozero `DigitalInputDevice`. Both have the same face:
`when_activated`, `when_deactivated`, `is_active`, `close()`.
"""

from __future__ import annotations

import errno
import os
import select
import sys
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Protocol, cast

from gpiozero import DigitalInputDevice

from ..errors import BackendError

if TYPE_CHECKING:
    from gpiod import LineRequest
    from gpiozero.pins import Factory

#: Seconds a button's line must stay put before its change counts (a press's contacts bounce).
BOUNCE = 0.02
CONSUMER = "senet-pi button"
#: Said once when a Pi's button has to be watched by lgpio: it works, at a cost.
NO_GPIOD = (
    "senet-pi: the thrower's button is watched through lgpio, whose thread wakes about 2,000 times a"
    " second: install gpiod into senet-pi's Python for a button that sleeps until pressed"
    " ({python} -m pip install gpiod; Troubleshooting)"
)
#: What the kernel's refusals mean for a person wiring a board.
_WHY = {
    errno.EBUSY: " (is another program using it?)",
    errno.EACCES: " (is senet-pi's user in the group gpio?)",
    errno.EPERM: " (is senet-pi's user in the group gpio?)",
}


class ButtonLine(Protocol):
    """What the thrower needs of its button's line, on any pins."""

    when_activated: Callable[[], object] | None
    when_deactivated: Callable[[], object] | None

    @property
    def is_active(self) -> bool: ...

    def close(self) -> None: ...


class KernelButton:
    """A push button between a GPIO line and ground, its edges read from a libgpiod line request.

    The request (`request_button`) is touched by one thread at a time, as libgpiod asks: read here
    before the watch starts, then only by the thread "senet-pi button", which sleeps in `select` on
    its file until an edge comes, and released once that thread has ended."""

    def __init__(self, request: LineRequest, offset: int) -> None:
        from gpiod.line import Value

        self.when_activated: Callable[[], object] | None = None
        self.when_deactivated: Callable[[], object] | None = None
        self._request: LineRequest | None = request
        self._pressed = request.get_value(offset) == Value.ACTIVE  # asked active-low: pressed is active
        self._quit_read, self._quit_write = os.pipe()
        self._thread = threading.Thread(target=self._watch, args=(request,), name=CONSUMER, daemon=True)
        self._thread.start()

    @property
    def is_active(self) -> bool:
        """Whether the button is down (as of its last debounced edge)."""
        return self._pressed

    @property
    def closed(self) -> bool:
        return self._request is None

    def _watch(self, request: LineRequest) -> None:
        from gpiod import EdgeEvent

        said = ""
        while True:
            try:
                ready, _, _ = select.select([request.fd, self._quit_read], [], [])
                if self._quit_read in ready:
                    return
                events = request.read_edge_events()
            except (OSError, ValueError):
                return  # released under us: nothing more will come
            for event in events:
                said = self._edge(event.event_type is EdgeEvent.Type.RISING_EDGE, said)

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
        request, self._request = self._request, None
        if request is None:
            return
        os.write(self._quit_write, b"q")
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        request.release()
        for f in (self._quit_read, self._quit_write):
            os.close(f)


def request_button(chip: str, offset: int, debounce: float = BOUNCE) -> LineRequest:
    """Ask the kernel, through libgpiod, for one button line of `chip` (a /dev/gpiochipN): an input
    pulled up, active low (pressed), both edges, debounced `debounce` s by the kernel.
    BackendError, saying which line and why, when it refuses."""
    import gpiod
    from gpiod.line import Bias, Direction, Edge

    settings = gpiod.LineSettings(
        direction=Direction.INPUT,
        edge_detection=Edge.BOTH,
        bias=Bias.PULL_UP,
        active_low=True,
        debounce_period=timedelta(seconds=debounce),
    )
    try:
        return gpiod.request_lines(chip, consumer=CONSUMER, config={offset: settings})
    except FileNotFoundError as exc:
        raise BackendError(f"the thrower's button: cannot open {chip}: {exc.strerror}") from None
    except OSError as exc:
        why = _WHY.get(exc.errno or 0, "")
        raise BackendError(
            f"the thrower's button: GPIO {offset} of {chip} cannot be read: {exc.strerror}{why}"
        ) from None


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


def have_gpiod() -> bool:
    """Whether libgpiod's Python bindings (2.x, `gpiod.request_lines`) are installed here."""
    try:
        import gpiod
    except ImportError:
        return False
    return hasattr(gpiod, "request_lines")  # not the old 1.x bindings (Debian 12's python3-libgpiod)


def open_button(pin: int, factory: Factory | None) -> ButtonLine:
    """The thrower's button on `pin` (pulled up, pressed when low, debounced BOUNCE s): read from
    the kernel through libgpiod under lgpio, else a gpiozero `DigitalInputDevice` on `factory`."""
    chip = kernel_chip(factory)
    if chip is not None and have_gpiod():
        return KernelButton(request_button(chip, pin), pin)
    if chip is not None:
        print(NO_GPIOD.format(python=sys.executable), file=sys.stderr, flush=True)
    return DigitalInputDevice(pin, pull_up=True, bounce_time=BOUNCE, pin_factory=factory)
