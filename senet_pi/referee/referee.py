"""The referee: turns switch changes, throws and operator actions into verdicts.

The switches tell only which squares hold a piece. The referee knows whose piece is where
by following the game from its setup, judges the board only once it has been still for
the settle time, and compares that settled board with the boards the legal moves would
leave. It never trusts the order of events, so slides, bounces and pieces held in the
hand are never flagged. Time comes in with every event (seconds, any origin), so the
same referee runs on a real clock, in replays and in tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import IllegalMoveError, SenetError
from ..rules import Game, Move
from ..rules.board import OFF, bit, square_name, squares_in
from ..rules.reasons import Reason
from ..verdicts import Verdict, from_effects, illegal
from .physical import (
    HAND,
    Fix,
    Step,
    effect_steps,
    fixes,
    lifts_needed,
    origins,
    places_needed,
    play_out,
    stages,
    touched,
)

#: Settle time, seconds: long enough for a slide across squares or a piece bouncing into
#: place, short enough that the verdict feels immediate (e-board companions use 0.25-0.5 s).
SETTLE_TIME = 0.4
#: After a warning, how long to wait before guiding one fix at a time.
GUIDANCE_DELAY = 3.0
_EPS = 1e-6  # times are milliseconds turned into seconds: compare without float noise


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
    kind: str  # "which" (several moves fit), "exchange", "undo", "new_game"
    text: str
    options: list[str]
    candidates: list[tuple[Candidate, int]] = field(default_factory=list)

    def verdict(self) -> Verdict:
        return {"v": "question", "id": self.id, "kind": self.kind, "text": self.text, "options": self.options}


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
        self.lifted = 0  # squares opened since the board was last known good
        self.placed = 0
        self._switches = 0  # switch changes since then, to tell a piece put down before or after another lifted
        self._first_lift: dict[int, int] = {}
        self._last_place: dict[int, int] = {}
        self.in_progress = False
        self.warning: Verdict | None = None
        self.warning_at = 0.0
        self.guiding = False
        self.question: Question | None = None
        self._questions = 0
        self.steps_left: list[Step] = []
        self.boards_left: list[int] = []
        self.before_last_move: int | None = None
        self._candidates: tuple[int, list[Candidate]] = (-1, [])

    # ------------------------------------------------------------------ one entry point for every input

    INPUTS = (
        "throw",
        "card",
        "exchange",
        "pass",
        "move",
        "lift",
        "place",
        "sense",
        "tick",
        "answer",
        "undo",
        "resync",
        "new_game",
    )

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
                from_sq, to_sq, *by = value  # type: ignore[misc]
                verdicts = self.enter_move(from_sq, to_sq, by[0] if by else 0, at=at)
            elif kind in ("lift", "place"):
                verdicts = getattr(self, kind)(value, at)
            elif kind == "sense":
                verdicts = self.sense(sum(bit(sq) for sq in value), at)  # type: ignore[attr-defined]
            elif kind == "tick":
                verdicts = self.tick(at)
            elif kind == "answer":
                verdicts = self.answer(value, at=at)  # type: ignore[arg-type]
            elif kind in ("undo", "resync", "new_game"):
                verdicts = getattr(self, kind)(at=at)
            else:
                raise RefereeError(f"unknown input {kind!r}: use one of {', '.join(self.INPUTS)}")
        except RefereeError as exc:
            verdicts = [{"v": "illegal", "reason": str(exc), "ruling": "P3"}]
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
        """Time passed with no change: judge a board that has settled, give guidance that is due."""
        out: list[Verdict] = []
        if at > self.now:
            self.now = at
        if not self.judged and self.last_change is not None and self.now - self.last_change >= self.settle - _EPS:
            out += self._judge_at(self.last_change + self.settle)
        if self.warning is not None and not self.guiding and self.now - self.warning_at >= self.guidance_delay - _EPS:
            self.guiding = True
            out += self._next_fix()
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
        self.sensing = True
        out: list[Verdict] = []
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
            state = "closed" if closed else "open"
            return [*out, {"v": "sensor", "square": square, "reason": f"switch {square} was already {state}; ignored"}]
        self.sensed ^= b
        self._switches += 1
        if closed:
            self.placed |= b
            self._last_place[square] = self._switches
        else:
            self.lifted |= b
            self._first_lift.setdefault(square, self._switches)
        self.last_change = at
        self.judged = False
        if not self.in_progress and self.sensed != self.expected:
            self.in_progress = True
            out.append({"v": "progress", "text": "move in progress"})
        return out

    # ------------------------------------------------------------------ judging a settled board

    def _judge(self) -> list[Verdict]:
        self.judged = True
        out: list[Verdict] = []
        if self.question is not None:
            out.append({"v": "withdrawn", "id": self.question.id})
            self.question = None
        board = self.sensed
        if self.steps_left:
            return out + self._judge_prompts(board)
        if board == self.expected:
            if self.lifted and self.game.pending is not None and not self.game.is_over:
                verdicts = self._unchanged_board()
                if verdicts:
                    return out + verdicts
            return out + self._board_good()
        if self.game.pending is not None and not self.game.is_over:
            matched = self._match(board)
            if matched is not None:
                return out + matched
        if self.before_last_move is not None and board == self.before_last_move:
            return out + self._ask(
                "undo", "The board is as it was before the last move. Undo that move?", ["undo", "keep"]
            )
        if board == self.start_board and self.game.actions:
            return out + self._ask(
                "new_game", "The pieces stand as at the start. Start a new game?", ["new game", "keep"]
            )
        if self.game.pending is not None and any(_on_the_way(board, self.expected, c) for c in self._cands()):
            return out  # on the way to a legal move: still in progress
        return out + self._warn(board)

    def _unchanged_board(self) -> list[Verdict]:
        """Same occupancy as before, yet pieces were lifted: an exchange (P4) if both squares saw a lift."""
        exchanges = [c for c in self._cands() if c.final == self.expected and c.steps]
        both_lifted = [(c, 0) for c in exchanges if all(self.lifted & bit(sq) for sq in _mover_squares(c))]
        sure = [c for c, _ in _distinct(both_lifted)]
        if len(sure) == 1:
            return self._accept(sure[0], len(sure[0].boards) - 1)
        maybe = sure or [c for c in exchanges if any(self.lifted & bit(sq) for sq in _mover_squares(c))]
        if not maybe:
            return []  # a piece knocked and put back
        options = [c.label() for c in maybe] + ([] if sure else ["no move"])
        text = "The board looks unchanged. Which move was played?" if sure else "Was this an exchange?"
        return self._ask("which", text, options, [(c, len(c.boards) - 1) for c in maybe])

    def _match(self, board: int) -> list[Verdict] | None:
        """Accept the legal move whose board this is; ask if several fit; None if none does."""
        fits: list[tuple[Candidate, int]] = []
        for cand in self._cands():
            for k in reversed(range(cand.first_stage, len(cand.boards))):  # the furthest stage that fits
                if cand.boards[k] != board or self.lifted & cand.lifts[k] != cand.lifts[k]:
                    continue
                last = k == len(cand.boards) - 1
                mover = cand.steps[cand.first_stage]
                if not last and not self._put_down_after_lifting(mover):
                    continue  # the mover may still be in the hand, not on its square
                fits.append((cand, k))
                break
        if not fits:
            return None
        fits = self._best_explained(fits)
        finals = [(c, k) for c, k in fits if k == len(c.boards) - 1]
        fits = _distinct(finals or fits)
        if len(fits) == 1:
            return self._accept(*fits[0])
        labels = [c.label() for c, _ in fits]
        if len(set(labels)) < len(labels):  # the same squares with different dice (modern)
            labels = [c.label(with_dice=True) for c, _ in fits]
        return self._ask("which", "Several moves fit the board. Which one was played?", labels, fits)

    def _put_down_after_lifting(self, step: Step) -> bool:
        """Whether a piece was put on the step's square after its own square opened: a piece cannot
        land before it is picked up (the one use of event order, and only as cause and effect)."""
        if step.to_sq == OFF:
            return True
        return self._last_place.get(step.to_sq, -1) > self._first_lift.get(step.from_sq, 1 << 30)

    def _best_explained(self, fits: list[tuple[Candidate, int]]) -> list[tuple[Candidate, int]]:
        """Of moves that fit the board, those that account for the most switches that opened: a lift
        no move needs is a knock, and the fewer knocks assumed, the likelier the move."""
        explained = [(self.lifted & c.lifts[k]) | (self.placed & c.places[k]) << 32 for c, k in fits]
        return [
            fit
            for fit, mine in zip(fits, explained, strict=True)
            if not any(other != mine and other & mine == mine for other in explained)
        ]

    def _judge_prompts(self, board: int) -> list[Verdict]:
        """The people are carrying out what the rules (or an entry by hand) asked for."""
        if board in self.boards_left:
            k = self.boards_left.index(board)
            self.expected = board
            del self.steps_left[: k + 1]
            del self.boards_left[: k + 1]
            self._reset_attempt()
            if self.steps_left:
                return [self._prompt()]
            return self._board_good(force=True)
        final = self.boards_left[-1]
        if (board ^ self.expected) & ~touched(self.steps_left) == 0:
            return []  # a prompt under way
        return self._warn(board, toward=final)

    # ------------------------------------------------------------------ outcomes

    def _accept(self, cand: Candidate, stage: int) -> list[Verdict]:
        player = self.game.mover_id
        self.before_last_move = self.game.occupied()
        out: list[Verdict] = []
        for move in cand.moves:
            out += from_effects(self.game.push(move), move, player)
        self.steps_left = list(cand.steps[stage + 1 :])
        self.boards_left = list(cand.boards[stage + 1 :])
        self.expected = cand.boards[stage] if cand.boards else self.expected
        self._reset_attempt()
        if self.warning is not None:
            out.insert(0, self._clear())
        if self.steps_left:
            out.append(self._prompt())
        self._cands()  # a second die to play (modern): ready before the hands move again
        return out

    def _prompt(self) -> Verdict:
        step = self.steps_left[0]
        return {
            "v": "prompt",
            "text": step.prompt(),
            "player": step.player,
            "from": step.from_sq,
            "to": square_name(step.to_sq),
        }

    def _board_good(self, force: bool = False) -> list[Verdict]:
        was_moving = self.in_progress
        self._reset_attempt()
        if self.warning is not None or force:
            return [self._clear()]
        if was_moving:  # a piece knocked and put back, or a move begun and taken back
            return [{"v": "settled", "text": "the board is as the game expects"}]
        return []

    def _clear(self) -> Verdict:
        self.warning = None
        self.guiding = False
        return {"v": "cleared", "text": "the board matches the game"}

    def _reset_attempt(self) -> None:
        self.lifted = self.placed = 0
        self._first_lift.clear()
        self._last_place.clear()
        self.in_progress = False

    def _warn(self, board: int, toward: int | None = None) -> list[Verdict]:
        target = self.expected if toward is None else toward
        reason, ruling = self._explain(board, target)
        todo = fixes(board, target, self._owners(target))
        verdict = illegal_board(reason, ruling, board, target, todo)
        if self.warning is not None and self.warning["reason"] == verdict["reason"]:
            return self._next_fix() if self.guiding else []
        self.warning = verdict
        self.warning_at = self.now
        return [verdict, *(self._next_fix() if self.guiding else [])]

    def _next_fix(self) -> list[Verdict]:
        target = self.boards_left[-1] if self.steps_left else self.expected
        todo = fixes(self.sensed, target, self._owners(target))
        if not todo:
            return []
        fix = todo[0]
        return [{"v": "fix", "text": fix.text(), "from": fix.from_sq or None, "to": fix.to_sq or None}]

    def _owners(self, target: int) -> dict[int, str]:
        owners = dict(self.game.board())
        for step in self.steps_left:
            if step.to_sq != OFF:
                owners[step.to_sq] = step.player
        return {sq: owner for sq, owner in owners.items() if target & bit(sq)}

    def _explain(self, board: int, target: int) -> tuple[str, str]:
        """Why this board is wrong, in a player's words, and the ruling that decides it."""
        game = self.game
        missing = squares_in(target & ~board)
        extra = squares_in(board & ~target)
        owners = game.board()
        if self.steps_left:
            return f"the board differs from the game: {self.steps_left[0].prompt()} first", "P3"
        if game.is_over:
            return f"the game is over ({game.winner_id} won): {_differences(missing, extra)}", "P8"
        if game.pending is None and missing:
            wrong = [sq for sq in missing if owners.get(sq) != game.to_move_id]
            if wrong:
                err = IllegalMoveError(
                    Reason.NOT_YOUR_PIECE, square=wrong[0], owner=owners[wrong[0]], player=game.to_move_id
                )
            else:
                err = IllegalMoveError(Reason.NO_THROW, player=game.to_move_id)
            return str(err), err.ruling
        if game.pending is not None and len(missing) == 1 and len(extra) <= 1:
            from_sq = missing[0]
            to_sq = extra[0] if extra else None
            try:
                if to_sq is None:
                    to_sq = _reachable(game, from_sq)
                game.check_move(from_sq, to_sq)
            except IllegalMoveError as err:
                return str(err), err.ruling
        return f"the board differs from the game: {_differences(missing, extra)}", "P3"

    # ------------------------------------------------------------------ questions and answers

    def _ask(
        self, kind: str, text: str, options: list[str], fits: Sequence[tuple[Candidate, int]] = ()
    ) -> list[Verdict]:
        self._questions += 1
        self.question = Question(self._questions, kind, text, options, list(fits))
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
        out.append({"v": "answered", "id": question.id, "answer": question.options[choice]})
        if question.kind == "which" and choice < len(question.candidates):
            return out + self._accept(*question.candidates[choice])
        if question.kind == "undo" and choice == 0:
            return out + self.undo()
        if question.kind == "new_game" and choice == 0:
            return out + self.new_game()
        self._reset_attempt()
        if self.sensed != self.expected:
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
        out.append({"v": "throw", "player": player, "value": list(value) if isinstance(value, tuple) else value})
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
        try:
            if kind == "card":
                effects = game.push_card(str(value))  # type: ignore[attr-defined]
                out.append({"v": "card", "player": player, "card": str(value)})
            elif kind == "exchange":
                cards = [str(c) for c in value] if isinstance(value, list) else [str(value)]
                effects = game.push_exchange(cards)  # type: ignore[attr-defined]
                out.append({"v": "exchange", "player": player, "count": len(cards)})
            else:
                effects = game.push_pass()  # type: ignore[attr-defined]
                out.append({"v": "pass", "player": player})
        except AttributeError:
            raise RefereeError(f"{kind!r} is a card game action; this game is {game.name}") from None
        except IllegalMoveError as err:
            return [*out, illegal(err, player=player)]
        out += from_effects(effects)
        if getattr(game, "phase", "") == "nile":
            out.append(
                {
                    "v": "prompt",
                    "text": f"{game.mover_id}: send one of your pawns on 16-30 to the Nile (K7)",
                    "player": game.mover_id,
                    "from": None,
                    "to": 15,
                }
            )
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
            return [*out, self._busy()]  # type: ignore[list-item]
        try:
            move = self.game.check_move(from_sq, to_sq, by)
        except IllegalMoveError as err:
            return [*out, illegal(err, player=player)]
        steps, _, _ = play_out(self.game, [move])
        before = self.game.occupied()
        self.before_last_move = before
        out += from_effects(self.game.push(move), move, player)
        self.question = None
        if self.sensing:
            self._guide(steps, before)
            if self.steps_left:
                out.append(self._prompt())
        else:
            self.expected = self.sensed = self.game.occupied()
        return out

    def undo(self, at: float | None = None) -> list[Verdict]:
        """Take back the last move (the throw it used stays to be played again)."""
        out = self._catch_up(at)
        game = self.game
        if not any(kind == "move" for kind, _ in game.actions):
            raise RefereeError("there is no move to undo")
        while True:
            kind, value = game.pop()
            if kind == "move":
                break
        self.before_last_move = None
        self.question = None
        out.append({"v": "undone", "player": game.to_move_id, "move": str(value)})
        return out + self._resync_board_to(game.occupied())

    def new_game(self, at: float | None = None) -> list[Verdict]:
        """Start again from the standard setup with the same rule set and options."""
        out = self._catch_up(at)
        self.game = type(self.game)(self.game.players, self.game.options)
        self.before_last_move = None
        self.question = None
        out.append({"v": "new_game", "variant": self.game.name, "to_move": self.game.to_move_id})
        return out + self._resync_board_to(self.game.occupied())

    def resync(self, at: float | None = None) -> list[Verdict]:
        """Let the board win: take the sensed occupancy as the position, changing as few pieces as
        possible, and say what was assumed."""
        out = self._catch_up(at)
        game = self.game
        owners = game.board()
        todo = fixes(game.occupied(), self.sensed, owners)
        moved = {f.from_sq: f.to_sq for f in todo if f.from_sq != HAND and f.to_sq != HAND}
        gone = [f.from_sq for f in todo if f.to_sq == HAND]
        spare = game.spare_pieces()
        added = []
        for f in todo:
            if f.from_sq == HAND:
                pid = max(spare, key=lambda p: (spare[p], p == game.to_move_id))
                if spare[pid] < 1:
                    raise RefereeError(f"square {f.to_sq} holds a piece, but every piece is already on the board")
                spare[pid] -= 1
                added.append((f.to_sq, pid))
        game.edit(moved, gone, added)
        assumed = [f"{owners[a]}'s piece on {a} is now on {b}" for a, b in moved.items()]
        assumed += [f"{owners[a]}'s piece on {a} has left the board" for a in gone]
        assumed += [f"the piece on {sq} is {pid}'s" for sq, pid in added]
        self.expected = self.sensed
        self.steps_left, self.boards_left = [], []
        self.before_last_move = None
        self.question = None
        self._reset_attempt()
        out.append({"v": "resync", "assumed": assumed, "board": {str(k): v for k, v in game.board().items()}})
        if self.warning is not None:
            out.append(self._clear())
        return out

    def _catch_up(self, at: float | None) -> list[Verdict]:
        out = self.tick(at) if at is not None else []
        return out + self.flush()

    def throw_blocked(self) -> str | None:
        """Why a throw would be refused now (a move owed, a prompt, a question, a wrong board), or None."""
        busy = self._busy()
        if busy is not None:
            return str(busy["reason"])
        if self.game.is_over:
            return f"the game is over: {self.game.winner_id} won"
        if self.game.pending is not None:
            return f"{self.game.to_move_id} must first move with {self.game.throw_text(self.game.pending)}"
        return None

    def _busy(self) -> Verdict | None:
        if self.question is not None:
            return {"v": "illegal", "reason": f"answer the question first: {self.question.text}", "ruling": "P3"}
        if self.sensing and self.steps_left:
            return {
                "v": "illegal",
                "reason": f"finish on the board first: {self.steps_left[0].prompt()}",
                "ruling": "P3",
            }
        if self.sensing and self.warning is not None:
            return {"v": "illegal", "reason": f"put the board right first: {self.warning['reason']}", "ruling": "P3"}
        return None

    def _guide(self, steps: list[Step], start: int) -> None:
        """The people must carry out `steps` from the board `start`: prompt them one at a time."""
        self.steps_left = list(steps)
        self.boards_left = stages(start, steps)
        self.expected = start
        if not self.steps_left:
            self.expected = self.game.occupied()

    def _resync_board_to(self, target: int) -> list[Verdict]:
        """After an undo or a new game: prompts that bring the physical board to `target`."""
        self.warning = None
        self.guiding = False
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
                cand = Candidate(
                    key, steps, boards, first, touched(steps), outcome, need, places, origins(start, steps)
                )
                cands.append(cand)
        self._candidates = (self.game.version, cands)
        return cands

    # ------------------------------------------------------------------ for the page

    def status(self) -> dict[str, object]:
        """What the page shows: the position, the sensed board, the open prompt, warning or question."""
        return {
            "variant": self.game.name,
            "to_move": self.game.to_move_id,
            "throw": self.game.pending,
            "winner": self.game.winner_id,
            "board": {str(k): v for k, v in self.game.board().items()},
            "sensed": squares_in(self.sensed),
            "expected": squares_in(self.expected),
            "in_progress": self.in_progress,
            "prompt": self._prompt() if self.steps_left else None,
            "warning": self.warning,
            "question": self.question.verdict() if self.question else None,
        }


def illegal_board(reason: str, ruling: str, board: int, target: int, todo: list[Fix]) -> Verdict:
    """The `illegal` verdict for a wrong board: what is wrong and what would put it right."""
    return {
        "v": "illegal",
        "reason": reason,
        "ruling": ruling,
        "missing": squares_in(target & ~board),
        "extra": squares_in(board & ~target),
        "fix": [f.text() for f in todo],
    }


def _differences(missing: list[int], extra: list[int]) -> str:
    parts = [f"square {sq} should be empty" for sq in extra] + [f"square {sq} should hold a piece" for sq in missing]
    return "; ".join(parts)


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


def _mover_squares(cand: Candidate) -> set[int]:
    squares = set()
    for step in cand.steps:
        if step.why == "move":
            squares.add(step.from_sq)
            if step.to_sq != OFF:
                squares.add(step.to_sq)
    return squares or {m.from_sq for m in cand.moves}


def _reachable(game: Game, from_sq: int) -> int:
    """Where the piece on `from_sq` would go with the throw waiting (for explaining a lifted piece)."""
    pending = game.pending
    value = pending if isinstance(pending, int) else sum(pending)  # type: ignore[arg-type]
    return game.destination(from_sq, value)
