"""The referee: turns switch changes, throws and operator actions into verdicts.

The switches tell only which squares hold a piece. The referee knows whose piece is where
by following the game from its setup, judges the board only once it has been still for
the settle time, and compares that settled board with the boards the legal moves would
leave, using the order of events only as cause and effect (see `attempt.py`): a piece is
put down after it is picked up, an exchange empties both squares at once. Slides, bounces
and pieces held in the hand are never flagged; a move stays provisional until the next
throw, so a board that settles into another way of playing the same throw revises it.
Time comes in with every event (seconds, any origin), so the
same referee runs on a real clock, in replays and in tests.

The parts, composed here over one `Core` (the game, the one `RefereeState`, and the outcomes:
accept, warn, ask): `Faults` (its own switches), `Ways` (which way to play the throw, revisions),
`Judging` (a settled board), `Actions` (time, throws and the operator's actions); each says in
its docstring what it reads and what it may change. This file is the one entry point for every
input.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import RefereeError
from ..events import (
    INPUT_KINDS,
    Answer,
    CardAction,
    Input,
    Lift,
    MoveEntry,
    NewGame,
    Place,
    Resync,
    Sense,
    Throw,
    Tick,
    Undo,
    read_input,
)
from ..rules import Game, Move
from ..rules.board import bit, squares_in
from ..rules.reasons import Reason
from ..rules.text import Text
from ..verdicts import Illegal, Progress, Sensor, Switch, Verdict
from .actions import Actions
from .attempt import Attempt
from .core import GUIDANCE_DELAY, SETTLE_TIME, Core
from .guidance import board_differences
from .physical import Step
from .state import Mode, Owed, Question, RefereeState, Saved, Status, Warning

__all__ = ["GUIDANCE_DELAY", "SETTLE_TIME", "Referee", "RefereeError"]


class Referee:
    """Follows one game on a board whose switches sense occupancy only.

    Contract: the one entry point. It holds a `Core` (the game, the one state, the judges and the
    one place their proposals are applied) and the `Actions` over it; `take` dispatches a typed
    input (`events.Input`) on its type, and `apply` reads one given by name into that value
    first; a switch change updates the sensed board and the evidence, and nothing else; an input
    the referee fails on costs that input only (`restore`). Its surface is what the service, the
    page, the command line and the tests call: the inputs, and the state read-only."""

    INPUTS = INPUT_KINDS

    def __init__(self, game: Game, *, settle: float = SETTLE_TIME, guidance_delay: float = GUIDANCE_DELAY) -> None:
        self.core = Core(game, settle=settle, guidance_delay=guidance_delay)
        self.actions = Actions(self.core)

    # what the service, the page and the tests read (the state's own fields, read-only)

    @property
    def game(self) -> Game:
        """The game the referee follows (a new game replaces it)."""
        return self.core.game

    @property
    def state(self) -> RefereeState:
        """The referee's one state, as a typed value (for the service's questions and the tests)."""
        return self.core.state

    @property
    def mode(self) -> Mode:
        """What the referee waits for now (the most pressing business first)."""
        return self.core.mode

    @property
    def steps_left(self) -> list[Step]:
        """The steps the people still owe, in order."""
        return self.core.steps_left

    @property
    def start_board(self) -> int:
        """The occupancy of the rule set's starting setup."""
        return self.core.start_board

    def snapshot(self) -> Saved:
        """Everything an input may change, to put back if judging it fails (`restore`)."""
        return self.core.snapshot()

    def restore(self, saved: Saved) -> None:
        """The referee and its game as `snapshot` took them (the snapshot stays usable again)."""
        self.core.restore(saved)

    @property
    def sensed(self) -> int:
        """The occupancy the switches sense now."""
        return self.state.sensed

    @property
    def expected(self) -> int:
        """The occupancy the board should show now."""
        return self.state.expected

    @property
    def sensing(self) -> bool:
        """Whether the board has switches (a switch event has been seen)."""
        return self.state.sensing

    @property
    def now(self) -> float:
        """The latest time an input came with, seconds."""
        return self.state.now

    @property
    def attempt(self) -> Attempt:
        """The hands' evidence since the board was last trusted."""
        return self.state.attempt

    @property
    def warning(self) -> Warning | None:
        """The warning standing over a wrong board, if any."""
        return self.state.warning

    @property
    def question(self) -> Question | None:
        """The question open to the operator, if any."""
        return self.state.question

    @property
    def faults(self) -> dict[int, str]:
        """The squares whose switch is judged faulty, with the fault in words."""
        return self.state.switches.faults

    @property
    def owed(self) -> Owed | None:
        """The steps of the rules' own moves the people still owe, if any."""
        return self.state.owed

    @property
    def in_progress(self) -> bool:
        """Whether the board shows a move part way (pieces in the hand on the way to a legal move)."""
        return self.state.in_progress

    # ------------------------------------------------------------------ for the page

    def differences(self) -> tuple[list[int], list[int]]:
        """The sensed board against the expected one: (missing, extra), faulty switches left out."""
        return board_differences(self.state.sensed, self.state.expected, self.core.unknown)

    def status(self) -> Status:
        """The referee's open business: the sensed board against the expected one, the prompt,
        warning or question open, the switches judged faulty (the game's own state is the game's),
        as a typed view; its callers turn it into JSON (`Status.as_dict`)."""
        state = self.state
        return Status(
            self.mode,
            tuple(squares_in(state.sensed)),
            tuple(squares_in(state.expected)),
            state.in_progress,
            state.owed.prompt() if state.owed is not None else None,
            state.warning.verdict() if state.warning is not None else None,
            state.question.verdict() if state.question is not None else None,
            dict(sorted(self.faults.items())),
        )

    # ------------------------------------------------------------------ the operator's actions (`Actions`)

    def tick(self, at: float) -> list[Verdict]:
        """Time passed with no change (see `Actions.tick`)."""
        return self.actions.tick(at)

    def flush(self) -> list[Verdict]:
        """Judge the board now as if it had settled (end of a replay, or a button pressed)."""
        return self.actions.flush()

    def throw(self, value: object, at: float | None = None) -> list[Verdict]:
        """A throw for the player to move (see `Actions.throw`)."""
        return self.actions.throw(value, at)

    def play_card(self, kind: str, value: object, at: float | None = None) -> list[Verdict]:
        """The card game's turn actions: play a card, exchange one or two, or pass."""
        return self.actions.play_card(kind, value, at)

    def answer(self, choice: int | str, at: float | None = None) -> list[Verdict]:
        """The operator's answer to the open question: an option's index or its text."""
        return self.actions.answer(choice, at)

    def undo(self, at: float | None = None) -> list[Verdict]:
        """Take back the last move (or the moves the board showed together)."""
        return self.actions.undo(at)

    def resync(self, at: float | None = None) -> list[Verdict]:
        """Let the board win: take the sensed occupancy as the position."""
        return self.actions.resync(at)

    def enter_move(self, from_sq: int, to_sq: int, by: int = 0, at: float | None = None) -> list[Verdict]:
        """A move entered by hand (a board without sensors, a dead switch, or an answer to "which")."""
        return self.actions.enter_move(from_sq, to_sq, by, at)

    def unseen_move(self) -> Move | None:
        """The one move the board cannot show, when the thrower's button may mean it; else None."""
        return self.actions.unseen_move()

    def throw_blocked(self) -> str | None:
        """Why a throw would be refused now, or None."""
        return self.actions.throw_blocked()

    # ------------------------------------------------------------------ inputs

    def apply(self, kind: str, value: object, at: float) -> list[Verdict]:
        """Any input by name, as replay files and the journal store them: read into its typed value
        (`events.read_input`) and judged by `take`. A kind the referee does not take, or a value of
        the wrong shape, comes back as an `illegal` verdict with nothing else changed (`refuse`).
        The adapter for tests, scripts and benchmarks: the package reads its inputs where they enter."""
        try:
            entry = read_input(kind, value)
        except (ValueError, TypeError) as exc:
            return self.refuse(kind, exc, at)
        return self.take(entry, at)

    def refuse(self, kind: str, error: ValueError | TypeError, at: float) -> list[Verdict]:
        """The refusal of an input by name that does not read (`read_input` raised `error`): an
        unknown kind is not taken now; a value of the wrong shape cannot be judged, though its time passed."""
        player = self.game.to_move_id
        if isinstance(error, TypeError):
            self.state.now = max(self.state.now, at)
            return _stamped([_cannot_judge(kind, error)], player)
        return _stamped([Illegal.because(Reason.NOT_NOW, why=str(error))], player)

    def take(self, entry: Input, at: float) -> list[Verdict]:
        """One typed input at time `at` (seconds). Operator mistakes (no question to answer, nothing
        to undo) come back as `illegal` verdicts; so does an input the referee fails to judge, with
        the game and the board as they were before it (a switch change is still taken as the
        board's new state)."""
        player = self.game.to_move_id
        saved = self.snapshot()
        verdicts: list[Verdict]
        try:
            verdicts = self._take(entry, at)
        except RefereeError as exc:
            verdicts = [Illegal.because(Reason.NOT_NOW, why=str(exc))]
        except Exception as exc:  # a bug must cost this input, never the game or the journal
            self.restore(saved)
            verdicts = self._unjudged(entry, at, exc)
        return _stamped(verdicts, player)

    def _take(self, entry: Input, at: float) -> list[Verdict]:
        match entry:
            case Throw(throw):
                return self.throw(throw, at=at)
            case CardAction(card_kind, card):
                return self.actions.play_card(card_kind, card, at=at)
            case MoveEntry(from_sq, to_sq, by):
                return self.enter_move(from_sq, to_sq, by, at=at)
            case Lift(square):
                return self.lift(square, at)
            case Place(square):
                return self.place(square, at)
            case Sense(squares):
                return self.sense(sum(bit(sq) for sq in squares), at)
            case Tick():
                return self.tick(at)
            case Answer(choice):
                return self.actions.answer(choice, at=at)
            case Undo():
                return self.actions.undo(at=at)
            case Resync():
                return self.actions.resync(at=at)
            case NewGame():
                return self.actions.new_game(at=at)

    def _unjudged(self, entry: Input, at: float, exc: Exception) -> list[Verdict]:
        """The input the referee failed on: refused with the reason, the board's change still taken."""
        if isinstance(entry, Lift | Place) and bool(self.state.sensed & bit(entry.square)) != isinstance(entry, Place):
            self.state.sensed ^= bit(entry.square)
            self.state.attempt.gap = True  # the order of the hands is no longer known
            if self.state.provisional is not None:
                self.state.provisional.attempt.gap = True
            self.state.last_change = max(at, self.state.now)
            self.state.judged = False
        self.state.now = max(self.state.now, at)
        return [_cannot_judge(entry.kind, exc)]

    # ------------------------------------------------------------------ switch events and time

    def lift(self, square: int, at: float) -> list[Verdict]:
        """The switch under `square` opened at time `at`."""
        return self._switch(square, False, at)

    def place(self, square: int, at: float) -> list[Verdict]:
        """The switch under `square` closed at time `at`."""
        return self._switch(square, True, at)

    def sense(self, occupied: int, at: float) -> list[Verdict]:
        """A full snapshot of the switches (a board starting, a bridge reconnecting): changes become
        lifts and places, and from now on the board is known to have sensors."""
        if (
            occupied != self.state.sensed
            and self.state.last_change is None
            and not self.state.sensing
            and not self.game.actions
        ):
            # A new game's first look at a board left as it was (an exhibit's idle reset): the pieces
            # were put there before this game, so they are evidence of nothing; judged once settled.
            self.state.sensing = True
            self.state.sensed = occupied
            self.state.attempt = Attempt(occupied)
            self.state.last_change = at
            self.state.judged = False
            return []
        self.state.sensing = True
        out: list[Verdict] = []
        if occupied != self.state.sensed and self.state.last_change is not None:  # the board moved while unseen
            self.state.attempt.gap = True
            if self.state.provisional is not None:
                self.state.provisional.attempt.gap = True
        for sq in squares_in(self.state.sensed & ~occupied):
            out += self.lift(sq, at)
        for sq in squares_in(occupied & ~self.state.sensed):
            out += self.place(sq, at)
        return out

    def _switch(self, square: int, closed: bool, at: float) -> list[Verdict]:
        out = self.tick(at)
        self.state.sensing = True
        b = bit(square)
        if bool(self.state.sensed & b) == closed:
            state = Text("closed") if closed else Text("open")
            return [
                *out,
                Sensor(square, Text("switch {square} was already {state}; ignored", square=square, state=state)),
            ]
        self.state.sensed ^= b
        self.state.attempt.record(square, closed, at)
        if self.state.provisional is not None and self.state.provisional.attempt is not self.state.attempt:
            self.state.provisional.attempt.record(square, closed, at)
        if self.state.switches.changed(square, at):  # the switch works after all
            out.append(Switch(square, None, Text("the switch under {square} works again", square=square)))
        if self.state.judged:
            self.state.unsettled_since = at
        self.state.last_change = at
        self.state.judged = False
        if not self.state.in_progress and not self.core.same(self.state.sensed, self.state.expected):
            self.state.in_progress = True
            out.append(Progress())
        return out


def _cannot_judge(kind: str, exc: Exception) -> Illegal:
    """The refusal of an input the referee could not judge, naming the kind of error."""
    why = Text("the referee could not judge this {kind} ({error})", kind=kind, error=type(exc).__name__)
    return Illegal.because(Reason.NOT_NOW, why=why)


def _stamped(verdicts: list[Verdict], player: str) -> list[Verdict]:
    """The verdicts, each refusal naming `player` (the player to move when the input came) unless it names one."""
    return [replace(v, player=player) if isinstance(v, Illegal) and v.player is None else v for v in verdicts]
