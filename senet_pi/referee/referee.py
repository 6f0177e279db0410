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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import IllegalMoveError, SenetError
from ..events import INPUT_KINDS
from ..rules import Game, Move
from ..rules.board import OFF, bit, square_name, squares_in
from ..rules.reasons import Reason
from ..rules.text import N_, Text, joined
from ..verdicts import (
    Answered,
    CardPlayed,
    Cleared,
    Exchanged,
    Illegal,
    NewGame,
    Passed,
    Progress,
    Prompt,
    Resynced,
    Revised,
    Sensor,
    Settled,
    Switch,
    Thrown,
    Undone,
    Verdict,
    Withdrawn,
    from_effects,
    illegal,
)
from ..verdicts import (
    Fix as FixLine,
)
from ..verdicts import (
    Question as QuestionLine,
)
from .attempt import Attempt
from .physical import (
    HAND,
    Fix,
    Step,
    effect_steps,
    fixes,
    landings,
    lifts_needed,
    origins,
    places_needed,
    play_out,
    reversed_steps,
    stages,
    swaps_needed,
    touched,
)

#: Settle time, seconds: long enough for a slide across squares or a piece bouncing into
#: place, short enough that the verdict feels immediate (e-board companions use 0.25-0.5 s).
SETTLE_TIME = 0.4
#: After a warning, how long to wait before guiding one fix at a time.
GUIDANCE_DELAY = 3.0
#: Settled boards a square may stay wrong without its switch changing before the switch is
#: judged stuck (a welded switch under an empty square, a dead one under a piece).
STUCK_BOARDS = 3
#: Seconds a board may stay still with owed steps that only a never-changing square keeps open
#: before that square's switch is judged dead (a piece put on it is not seen).
STILL_TIME = 15.0
_EPS = 1e-6  # times are milliseconds turned into seconds: compare without float noise

#: A switch's faults, as `Switch.fault` names them and a visitor reads them (translated).
FAULTS = (N_("stuck closed"), N_("stuck open"))


class RefereeError(SenetError, ValueError):
    """An operator action that makes no sense now (no question to answer, nothing to undo...)."""


@dataclass
class Candidate:
    """A way to play the throw (one move, or two in `modern`) and the boards it passes through."""

    moves: tuple[Move, ...]
    steps: list[Step]
    boards: list[int]
    first_stage: int  # stages before this one are the player's own moves still under way
    touched: int  # the squares its steps start or end on
    outcome: str  # the resulting position: candidates with the same outcome are the same move
    lifts: list[int]  # per stage, the switches that must have opened to get there
    places: list[int]  # per stage, the squares a piece was put on to get there
    origins: list[int]  # per step, where its piece stood when the move began
    swaps: list[list[tuple[int, int]]]  # per stage, square pairs that must have been empty at once (P4)
    visible: bool  # whether the board shows it at all (a bounce back onto its own square does not)
    landed: list[list[tuple[int, int]]]  # per stage, (square, where its piece came from) of moved pieces

    @property
    def final(self) -> int:
        return self.boards[-1]

    def label(self, with_dice: bool = False) -> str:
        """How the move is offered as an answer: "10-13", or "24-28 (by 4) then 20-26 (by 6)"."""
        with_dice = with_dice or len(self.moves) > 1
        return " then ".join(str(m) + (f" (by {m.by})" if with_dice else "") for m in self.moves)


@dataclass
class Question:
    """Something the referee asks rather than guesses; `options` are the answers it takes."""

    id: int
    kind: str  # "which" (several moves fit), "swap", "undo", "new_game"
    text: str
    options: list[str]
    candidates: list[tuple[Candidate, int]] = field(default_factory=list)
    revise: bool = False  # the candidates replace the provisional move
    swap: tuple[int, int] | None = None  # for "swap": the two squares

    def verdict(self) -> Verdict:
        return QuestionLine(self.id, self.kind, self.text, self.options).json()


@dataclass
class Provisional:
    """The move(s) accepted for the throw in play. A settled board can still turn out to be another
    way of playing the same throw (a piece held in the hand read as borne off, a move counted out
    square by square), so they stay open to revision until the next throw or operator action."""

    base: int  # occupancy before them
    moves: int  # how many moves of the game's history they are
    outcome: str
    candidates: list[Candidate]  # every way to play the throw from the base
    attempt: Attempt  # the hands' evidence since the base (or since the move was taken back)
    labels: list[str]
    taken_back: bool = False  # the board stood as before them again since


class Referee:
    """Follows one game on a board whose switches sense occupancy only."""

    def __init__(self, game: Game, *, settle: float = SETTLE_TIME, guidance_delay: float = GUIDANCE_DELAY) -> None:
        self.game = game
        self.settle = settle
        self.guidance_delay = guidance_delay
        self.start_board = type(game)(game.players, game.options).occupied()
        self.sensed = game.occupied()
        self.expected = game.occupied()  # what the board should show now
        self.sensing = False  # set by the first switch event; a board without sensors gets no prompts
        self.now = 0.0
        self.last_change: float | None = None
        self.judged = True
        self.attempt = Attempt(self.expected, owners=game.board())
        self.in_progress = False
        self.warning: Verdict | None = None
        self.warning_at = 0.0
        self.guiding = False
        self.swapped: tuple[int, int] | None = None  # two pieces believed swapped by hand, to swap back
        self.question: Question | None = None
        self._questions = 0
        self.steps_left: list[Step] = []
        self.boards_left: list[int] = []
        self._lifts_left: list[int] = []
        self._swaps_left: list[list[tuple[int, int]]] = []
        self._landed_left: list[list[tuple[int, int]]] = []
        self._steps_start = self.expected
        self.provisional: Provisional | None = None
        self.before_last_move: int | None = None
        self._candidates: tuple[int, list[Candidate]] = (-1, [])
        self.unknown = 0  # squares whose switch is faulty: judged as unknown
        self.faults: dict[int, str] = {}
        self._wrong_for: dict[int, int] = {}  # square -> settled boards it has been wrong without changing
        self._still_checked = False

    # ------------------------------------------------------------------ one entry point for every input

    INPUTS = INPUT_KINDS

    def apply(self, kind: str, value: object, at: float) -> list[Verdict]:
        """Any input by name, as replay files and the journal store them; operator mistakes
        (no question to answer, nothing to undo) come back as `illegal` verdicts."""
        player = self.game.to_move_id
        try:
            if kind == "throw":
                verdicts = self.throw(value, at=at)
            elif kind in ("card", "exchange", "pass"):
                verdicts = self.play_card(kind, value, at=at)
            elif kind == "move":
                squares: list[int] = list(value)  # type: ignore[call-overload]  # [from, to, by?], as events.py reads it
                verdicts = self.enter_move(squares[0], squares[1], squares[2] if len(squares) > 2 else 0, at=at)
            elif kind in ("lift", "place"):
                verdicts = getattr(self, kind)(value, at)
            elif kind == "sense":
                sensed: list[int] = list(value)  # type: ignore[call-overload]  # the squares that read a piece
                verdicts = self.sense(sum(bit(sq) for sq in sensed), at)
            elif kind == "tick":
                verdicts = self.tick(at)
            elif kind == "answer":
                verdicts = self.answer(value, at=at)  # type: ignore[arg-type]  # an int or str, as events.py reads it
            elif kind in ("undo", "resync", "new_game"):
                verdicts = getattr(self, kind)(at=at)
            else:
                raise RefereeError(f"unknown input {kind!r}: use one of {', '.join(self.INPUTS)}")
        except RefereeError as exc:
            verdicts = [Illegal.because(Reason.NOT_NOW, why=str(exc)).json()]
        for verdict in verdicts:
            if verdict["v"] == "illegal":
                verdict.setdefault("player", player)
        return verdicts

    # ------------------------------------------------------------------ switch events and time

    def lift(self, square: int, at: float) -> list[Verdict]:
        """The switch under `square` opened at time `at`."""
        return self._switch(square, False, at)

    def place(self, square: int, at: float) -> list[Verdict]:
        """The switch under `square` closed at time `at`."""
        return self._switch(square, True, at)

    def tick(self, at: float) -> list[Verdict]:
        """Time passed with no change: judge a settled board, give guidance that is due, notice a
        switch that stays open under a piece the game says is there."""
        out: list[Verdict] = []
        if at > self.now:
            self.now = at
        if not self.judged and self.last_change is not None and self.now - self.last_change >= self.settle - _EPS:
            out += self._judge_at(self.last_change + self.settle)
        if self.warning is not None and not self.guiding and self.now - self.warning_at >= self.guidance_delay - _EPS:
            self.guiding = True
            out += self._next_fix()
        still_since = self.last_change if self.last_change is not None else 0.0
        if self.steps_left and self.sensing and not self._still_checked and self.now - still_since >= STILL_TIME:
            self._still_checked = True
            out += self._dead_under_owed_steps()
        return out

    def flush(self) -> list[Verdict]:
        """Judge the board now as if it had settled (end of a replay, or a button pressed)."""
        return [] if self.judged else self._judge_at(self.now)

    def _judge_at(self, moment: float) -> list[Verdict]:
        now, self.now = self.now, moment
        try:
            return self._judge()
        finally:
            self.now = now

    def sense(self, occupied: int, at: float) -> list[Verdict]:
        """A full snapshot of the switches (a board starting, a bridge reconnecting): changes become
        lifts and places, and from now on the board is known to have sensors."""
        if occupied != self.sensed and self.last_change is None and not self.sensing and not self.game.actions:
            # A new game's first look at a board left as it was (an exhibit's idle reset): the pieces
            # were put there before this game, so they are evidence of nothing; judged once settled.
            self.sensing = True
            self.sensed = occupied
            self.attempt = Attempt(occupied)
            self.last_change = at
            self.judged = False
            return []
        self.sensing = True
        out: list[Verdict] = []
        if occupied != self.sensed and self.last_change is not None:  # the board moved while unseen
            self.attempt.gap = True
            if self.provisional is not None:
                self.provisional.attempt.gap = True
        for sq in squares_in(self.sensed & ~occupied):
            out += self.lift(sq, at)
        for sq in squares_in(occupied & ~self.sensed):
            out += self.place(sq, at)
        return out

    def _switch(self, square: int, closed: bool, at: float) -> list[Verdict]:
        out = self.tick(at)
        self.sensing = True
        b = bit(square)
        if bool(self.sensed & b) == closed:
            state = Text("closed") if closed else Text("open")
            return [
                *out,
                Sensor(square, Text("switch {square} was already {state}; ignored", square=square, state=state)).json(),
            ]
        self.sensed ^= b
        self.attempt.record(square, closed)
        if self.provisional is not None and self.provisional.attempt is not self.attempt:
            self.provisional.attempt.record(square, closed)
        self._wrong_for.pop(square, None)
        self._still_checked = False
        if self.unknown & b:  # the switch works after all
            self.unknown &= ~b
            del self.faults[square]
            out.append(Switch(square, None, Text("the switch under {square} works again", square=square)).json())
        self.last_change = at
        self.judged = False
        if not self.in_progress and not self._same(self.sensed, self.expected):
            self.in_progress = True
            out.append(Progress().json())
        return out

    def _same(self, a: int, b: int) -> bool:
        """Whether two boards agree on every square whose switch can be trusted."""
        return (a ^ b) & ~self.unknown == 0

    # ------------------------------------------------------------------ judging a settled board

    def _judge(self) -> list[Verdict]:
        self.judged = True
        out: list[Verdict] = []
        if self.question is not None:
            out.append(Withdrawn(self.question.id).json())
            self.question = None
        board = self.sensed
        if self.steps_left:
            return out + self._judge_prompts(board)
        if self._same(board, self.expected):
            prov = self.provisional
            if prov is not None and self.attempt.lifted:
                # taken back, then another way with the same squares; or, without taking it back, the
                # hands went on to show every stage of another way that ends on the same squares
                # (a piece held over 29 read as borne off, then put on 26 and sent to the sun: M6)
                revised = self._revise(board, whole=not prov.taken_back)
                if revised is not None:
                    return out + revised
            if self.attempt.lifted and self.game.pending is not None and not self.game.is_over:
                verdicts = self._unchanged_board()
                if verdicts:
                    return out + verdicts
            return out + self._check_swaps()
        if self.game.pending is not None and not self.game.is_over:
            other = self._another_whole_way(board)
            if other is not None:
                return out + other
            matched = self._match(board)
            if matched is not None:
                return out + matched
        revised = self._revise(board)
        if revised is not None:
            return out + revised
        if self.before_last_move is not None and self._same(board, self.before_last_move):
            prov = self.provisional
            if prov is not None:  # what the hands do next is judged from here, the move taken back
                prov.attempt = Attempt(board, owners=prov.attempt.owners)
                prov.taken_back = True
            return out + self._ask(
                "undo",
                Text("The board is as it was before the last move. Undo that move?"),
                [Text("undo"), Text("keep")],
            )
        if self._same(board, self.start_board) and self.game.actions:
            return out + self._ask(
                "new_game",
                Text("The pieces stand as at the start. Start a new game?"),
                [Text("new game"), Text("keep")],
            )
        if self.game.pending is not None and any(
            _on_the_way(board & ~self.unknown, self.expected & ~self.unknown, c) for c in self._cands()
        ):
            return out  # on the way to a legal move: still in progress
        return out + (self._faults_seen(self.expected) or self._warn(board))

    def _unchanged_board(self) -> list[Verdict]:
        """Same occupancy as before, yet pieces were lifted: an exchange (P4) only if both its squares
        were empty at the same moment. A move that changes nothing on the board (a bounce back onto
        its own square, M5) is never inferred: it is entered or confirmed."""
        ev = self.attempt
        sure = [
            (c, len(c.boards) - 1)
            for c in self._cands()
            if c.visible
            and self._same(c.final, self.expected)
            and all(self._shown(c, k, ev) for k in range(len(c.boards)))  # every stage seen, not a jolt
        ]
        sure = _distinct(sure)
        if len(sure) == 1:
            return self._accept(*sure[0])
        if sure:
            options = [c.label() for c, _ in sure]
            return self._ask("which", Text("The board looks unchanged. Which move was played?"), options, sure)
        if ev.gap:  # the link was down while pieces moved: an exchange may have gone unseen
            unseen = _distinct(
                [
                    (c, len(c.boards) - 1)
                    for c in self._cands()
                    if c.visible and self._same(c.final, self.expected) and ev.lifted & c.touched
                ]
            )
            if unseen:
                options = [c.label() for c, _ in unseen] + [Text("no move")]
                text = Text("Some changes went unseen while the board's link was down. Which move was played?")
                return self._ask("which", text, options, unseen)
        return []

    def _check_swaps(self) -> list[Verdict]:
        """A board whose occupancy is right: but were two different pieces swapped by hand?"""
        ev = self.attempt
        if self.swapped is not None:
            if ev.empty_together(*self.swapped):  # swapped back
                self.swapped = None
                return self._board_good(force=True)
            self._reset_attempt()
            return [] if self.warning is not None and self.warning.get("swap") else self._warn_swap(*self.swapped)
        pieces = _pieces(self.game)
        suspects = [
            (a, b)
            for a, b in sorted(ev.together)
            if a in pieces
            and b in pieces
            and pieces[a] != pieces[b]
            and not self.unknown & (bit(a) | bit(b))
            and not (ev.came_from.get(a) == a and ev.came_from.get(b) == b)  # each seen put back
        ]
        if not suspects:
            return self._board_good()
        a, b = suspects[0]
        mover = self.game.to_move_id
        crossed = ev.came_from.get(a) == b and ev.came_from.get(b) == a
        owners = {pieces[a][0], pieces[b][0]}
        attack = self.game.pending is not None and mover in owners and len(owners) == 2
        self._reset_attempt()
        if crossed or attack:
            return self._warn_swap(a, b)
        return self._ask(
            "swap",
            Text("The pieces on {a} and {b} were both lifted. Were they swapped?", a=a, b=b),
            [Text("put back"), Text("swapped")],
            swap=(a, b),
        )

    def _warn_swap(self, a: int, b: int) -> list[Verdict]:
        """Two pieces swapped by hand that no legal move exchanges: say why, and to swap them back."""
        self.swapped = (a, b)
        pieces = _pieces(self.game)
        mover = self.game.to_move_id
        mine, theirs = (a, b) if pieces[a][0] == mover else (b, a)
        reason = Reason.SWAPPED.explain(a=a, b=b)
        if self.game.pending is None:
            err = IllegalMoveError(Reason.NO_THROW, player=mover)
            reason = Reason.SWAPPED_BECAUSE.sentence(a=a, b=b, why=err.text)
        elif pieces[mine][0] == mover:
            try:
                self.game.check_move(mine, theirs)
            except IllegalMoveError as err:
                reason = Reason.SWAPPED_BECAUSE.sentence(a=a, b=b, why=err.text)
        text = Text("swap the pieces on {a} and {b} back", a=a, b=b)
        verdict = Illegal(reason, Reason.SWAPPED.ruling, missing=[], extra=[], fix=[text], swap=[a, b]).json()
        self.warning = verdict
        self.warning_at = self.now
        self.guiding = False
        return [verdict]

    def _shown(self, cand: Candidate, k: int, ev: Attempt) -> bool:
        """Whether the hands' evidence shows `cand` done up to stage `k`: every square it must have
        emptied opened, both squares of an exchange were empty at once, and every piece was put
        down after its square opened. Squares with a faulty switch prove nothing either way."""
        need = cand.lifts[k] & ~self.unknown
        if ev.lifted & need != need:
            return False
        if any(not ev.empty_together(a, b) for a, b in cand.swaps[k] if not self.unknown & (bit(a) | bit(b))):
            return False
        for square, origin in cand.landed[k]:
            if self.unknown & bit(square):
                continue
            known_origin = origin != OFF and ev.start & bit(origin) and not self.unknown & bit(origin)
            if known_origin and not ev.put_down_after(square, origin):
                return False  # a piece cannot land before it is picked up
            if ev.start & bit(square) and not ev.put_down_after(square, square):
                return False  # nor land on a square before the piece there made room
        return True

    def _match(self, board: int) -> list[Verdict] | None:
        """Accept the legal move whose board this is; ask if several fit; None if none does."""
        fits = self._fits(board, self._cands(), self.attempt)
        if not fits:
            return None
        if len(fits) == 1:
            return self._accept(*fits[0])
        return self._ask_which(fits, Text("Several moves fit the board. Which one was played?"))

    def _fits(self, board: int, cands: list[Candidate], ev: Attempt, skip: str = "") -> list[tuple[Candidate, int]]:
        """The candidates (and how far along) that this board and the evidence show, best first."""
        fits: list[tuple[Candidate, int]] = []
        for cand in cands:
            if cand.outcome == skip or not cand.visible:
                continue
            for k in reversed(range(cand.first_stage, len(cand.boards))):  # the furthest stage that fits
                if not self._same(cand.boards[k], board) or not self._shown(cand, k, ev):
                    continue
                last = k == len(cand.boards) - 1
                mover = cand.steps[cand.first_stage]
                if not last and not _put_down_after_lifting(ev, mover):
                    continue  # the mover may still be in the hand, not on its square
                fits.append((cand, k))
                break
        if not fits:
            return []
        fits = _best_explained(fits, ev)
        finals = [(c, k) for c, k in fits if k == len(c.boards) - 1]
        return _distinct(finals or fits)

    def _ask_which(self, fits: list[tuple[Candidate, int]], text: str, revise: bool = False) -> list[Verdict]:
        labels = [c.label() for c, _ in fits]
        if len(set(labels)) < len(labels):  # the same squares with different dice (modern)
            labels = [c.label(with_dice=True) for c, _ in fits]
        return self._ask("which", text, labels, fits, revise=revise)

    def _revise(self, board: int, whole: bool = False) -> list[Verdict] | None:
        """The board settled into another way of playing the throw the last move was accepted for:
        take that move back and accept this one, saying so (a `revised` line). `whole`: only a way
        whose every stage the evidence shows, to its end."""
        prov = self.provisional
        if prov is None:
            return None
        fits = self._fits(board, prov.candidates, prov.attempt, skip=prov.outcome)
        if whole:
            fits = self._whole(fits, prov.attempt)
        if not fits:
            return None
        if len(fits) > 1:
            return self._ask_which(fits, Text("The board shows another way to play the throw. Which one?"), revise=True)
        return self._revise_to(*fits[0])

    def _another_whole_way(self, board: int) -> list[Verdict] | None:
        """The rest of the throw may fit this board, but the hands showed every stage of another whole
        way to play it that ends on the same squares (two pieces held over the end read as gone up,
        then put on 26 and sent to the sun: M5, M6). Take the way the evidence shows best; ask when it
        shows more than one. None when only the way already under way fits."""
        prov = self.provisional
        if prov is None or prov.taken_back:
            return None
        fits = self._whole(self._fits(board, prov.candidates, prov.attempt), prov.attempt)
        # the way under way, in the order it was played (the same moves in another order are the same way)
        under_way = {c.outcome: c for c in prov.candidates if self._continues_provisional(c)}
        if all(c.outcome in under_way for c, _ in fits):
            return None
        if len(fits) == 1:
            return self._revise_to(*fits[0])
        fits = [
            (under_way[c.outcome], len(under_way[c.outcome].boards) - 1) if c.outcome in under_way else (c, k)
            for c, k in fits
        ]
        return self._ask_which(
            fits, Text("The board shows more than one way to play the throw. Which one?"), revise=True
        )

    def _whole(self, fits: list[tuple[Candidate, int]], ev: Attempt) -> list[tuple[Candidate, int]]:
        """The fits played to their end, whose every stage the evidence `ev` shows."""
        return [
            (c, k)
            for c, k in fits
            if k == len(c.boards) - 1 and all(self._shown(c, j, ev) for j in range(len(c.boards)))
        ]

    def _continues_provisional(self, cand: Candidate) -> bool:
        """Whether `cand` starts with the moves already accepted for this throw."""
        prov = self.provisional
        return prov is not None and [str(m) for m in cand.moves[: len(prov.labels)]] == prov.labels

    def _revise_to(self, cand: Candidate, stage: int) -> list[Verdict]:
        prov = self.provisional
        assert prov is not None
        if self._continues_provisional(cand) and stage == len(cand.boards) - 1:
            # the answer is the way already under way: play its remaining moves, nothing to revise
            rest = cand.moves[len(prov.labels) :]
            for later in self._cands():
                if later.moves == rest:
                    return self._accept(later, len(later.boards) - 1)
        player = self.game.mover_id
        popped = 0
        while popped < prov.moves:
            kind, _ = self.game.pop()
            popped += kind == "move"
        self.provisional = None
        self.steps_left, self.boards_left = [], []
        self.expected = prov.base
        self.attempt = prov.attempt
        self._candidates = (self.game.version, prov.candidates)
        text = Text(
            "{player}'s move was {now}, not {was}", player=player, now=cand.label(), was=" then ".join(prov.labels)
        )
        verdict = Revised(player, list(prov.labels), [str(m) for m in cand.moves], text).json()
        return [verdict, *self._accept(cand, stage)]

    def _judge_prompts(self, board: int) -> list[Verdict]:
        """The people are carrying out what the rules (or an entry by hand, or an undo) asked for.
        A step counts as done only when its pieces were seen to move: occupancy alone proves nothing."""
        owed = self._owed_candidate()
        for k in reversed(range(len(self.boards_left))):
            if self._same(self.boards_left[k], board) and self._shown(owed, k, self.attempt):
                self.expected = self.boards_left[k]
                del self.steps_left[: k + 1]
                del self.boards_left[: k + 1]
                del self._lifts_left[: k + 1]
                del self._swaps_left[: k + 1]
                del self._landed_left[: k + 1]
                if self.steps_left:
                    return [self._prompt()]
                self._reset_attempt()
                return self._board_good(force=True)
        revised = self._revise(board)
        if revised is not None:
            return revised
        final = self.boards_left[-1]
        taken_back = self.provisional is not None and self.before_last_move is not None
        # taken_back says before_last_move is not None (mypy does not narrow through a variable)
        if taken_back and self.attempt.lifted and self._same(board, self.before_last_move):  # type: ignore[arg-type]
            return self._warn(board, toward=final, taken_back=True)
        if (board ^ self.expected) & ~touched(self.steps_left) & ~self.unknown == 0:
            return []  # a prompt under way
        return self._faults_seen(final) or self._warn(board, toward=final)

    def _owed_candidate(self) -> Candidate:
        """The owed steps in the shape `_shown` reads: lifts and swaps are counted from the attempt's start."""
        return Candidate(
            moves=(),
            steps=self.steps_left,
            boards=self.boards_left,
            first_stage=0,
            touched=0,
            outcome="",
            lifts=self._lifts_left,
            places=[],
            origins=[],
            swaps=self._swaps_left,
            visible=True,
            landed=self._landed_left,
        )

    # ------------------------------------------------------------------ faulty switches

    def _faults_seen(self, target: int) -> list[Verdict]:
        """A settled board that is wrong: count, per square, how long it has been wrong without its
        switch changing; a square wrong for STUCK_BOARDS settled boards has a stuck switch."""
        wrong = (self.sensed ^ target) & ~self.unknown
        for sq in list(self._wrong_for):
            if not wrong & bit(sq):
                del self._wrong_for[sq]
        out: list[Verdict] = []
        for sq in squares_in(wrong):
            self._wrong_for[sq] = self._wrong_for.get(sq, 0) + 1
            if self._wrong_for[sq] >= STUCK_BOARDS:
                out += self._mark_faulty(sq, "stuck closed" if self.sensed & bit(sq) else "stuck open")
        return out

    def _dead_under_owed_steps(self) -> list[Verdict]:
        """Owed steps, a still board, and only squares that never changed in this attempt keep them
        from being done: those switches do not see the pieces the game says are there."""
        final = self.boards_left[-1] if self.boards_left else self.expected
        wrong = (self.sensed ^ final) & ~self.unknown
        changed = self.attempt.lifted | self.attempt.placed
        if not wrong or wrong & changed or wrong & self.sensed:
            return []  # a piece still in the hand, or a square that does change: not a dead switch
        out: list[Verdict] = []
        for sq in squares_in(wrong):
            out += self._mark_faulty(sq, "stuck open")
        return out

    def _mark_faulty(self, square: int, fault: str) -> list[Verdict]:
        self.unknown |= bit(square)
        self.faults[square] = fault
        self._wrong_for.pop(square, None)
        text = Text(
            "the switch under {square} seems {fault}: square {square} is judged as unknown "
            "until it changes; enter moves through it by hand",
            square=square,
            fault=Text(fault),
        )
        out = [Switch(square, fault, text).json()]
        if self.warning is not None and not self.warning.get("swap"):
            self.warning = None
            self.guiding = False
        self.judged = False
        out += self._judge()
        return out

    # ------------------------------------------------------------------ outcomes

    def _accept(self, cand: Candidate, stage: int) -> list[Verdict]:
        player = self.game.mover_id
        base = self.expected
        self.before_last_move = self.game.occupied()
        base_cands = list(self._cands())
        out: list[Verdict] = []
        for move in cand.moves:
            out += from_effects(self.game.push(move), move, player)
        labels = [str(m) for m in cand.moves]
        if self.provisional is None:
            self.provisional = Provisional(base, 0, "", base_cands, self.attempt, [])
        self.provisional.moves += len(cand.moves)
        self.provisional.outcome = cand.outcome
        self.provisional.labels += labels
        self.steps_left = list(cand.steps[stage + 1 :])
        self.boards_left = list(cand.boards[stage + 1 :])
        self._lifts_left = list(cand.lifts[stage + 1 :])
        self._swaps_left = list(cand.swaps[stage + 1 :])
        self._landed_left = list(cand.landed[stage + 1 :])
        self.expected = cand.boards[stage] if cand.boards else self.expected
        if not self.steps_left:
            self._reset_attempt()  # the prompts, if any, go on judging with the evidence since the move began
        else:
            self.in_progress = False
        if self.warning is not None:
            out.insert(0, self._clear())
        if self.steps_left:
            out.append(self._prompt())
        self._cands()  # a second die to play (modern): ready before the hands move again
        return out

    def _prompt(self) -> Verdict:
        step = self.steps_left[0]
        return Prompt(step.prompt(), step.player, step.from_sq, square_name(step.to_sq)).json()

    def _board_good(self, force: bool = False) -> list[Verdict]:
        was_moving = self.in_progress
        self._reset_attempt()
        if self.warning is not None or force:
            return [self._clear()]
        if was_moving:  # a piece knocked and put back, or a move begun and taken back
            return [Settled().json()]
        return []

    def _clear(self) -> Verdict:
        self.warning = None
        self.guiding = False
        return Cleared().json()

    def _reset_attempt(self) -> None:
        """The board is trusted as it is: evidence starts afresh from here."""
        self.attempt = Attempt(self.expected if not self.steps_left else self.sensed, owners=self.game.board())
        self.in_progress = False

    def _warn(self, board: int, toward: int | None = None, taken_back: bool = False) -> list[Verdict]:
        target = self.expected if toward is None else toward
        reason, ruling = self._explain(board, target)
        if taken_back:
            reason = Text(
                "the last move was taken back before the rules' own moves were done: {step}, or undo the move",
                step=self.steps_left[0].prompt(),
            )
        todo = self._fixes(board, target)
        verdict = illegal_board(reason, ruling, board & ~self.unknown, target & ~self.unknown, todo)
        if self.warning is not None and self.warning["reason"] == verdict["reason"]:
            self.warning = verdict
            return self._next_fix() if self.guiding else []
        self.warning = verdict
        self.warning_at = self.now
        return [verdict, *(self._next_fix() if self.guiding else [])]

    def _fixes(self, board: int, target: int) -> list[Fix]:
        """How to put `board` right, each piece back where the hands showed it came from."""
        ev = self.attempt
        came_from = {sq: ev.origin(sq) for sq in squares_in(board)}
        holders = {sq: ev.owners.get(o) for sq, o in came_from.items() if o is not None}
        return fixes(board & ~self.unknown, target & ~self.unknown, self._owners(target), came_from, holders)

    def _next_fix(self) -> list[Verdict]:
        if self.swapped is not None and self.warning is not None and self.warning.get("swap"):
            a, b = self.swapped
            return [FixLine(Text("swap the pieces on {a} and {b} back", a=a, b=b), a, b).json()]
        target = self.boards_left[-1] if self.steps_left else self.expected
        todo = self._fixes(self.sensed, target)
        if not todo:
            return []
        fix = todo[0]
        return [FixLine(fix.text(), fix.from_sq or None, fix.to_sq or None).json()]

    def _owners(self, target: int) -> dict[int, str]:
        owners = dict(self.game.board())
        for step in self.steps_left:
            if step.to_sq != OFF:
                owners[step.to_sq] = step.player
        return {sq: owner for sq, owner in owners.items() if target & bit(sq)}

    def _explain(self, board: int, target: int) -> tuple[str, str]:
        """Why this board is wrong, in a player's words, and the ruling that decides it."""
        game = self.game
        missing, extra = board_differences(board, target, self.unknown)
        owners = game.board()
        if self.steps_left:
            why = Reason.BOARD_DIFFERS
            return why.sentence(detail=Text("{step} first", step=self.steps_left[0].prompt())), why.ruling
        if game.is_over:
            why = Reason.BOARD_AFTER_THE_END
            return why.sentence(winner=game.winner_id, detail=_differences(missing, extra)), why.ruling
        if game.pending is None and missing:
            wrong = [sq for sq in missing if owners.get(sq) != game.to_move_id]
            if wrong:
                err = IllegalMoveError(
                    Reason.NOT_YOUR_PIECE, square=wrong[0], owner=owners[wrong[0]], player=game.to_move_id
                )
            else:
                err = IllegalMoveError(Reason.NO_THROW, player=game.to_move_id)
            return err.text, err.ruling
        if game.pending is not None and len(missing) == 1 and len(extra) <= 1:
            from_sq = missing[0]
            unreachable: IllegalMoveError | None = None
            reach: int | None = None
            try:
                reach = _reachable(game, from_sq)
            except IllegalMoveError as err:  # the throw takes this piece nowhere (S11's exact bear-off...)
                unreachable = err
            except ValueError:
                pass  # a card that moves by no count
            aim = extra[0] if extra else reach
            try:
                if reach is not None and aim != reach:
                    game.check_move(from_sq, reach)  # the real obstacle, if the piece cannot move at all
                if aim is not None:
                    game.check_move(from_sq, aim)
            except IllegalMoveError as err:
                return err.text, err.ruling
            if aim is None and owners.get(from_sq) != game.to_move_id:  # lifted and held: whose piece?
                theirs = IllegalMoveError(
                    Reason.NOT_YOUR_PIECE, square=from_sq, owner=owners.get(from_sq), player=game.to_move_id
                )
                return str(theirs), theirs.ruling
            if aim is None and unreachable is not None:
                return str(unreachable), unreachable.ruling
        return Reason.BOARD_DIFFERS.sentence(detail=_differences(missing, extra)), Reason.BOARD_DIFFERS.ruling

    # ------------------------------------------------------------------ questions and answers

    def _ask(
        self,
        kind: str,
        text: str,
        options: list[str],
        fits: Sequence[tuple[Candidate, int]] = (),
        revise: bool = False,
        swap: tuple[int, int] | None = None,
    ) -> list[Verdict]:
        self._questions += 1
        self.question = Question(self._questions, kind, text, options, list(fits), revise, swap)
        return [self.question.verdict()]

    def answer(self, choice: int | str, at: float | None = None) -> list[Verdict]:
        """The operator's answer to the open question: an option's index or its text."""
        out = self._catch_up(at)
        question = self.question
        if question is None:
            raise RefereeError("there is no question to answer")
        if isinstance(choice, str):
            if choice not in question.options:
                raise RefereeError(f"{choice!r} is not an answer to this question: {', '.join(question.options)}")
            choice = question.options.index(choice)
        if isinstance(choice, bool) or not 0 <= choice < len(question.options):
            raise RefereeError(f"answer {choice!r}: choose 0-{len(question.options) - 1}")
        self.question = None
        out.append(Answered(question.id, question.options[choice]).json())
        if question.kind == "which" and choice < len(question.candidates):
            if question.revise:
                return out + self._revise_to(*question.candidates[choice])
            return out + self._accept(*question.candidates[choice])
        if question.kind == "undo" and choice == 0:
            return out + self.undo()
        if question.kind == "new_game" and choice == 0:
            return out + self.new_game()
        if question.kind == "swap" and question.swap is not None:
            return out + (self._warn_swap(*question.swap) if choice == 1 else [])
        self._reset_attempt()
        if not self._same(self.sensed, self.expected):
            return out + self._warn(self.sensed)
        return out

    # ------------------------------------------------------------------ throws and operator actions

    def throw(self, value: object, at: float | None = None) -> list[Verdict]:
        """A throw for the player to move (from the thrower, or entered by hand)."""
        out = self._catch_up(at)
        block = self._busy()
        if block:
            return [*out, block]
        player = self.game.to_move_id
        start = self.game.occupied()
        try:
            effects = self.game.push_throw(value)
        except IllegalMoveError as err:
            return [*out, illegal(err, player=player)]
        self.provisional = None  # the last move is final now
        out.append(Thrown(player, list(value) if isinstance(value, tuple) else value).json())
        out += from_effects(effects)
        self._cands()  # worked out now, while the hands move, so that judging the board is quick
        steps = effect_steps(effects)  # M9: the pieces of a player who leaves come off the board
        if steps and self.sensing:
            self._guide(steps, start)
            out.append(self._prompt())
        elif steps:
            self.expected = self.sensed = self.game.occupied()
        return out

    def play_card(self, kind: str, value: object, at: float | None = None) -> list[Verdict]:
        """The card game's turn actions (K4): play a card, exchange one or two, or pass (K9's residue)."""
        out = self._catch_up(at)
        block = self._busy()
        if block:
            return [*out, block]
        game = self.game
        player = game.to_move_id
        if game.turn_starts_with != "card":
            raise RefereeError(f"{kind!r} is a card game action; this game is {game.name}")
        try:
            if kind == "card":
                effects = game.push_card(str(value))
                out.append(CardPlayed(player, str(value)).json())
            elif kind == "exchange":
                cards = [str(c) for c in value] if isinstance(value, list) else [str(value)]
                effects = game.push_exchange(cards)
                out.append(Exchanged(player, len(cards)).json())
            else:
                effects = game.push_pass()
                out.append(Passed(player).json())
        except IllegalMoveError as err:
            return [*out, illegal(err, player=player)]
        self.provisional = None
        out += from_effects(effects)
        if game.phase == "nile":
            text = Text("{player}: send one of your pawns on 16-30 to the Nile (K7)", player=game.mover_id)
            out.append(Prompt(text, game.mover_id, None, 15).json())
        self._cands()
        return out

    def enter_move(self, from_sq: int, to_sq: int, by: int = 0, at: float | None = None) -> list[Verdict]:
        """A move entered by hand (a board without sensors, a dead switch, or an answer to "which")."""
        out = self._catch_up(at)
        player = self.game.mover_id
        if self.question is not None and self.question.kind == "which":
            for i, (cand, _) in enumerate(self.question.candidates):
                first = cand.moves[0]
                if (first.from_sq, first.to_sq) == (from_sq, to_sq) and by in (0, first.by):
                    return out + self.answer(i)
        if self.steps_left and self.sensing:
            return [*out, self._busy()]  # type: ignore[list-item]  # steps left while sensing: _busy() has a verdict
        try:
            move = self.game.check_move(from_sq, to_sq, by)
        except IllegalMoveError as err:
            return [*out, illegal(err, player=player)]
        steps, _, _ = play_out(self.game, [move])
        before = self.game.occupied()
        self.before_last_move = before
        self.provisional = None
        out += from_effects(self.game.push(move), move, player)
        self.question = None
        if self.sensing:
            self._guide(steps, before, keep_evidence=True)  # the hands may have moved it already
            out += self._recheck_owed()
        else:
            self.expected = self.sensed = self.game.occupied()
        return out

    def undo(self, at: float | None = None) -> list[Verdict]:
        """Take back the last move (the throw it used stays to be played again): every piece it
        carried is guided back, exchanged and captured ones included."""
        out = self._catch_up(at)
        game = self.game
        if not any(kind == "move" for kind, _ in game.actions):
            raise RefereeError("there is no move to undo")
        while True:
            kind, value = game.pop()
            if kind == "move":
                break
        steps, _, _ = play_out(game, [value])  # type: ignore[list-item]  # a popped "move" action is a Move
        owed = len(self.steps_left)
        done = steps[: len(steps) - owed] if owed else steps  # the owed ones were never carried out
        self.before_last_move = None
        self.provisional = None
        self.question = None
        self.swapped = None
        out.append(Undone(game.to_move_id, str(value)).json())
        self.warning = None
        self.guiding = False
        self.steps_left = []
        if not self.sensing:
            self.expected = self.sensed = game.occupied()
            return out
        self._guide(reversed_steps(done), self.expected, keep_evidence=True)
        return out + self._recheck_owed()

    def new_game(self, at: float | None = None) -> list[Verdict]:
        """Start again from the standard setup with the same rule set and options."""
        out = self._catch_up(at)
        self.game = type(self.game)(self.game.players, self.game.options)
        self.before_last_move = None
        self.provisional = None
        self.question = None
        self.swapped = None
        out.append(NewGame(self.game.name, self.game.to_move_id).json())
        return out + self._resync_board_to(self.game.occupied())

    def resync(self, at: float | None = None) -> list[Verdict]:
        """Let the board win: take the sensed occupancy as the position, changing as few pieces as
        possible, and say what was assumed. A piece the switches do not see is never taken off the
        game: its switch is judged faulty instead, and the game keeps it where it was."""
        out = self._catch_up(at)
        game = self.game
        owners = game.board()
        sensed = self.sensed & ~self.unknown | game.occupied() & self.unknown
        todo = fixes(game.occupied(), sensed, owners)
        moved = {f.from_sq: f.to_sq for f in todo if f.from_sq != HAND and f.to_sq != HAND}
        unseen = [f.from_sq for f in todo if f.to_sq == HAND]
        spare = game.spare_pieces()
        added = []
        for f in todo:
            if f.from_sq == HAND:
                pid = max(spare, key=lambda p: (spare[p], p == game.to_move_id))
                if spare[pid] < 1:
                    raise RefereeError(f"square {f.to_sq} holds a piece, but every piece is already on the board")
                spare[pid] -= 1
                added.append((f.to_sq, pid))
        game.edit(moved, [], added)
        for sq in unseen:
            self.unknown |= bit(sq)
            self.faults[sq] = "stuck open"
        assumed: list[str] = [
            Text("{player}'s piece on {a} is now on {b}", player=owners[a], a=a, b=b) for a, b in moved.items()
        ]
        assumed += [
            Text("{player}'s piece on {a} is still there: its switch does not see it", player=owners[a], a=a)
            for a in unseen
        ]
        assumed += [Text("the piece on {square} is {player}'s", square=sq, player=pid) for sq, pid in added]
        self.expected = game.occupied()
        self.steps_left, self.boards_left = [], []
        self.before_last_move = None
        self.provisional = None
        self.question = None
        self.swapped = None
        self._reset_attempt()
        out.append(Resynced(assumed, {str(k): v for k, v in game.board().items()}).json())
        if self.warning is not None:
            out.append(self._clear())
        return out

    def _catch_up(self, at: float | None) -> list[Verdict]:
        out = self.tick(at) if at is not None else []
        return out + self.flush()

    def _recheck_owed(self) -> list[Verdict]:
        """Owed steps the hands may already have carried out (a move taken back before the undo was
        asked for, a move entered after it was made): judge them at once, prompt what is left."""
        if not self.steps_left:
            return []
        verdicts = [v for v in self._judge_prompts(self.sensed) if v["v"] != "cleared"]
        if self.steps_left and not any(v["v"] == "prompt" for v in verdicts):
            verdicts.append(self._prompt())
        return verdicts

    def unseen_move(self) -> Move | None:
        """The one move the board cannot show (a bounce back onto its own square, M5), when that is
        what the player may mean by pressing the button instead of moving a piece; else None."""
        if self.game.pending is None or self._busy() is not None or not self._same(self.sensed, self.expected):
            return None
        unseen = {c.moves[0] for c in self._cands() if not c.visible and len(c.moves) == 1}
        return next(iter(unseen)) if len(unseen) == 1 else None

    def throw_blocked(self) -> str | None:
        """Why a throw would be refused now (a move owed, a prompt, a question, a wrong board), or None."""
        busy = self._busy()
        if busy is not None:
            reason = busy["reason"]
            return reason if isinstance(reason, str) else str(reason)  # a Text stays one
        if self.game.is_over:
            return Text("the game is over: {winner} won", winner=self.game.winner_id)
        if self.game.pending is not None:
            return Text(
                "{player} must first move with {throw}",
                player=self.game.to_move_id,
                throw=self.game.throw_text(self.game.pending),
            )
        return None

    def _busy(self) -> Verdict | None:
        if self.question is not None:
            return Illegal.because(Reason.ANSWER_FIRST, question=self.question.text).json()
        if self.sensing and self.steps_left:
            return Illegal.because(Reason.FINISH_FIRST, step=self.steps_left[0].prompt()).json()
        if self.sensing and self.warning is not None:
            return Illegal.because(Reason.BOARD_FIRST, warning=self.warning["reason"]).json()
        return None

    def _guide(self, steps: list[Step], start: int, keep_evidence: bool = False) -> None:
        """The people must carry out `steps` from the board `start`: prompt them one at a time, and
        count each done only once the hands were seen to do it."""
        steps = [s for s in steps if s.from_sq != s.to_sq]  # a bounce onto its own square asks nothing
        self.steps_left = list(steps)
        self.boards_left = stages(start, steps)
        self._lifts_left = lifts_needed(start, steps)
        self._swaps_left = swaps_needed(start, steps)
        self._landed_left = landings(start, steps)
        self.expected = start
        if not keep_evidence or self.attempt.start != start:
            self.attempt = Attempt(start, owners=self.game.board())
        if not self.steps_left:
            self.expected = self.game.occupied()

    def _resync_board_to(self, target: int) -> list[Verdict]:
        """After a new game: prompts that bring the physical board to `target`."""
        self.warning = None
        self.guiding = False
        self.steps_left = []
        self._reset_attempt()
        if not self.sensing:
            self.expected = self.sensed = target
            return []
        owners = self.game.board()
        steps = [
            Step(
                owners.get(f.to_sq, ""),
                OFF if f.from_sq == HAND else f.from_sq,
                OFF if f.to_sq == HAND else f.to_sq,
                "fix",
            )
            for f in fixes(self.sensed, target, owners)
        ]
        self._guide(steps, self.sensed)
        return [self._prompt()] if steps else []

    # ------------------------------------------------------------------ candidates

    def _cands(self) -> list[Candidate]:
        version, cands = self._candidates
        if version == self.game.version:
            return cands
        cands = []
        seen: set[tuple[Move, ...]] = set()
        start = self.game.occupied()
        for seq in self.game.move_sequences():
            for moves in ([seq[0]], seq) if len(seq) > 1 else (seq,):
                key = tuple(moves)
                if key in seen:
                    continue
                seen.add(key)
                steps, _, outcome = play_out(self.game, moves)
                movers = [i for i, s in enumerate(steps) if s.why == "move"]
                boards = stages(start, steps)
                first = movers[-1] if movers else 0
                need = lifts_needed(start, steps)
                places = places_needed(steps)
                visible = any(s.from_sq != s.to_sq for s in steps)  # a bounce back onto its own square is not
                cand = Candidate(
                    moves=key,
                    steps=steps,
                    boards=boards,
                    first_stage=first,
                    touched=touched(steps),
                    outcome=outcome,
                    lifts=need,
                    places=places,
                    origins=origins(start, steps),
                    swaps=swaps_needed(start, steps),
                    visible=visible,
                    landed=landings(start, steps),
                )
                cands.append(cand)
        self._candidates = (self.game.version, cands)
        return cands

    # ------------------------------------------------------------------ for the page

    def differences(self) -> tuple[list[int], list[int]]:
        """The sensed board against the expected one: (missing, extra), faulty switches left out."""
        return board_differences(self.sensed, self.expected, self.unknown)

    def status(self) -> dict[str, object]:
        """The referee's open business: the sensed board against the expected one, the prompt,
        warning or question open, the switches judged faulty (the game's own state is the game's)."""
        return {
            "sensed": squares_in(self.sensed),
            "expected": squares_in(self.expected),
            "in_progress": self.in_progress,
            "prompt": self._prompt() if self.steps_left else None,
            "warning": self.warning,
            "question": self.question.verdict() if self.question else None,
            "faults": {str(sq): fault for sq, fault in sorted(self.faults.items())},
        }


def illegal_board(reason: str, ruling: str, board: int, target: int, todo: list[Fix]) -> Verdict:
    """The `illegal` verdict for a wrong board: what is wrong and what would put it right."""
    return Illegal(
        reason, ruling, squares_in(target & ~board), squares_in(board & ~target), [f.text() for f in todo]
    ).json()


def board_differences(board: int, target: int, unknown: int = 0) -> tuple[list[int], list[int]]:
    """The squares `target` wants a piece on that `board` lacks (missing) and the squares `board`
    has a piece on that `target` wants empty (extra), each lowest first; `unknown` squares (a
    switch judged faulty) are in neither."""
    return squares_in(target & ~board & ~unknown), squares_in(board & ~target & ~unknown)


def _differences(missing: list[int], extra: list[int]) -> Text:
    parts = [Text("square {square} should be empty", square=sq) for sq in extra]
    parts += [Text("square {square} should hold a piece", square=sq) for sq in missing]
    return joined(parts)


def _distinct(fits: list[tuple[Candidate, int]]) -> list[tuple[Candidate, int]]:
    """One fit per resulting position: two orders of the same two moves are one answer, not a question."""
    seen: dict[str, tuple[Candidate, int]] = {}
    for cand, stage in fits:
        seen.setdefault(cand.outcome, (cand, stage))
    return list(seen.values())


def _on_the_way(board: int, start: int, cand: Candidate) -> bool:
    """Whether `board` could be `cand` half done, with pieces in the hand: every square that changed
    is one the move touches, and every newly filled square is where a piece now free could go. A
    piece is free once its square is empty, or once a free piece has landed on its square."""
    if (board ^ start) & ~cand.touched:
        return False
    free = {origin for origin in cand.origins if origin == OFF or not board & bit(origin)}
    grown = True
    while grown:
        grown = False
        for step, origin in zip(cand.steps, cand.origins, strict=True):
            if origin in free and step.to_sq != OFF and start & bit(step.to_sq) and step.to_sq not in free:
                free.add(step.to_sq)  # it landed on a piece, which is now in the hand
                grown = True
    return all(
        any(s.to_sq == sq and origin in free for s, origin in zip(cand.steps, cand.origins, strict=True))
        for sq in squares_in(board & ~start)
    )


def _put_down_after_lifting(ev: Attempt, step: Step) -> bool:
    """Whether a piece was put on the step's square after its own square opened: a piece cannot
    land before it is picked up."""
    return step.to_sq == OFF or ev.put_down_after(step.to_sq, step.from_sq)


def _best_explained(fits: list[tuple[Candidate, int]], ev: Attempt) -> list[tuple[Candidate, int]]:
    """Of moves that fit the board, those that account for the most switches that opened: a lift
    no move needs is a knock, and the fewer knocks assumed, the likelier the move. A piece lifted
    and put straight back is as likely a knock as part of a move: it decides nothing."""
    explained = [(ev.lifted & c.lifts[k]) | (ev.placed & c.places[k]) << 32 for c, k in fits]
    knocks = ev.knocked | ev.knocked << 32
    return [
        fit
        for fit, mine in zip(fits, explained, strict=True)
        if not any(other != mine and other & mine == mine and (other & ~mine) & ~knocks for other in explained)
    ]


def _pieces(game: Game) -> dict[int, tuple[str, object]]:
    """Each occupied square's piece as far as identity goes: its owner, and in `modern` its dots."""
    return {sq: piece for sq in game.board() if (piece := game.piece_at(sq)) is not None}


def _reachable(game: Game, from_sq: int) -> int:
    """Where the piece on `from_sq` would go with the throw waiting (for explaining a lifted piece)."""
    pending = game.pending
    if isinstance(pending, tuple) and all(isinstance(d, int) for d in pending):  # modern's dice
        value = sum(pending)
    elif isinstance(pending, int) and not isinstance(pending, bool):
        value = pending
    else:  # a hieroglyph or Nile card: no count of squares to explain by
        raise ValueError(f"no single value to move by: {pending!r}")
    return game.destination(from_sq, value)
