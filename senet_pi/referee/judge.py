"""Judging a settled board: the legal move it shows (`ways.py` finds it, or another way to play the
same throw), the owed steps done, a move taken back, a swap by hand, the end of the game, a faulty
switch, or a warning with its fixes.

The board is compared with the boards the legal moves would leave, using the order of switch
changes only as cause and effect (`attempt.py`): a piece is put down after it is picked up,
an exchange empties both squares at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rules.board import OFF, bit, mask, squares_in
from ..rules.text import Text
from .attempt import UNKNOWN_PIECE, Attempt, Identity
from .candidates import (
    Candidate,
    distinct,
    on_the_way,
    placing,
)
from .outcome import (
    Accept,
    AfterTheEnd,
    Keep,
    Outcome,
    StepsDone,
    TakenBack,
    Wait,
    Warn,
    Wrong,
    new_game_question,
    which,
    whose,
)
from .part import Part
from .physical import HAND, StepWhy, touched
from .physical import Outcome as Landing
from .state import Owed, Replace, SwapBack
from .ways import Ways
from .whereabouts import Whereabouts

if TYPE_CHECKING:
    from .core import Core

#: A move certain beside strays: the way to play, its last stage, its pieces' placing, the likeliest stories.
_Certain = tuple[Candidate, int, list[tuple[int, Identity]], list[tuple[int, ...]]]


class Judging(Part):
    """The referee's judgement of a board that has been still for the settle time.

    Contract: read-only. Reads the whole state and the game, asks the `ways` (a move revised) and
    the `whereabouts` (who stands where on a board whose occupancy is right), and proposes what to
    do with a settled board (an `Outcome`: accept, revise, ask, warn, ...); the core applies it
    (`Core.judge`, `Core.dispose`; a wrong board is counted against its switches there, `Faults`)."""

    def __init__(self, core: Core, ways: Ways, whereabouts: Whereabouts) -> None:
        super().__init__(core)
        self.ways = ways
        self.whereabouts = whereabouts

    def settled(self, board: int) -> Outcome:
        """What to do with the settled `board`, a ladder of named checks read top to bottom: owed steps
        done, the same board as expected (another way, an exchange, swaps), a move of the throw waiting,
        another way to play an accepted throw, a move taken back, the end, the setup again; else a warning."""
        if self.state.owed is not None:
            return self.prompts(board)
        if self.core.same(board, self.state.expected):
            return self._judge_same(board)
        if isinstance(
            self.state.repair, Replace
        ):  # the wrong piece taken off, or other slips: guided back, never a move
            return Warn(board)
        found = self._a_move(board)
        if found is None:
            found = None if self._going_on_holding_a_piece(board) else self.ways.revise(board)
        if found is None:
            found = self._taken_back(board)
        return found if found is not None else self._no_move(board)

    def _judge_same(self, board: int) -> Outcome:
        """The board as the game expects it: another way to play with the same squares, a move that
        changes no square (an exchange), or who stands where (`Whereabouts.standing`)."""
        prov = self.state.provisional
        # (a board put right by following the warning's fixes is the fixes done, never another way)
        if prov is not None and self.state.attempt.lifted and not self._along_the_fixes(board):
            # taken back, then another way with the same squares; or, without taking it back, the
            # hands went on to show every stage of another way that ends on the same squares
            # (a piece held over 29 read as borne off, then put on 26 and sent to the sun: M6)
            revised = self.ways.revise(board, whole=not prov.taken_back)
            if revised is not None:
                return revised
        # two pieces swapped back as a swap warning asked is that fix followed, never a move (even
        # where the swap back is also a legal exchange)
        repair = self.state.repair
        swapping_back = isinstance(repair, SwapBack) and self.state.attempt.empty_together(repair.a, repair.b)
        if self.state.attempt.lifted and self.game.pending is not None and not self.game.is_over and not swapping_back:
            exchange = self._unchanged_board()
            if exchange is not None:
                return exchange
        return self.whereabouts.standing()

    def _a_move(self, board: int) -> Outcome | None:
        """A move of the throw waiting that the board shows: another whole way than the one under way,
        the fits, or a certain move beside strays; None when there is no throw or no such move."""
        if self.game.pending is None or self.game.is_over:
            return None
        found: Outcome | None = self.ways.another_whole_way(board)
        if found is None:
            found = self._match(board)
        return found if found is not None else self._certain_beside_strays(board)

    def _taken_back(self, board: int) -> Outcome | None:
        """The board as before the last move, whose pieces the hands lifted: ask whether to undo it."""
        if not (
            self.state.before_last_move is not None
            and self.core.same(board, self.state.before_last_move)
            and self.undoable()
            and self._lifted_what_the_move_put()
            and not self._along_the_fixes(board)
        ):
            return None
        return TakenBack(board)

    def _no_move(self, board: int) -> Outcome:
        """No move explains the board: the end of the game being cleared, the setup again (a new game
        offered), a move under way or pieces in the hand (nothing said), a faulty switch, or a warning."""
        if self.game.is_over:  # not another way to play the winning throw: the board is being cleared
            return self._after_the_end(board)
        taken_back = self.state.before_last_move is not None and self.core.same(board, self.state.before_last_move)
        at_start = self.core.same(board, self.core.start_board) and not self._along_the_fixes(board)
        if at_start and self.game.actions and not taken_back:
            return new_game_question()
        if (self._on_the_way(board) or self._held_by_the_mover(board)) and not self._along_the_fixes(board):
            return Wait()  # on the way to a legal move, or the mover's pieces in the hand: still in progress
        # (a board the warning's fixes lead to is guided on, even when it could also be a move under way:
        # the piece in the hand is the one the next fix puts back, not a person thinking)
        return Wrong(self.state.expected, Warn(board))

    def _going_on_holding_a_piece(self, board: int) -> bool:
        """Whether the hands, since the move was accepted, lifted pieces that are still held, and the
        rest of the board is on the way to the next move of the throw: they go on from the accepted
        move (a piece knocked in the same scan as the next mover's lift), which is no evidence that it
        was never made (class 6). The board is then in progress, or wrong, but not another way."""
        prov, ev = self.state.provisional, self.state.attempt
        if prov is None or self.game.pending is None:
            return False
        since = ev.lifted_since(prov.seen) if ev is prov.attempt else ev.lifted & ev.start
        held = since & self.state.expected & ~board & ~self.core.unknown
        if not held:
            return False
        trusted = ~self.core.unknown & ~held
        return any(
            on_the_way(board & trusted, self.state.expected & trusted, c) and self._whose_fit(c, board)
            for c in self.core.cands()
        )

    def _on_the_way(self, board: int) -> bool:
        """Whether `board` is part way through a legal move of the throw waiting, the pieces standing
        where it puts them possibly its own: pieces in the hand, none put where no legal move goes."""
        return self.game.pending is not None and any(
            on_the_way(board & ~self.core.unknown, self.state.expected & ~self.core.unknown, c)
            and self._whose_fit(c, board)
            for c in self.core.cands()
        )

    def _held_by_the_mover(self, board: int) -> bool:
        """Whether `board` lacks only pieces of the player to move, lifted by the hands and held, one of
        them a piece a way to play the throw moves (two weighed in the hand while choosing a move):
        pieces held are never flagged, however long (class 4); nothing was put down anywhere. (A
        piece the throw cannot move, held alone, is explained: it cannot be the move.)"""
        if self.game.pending is None or self.game.is_over:
            return False
        trusted = ~self.core.unknown
        held = self.state.expected & ~board & trusted
        if not held or board & ~self.state.expected & trusted or held & ~self.state.attempt.lifted:
            return False
        movable = 0
        for cand in self.core.cands():
            movable |= sum(bit(s.from_sq) for s in cand.steps if s.why is StepWhy.MOVE and s.from_sq != OFF)
        owners = self.game.board()
        return bool(held & movable) and all(owners.get(sq) == self.game.mover_id for sq in squares_in(held))

    def _lifted_what_the_move_put(self) -> bool:
        """Whether the hands lifted a piece from a square the last move put a piece on: a move taken
        back by hand, not a piece from nowhere that happens to make the board before it."""
        game = self.game.copy()
        popped = 0
        while popped < self.state.accepted and game.actions and game.actions[-1][0] == "move":
            game.pop()
            popped += 1
        before, after = game.board(), self.game.board()
        put = sum(bit(sq) for sq, owner in after.items() if before.get(sq) != owner)
        return bool(self.state.attempt.lifted & put) or not put

    def _along_the_fixes(self, board: int) -> bool:
        """Whether `board` is where the first fixes of the warning on show lead: a fix half followed
        (the move taken back among other slips, the start setup passed through on the way back), not
        a board to offer an undo or a new game for (the controls are there for one meant)."""
        warning = self.state.warning
        if warning is None or warning.swap is not None:
            return False
        path = (self.state.expected & ~mask(warning.missing)) | mask(warning.extra)  # the board warned about
        for fix in warning.fixes:
            if fix.from_sq != HAND:
                path &= ~bit(fix.from_sq)
            if fix.to_sq != HAND:
                path |= bit(fix.to_sq)
            if self.core.same(path, board):
                return True
        return False

    def _whose_fit(self, cand: Candidate, board: int) -> bool:
        """Whether the pieces standing on the squares `cand` fills could be the ones it puts there: a
        piece known to be another player's (the order of the hands, an answer) is no move under way."""
        ev, before = self.state.attempt, self.game.board()
        owners = {sq: before.get(origin) for landed in cand.landed for sq, origin in landed if origin != OFF}
        for sq in squares_in(board & ~self.state.expected & ~self.core.unknown):
            holder = ev.holder(sq)
            if holder is not None and sq in owners and owners[sq] != holder:
                return False
        return True

    def undoable(self) -> bool:
        """Whether the last move may still be taken back: no throw (or card) has been made since it."""
        actions = self.game.actions
        return bool(actions) and actions[-1][0] == "move"

    def _unsure_landing(self, owed: Owed, k: int) -> tuple[int, list[Identity]] | None:
        """A square the owed steps up to stage `k` put a piece on that the hands' stories leave unsure,
        with the pieces it may hold; None when the stage is sure. Pieces the prompts themselves move
        are taken to be put where the prompts said (people see colours); a piece they do not move
        among them (the mover lifted again: a move taken back with two hands) leaves it unsure."""
        ev, cand = self.state.attempt, owed.cand
        if ev.lost:
            return None
        unknown = self.core.unknown
        moved = [(sq, ev.piece(origin)) for sq, origin in cand.landed[k] if origin != OFF and not unknown & bit(sq)]
        if ev.must_be(moved):
            return None
        prompted = {
            origin for origin, step in zip(cand.origins, cand.steps, strict=True) if step.why is not StepWhy.MOVE
        }
        for sq, _ in moved:
            pieces = ev.on(sq, likely=True)
            if len({ev.piece(p) for p in pieces}) > 1 and not pieces <= prompted:
                return sq, [p for p in ev.identities(sq) if p is not None]
        return None

    def _after_the_end(self, board: int) -> Outcome:
        """The game is won: the people clear the board or set it up again. That is neither a move, a
        warning nor a switch fault; once the starting setup stands, a new game is offered."""
        return AfterTheEnd(self.core.same(board, self.core.start_board))

    def _unchanged_board(self) -> Outcome | None:
        """Same occupancy as before, yet pieces were lifted: an exchange (P4) only if both its squares
        were empty at the same moment. A move that changes nothing on the board (a bounce back onto
        its own square, M5) is never inferred: it is entered or confirmed."""
        ev = self.state.attempt
        sure = distinct(
            [
                (c, len(c.boards) - 1)
                for c in self.core.cands()
                if c.visible
                and self.core.same(c.final, self.state.expected)
                and all(self.ways.shown(c, k, ev) for k in range(len(c.boards)))  # every stage seen, not a jolt
            ]
        )
        if sure and self._rebuilt(sure):  # the board knocked over and set up again as it was is no move
            options = [c.label() for c, _ in sure] + [Text("no move")]
            text = Text("Pieces were lifted that no move needs, and the board looks unchanged. Which move was played?")
            return which(text, options, sure)
        if len(sure) == 1:
            return Accept(*sure[0])
        if sure:
            options = [c.label() for c, _ in sure]
            text = Text("The board looks unchanged. Which move was played?")
            return which(text, options, sure)
        if ev.gap:  # the link was down while pieces moved: an exchange may have gone unseen
            unseen = distinct(
                [
                    (c, len(c.boards) - 1)
                    for c in self.core.cands()
                    if c.visible and self.core.same(c.final, self.state.expected) and ev.lifted & c.touched
                ]
            )
            if unseen:
                options = [c.label() for c, _ in unseen] + [Text("no move")]
                text = Text("Some changes went unseen while the board's link was down. Which move was played?")
                return which(text, options, unseen)
        return None

    def _rebuilt(self, fits: list[tuple[Candidate, int]]) -> bool:
        """Whether the hands lifted two or more standing pieces that none of the moves that fit touch
        (pieces knocked over and set back): then the board unchanged is as likely no move at all."""
        ev = self.state.attempt
        stray = ev.lifted & ev.start & ~ev.bumped & ~ev.knocked & ~self.core.unknown
        for cand, _ in fits:
            stray &= ~cand.touched
        return len(squares_in(stray)) >= 2

    def _match(self, board: int) -> Outcome | None:
        """Accept the legal move whose board this is; ask if several fit; None if none does."""
        fits = self.ways.fits(board, self.core.cands(), self.state.attempt)
        if not fits:
            return None
        if len(fits) == 1:
            return Accept(*fits[0])
        return self.ways.ask_which(fits, Text("Several moves fit the board. Which one was played?"))

    def _certain_beside_strays(self, board: int) -> Outcome | None:
        """A legal move the hands made, with a stray change beside it: a neighbour knocked onto an
        empty square or off the board, a spare piece added, a switch welding shut. The move's squares
        stand as it leaves them and the likeliest stories of the hands have its pieces there; the
        stray squares are none of its own. The move is accepted and the stray warned with its fixes:
        a stray never turns a legal move into a wrong one. Where the stories disagree on which piece
        went where (the mover and a knocked piece in the air together), whose piece stands on the
        move's square is asked first. None when no move (or more than one) fits so."""
        ev = self.state.attempt
        if ev.lost or ev.gap or ev.start != self.state.expected:
            return None
        found: dict[Landing, _Certain] = {}
        for cand in self.core.cands():
            if cand.outcome not in found:
                certain = self._certain(cand, board, ev)
                if certain is not None:
                    found[cand.outcome] = certain
        if len(found) != 1:
            return None
        ((cand, k, mine, stories),) = found.values()
        for sq, _ in mine:  # the stories disagree on the piece on one of the move's squares: ask
            pieces = sorted({ev.piece(on[sq]) for on in stories}, key=repr)
            if len(pieces) > 1:
                return whose(sq, pieces)
        carry = self._carried_beside(cand, k, board)
        if carry is True:
            return None  # a second piece carried on purpose: a move attempt, not a stray (class 2)
        if carry is None:  # a knock or a carry? the switch times cannot tell: ask
            text = Text("Another piece was carried as well. Which move was played?")
            return Keep(tuple(mine), which(text, [cand.label(), Text("no move")], [(cand, k)]))
        return Keep(tuple(mine), Accept(cand, k, strays=True))

    def _certain(self, cand: Candidate, board: int, ev: Attempt) -> _Certain | None:
        """`cand` played whole, its squares as it leaves them and shown by the hands, with stray changes
        beside it on none of its squares, and its pieces there in the likeliest stories: the move, its
        pieces' placing and those stories; else None."""
        k = len(cand.boards) - 1
        if not cand.visible or not cand.whole:
            return None
        stray = (cand.boards[k] ^ board) & ~self.core.unknown
        if not stray or stray & cand.touched or not self._shown_beside(cand, k, ev):
            return None
        # a piece the move takes off the board has no square to show it: were it standing on a
        # stray square in some story, the stray may be that piece put down wrong
        gone = {o for st, o in zip(cand.steps, cand.origins, strict=True) if st.to_sq == OFF and o != OFF}
        if any(on[sq] in gone for on, _ in ev.worlds for sq in squares_in(stray)):
            return None
        mine = [(sq, piece) for sq, piece in placing(cand, k, ev, self.core.unknown) if cand.touched & bit(sq)]
        stories = self._likeliest_with_pieces_on([sq for sq, _ in mine])
        if any(all(ev.piece(on[sq]) == piece for sq, piece in mine) for on in stories):
            return cand, k, mine, stories
        return None

    def _carried_beside(self, cand: Candidate, k: int, board: int) -> bool | None:
        """Whether a piece on a stray square beside `cand` (stage `k`) was carried there on purpose
        (`Attempt.carried`: True), or the times cannot tell (None); False when every stray is a knock,
        a spare or a weld. Only a piece that moved with no hand is a stray (class 2)."""
        ev = self.state.attempt
        stray = (cand.boards[k] ^ board) & ~self.core.unknown
        verdicts = set()
        for square in squares_in(board & stray & ~cand.boards[k]):
            origin = ev.origin(square)
            if origin is not None and stray & ev.start & bit(origin):
                verdicts.add(ev.carried(origin, square))
        return True if True in verdicts else None if None in verdicts else False

    def _likeliest_with_pieces_on(self, squares: list[int]) -> list[tuple[int, ...]]:
        """The likeliest stories of the hands with a piece of the game's on each of `squares`: a piece
        from nowhere landing exactly where a move goes is no rival story."""
        ev = self.state.attempt
        fitting = {w: n for w, n in ev.surprise.items() if all(0 < w[0][sq] < UNKNOWN_PIECE for sq in squares)}
        least = min(fitting.values(), default=0)
        return [on for (on, _), n in fitting.items() if n == least]

    def _shown_beside(self, cand: Candidate, k: int, ev: Attempt) -> bool:
        """Whether the evidence shows `cand` to stage `k` on its own squares: each square it empties
        opened (by a hand, not a knock), an exchange's squares empty at once, each piece put down
        after it was picked up."""
        need = cand.lifts[k] & ~self.core.unknown
        if ev.lifted & ~ev.jolted & need != need:
            return False
        if any(not ev.empty_together(a, b) for a, b in cand.swaps[k] if not self.core.unknown & (bit(a) | bit(b))):
            return False
        return all(
            self.core.unknown & bit(square)
            or origin == OFF
            or not ev.start & bit(origin)
            or ev.put_down_after(square, origin)
            for square, origin in cand.landed[k]
        )

    # ------------------------------------------------------------------ the owed steps

    def prompts(self, board: int) -> Outcome:
        """The people are carrying out what the rules (or an entry by hand, or an undo) asked for.
        A step counts as done only when its pieces were seen to move: occupancy alone proves nothing."""
        owed = self.state.owed
        assert owed is not None
        for k in reversed(owed.stages()):
            if self.core.same(owed.cand.boards[k], board) and self.ways.shown(owed.cand, k, self.state.attempt):
                unsure = self._unsure_landing(owed, k)
                if unsure is not None:  # done, or taken back with two hands: the switches cannot tell
                    return whose(*unsure)
                return StepsDone(k)
        revised = self.ways.revise(board)
        if revised is not None:
            return revised
        final = owed.final
        before = self.state.before_last_move
        taken_back = self.state.provisional is not None and before is not None
        if taken_back and before is not None and self.state.attempt.lifted and self.core.same(board, before):
            return Warn(board, toward=final, taken_back=True)
        if (board ^ self.state.expected) & ~touched(owed.steps) & ~self.core.unknown == 0:
            return Wait()  # a prompt under way
        return Wrong(final, Warn(board, toward=final))
