"""What a judge proposes: small frozen values, one kind per thing the referee may do with a board.

The judging parts (`Judging`, `Ways`, `Faults`) read the state and the game and return one of
these; only the core applies it (`Core.dispose`), changing the state and saying the verdicts that
follow. So a judge can be asked what it thinks without anything changing (python-chess: move
generation reads the board, only `push` changes it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rules.text import Text
from .attempt import Identity
from .candidates import Candidate
from .physical import piece_name
from .state import Fit, Mixed, NewGameQuestion, Question, WhichQuestion, WhoseQuestion


@dataclass(frozen=True)
class Accept:
    """Accept the way to play `cand` as far as `stage`; `strays`: with stray changes beside it
    (a knock, a spare, a weld), which are then warned with their fixes."""

    cand: Candidate
    stage: int
    strays: bool = False


@dataclass(frozen=True)
class Revise:
    """The throw already accepted was played another way: take its moves back and accept this one."""

    cand: Candidate
    stage: int


@dataclass(frozen=True)
class Ask:
    """Ask the operator rather than guess: `question` (numbered when it is put)."""

    question: Question


@dataclass(frozen=True)
class Warn:
    """The board is wrong: warn with the fixes from `board` toward `toward` (the expected board when
    None); `taken_back`: the last move was taken back before the owed steps were done."""

    board: int
    toward: int | None = None
    taken_back: bool = False


@dataclass(frozen=True)
class Wrong:
    """A settled board that nothing explains: counted against the switches that differ from `target`
    (one wrong too long without changing is judged faulty), else warned as `warn` says."""

    target: int
    warn: Warn


@dataclass(frozen=True)
class MarkFaulty:
    """Judge these switches faulty, each (square, fault) in turn, judging the board again after each
    (switches dead under owed steps; a stuck one is found while a `Wrong` board is counted)."""

    marks: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class StepsDone:
    """The owed steps are done as far as `stage` of the owed way."""

    stage: int


@dataclass(frozen=True)
class TakenBack:
    """The board stands as before the last move, whose pieces the hands lifted: the provisional move's
    evidence starts again from `board`, and the operator is asked whether to undo it."""

    board: int


@dataclass(frozen=True)
class AfterTheEnd:
    """The game is won and the board is being cleared: no wrong board counts against a switch; once
    the start setup stands (`setup`), a new game is offered."""

    setup: bool


@dataclass(frozen=True)
class Keep:
    """The hands' stories narrowed to those with `pieces` where they say, then `then`."""

    pieces: tuple[tuple[int, Identity], ...]
    then: Outcome


@dataclass(frozen=True)
class Good:
    """The board is right, who stands where too: the hands' evidence starts afresh, and a warning
    standing (or, `force`, none) is cleared; a move begun and taken back is said to be settled."""

    force: bool = False


@dataclass(frozen=True)
class Afresh:
    """The board is trusted as it is (the hands' evidence starts afresh from here), then `then`."""

    then: Outcome


@dataclass(frozen=True)
class Repaired:
    """The repair under way is done, then `then`."""

    then: Outcome


@dataclass(frozen=True)
class Clearing:
    """Every square is right, only who is where is in doubt: a warning standing is cleared, then `then`."""

    then: Outcome


@dataclass(frozen=True)
class SwapWarn:
    """Two pieces swapped by hand that no legal move exchanges: warn, to swap them back (`mixed`: other
    pieces said to stand on each other's squares, put right after)."""

    a: int
    b: int
    mixed: Mixed


@dataclass(frozen=True)
class ReplaceWarn:
    """The piece on `square` is `real`, not the game's, whose own is on no other square: warn, to
    replace it (`mixed`: other pieces said to stand on each other's squares, put right after)."""

    square: int
    real: Identity
    mixed: Mixed


@dataclass(frozen=True)
class Wait:
    """Nothing to say yet: a move under way, or pieces held in the hand."""


#: Everything a judge may propose.
Outcome = (
    Accept
    | Revise
    | Ask
    | Warn
    | Wrong
    | MarkFaulty
    | StepsDone
    | TakenBack
    | AfterTheEnd
    | Keep
    | Wait
    | Good
    | Afresh
    | Repaired
    | Clearing
    | SwapWarn
    | ReplaceWarn
)


def new_game_question() -> Ask:
    """The pieces stand as at the start: offer a new game."""
    text = Text("The pieces stand as at the start. Start a new game?")
    return Ask(NewGameQuestion(text=text, options=[Text("new game"), Text("keep")]))


def whose(square: int, pieces: Sequence[Identity]) -> Ask:
    """Ask which of the pieces stands on `square`: people see colours, the switches do not."""
    options: list[str] = [piece_name(p) for p in pieces]
    text = Text("Whose piece is on {square} now?", square=square)
    return Ask(WhoseQuestion(text=text, options=options, square=square, pieces=tuple(pieces)))


def which(text: str, options: Sequence[str], fits: Sequence[Fit], revise: bool = False) -> Ask:
    """Ask which of the ways `fits` was played (options past them: "no move")."""
    return Ask(WhichQuestion(text=text, options=list(options), fits=tuple(fits), revise=revise))
