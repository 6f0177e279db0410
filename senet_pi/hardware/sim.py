"""The simulated board: gpiozero's MockFactory with mock pins wired like the real matrix.

Magnets on squares close reed switches; when the scanner drives a row line, the column pins
read high where a closed switch joins them, exactly as the diodes do on the real board. The
real `ReedSwitchBoard` and `StickThrower` code runs unchanged on top.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from gpiozero.pins.mock import MockFactory, MockPin

from ..rules.board import bit, squares_in
from ..verdicts import Idle, NewGame, Verdict
from .pinmap import PinMap

if TYPE_CHECKING:
    from ..service.core import Service

#: State changes a simulated pin remembers. gpiozero's MockPin keeps every one (for its tests'
#: assert_states), and the scanner changes each row pin 100 times a second: unbounded, that
#: history grows the idle service by about 165 kB/s.
PIN_HISTORY = 64


class BoundedMockPin(MockPin):
    """A MockPin whose `states` history keeps only the last PIN_HISTORY changes."""

    def clear_states(self) -> None:
        super().clear_states()
        self.states = deque(self.states, maxlen=PIN_HISTORY)


def sim_factory() -> MockFactory:
    """A MockFactory whose pins keep a bounded history (see PIN_HISTORY)."""
    return MockFactory(pin_class=BoundedMockPin)


class MatrixRowPin(BoundedMockPin):
    """A row line of the simulated matrix: driving it makes the columns show that row's switches."""

    def __init__(self, factory: MockFactory, info: object, board: SimBoard | None = None) -> None:
        super().__init__(factory, info)
        self.board = board

    def _change_state(self, value: bool) -> bool:
        changed = super()._change_state(value)
        if changed and self.board is not None:
            self.board._drive_columns()
        return changed


class SimBoard:
    """Pieces (magnets) on 30 squares, a thrower button and its LEDs, all on mock pins.

    `place(square)` / `lift(square)` move magnets, `press()` / `release()` work the button;
    `stick(square, "closed"|"open")` and `unstick(square)` simulate a faulty switch.
    """

    def __init__(self, pinmap: PinMap, factory: MockFactory | None = None, occupied: int = 0) -> None:
        self.pinmap = pinmap
        self.factory = factory or sim_factory()
        self.magnets = occupied
        #: How many times the hands changed the magnets: of two readings, the one with more is the newer.
        self.moves = 0
        self.stuck: dict[int, str] = {}
        # Every pin is made here, bounded, before gpiozero's devices ask the factory for them.
        bounded = BoundedMockPin
        self._rows = [self.factory.pin(p, pin_class=MatrixRowPin, board=self) for p in pinmap.rows]
        self._columns = [self.factory.pin(p, pin_class=bounded) for p in pinmap.columns]
        self._button = self.factory.pin(pinmap.button, pin_class=bounded)
        self._leds = [self.factory.pin(p, pin_class=bounded) for p in pinmap.leds]
        if pinmap.buzzer is not None:
            self.factory.pin(pinmap.buzzer, pin_class=bounded)

    # ------------------------------------------------------------------ the hands

    def place(self, square: int) -> None:
        """Put a piece (its magnet) on `square`."""
        self._check(square)
        self.magnets |= bit(square)
        self.moves += 1  # after the magnets: a reading (`pieces`) never pairs old magnets with a new count
        self._drive_columns()

    def lift(self, square: int) -> None:
        """Take the piece off `square`."""
        self._check(square)
        self.magnets &= ~bit(square)
        self.moves += 1
        self._drive_columns()

    def set_occupied(self, occupied: int) -> None:
        """Set every magnet at once (setting up a position)."""
        self.magnets = occupied
        self.moves += 1
        self._drive_columns()

    def pieces(self) -> tuple[int, list[int]]:
        """(moves, the squares with a magnet), the count read first: the squares are never older than
        the count says (a page takes the newest of several readings)."""
        moves = self.moves
        magnets = self.magnets
        return moves, [sq for sq in range(1, 31) if magnets & bit(sq)]

    def press(self) -> None:
        """Push the thrower's button (it pulls its line to ground)."""
        self._button.drive_low()

    def release(self) -> None:
        self._button.drive_high()

    def stick(self, square: int, how: str) -> None:
        """Make a switch stuck "closed" (welded) or "open" (broken), whatever its magnet."""
        if how not in ("closed", "open"):
            raise ValueError("a switch sticks 'closed' or 'open'")
        self._check(square)
        self.stuck[square] = how
        self._drive_columns()

    def unstick(self, square: int) -> None:
        self.stuck.pop(square, None)
        self._drive_columns()

    # ------------------------------------------------------------------ what the pins show

    @property
    def leds(self) -> tuple[bool, ...]:
        """Which stick LEDs are lit."""
        return tuple(bool(pin.state) for pin in self._leds)

    def closed(self) -> int:
        """Squares whose switch is closed now (magnets, unless stuck)."""
        closed = self.magnets
        for square, how in self.stuck.items():
            closed = closed | bit(square) if how == "closed" else closed & ~bit(square)
        return closed

    def _drive_columns(self) -> None:
        """Each column reads high when a driven row's switch on it is closed; only the columns whose
        level changes are driven (the scanner switches a row on and off 12 times a scan)."""
        closed = self.closed()
        high = 0  # bit c: column c pulled high
        for r, pin in enumerate(self._rows):
            if pin.function == "output" and pin.state:
                for c in range(len(self._columns)):
                    if closed & bit(self.pinmap.square_at(r, c)):
                        high |= 1 << c
        for c, pin in enumerate(self._columns):
            level = bool(high & (1 << c))
            if pin.function != "input" or bool(pin.state) == level:
                continue
            if level:
                pin.drive_high()
            else:
                pin.drive_low()

    @staticmethod
    def _check(square: int) -> None:
        if not 1 <= square <= 30:
            raise ValueError(f"square {square!r} is not on the board (1-30)")

    def __repr__(self) -> str:
        return f"<SimBoard {len(squares_in(self.magnets))} pieces>"


def follow_new_games(sim: SimBoard, service: Service) -> Callable[[], None]:
    """Put the simulated pieces where each new game starts, as soon as the service says one began
    (from the page, the terminal, the fleet or the thrower): nobody's hands set a simulated board up.
    The exhibit's idle reset keeps the pieces where they stand (its setup fixes are the point).
    Returns the function that stops following."""

    def heard(verdicts: list[Verdict]) -> None:
        if any(isinstance(v, NewGame) for v in verdicts) and not any(isinstance(v, Idle) for v in verdicts):
            sim.set_occupied(service.expected)

    return service.subscribe(heard)
