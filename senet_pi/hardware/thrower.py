"""The stick thrower: a push button and four LEDs (one per casting stick), and an optional buzzer.

Gestures: a short press (under 1.5 s) throws; holding 1.5-4 s offers to undo the last move,
holding 4 s or more offers a new game, and a short press within 10 s confirms the offer.
The device only reports gestures and shows patterns; what a press means for the game is
decided by the backend that owns it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gpiozero import Buzzer, LEDBoard

from .device import Device, EventHandler
from .edges import ButtonLine, open_button

if TYPE_CHECKING:
    from gpiozero.pins import Factory

#: Holding the button at least this long is a long press, not a throw.
LONG_PRESS = 1.5
#: Holding at least this long offers a new game rather than an undo.
VERY_LONG_PRESS = 4.0


class PressTimer:
    """What a press of the thrower's button was, timed from `down()` to `up()` on one clock.

    The one gesture rule for both buttons: the push button on a Pi's pins and the USB
    bridge's button frames. The clock is injected (tests step it), so the timing is not
    gpiozero's `hold_time`, which waits on a thread in real time."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._down_at: float | None = None

    def down(self) -> None:
        """The button went down."""
        self._down_at = self._clock()

    def up(self, pressed: Callable[[], None] | None, held: Callable[[float], None] | None) -> None:
        """The button came up: `pressed()` after a short press, `held(seconds)` after a long one."""
        if self._down_at is None:
            return
        seconds = self._clock() - self._down_at
        self._down_at = None
        if seconds < LONG_PRESS:
            if pressed:
                pressed()
        elif held:
            held(seconds)


class Sticks:
    """Four stick LEDs, however they are driven: subclasses must implement `show`, `refuse`,
    `bonus` and `offer`; the tumbling of a throw is built on `show`."""

    def show(self, faces: Sequence[int]) -> None:
        """Light the sticks that show their counted side."""
        raise NotImplementedError

    def throw_pattern(self, faces: Sequence[int], spin: float = 0.6) -> None:
        """The sticks tumble (a chase round the four LEDs for `spin` seconds), then settle on `faces`."""
        steps = max(1, int(spin / 0.05))
        for i in range(steps):
            self.show([int(j == i % 4) for j in range(4)])
            time.sleep(spin / steps)
        self.show(faces)

    def refuse(self) -> None:
        raise NotImplementedError

    def bonus(self) -> None:
        raise NotImplementedError

    def offer(self) -> None:
        raise NotImplementedError


class StickThrower(Sticks, Device):
    """A push button and an `LEDBoard` of four sticks (plus a `Buzzer` if fitted).

    `when_pressed()` is called on a short press, `when_held(seconds)` after a long one. The button
    (pulled up, pressed when low) is not gpiozero's `Button`: a `Button` keeps a thread that wakes
    10 times a second for its `hold_time`, all day, and the press is timed here instead
    (`PressTimer`). On a Pi's pins its edges come from the kernel, not lgpio's alert thread, which
    would wake 2,000 times a second (edges.py); on other pins it is a `DigitalInputDevice`.
    """

    when_pressed = EventHandler()
    when_held = EventHandler()

    def __init__(
        self,
        button: int,
        leds: Sequence[int],
        buzzer: int | None = None,
        *,
        pin_factory: Factory | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._timer = PressTimer(clock)
        self.button: ButtonLine | None = None
        self.leds: LEDBoard | None = None
        self.buzzer: Buzzer | None = None
        try:
            self.button = open_button(button, pin_factory)
            self.leds = LEDBoard(*leds, pin_factory=pin_factory)
            if buzzer is not None:
                self.buzzer = Buzzer(buzzer, pin_factory=pin_factory)
        except Exception:
            self.close()
            raise
        self.when_pressed = None
        self.when_held = None
        self.button.when_activated = self._timer.down
        self.button.when_deactivated = self._up

    def _up(self) -> None:
        self._timer.up(self.when_pressed, self.when_held)

    @property
    def closed(self) -> bool:
        return self.leds is None

    # ------------------------------------------------------------------ patterns

    def show(self, faces: Sequence[int]) -> None:
        """Light the sticks that show their counted side."""
        self._check_open()
        assert self.leds is not None
        self.leds.value = tuple(bool(f) for f in faces)

    def refuse(self) -> None:
        """Not now: all four blink fast three times (and the buzzer beeps)."""
        self._check_open()
        assert self.leds is not None
        self.leds.blink(on_time=0.08, off_time=0.08, n=3, background=True)
        if self.buzzer is not None:
            self.buzzer.beep(on_time=0.08, off_time=0.08, n=3, background=True)

    def bonus(self) -> None:
        """Throw again: the outer two sticks pulse twice."""
        self._check_open()
        assert self.leds is not None
        self.leds.value = (0, 0, 0, 0)
        for index in (0, 3):
            self.leds[index].blink(on_time=0.15, off_time=0.15, n=2, background=True)
        if self.buzzer is not None:
            self.buzzer.beep(on_time=0.05, off_time=0.1, n=2, background=True)

    def offer(self) -> None:
        """An undo or new game is on offer: the sticks pulse together until it is confirmed or lapses."""
        self._check_open()
        assert self.leds is not None
        self.leds.blink(on_time=0.4, off_time=0.4, n=12, background=True)

    def close(self) -> None:
        """Release the pins; safe to call twice."""
        for device in (self.button, self.leds, self.buzzer):
            if device is not None:
                device.close()
        self.button = self.leds = self.buzzer = None

    def __repr__(self) -> str:
        if self.closed:
            return "<StickThrower closed>"
        assert self.leds is not None
        lit = "".join("|" if v else "." for v in self.leds.value)
        return f"<StickThrower sticks {lit}>"
