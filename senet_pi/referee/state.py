"""What the referee is waiting for, and the open business it keeps, as plain typed values.

The referee is a machine that waits for people. `Mode` names what it waits for; its open work
is one value, `Open` (`Nothing`, `Owing` steps, `Repairing` a board or who stands where, or
`Asking` a question over the work it interrupts), made of the steps still `Owed` of a move (a
suffix of a `Candidate`), the `Warning` standing over a wrong board, the `Repair` under way and
the `Question` put to the operator; beside it stand the `Provisional` move open to revision and
the `SwitchFaults` it has judged. Verdicts are made from them only when they are said.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum
from typing import ClassVar

from ..rules import Game
from ..rules.board import bit, square_name, squares_in
from ..rules.core import Snapshot
from ..verdicts import Illegal, Prompt, Verdict
from ..verdicts import Question as QuestionLine
from .attempt import Attempt, Identity
from .candidates import Candidate
from .physical import Fix, Outcome, Step

#: A switch that changed this many times within FLICKER_WINDOW seconds may be a piece teetering half
#: on its square (put down, tipping off, back on). A board wrong only there is given FLICKER_GRACE
#: seconds more to settle before it is judged: a piece that settles by itself needs no warning.
FLICKER_CHANGES = 2
FLICKER_WINDOW = 2.0
FLICKER_GRACE = 0.5


class Mode(Enum):
    """What the referee waits for, most pressing first."""

    ANSWER = "answer"  # a question to the operator (which move, undo, new game, a swap)
    PROMPTS = "prompts"  # steps owed by hand: the rules' own moves, an undo, a new game's setup
    FIX = "fix"  # a warning stands: the board must be put right
    OVER = "over"  # the game is won: the board may be cleared or set up again
    MOVE = "move"  # a throw (or a card) waits to be played on the board
    THROW = "throw"  # the player to move throws (or plays a card)


@dataclass(frozen=True)
class Owed:
    """The part of a way to play that the people still owe: stages `next` and after of `cand`."""

    cand: Candidate
    next: int = 0

    @classmethod
    def of(cls, cand: Candidate, done: int) -> Owed | None:
        """What is left of `cand` once stage `done` stands (None when nothing is)."""
        return cls(cand, done + 1) if done + 1 < len(cand.steps) else None

    @property
    def steps(self) -> list[Step]:
        return self.cand.steps[self.next :]

    @property
    def step(self) -> Step:
        """The step to do next."""
        return self.cand.steps[self.next]

    @property
    def final(self) -> int:
        """The board once every owed step is done."""
        return self.cand.boards[-1]

    def stages(self) -> range:
        """The owed stages, by their index in the candidate."""
        return range(self.next, len(self.cand.boards))

    def prompt(self) -> Verdict:
        step = self.step
        return Prompt(step.prompt(), step.player, step.from_sq, square_name(step.to_sq))


@dataclass(frozen=True)
class Warning:
    """A wrong board and how to put it right (or two pieces swapped by hand, to swap back)."""

    reason: str
    ruling: str
    missing: list[int]
    extra: list[int]
    fixes: list[Fix]
    since: float
    swap: tuple[int, int] | None = None
    player: str | None = None

    def verdict(self) -> Verdict:
        texts: list[str] = [f.text() for f in self.fixes]
        swap = list(self.swap) if self.swap else None
        return Illegal(self.reason, self.ruling, self.missing, self.extra, texts, swap, self.player)


class QuestionKind(StrEnum):
    """What a question asks (its value is the `kind` the verdict carries)."""

    WHICH = "which"  # several moves fit the board
    SWAP = "swap"  # two pieces lifted together: were they swapped?
    UNDO = "undo"  # the board is as before the last move
    NEW_GAME = "new_game"  # the pieces stand as at the start
    WHOSE = "whose"  # which piece stands on a square
    BACK = "back"  # three or more in the hand together: is each back on its own square?


#: A way to play, and the stage of it the board shows.
Fit = tuple[Candidate, int]


@dataclass(frozen=True, kw_only=True)
class Asked:
    """Something the referee asks rather than guesses: `options` are the answers it takes, `id` its
    number (given when it is put, `Core.dispose`). Each kind of question is its own type below."""

    kind: ClassVar[QuestionKind]
    text: str
    options: list[str]
    id: int = 0

    def verdict(self) -> Verdict:
        return QuestionLine(self.id, self.kind, self.text, self.options)

    def about(self) -> list[int]:
        """The squares the question is about (the lights show them)."""
        return []


@dataclass(frozen=True, kw_only=True)
class WhichQuestion(Asked):
    """Several ways to play fit the board (or none is sure): which was played? An option past the
    ways (`fits`) is "no move". `revise`: the way chosen replaces the provisional move."""

    kind = QuestionKind.WHICH
    fits: tuple[Fit, ...]
    revise: bool = False

    def about(self) -> list[int]:
        return sorted({sq for cand, _ in self.fits for step in cand.steps for sq in (step.from_sq, step.to_sq)})


@dataclass(frozen=True, kw_only=True)
class SwapQuestion(Asked):
    """Two pieces lifted together from `a` and `b`, each may stand on either square: swapped?"""

    kind = QuestionKind.SWAP
    a: int
    b: int

    def about(self) -> list[int]:
        return [self.a, self.b]


@dataclass(frozen=True, kw_only=True)
class BackQuestion(Asked):
    """Three or more pieces in the hand together, from `squares`: is each back on its own square?"""

    kind = QuestionKind.BACK
    squares: tuple[int, ...]

    def about(self) -> list[int]:
        return list(self.squares)


@dataclass(frozen=True, kw_only=True)
class WhoseQuestion(Asked):
    """Which of `pieces` (the options, in order) stands on `square`: people see colours, switches do not."""

    kind = QuestionKind.WHOSE
    square: int
    pieces: tuple[Identity, ...]

    def about(self) -> list[int]:
        return [self.square]


@dataclass(frozen=True, kw_only=True)
class UndoQuestion(Asked):
    """The board is as before the last move: undo it?"""

    kind = QuestionKind.UNDO


@dataclass(frozen=True, kw_only=True)
class NewGameQuestion(Asked):
    """The pieces stand as at the start: a new game?"""

    kind = QuestionKind.NEW_GAME


#: A question open to the operator, one type per kind.
Question = WhichQuestion | SwapQuestion | BackQuestion | WhoseQuestion | UndoQuestion | NewGameQuestion


@dataclass
class Provisional:
    """The move(s) accepted for the throw in play. A settled board can still turn out to be another
    way of playing the same throw (a piece held in the hand read as borne off, a move counted out
    square by square), so they stay open to revision until the next throw or operator action."""

    base: int  # occupancy before them
    moves: int  # how many moves of the game's history they are
    outcome: Outcome
    candidates: list[Candidate]  # every way to play the throw from the base
    attempt: Attempt  # the hands' evidence since the base (or since the move was taken back)
    labels: list[str]
    taken_back: bool = False  # the board stood as before them again since
    seen: int = 0  # the changes of `attempt` the last acceptance had seen (what the hands did after it)

    def continued_by(self, cand: Candidate) -> bool:
        """Whether `cand` starts with the moves already accepted for this throw."""
        return [str(m) for m in cand.moves[: len(self.labels)]] == self.labels


@dataclass
class SwitchFaults:
    """The switches judged faulty (their squares judged as unknown), and the evidence for judging."""

    unknown: int = 0  # squares whose switch is faulty
    faults: dict[int, str] = field(default_factory=dict)
    wrong_for: dict[int, int] = field(default_factory=dict)  # square -> settled boards wrong without changing
    still_checked: bool = False  # the owed steps' still board was looked at for dead switches
    changed_at: dict[int, float] = field(default_factory=dict)  # square -> when its switch last changed
    recent: dict[int, list[float]] = field(default_factory=dict)  # square -> its changes within FLICKER_WINDOW

    def same(self, a: int, b: int) -> bool:
        """Whether two boards agree on every square whose switch can be trusted."""
        return (a ^ b) & ~self.unknown == 0

    def changed(self, square: int, at: float) -> bool:
        """A switch changed: it is not stuck. True when it had been judged faulty (it works again)."""
        self.changed_at[square] = at
        self.recent[square] = [t for t in self.recent.get(square, []) if at - t < FLICKER_WINDOW] + [at]
        self.wrong_for.pop(square, None)
        self.still_checked = False
        if not self.unknown & bit(square):
            return False
        self.unknown &= ~bit(square)
        del self.faults[square]
        return True

    def right_again(self, wrong: int) -> None:
        """A settled board wrong only on the squares `wrong`: every other square starts its count afresh."""
        for sq in list(self.wrong_for):
            if not wrong & bit(sq):
                del self.wrong_for[sq]

    def count_wrong(self, square: int) -> None:
        """`square` is wrong on one more settled board without its switch changing."""
        self.wrong_for[square] = self.wrong_for.get(square, 0) + 1

    def mark(self, square: int, fault: str) -> None:
        self.unknown |= bit(square)
        self.faults[square] = fault
        self.wrong_for.pop(square, None)

    def copy(self) -> SwitchFaults:
        return SwitchFaults(
            self.unknown,
            dict(self.faults),
            dict(self.wrong_for),
            self.still_checked,
            dict(self.changed_at),
            {sq: list(times) for sq, times in self.recent.items()},
        )

    def flickering(self, squares: int) -> bool:
        """Whether every one of `squares` (at least one) is a switch that changed FLICKER_CHANGES times
        within FLICKER_WINDOW: maybe a piece teetering half on its square, not a hand at work."""
        return bool(squares) and all(len(self.recent.get(sq, [])) >= FLICKER_CHANGES for sq in squares_in(squares))

    def still_for(self, square: int, now: float) -> float:
        """How long the switch under `square` has not changed (since the start when it never did)."""
        return now - self.changed_at.get(square, float("-inf"))


#: Pieces the people said stand on other squares than the game's: square -> the piece there (None:
#: a piece not in the game).
Mixed = dict[int, Identity]


@dataclass(frozen=True)
class SwapBack:
    """A repair under way: the pieces on `a` and `b` were swapped by hand and are to be swapped back;
    `mixed`, the other pieces said to stand on each other's squares, are put right after."""

    a: int
    b: int
    mixed: Mixed = field(default_factory=dict)


@dataclass(frozen=True)
class Replace:
    """A repair under way: the piece on `square` is not the game's and is to be replaced by it (the
    `ReplaceWarn` outcome begins it); `mixed`, the other pieces said to stand on each other's squares, after."""

    square: int
    mixed: Mixed = field(default_factory=dict)


#: A repair the referee waits for besides the board's occupancy: who stands where.
Repair = SwapBack | Replace


@dataclass(frozen=True)
class Nothing:
    """No open work: the referee waits for a throw or a move."""


@dataclass(frozen=True)
class Owing:
    """Steps the people still owe by hand (the rules' own moves, an undo, a new game's setup), prompted."""

    owed: Owed


@dataclass(frozen=True)
class Repairing:
    """The board, or who stands where, being put right: the `warning` on show (None while a swap to
    undo outlives its warning, the switches being unable to see it, or while the fixes are to be
    guided but could not be named yet: a question about whose piece came first), the `repair` of who
    stands where (None: occupancy only), whether the fixes are `guiding` one at a time, and the owed
    steps the board is put right `toward` (None: the game's position). Never empty: see `work`."""

    warning: Warning | None = None
    repair: Repair | None = None
    guiding: bool = False
    toward: Owed | None = None

    def __post_init__(self) -> None:
        if self.warning is None and self.repair is None and not self.guiding:
            raise ValueError("nothing to put right: that is Nothing() or Owing(owed), see `work`")


#: The work a question can interrupt.
Work = Nothing | Owing | Repairing


@dataclass(frozen=True)
class Asking:
    """A question put to the operator, `over` the work it interrupts (taken up again once answered)."""

    question: Question
    over: Work = field(default_factory=Nothing)


#: The referee's open work, one value with a case per kind (a question never interrupts a question).
Open = Work | Asking


def work(owed: Owed | None, warning: Warning | None, guiding: bool, repair: Repair | None) -> Work:
    """The one way open work other than a question is built: the smallest case that holds it."""
    if warning is None and repair is None and not guiding:
        return Nothing() if owed is None else Owing(owed)
    return Repairing(warning, repair, guiding, owed)


#: A game's state with its history, as `Game.checkpoint` gives it for `Game.rollback`.
GamePoint = tuple[Snapshot, list[tuple[tuple[str, object], Snapshot]], int]


@dataclass
class RefereeState:
    """Everything the referee knows besides the game, as one value: what the switches sense and
    what they should, the hands' evidence, the open work (`open`: one value, changed only by the
    named steps below) and the provisional move. `Core.snapshot` copies it whole and `Core.restore`
    puts it back with one assignment."""

    sensed: int  # what the switches sense now
    expected: int  # what the board should show now
    attempt: Attempt  # the hands' evidence since the board was last trusted
    sensing: bool = False  # set by the first switch event; a board without sensors gets no prompts
    now: float = 0.0
    last_change: float | None = None
    unsettled_since: float = 0.0  # the first switch change since the board was last judged
    judged: bool = True
    in_progress: bool = False
    open: Open = field(default_factory=Nothing)  # the open work: owed steps, a repair, a question (one value)
    questions: int = 0  # questions asked so far: the next one's id
    provisional: Provisional | None = None
    before_last_move: int | None = None
    accepted: int = 1  # moves accepted together the last time (two dice carried out at once, `modern`)
    candidates: tuple[int, list[Candidate]] = (-1, [])  # the ways to play the throw, by game version
    switches: SwitchFaults = field(default_factory=SwitchFaults)

    # ------------------------------------------------------------------ the open work, read

    @property
    def work(self) -> Work:
        """The open work besides a question (what a question interrupts)."""
        return self.open.over if isinstance(self.open, Asking) else self.open

    @property
    def owed(self) -> Owed | None:
        """The steps the people still owe (the rules' own moves, an undo...), if any."""
        match self.work:
            case Owing(owed):
                return owed
            case Repairing(toward=toward):
                return toward
        return None

    @property
    def warning(self) -> Warning | None:
        """The warning on show over a wrong board (or two pieces swapped by hand), if any."""
        return self.work.warning if isinstance(self.work, Repairing) else None

    @property
    def guiding(self) -> bool:
        """Whether the fixes are guided one at a time (the warning has stood for the guidance delay)."""
        return isinstance(self.work, Repairing) and self.work.guiding

    @property
    def repair(self) -> Repair | None:
        """Pieces swapped or replaced by hand, to put right (who stands where), if any."""
        return self.work.repair if isinstance(self.work, Repairing) else None

    @property
    def question(self) -> Question | None:
        """The question open to the operator, if any."""
        return self.open.question if isinstance(self.open, Asking) else None

    # ------------------------------------------------------------------ the open work, changed (push/pop-like)

    def _rework(self, new: Work) -> None:
        """The work besides a question is now `new` (under the question, if one is open)."""
        self.open = replace(self.open, over=new) if isinstance(self.open, Asking) else new

    def owe(self, owed: Owed | None) -> None:
        """The steps owed are now `owed` (None: none), any warning or repair standing as it is."""
        self._rework(work(owed, self.warning, self.guiding, self.repair))

    def warned(self, warning: Warning) -> None:
        """A wrong board is warned about (the fixes still guided if they were, a repair still owed)."""
        self._rework(work(self.owed, warning, self.guiding, self.repair))

    def repair_warned(self, warning: Warning, repair: Repair) -> None:
        """Pieces swapped or replaced by hand are warned about, and `repair` is under way (not guided yet)."""
        self._rework(work(self.owed, warning, False, repair))

    def guide_fixes(self) -> None:
        """The fixes are guided one at a time from now on (the warning stood long enough, or is due)."""
        self._rework(work(self.owed, self.warning, True, self.repair))

    def repaired(self) -> None:
        """The repair under way is done (who stands where is right again)."""
        self._rework(work(self.owed, self.warning, self.guiding, None))

    def ask(self, question: Question) -> None:
        """`question` is put, over the work it interrupts (a question open before is replaced)."""
        self.open = Asking(question, self.work)

    def unask(self) -> None:
        """The question is answered or withdrawn: the work it interrupted is taken up again."""
        self.open = self.work

    # ------------------------------------------------------------------ the resets, each in one place

    def forget_history(self) -> None:
        """The last move is no longer open to an undo or a revision, no question stands, and pieces
        believed swapped or mixed up by hand are no longer in question (undo, new game, resync)."""
        self.before_last_move = None
        self.provisional = None
        self.open = work(self.owed, self.warning, self.guiding, None)

    def forget_warning(self) -> None:
        """No warning stands or is being guided (a piece to replace, if any, is still owed)."""
        self._rework(work(self.owed, None, False, self.repair))

    def clear_warning(self) -> None:
        """The board is right again: no warning, no guiding, no piece to replace (a swap to undo stays:
        the switches cannot see it)."""
        repair = None if isinstance(self.repair, Replace) else self.repair
        self._rework(work(self.owed, None, False, repair))

    def forget_owed(self) -> None:
        """No steps are owed by hand."""
        self.owe(None)

    def forget_attempt(self, attempt: Attempt) -> None:
        """The board is trusted as it is: the hands' evidence starts afresh from `attempt`."""
        self.attempt = attempt
        self.in_progress = False

    def forget_provisional(self, prov: Provisional, version: int) -> None:
        """The provisional move `prov` is taken back (the game already popped, now at `version`): the
        board, the evidence and the ways to play are as they were before it, and nothing is owed."""
        self.provisional = None
        self.owe(None)
        self.expected = prov.base
        self.attempt = prov.attempt
        self.candidates = (version, prov.candidates)

    def copy(self) -> RefereeState:
        """An independent copy: the evidence, the switch faults and the provisional move copied (the
        evidence shared by the provisional move stays shared), the immutable values (a repair) shared."""
        attempt = self.attempt.copy()
        prov = self.provisional
        if prov is not None:
            twin = attempt if prov.attempt is self.attempt else prov.attempt.copy()
            prov = replace(prov, attempt=twin, labels=list(prov.labels))
        return replace(self, attempt=attempt, provisional=prov, switches=self.switches.copy())


@dataclass(frozen=True)
class Status:
    """What `Core.status` shows of the referee's open business, as typed values: what it waits for,
    the sensed and expected squares, whether a move is under way, the prompt, warning and question
    open (as the verdicts that say them), and the switches judged faulty by square."""

    mode: Mode
    sensed: tuple[int, ...]
    expected: tuple[int, ...]
    in_progress: bool
    prompt: Verdict | None
    warning: Verdict | None
    question: Verdict | None
    faults: dict[int, str]

    def as_dict(self) -> dict[str, object]:
        """The view as JSON-ready data, for the page, the fleet, the journal and `senet-pi status`."""
        return {
            "mode": self.mode.value,
            "sensed": list(self.sensed),
            "expected": list(self.expected),
            "in_progress": self.in_progress,
            "prompt": self.prompt.json() if self.prompt is not None else None,
            "warning": self.warning.json() if self.warning is not None else None,
            "question": self.question.json() if self.question is not None else None,
            "faults": {str(sq): fault for sq, fault in self.faults.items()},
        }


@dataclass(frozen=True)
class Saved:
    """The referee as `Core.snapshot` took it: its state (a copy), and the game with its
    checkpoint; `Core.restore` puts them back."""

    state: RefereeState
    game: Game
    point: GamePoint
