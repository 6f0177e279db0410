"""A question of the referee that nobody at the table answers: how long it has waited with the
board still, the answer taken for nobody once the wait is over (the likelier reading), and what it
takes to give another answer instead until the next input."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..referee import Referee
from ..referee.state import Saved
from ..rules import Game
from ..verdicts import Verdict
from .view import AssumedView, QuestionView

#: Seconds an open question waits for the people at the table before the likelier answer is taken.
QUESTION_SECONDS = 20.0


@dataclass
class Assumed:
    """An answer the service took for a question nobody answered in time: which, and what it takes
    to give another one instead (the referee as it was with the question open)."""

    question: dict[str, object]  # the question as the page showed it (id, kind, text, options)
    chosen: int  # the option taken
    seconds: float  # how long nobody answered
    saved: Saved  # the referee's snapshot() with the question still open
    seq: int  # the input the answer is (journaled once the chance to change it is over)
    ms: int
    history: int  # len(history) before its verdicts
    verdicts: list[Verdict]

    def view(self) -> AssumedView:
        """The answer taken as the page shows it, open to change."""
        return AssumedView(self.question, self.chosen, self.seconds)


def likelier(question: object, game: Game) -> int:
    """The option a question's likelier reading is: each piece back where it was ("put back", the
    first option of "swap" and "back"), the first way of playing that fits ("which": best first),
    the piece the game had on the square ("whose"), and for pieces set out as at the start a new game
    only once the game is won ("keep" while it is being played)."""
    kind = getattr(question, "kind", "")
    options = list(getattr(question, "options", []) or [])
    if kind == "new_game" and len(options) > 1:
        return 0 if game.is_over else 1  # after a win the pieces set out are the next game; else the game goes on
    if kind == "whose":
        pieces = list(getattr(question, "pieces", []) or [])
        here = game.piece_at(int(getattr(question, "square", 0) or 0))
        if here in pieces:
            return pieces.index(here)
    return 0


class Waiting:
    """When the referee's open question was asked, and with which board: hands on the board start
    its wait again."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._asked: tuple[object, float, int] | None = None  # the open question, since when, the board then

    def watch(self, referee: Referee) -> None:
        """Note when the open question was asked; hands on the board start its wait again."""
        question = referee.question
        if question is None:
            self._asked = None
        elif self._asked is None or self._asked[0] is not question or self._asked[2] != referee.sensed:
            self._asked = (question, self._clock(), referee.sensed)

    def due(self, referee: Referee, seconds: float | None) -> bool:
        """Whether the open question has waited `seconds` with the board still."""
        self.watch(referee)
        if self._asked is None or seconds is None:
            return False
        return self._clock() - self._asked[1] >= seconds - 1e-6  # a clock summed in steps

    def taken(self) -> float:
        """The question is answered for nobody now: how long it waited."""
        assert self._asked is not None
        waited = self._clock() - self._asked[1]
        self._asked = None
        return waited

    def view(self, referee: Referee, seconds: float | None) -> QuestionView | None:
        """The open question as the page shows it: with the option taken if nobody answers, and in
        how many seconds from now, when answers are taken for nobody."""
        question = referee.question
        if not question:
            return None
        if seconds is None:
            return QuestionView(question.verdict())
        since = self._asked[1] if self._asked is not None and self._asked[0] is question else self._clock()
        left = max(0.0, seconds - (self._clock() - since))
        return QuestionView(question.verdict(), likelier(question, referee.game), seconds, round(left, 1))
