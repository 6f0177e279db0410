"""The referee's core: its one state (a `RefereeState`, with the typed values in `state.py`), the
mode derived from it, the judges over it, and `Core.dispose`, the one place a judge's proposal
(an `Outcome`, `outcome.py`) changes the state and says its verdicts.

The judges (`Part`s, read-only: `judge.py`, `ways.py`, `whereabouts.py`, `faults.py`) read the
state and the game and propose; `actions.py` takes the throws and the operator's actions;
`referee.py` holds a core and is the one entry point for inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..rules import Game
from ..rules.board import OFF, squares_in
from ..rules.reasons import Reason
from ..rules.text import N_, Text
from ..verdicts import Cleared, Illegal, Revised, Settled, Switch, Verdict, Withdrawn, from_effects
from .attempt import Attempt, Identity
from .candidates import Candidate, candidates
from .faults import Faults, switch_text
from .guidance import board_differences, explain, swap_reason, unsure_square, warning_fixes
from .judge import Judging
from .outcome import (
    Accept,
    Afresh,
    AfterTheEnd,
    Ask,
    Clearing,
    Good,
    Keep,
    MarkFaulty,
    Outcome,
    Repaired,
    ReplaceWarn,
    Revise,
    StepsDone,
    SwapWarn,
    TakenBack,
    Wait,
    Warn,
    Wrong,
    new_game_question,
    whose,
)
from .physical import HAND, Fix, Step, piece_name
from .state import (
    Asking,
    Mixed,
    Mode,
    Owed,
    Owing,
    Provisional,
    RefereeState,
    Repairing,
    Replace,
    Saved,
    SwapBack,
    UndoQuestion,
    Warning,
)
from .ways import Ways
from .whereabouts import Whereabouts

#: Settle time, seconds: long enough for a slide across squares or a piece bouncing into
#: place, short enough that the verdict feels immediate (e-board companions use 0.25-0.5 s).
SETTLE_TIME = 0.4
#: After a warning, how long to wait before guiding one fix at a time.
GUIDANCE_DELAY = 3.0
#: Seconds within which a switch change and the thrower's button count as the same moment (the
#: board is scanned 50 times a second): a piece lifted as the button is pressed is part of the move.
SAME_SCAN = 0.05


class Core:
    """One game on a board whose switches sense occupancy only: the state, the judges, and the one
    place their proposals are applied.

    Contract: holds the game, the settings and the referee's one `state` (a `RefereeState`), and
    the judges over them (`Judging`, `Ways`, `Whereabouts`, `Faults`: read-only, each proposing an
    `Outcome`). `dispose` is the only place an outcome changes the state (a move accepted or
    revised, a warning, a question, a switch judged faulty) and says its verdicts; `Actions`
    (throws, cards, undo, new game, resync, time) hands its outcomes to it too."""

    def __init__(self, game: Game, *, settle: float = SETTLE_TIME, guidance_delay: float = GUIDANCE_DELAY) -> None:
        self.game = game
        self.settle = settle
        self.guidance_delay = guidance_delay
        self.start_board = type(game)(game.players, game.options).occupied()
        board = game.occupied()
        self.state = RefereeState(board, board, self._attempt(board))
        self.fault_finder = Faults(self)
        self.ways = Ways(self)
        self.whereabouts = Whereabouts(self)
        self.judging = Judging(self, self.ways, self.whereabouts)

    # ------------------------------------------------------------------ the state, seen from outside

    @property
    def mode(self) -> Mode:
        """What the referee waits for now, read off the open work (the most pressing business first:
        a question, then owed steps, even under a warning toward them, then a warning)."""
        match self.state.open:
            case Asking():
                return Mode.ANSWER
            case Owing() | Repairing(toward=Owed()) if self.state.sensing:
                return Mode.PROMPTS
            case Repairing(warning=Warning()) if self.state.sensing:
                return Mode.FIX
        if self.game.is_over:
            return Mode.OVER
        if self.game.pending is not None or self.game.phase != "play":
            return Mode.MOVE
        return Mode.THROW

    @property
    def steps_left(self) -> list[Step]:
        """The steps the people still owe, in order."""
        return self.state.owed.steps if self.state.owed is not None else []

    @property
    def unknown(self) -> int:
        """The squares whose switch is judged faulty."""
        return self.state.switches.unknown

    def snapshot(self) -> Saved:
        """Everything an input may change, to put back if judging it fails (`restore`): a copy of
        the state, and the game with its checkpoint."""
        return Saved(self.state.copy(), self.game, self.game.checkpoint())

    def restore(self, saved: Saved) -> None:
        """The referee and its game as `snapshot` took them (the snapshot stays usable again)."""
        self.state = saved.state.copy()
        self.game = saved.game
        self.game.rollback(saved.point)

    def _attempt(self, start: int) -> Attempt:
        """Fresh evidence from the board `start`, each piece on it as the game knows it."""
        game = self.game
        return Attempt(start, owners=game.board(), pieces={sq: game.piece_at(sq) for sq in game.board()})

    def same(self, a: int, b: int) -> bool:
        """Whether two boards agree on every square whose switch can be trusted."""
        return self.state.switches.same(a, b)

    def target(self) -> int:
        """The board the people should make: the expected one, or where the owed steps lead."""
        return self.state.owed.final if self.state.owed is not None else self.state.expected

    # ------------------------------------------------------------------ judging: the judges propose, the core disposes

    def judge(self) -> list[Verdict]:
        """Judge the settled board: a question the board overtook is withdrawn, the judges propose what
        to do with the board (`Judging.settled`), and the proposal is applied."""
        self.state.judged = True
        out: list[Verdict] = []
        if self.state.question is not None:
            out.append(Withdrawn(self.state.question.id))
            self.state.unask()
        return out + self.dispose(self.judging.settled(self.state.sensed))

    def judge_at(self, moment: float) -> list[Verdict]:
        """`judge`, as of the time `moment` (when the board settled, not when that was noticed)."""
        now, self.state.now = self.state.now, moment
        try:
            return self.judge()
        finally:
            self.state.now = now

    def dispose(self, outcome: Outcome) -> list[Verdict]:
        """The one place a judge's proposal changes the state: applied, and its verdicts said."""
        match outcome:
            case Accept(cand, stage, strays):
                return self.accept_beside_strays(cand, stage) if strays else self.accept(cand, stage)
            case Revise(cand, stage):
                return self._revise(cand, stage)
            case Ask():
                return self._ask(outcome)
            case Warn(board, toward, taken_back):
                return self.warn(board, toward, taken_back)
            case Wrong(target, warn):
                return self._counted_wrong(target) or self.dispose(warn)
            case MarkFaulty(marks):
                return self._mark_faulty(marks)
            case StepsDone(stage):
                return self._steps_done(stage)
            case TakenBack(board):
                return self._taken_back(board)
            case AfterTheEnd(setup):
                self.state.switches.wrong_for.clear()
                return self._ask(new_game_question()) if setup else []
            case Keep(pieces, then):
                self.state.attempt.keep(pieces)
                return self.dispose(then)
            case Wait():
                return []
            case _:
                return self._dispose_whereabouts(outcome)

    def _dispose_whereabouts(
        self, outcome: Good | Afresh | Repaired | Clearing | SwapWarn | ReplaceWarn
    ) -> list[Verdict]:
        """Who stands where (`Whereabouts`' proposals): the board good, evidence afresh, a repair
        done, a warning cleared before a question, a swap or a replacement warned."""
        match outcome:
            case Good(force):
                return self.board_good(force)
            case Afresh(then):
                self.reset_attempt()
                return self.dispose(then)
            case Repaired(then):
                self.state.repaired()
                return self.dispose(then)
            case Clearing(then):
                cleared = [self.clear()] if self.state.warning is not None else []
                return cleared + self.dispose(then)
            case SwapWarn(a, b, mixed):
                return self._warn_swap(a, b, mixed)
            case ReplaceWarn(square, real, mixed):
                return self._warn_replace(square, real, mixed)

    def _counted_wrong(self, target: int) -> list[Verdict]:
        """A settled board wrong against `target`: each wrong square counted against its switch, in
        turn, and one the faults judge stuck marked faulty (the board judged again) before the next."""
        wrong = (self.state.sensed ^ target) & ~self.unknown
        self.state.switches.right_again(wrong)
        handled = self.state.attempt.lifted | self.state.attempt.placed
        out: list[Verdict] = []
        for square in squares_in(wrong):
            self.state.switches.count_wrong(square)
            fault = self.fault_finder.stuck(square, handled)
            if fault is not None:
                out += self._mark_faulty(((square, fault),))
        return out

    def _mark_faulty(self, marks: tuple[tuple[int, str], ...]) -> list[Verdict]:
        """Each switch judged faulty in turn, the board judged again after each: its square is unknown now."""
        out: list[Verdict] = []
        for square, fault in marks:
            self.state.switches.mark(square, fault)
            out.append(Switch(square, fault, switch_text(square, fault)))
            if self.state.warning is not None and self.state.warning.swap is None:
                self.state.forget_warning()
            self.state.judged = False
            out += self.judge()
        return out

    def _steps_done(self, stage: int) -> list[Verdict]:
        """The owed steps done as far as `stage`: the next prompted, or the board good."""
        owed = self.state.owed
        assert owed is not None
        self.state.expected = owed.cand.boards[stage]
        self.state.owe(Owed.of(owed.cand, stage))
        if self.state.owed is not None:
            return [self.state.owed.prompt()]
        self.reset_attempt()
        return self.board_good(force=True)

    def _taken_back(self, board: int) -> list[Verdict]:
        """The last move taken back by hand: what the hands do next is judged from `board`; ask to undo it."""
        prov = self.state.provisional
        if prov is not None:
            prov.attempt = Attempt(board, owners=prov.attempt.owners, pieces=prov.attempt.pieces)
            prov.taken_back = True
        text = Text("The board is as it was before the last move. Undo that move?")
        return self._ask(Ask(UndoQuestion(text=text, options=[Text("undo"), Text("keep")])))

    def _revise(self, cand: Candidate, stage: int) -> list[Verdict]:
        """The throw accepted was played as `cand` (to `stage`): its moves taken back and `cand`'s
        accepted, said as a `revised` line; the way already under way is only played on."""
        prov = self.state.provisional
        assert prov is not None
        if prov.continued_by(cand) and stage == len(cand.boards) - 1:
            # the answer is the way already under way: play its remaining moves, nothing to revise
            rest = cand.moves[len(prov.labels) :]
            for later in self.cands():
                if later.moves == rest:
                    return self.accept(later, len(later.boards) - 1)
        popped = 0
        while popped < prov.moves:
            kind, _ = self.game.pop()
            popped += kind == "move"
        player = self.game.mover_id  # the revised move's player (the turn may have passed since)
        self.state.forget_provisional(prov, self.game.version)
        text = Text(
            "{player}'s move was {now}, not {was}", player=player, now=cand.label(), was=" then ".join(prov.labels)
        )
        verdict = Revised(player, list(prov.labels), [str(m) for m in cand.moves], text)
        return [verdict, *self.accept(cand, stage)]

    # ------------------------------------------------------------------ outcomes

    def cands(self) -> list[Candidate]:
        """Every way to play the throw waiting, worked out once per position."""
        version, cands = self.state.candidates
        if version != self.game.version:
            cands = candidates(self.game)
            self.state.candidates = (self.game.version, cands)
        return cands

    def accept(self, cand: Candidate, stage: int) -> list[Verdict]:
        player = self.game.mover_id
        base = self.state.expected
        ev = self.state.attempt
        if not (cand.boards[stage] ^ ev.board()) & ~self.unknown:  # the hands' stories that are this move
            ev.keep((sq, ev.piece(origin)) for sq, origin in cand.landed[stage] if origin != OFF)
            if ev.start == base:  # its pieces numbered by their squares here: those it took off are set aside
                ev.set_aside(o for o, st in zip(cand.origins, cand.steps[: stage + 1], strict=False) if st.to_sq == OFF)
        self.state.before_last_move = self.game.occupied()
        self.state.accepted = max(1, len(cand.moves))
        base_cands = list(self.cands())
        out: list[Verdict] = []
        for move in cand.moves:
            out += from_effects(self.game.push(move), move, player)
        if self.state.provisional is None:
            self.state.provisional = Provisional(base, 0, (), base_cands, self.state.attempt, [])
        self.state.provisional.moves += len(cand.moves)
        self.state.provisional.seen = ev.count
        self.state.provisional.outcome = cand.outcome
        self.state.provisional.labels += [str(m) for m in cand.moves]
        self.state.owe(Owed.of(cand, stage))
        self.state.expected = cand.boards[stage] if cand.boards else self.state.expected
        doubt = self.state.owed is None and self.whereabouts.in_doubt()
        if self.state.owed is None and not doubt:
            self.reset_attempt()  # the prompts, if any, go on judging with the evidence since the move began
        else:
            self.state.in_progress = False
        if self.state.warning is not None:
            out.insert(0, self.clear())
        if self.state.owed is not None:
            out.append(self.state.owed.prompt())
        self.cands()  # a second die to play (modern): ready before the hands move again
        if doubt:  # pieces the hands held together besides the move's: who stands where is asked, not guessed
            out += self.dispose(self.whereabouts.standing())
        return out

    def accept_beside_strays(self, cand: Candidate, stage: int) -> list[Verdict]:
        """Accept a move made with stray changes beside it (a knock, a spare, a weld), and warn the
        strays with their fixes: the hands' stories (narrowed to the move) still say whose piece
        each stray is and where it came from."""
        ev = self.state.attempt
        out = self.accept(cand, stage)
        if (
            not self.same(self.state.sensed, self.state.expected)
            and self.state.owed is None
            and self.state.question is None
        ):
            self.state.forget_attempt(ev)
            out += self.warn(self.state.sensed)
        return out

    def board_good(self, force: bool = False) -> list[Verdict]:
        was_moving = self.state.in_progress
        self.reset_attempt()
        if self.state.warning is not None or force:
            return [self.clear()]
        if was_moving:  # a piece knocked and put back, or a move begun and taken back
            return [Settled()]
        return []

    def clear(self) -> Verdict:
        """The warning is over: cleared (`RefereeState.clear_warning`), and said."""
        self.state.clear_warning()
        return Cleared()

    def forget(self, *, history: bool = False, warning: bool = False, owed: bool = False) -> None:
        """The resets of the open business, in one place. `history`: the last move is no longer open
        to an undo or a revision, no question stands, and pieces believed swapped or mixed up by hand
        are no longer in question (undo, new game, resync); `warning`: no warning stands or is being
        guided; `owed`: no steps are owed. The fields each touches are listed in `RefereeState`'s resets."""
        if history:
            self.state.forget_history()
        if warning:
            self.state.forget_warning()
        if owed:
            self.state.forget_owed()

    def reset_attempt(self) -> None:
        """The board is trusted as it is: evidence starts afresh from here."""
        self.state.forget_attempt(self._attempt(self.state.expected if self.state.owed is None else self.state.sensed))

    def unsensed(self) -> None:
        """A board without sensors (yet) follows the game: what it shows and should show is the game's
        position, and the hands' evidence, should its switches start reporting (a bridge plugged in
        late), starts from that position, never from the setup (class 1)."""
        self.state.expected = self.state.sensed = self.game.occupied()
        self.reset_attempt()

    def guide(self, steps: Sequence[Step], start: int, keep_evidence: bool = False) -> None:
        """The people must carry out `steps` from the board `start`: prompt them one at a time, and
        count each done only once the hands were seen to do it."""
        steps = [s for s in steps if s.from_sq != s.to_sq]  # a bounce onto its own square asks nothing
        self.state.owe(Owed(Candidate.of_steps(start, steps)) if steps else None)
        self.state.expected = start if steps else self.game.occupied()
        if not keep_evidence or self.state.attempt.start != start:
            self.state.attempt = self._attempt(start)

    # ------------------------------------------------------------------ warnings

    def _fixes(self, board: int, target: int) -> list[Fix]:
        """How to put `board` right toward `target` (see `guidance.warning_fixes`)."""
        return warning_fixes(self.game, self.steps_left, board, target, self.state.attempt, self.unknown)

    def warn(self, board: int, toward: int | None = None, taken_back: bool = False) -> list[Verdict]:
        target = self.state.expected if toward is None else toward
        fixes = self._fixes(board, target)
        unsure = unsure_square(fixes, self.state.attempt, self.state.sensed, self.unknown)
        if unsure is not None:  # fixes must name whose piece goes where: ask first
            return self._ask(whose(*unsure))
        owed = self.state.owed.step if self.state.owed is not None else None
        reason, ruling = explain(self.game, board, target, self.unknown, owed)
        if taken_back and owed is not None:
            reason = Text(
                "the last move was taken back before the rules' own moves were done: {step}, or undo the move",
                step=owed.prompt(),
            )
        missing, extra = board_differences(board, target, self.unknown)
        warning = Warning(reason, ruling, missing, extra, fixes, self.state.now, player=self.game.to_move_id)
        if self.state.warning is not None and self.state.warning.reason == warning.reason:
            self.state.warned(replace(warning, since=self.state.warning.since))
            return self.next_fix() if self.state.guiding else []
        self.state.warned(warning)
        return [warning.verdict(), *(self.next_fix() if self.state.guiding else [])]

    def _warn_swap(self, a: int, b: int, mixed: Mixed | None = None) -> list[Verdict]:
        """Two pieces swapped by hand that no legal move exchanges: say why, and to swap them back
        (`mixed`: other pieces said to stand on each other's squares, swapped back next)."""
        reason = swap_reason(self.game, a, b)
        fix = Fix(a, b, swap=True)
        warning = Warning(reason, Reason.SWAPPED.ruling, [], [], [fix], self.state.now, (a, b), self.game.to_move_id)
        self.state.repair_warned(warning, SwapBack(a, b, mixed if mixed is not None else {}))
        return [warning.verdict()]

    def _warn_replace(self, square: int, real: Identity, mixed: Mixed) -> list[Verdict]:
        """The people said the piece on `square` is another than the game's (one not in the game,
        or one whose square is elsewhere), and the game's is on no other square: take that piece
        off and put the game's there (class 4: a wrong board is never accepted in silence)."""
        wanted = self.game.piece_at(square)
        owner, dots = wanted if isinstance(wanted, tuple) else (wanted, None)
        if real is None:
            text = N_("the piece on {square} is not in the game: {piece} belongs there")
            reason = Text(text, square=square, piece=piece_name(wanted))
        else:
            reason = Text(
                "the piece on {square} is {real}, but {piece} belongs there",
                square=square,
                real=piece_name(real),
                piece=piece_name(wanted),
            )
        fixes = [Fix(square, HAND), Fix(HAND, square, str(owner), dots=dots if isinstance(dots, int) else None)]
        warning = Warning(reason, "P3", [], [], fixes, self.state.now, player=self.game.to_move_id)
        self.state.repair_warned(warning, Replace(square, mixed))
        return [warning.verdict()]

    def next_fix(self) -> list[Verdict]:
        repair = self.state.repair
        if isinstance(repair, SwapBack) and self.state.warning is not None and self.state.warning.swap:
            return [Fix(repair.a, repair.b, swap=True).line()]
        if (
            isinstance(repair, Replace)
            and self.state.warning is not None
            and self.same(self.state.sensed, self.state.expected)
        ):
            first = self.state.warning.fixes[0]  # the piece to take off: the switches cannot tell it from the game's
            return [first.line()]
        todo = self._fixes(self.state.sensed, self.target())
        if not todo:
            return []
        return [todo[0].line()]

    # ------------------------------------------------------------------ questions

    def _ask(self, ask: Ask) -> list[Verdict]:
        """Put the question `ask` proposes to the operator, numbered."""
        self.state.questions += 1
        question = replace(ask.question, id=self.state.questions)
        self.state.ask(question)
        return [question.verdict()]

    def busy(self) -> Illegal | None:
        """Why nothing else can be done before the open business (as an `illegal` line), or None."""
        mode = self.mode
        if mode is Mode.ANSWER:
            assert self.state.question is not None
            return Illegal.because(Reason.ANSWER_FIRST, question=self.state.question.text)
        if mode is Mode.PROMPTS:
            return Illegal.because(Reason.FINISH_FIRST, step=self.steps_left[0].prompt())
        if mode is Mode.FIX:
            assert self.state.warning is not None
            return Illegal.because(Reason.BOARD_FIRST, warning=self.state.warning.reason)
        return None
