"""When the board is idle: an unattended exhibit starts over after IDLE_MINUTES with nobody at the
board (a game that was begun is saved and a new one starts), and the switches' scanner may rest
while the game waits for a press of the button (`hand_expected`). Time is the service's clock,
never a sleep, so tests move a fake clock instead of waiting."""

from __future__ import annotations

from collections.abc import Callable

from ..referee import Referee
from ..referee.state import Mode, Nothing
from ..rules import Game


def hand_expected(referee: Referee) -> bool:
    """Whether the next thing the game wants may be a hand on the board rather than a press of the
    button: True unless it waits for a throw (or the game is won) with no open work (no move owed,
    repair or question) and, for a throw, the board as the game expects (nothing lifted). The
    board's scanner rests early only while this is False (`ReedSwitchBoard.expect_hand`)."""
    if not isinstance(referee.state.open, Nothing):
        return True
    mode = referee.mode
    if mode is Mode.OVER:
        return False
    missing, extra = referee.differences()
    return mode is not Mode.THROW or bool(missing or extra)


class IdleReset:
    """The idle-reset policy: when the last person's input was, and whether a reset is due.

    `minutes=None` switches resets off (not an exhibit); the touches are still tracked, since the
    page's attract loop asks whether the current game has been touched at all."""

    def __init__(self, minutes: float | None, clock: Callable[[], float]) -> None:
        if minutes is not None and not minutes > 0:
            raise ValueError(f"the idle time must be more than 0 minutes, not {minutes!r}")
        self.minutes = minutes
        self._clock = clock
        self._last = clock()
        self.fresh = True  # no person has done anything since the game began

    def touched(self) -> None:
        """A person did something (a switch, the button, the page): the idle time starts again."""
        self._last = self._clock()
        self.fresh = False

    def started_over(self) -> None:
        """A new game began: untouched, and idle from now."""
        self._last = self._clock()
        self.fresh = True

    def idle_for(self) -> float:
        """Seconds since the last person's input (or the new game)."""
        return self._clock() - self._last

    def due(self, game: Game) -> bool:
        """Whether to save `game` and start another: resets are on, nobody did anything for the
        idle time, and the game was begun (a throw or a move), won, or at least touched (pieces
        handled without a throw: the board left wrong, the welcome screen gone). An untouched new
        game is never due, so it is not reset again and again while the exhibit waits."""
        if self.minutes is None or not (game.actions or game.is_over or not self.fresh):
            return False
        return self.idle_for() >= self.minutes * 60
