"""What happens besides pieces moving: time passing, throws and cards, moves entered by hand,
answers to the referee's questions, undo, a new game and a resync (the board wins)."""

from __future__ import annotations

from ..errors import IllegalMoveError, RefereeError
from ..rules import Move
from ..rules.board import OFF
from ..rules.text import Text
from ..verdicts import (
    Answered,
    CardPlayed,
    Cleared,
    Exchanged,
    NewGame,
    Passed,
    Prompt,
    Resynced,
    Switch,
    Thrown,
    Undone,
    Verdict,
    from_effects,
    illegal,
)
from .attempt import Attempt
from .core import SAME_SCAN
from .faults import STILL_TIME, switch_text
from .outcome import Accept, Revise
from .part import Part
from .physical import HAND, Step, StepWhy, effect_steps, fixes, play_out, reversed_steps, walk
from .state import (
    FLICKER_GRACE,
    BackQuestion,
    Mode,
    NewGameQuestion,
    Question,
    SwapQuestion,
    UndoQuestion,
    WhichQuestion,
    WhoseQuestion,
)

_EPS = 1e-6  # times are milliseconds turned into seconds: compare without float noise


class Actions(Part):
    """The referee's answers to throws, cards and the operator's actions.

    Contract: the only part that pushes throws and cards on the game, takes moves back (undo), starts
    a new game or trusts the board (resync), and lets time pass (`tick`: judging a settled board,
    guidance due, dead switches); answers change the evidence only by narrowing its stories.
    Reads and changes the whole state and the game; has the core judge the board (`Core.judge`)
    and apply what the judges propose (`Core.dispose`)."""

    def tick(self, at: float) -> list[Verdict]:
        """Time passed with no change: judge a settled board, give guidance that is due, notice a
        switch that stays open under a piece the game says is there."""
        out: list[Verdict] = []
        if at > self.state.now:
            self.state.now = at
        settle = self._settle_time()
        if (
            not self.state.judged
            and self.state.last_change is not None
            and self.state.now - self.state.last_change >= settle - _EPS
        ):
            out += self.core.judge_at(self.state.last_change + settle)
        if self._part_way_too_long():  # no silent board: a move left part way is warned, with its fix
            self.state.guide_fixes()
            out += self.core.warn(self.state.sensed)
        warning = self.state.warning
        if (
            warning is not None
            and not self.state.guiding
            and self.state.now - warning.since >= self.core.guidance_delay - _EPS
        ):
            self.state.guide_fixes()
            out += self.core.next_fix()
        still_for = self.state.now - (self.state.last_change if self.state.last_change is not None else 0.0)
        switches = self.state.switches
        if (
            self.state.owed is not None
            and self.state.sensing
            and not switches.still_checked
            and still_for >= STILL_TIME
        ):
            switches.still_checked = True
            dead = self.core.fault_finder.dead_under_owed_steps()
            out += self.core.dispose(dead) if dead is not None else []
        return out

    def _settle_time(self) -> float:
        """How long the board must be still to be judged: longer when it is wrong only where the move
        just accepted put a piece down and that switch flickers (a piece teetering half on its square
        settles by itself; a passing warning would only alarm)."""
        prov = self.state.provisional
        if prov is None or self.state.owed is not None:
            return self.core.settle
        wrong = (self.state.sensed ^ self.state.expected) & ~self.core.unknown
        put_down = self.state.expected & ~prov.base & ~self.state.sensed
        teetering = not wrong & ~put_down and self.state.switches.flickering(wrong)
        return self.core.settle + FLICKER_GRACE if teetering else self.core.settle

    def _part_way_too_long(self) -> bool:
        """A settled board that could be a move part way (a piece put down where the move is not done
        yet: the victim of a capture on the sun, or the last move taken back), left so for the
        guidance delay with nothing said. A piece only held in the hand is a person thinking."""
        if (
            not (self.state.judged and self.state.sensing and self.state.last_change is not None)
            or self.core.mode is not Mode.MOVE
        ):
            return False
        if self.state.warning is not None or self.core.same(self.state.sensed, self.state.expected):
            return False
        put_down = self.state.sensed & ~self.state.expected & ~self.core.unknown
        return (
            bool(put_down)
            and self.state.now - self.state.last_change >= self.core.settle + self.core.guidance_delay - _EPS
        )

    def flush(self) -> list[Verdict]:
        """Judge the board now as if it had settled (end of a replay, or a button pressed)."""
        return [] if self.state.judged else self.core.judge_at(self.state.now)

    def _catch_up(self, at: float | None) -> list[Verdict]:
        out = self.tick(at) if at is not None else []
        return out + self.flush()

    # ------------------------------------------------------------------ throws and cards

    def throw(self, value: object, at: float | None = None) -> list[Verdict]:
        """A throw for the player to move (from the thrower, or entered by hand). A piece lifted in the
        same scan as the button press is part of the move, not a move before the throw."""
        out = self.tick(at) if at is not None else []
        same_scan = (
            at is not None
            and not self.state.judged
            and self.game.pending is None  # a throw waited for, not a move still to be judged
            and at - self.state.unsettled_since <= SAME_SCAN  # every change since the board was judged
        )
        if not same_scan:
            out += self.flush()
        block = self.core.busy()
        if block:
            return [*out, block]
        player = self.game.to_move_id
        start = self.game.occupied()
        try:
            effects = self.game.push_throw(value)
        except IllegalMoveError as err:
            return [*out, illegal(err, player=player)]
        self.state.provisional = None  # the last move is final now
        out.append(Thrown(player, list(value) if isinstance(value, tuple) else value))
        out += from_effects(effects)
        self.core.cands()  # worked out now, while the hands move, so that judging the board is quick
        steps = effect_steps(effects)  # M9: the pieces of a player who leaves come off the board
        if steps and self.state.sensing:
            self.core.guide(steps, start)
            out.append(self._prompt())
        elif steps:
            self.core.unsensed()
        return out

    def play_card(self, kind: str, value: object, at: float | None = None) -> list[Verdict]:
        """The card game's turn actions (K4): play a card, exchange one or two, or pass (K9's residue)."""
        out = self._catch_up(at)
        block = self.core.busy()
        if block:
            return [*out, block]
        game = self.game
        player = game.to_move_id
        if game.turn_starts_with != "card":
            raise RefereeError(f"{kind!r} is a card game action; this game is {game.name}")
        try:
            if kind == "card":
                effects = game.push_card(str(value))
                out.append(CardPlayed(player, str(value)))
            elif kind == "exchange":
                cards = [str(c) for c in value] if isinstance(value, list) else [str(value)]
                effects = game.push_exchange(cards)
                out.append(Exchanged(player, len(cards)))
            else:
                effects = game.push_pass()
                out.append(Passed(player))
        except IllegalMoveError as err:
            return [*out, illegal(err, player=player)]
        self.state.provisional = None
        out += from_effects(effects)
        if game.phase == "nile":
            text = Text("{player}: send one of your pawns on 16-30 to the Nile (K7)", player=game.mover_id)
            out.append(Prompt(text, game.mover_id, None, 15))
        self.core.cands()
        return out

    def _prompt(self) -> Verdict:
        assert self.state.owed is not None
        return self.state.owed.prompt()

    # ------------------------------------------------------------------ moves entered, answers

    def enter_move(self, from_sq: int, to_sq: int, by: int = 0, at: float | None = None) -> list[Verdict]:
        """A move entered by hand (a board without sensors, a dead switch, or an answer to "which")."""
        out = self._catch_up(at)
        player = self.game.mover_id
        if isinstance(self.state.question, WhichQuestion):
            for i, (cand, _) in enumerate(self.state.question.fits):
                first = cand.moves[0]
                if (first.from_sq, first.to_sq) == (from_sq, to_sq) and by in (0, first.by):
                    return out + self.answer(i)
        if self.core.mode is Mode.PROMPTS:
            busy = self.core.busy()
            assert busy is not None
            return [*out, busy]
        try:
            move = self.game.check_move(from_sq, to_sq, by)
        except IllegalMoveError as err:
            return [*out, illegal(err, player=player)]
        steps, _, _ = play_out(self.game, [move])
        before = self.game.occupied()
        self.state.before_last_move = before
        self.state.provisional = None
        out += from_effects(self.game.push(move), move, player)
        self.state.unask()
        if self.state.sensing:
            self.core.guide(steps, before, keep_evidence=True)  # the hands may have moved it already
            out += self._recheck_owed()
        else:
            self.core.unsensed()
        return out

    def answer(self, choice: int | str, at: float | None = None) -> list[Verdict]:
        """The operator's answer to the open question: an option's index or its text. Each kind of
        question takes its answer in its own method, the evidence narrowed as the answer says."""
        out = self._catch_up(at)
        question = self.state.question
        if question is None:
            raise RefereeError("there is no question to answer")
        index = _option(question, choice)
        self.state.unask()
        out.append(Answered(question.id, question.options[index]))
        match question:
            case WhichQuestion() if index < len(question.fits):  # a way to play chosen
                return out + self._which(question, index)
            case UndoQuestion() if index == 0:
                return out + self.undo()
            case NewGameQuestion() if index == 0:
                return out + self.new_game()
            case SwapQuestion() | BackQuestion():
                return out + self._where_they_stand(question, index)
            case WhoseQuestion():  # the hands' stories narrowed to the answer; the board judged again
                for attempt in self._evidence():
                    attempt.narrow(question.square, question.pieces[index])
                self.state.judged = False
                return out + self.core.judge()
        return out + self._kept()

    def _which(self, question: WhichQuestion, index: int) -> list[Verdict]:
        """A way to play chosen: accepted (with any stray beside it warned), or revising the provisional move."""
        if question.revise:
            return self.core.dispose(Revise(*question.fits[index]))
        return self.core.dispose(Accept(*question.fits[index], strays=True))

    def _where_they_stand(self, question: SwapQuestion | BackQuestion, index: int) -> list[Verdict]:
        """Swapped or put back (two pieces), each back or some mixed up (three or more): the hands'
        stories narrowed to the answer, and the board judged again."""
        squares = (question.a, question.b) if isinstance(question, SwapQuestion) else question.squares
        own = [(sq, self.game.piece_at(sq)) for sq in squares]
        crossed = [(a, self.game.piece_at(b)) for a, b in zip(squares, reversed(squares), strict=True)]
        for attempt in self._evidence():
            if index == 0:
                attempt.keep(own)
            elif isinstance(question, SwapQuestion):
                attempt.keep(crossed)
            else:
                attempt.drop(own)
        self.state.judged = False
        return self.core.judge()

    def _kept(self) -> list[Verdict]:
        """ "no move", "keep": the game stays; a board that differs is warned (fixes follow the pieces
        moved), a board that stands as the game has it ends a warning from the way there."""
        if not self.core.same(self.state.sensed, self.state.expected):
            return self.core.warn(self.state.sensed)
        self.core.reset_attempt()
        return [self.core.clear()] if self.state.warning is not None else []

    def _evidence(self) -> list[Attempt]:
        """The hands' evidence an answer narrows: since the board was last trusted, and since the
        provisional move's base when that is another record."""
        prov = self.state.provisional
        return (
            [self.state.attempt]
            if prov is None or prov.attempt is self.state.attempt
            else [self.state.attempt, prov.attempt]
        )

    # ------------------------------------------------------------------ undo, new game, resync

    def undo(self, at: float | None = None) -> list[Verdict]:
        """Take back the last move (the throw it used stays to be played again), or the moves the
        board showed together (both dice, `modern`): every piece they carried is guided back,
        exchanged and captured ones included."""
        out = self._catch_up(at)
        game = self.game
        if not any(kind == "move" for kind, _ in game.actions):
            raise RefereeError("there is no move to undo")
        if not self.core.judging.undoable():  # the throw made since would be lost, and thrown again
            raise RefereeError(f"the last move stands: {game.to_move_id} has thrown since")
        moves: list[Move] = []
        while len(moves) < self.state.accepted and game.actions and game.actions[-1][0] == "move":
            _, value = game.pop()
            assert isinstance(value, Move)
            moves.insert(0, value)
        self.state.accepted = 1
        steps, _, _ = play_out(game, moves)
        owed = self.core.steps_left
        done = steps[: len(steps) - len(owed)]  # the owed ones were never carried out
        # a piece the move landed on, still in the hand because its owed step was not done, goes back too
        in_hand = walk(game.occupied(), done).held
        back = [Step(s.player, OFF, s.from_sq, StepWhy.UNDO, s.ruling) for s in owed if s.from_sq in in_hand]
        self.core.forget(history=True, warning=True, owed=True)
        out.append(Undone(game.to_move_id, " then ".join(str(m) for m in moves)))
        if not self.state.sensing:
            self.core.unsensed()
            return out
        self.core.guide(reversed_steps(done) + back, self.state.expected, keep_evidence=True)
        return out + self._recheck_owed()

    def new_game(self, at: float | None = None) -> list[Verdict]:
        """Start again from the standard setup with the same rule set and options."""
        out = self._catch_up(at)
        self.core.game = type(self.game)(self.game.players, self.game.options)
        self.core.forget(history=True)
        out.append(NewGame(self.game.name, self.game.to_move_id))
        return out + self._resync_board_to(self.game.occupied())

    def resync(self, at: float | None = None) -> list[Verdict]:
        """Let the board win: take the sensed occupancy as the position, changing as few pieces as
        possible, and say what was assumed. A piece the switches do not see is never taken off the
        game: its switch is judged faulty instead, and the game keeps it where it was."""
        out = self._catch_up(at)
        game = self.game
        owners = game.board()
        sensed = self.state.sensed & ~self.core.unknown | game.occupied() & self.core.unknown
        todo = fixes(game.occupied(), sensed, owners)
        moved = {f.from_sq: f.to_sq for f in todo if f.from_sq != HAND and f.to_sq != HAND}
        unseen = [f.from_sq for f in todo if f.to_sq == HAND]
        spare = game.spare_pieces()
        added = []
        phantoms = []  # a piece sensed where every piece is already on the board: a switch, not a piece
        for f in todo:
            if f.from_sq == HAND:
                pid = max(spare, key=lambda p: (spare[p], p == game.to_move_id))
                if spare[pid] < 1:
                    phantoms.append(f.to_sq)
                    continue
                spare[pid] -= 1
                added.append((f.to_sq, pid))
        game.edit(moved, [], added)
        for sq in unseen:
            self.state.switches.mark(sq, "stuck open")
        for sq in phantoms:
            self.state.switches.mark(sq, "stuck closed")
            out.append(Switch(sq, "stuck closed", switch_text(sq, "stuck closed")))
        assumed: list[str] = [
            Text("{player}'s piece on {a} is now on {b}", player=owners[a], a=a, b=b) for a, b in moved.items()
        ]
        assumed += [
            Text("{player}'s piece on {a} is still there: its switch does not see it", player=owners[a], a=a)
            for a in unseen
        ]
        assumed += [Text("the piece on {square} is {player}'s", square=sq, player=pid) for sq, pid in added]
        self.state.expected = game.occupied()
        self.core.forget(history=True, owed=True)
        self.core.reset_attempt()
        out.append(Resynced(assumed, {str(k): v for k, v in game.board().items()}))
        if self.state.warning is not None:
            out.append(self.core.clear())
        return out

    def _recheck_owed(self) -> list[Verdict]:
        """Owed steps the hands may already have carried out (a move taken back before the undo was
        asked for, a move entered after it was made): judge them at once, prompt what is left."""
        if self.state.owed is None:
            return []
        judged = self.core.dispose(self.core.judging.prompts(self.state.sensed))
        verdicts = [v for v in judged if not isinstance(v, Cleared)]
        if self.state.owed is not None and not any(isinstance(v, Prompt) for v in verdicts):
            verdicts.append(self._prompt())
        return verdicts

    def _resync_board_to(self, target: int) -> list[Verdict]:
        """After a new game: prompts that bring the physical board to `target`."""
        self.core.forget(warning=True, owed=True)
        self.core.reset_attempt()
        if not self.state.sensing:
            self.core.unsensed()
            return []
        owners = self.game.board()
        steps = [
            Step(
                owners.get(f.to_sq, ""),
                OFF if f.from_sq == HAND else f.from_sq,
                OFF if f.to_sq == HAND else f.to_sq,
                StepWhy.FIX,
            )
            for f in fixes(self.state.sensed, target, owners)
        ]
        self.core.guide(steps, self.state.sensed)
        return [self._prompt()] if steps else []

    # ------------------------------------------------------------------ what the thrower's button may do

    def unseen_move(self) -> Move | None:
        """The one move the board cannot show (a bounce back onto its own square, M5), when that is
        what the player may mean by pressing the button instead of moving a piece; else None."""
        if (
            self.game.pending is None
            or self.core.busy() is not None
            or not self.core.same(self.state.sensed, self.state.expected)
        ):
            return None
        unseen = {c.moves[0] for c in self.core.cands() if not c.visible and len(c.moves) == 1}
        return next(iter(unseen)) if len(unseen) == 1 else None

    def throw_blocked(self) -> str | None:
        """Why a throw would be refused now (a move owed, a prompt, a question, a wrong board), or None."""
        busy = self.core.busy()
        if busy is not None:
            return busy.reason  # a Text stays one
        if self.game.is_over:
            return Text("the game is over: {winner} won", winner=self.game.winner_id)
        if self.game.pending is not None:
            return Text(
                "{player} must first move with {throw}",
                player=self.game.to_move_id,
                throw=self.game.throw_text(self.game.pending),
            )
        return None


def _option(question: Question, choice: int | str) -> int:
    """The index of the option `choice` names (its index or its text); RefereeError for neither."""
    if isinstance(choice, str):
        if choice not in question.options:
            raise RefereeError(f"{choice!r} is not an answer to this question: {', '.join(question.options)}")
        choice = question.options.index(choice)
    if isinstance(choice, bool) or not 0 <= choice < len(question.options):
        raise RefereeError(f"answer {choice!r}: choose 0-{len(question.options) - 1}")
    return choice
