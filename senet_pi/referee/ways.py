"""The ways to play the throw that a settled board shows: the fits, the best explained first,
and another way to play a throw whose move was already accepted (a revision, said as a
`revised` line). A board fits a way when it stands as one of the way's stages and the hands'
evidence shows that stage (`candidates.shown`); the evidence also picks among several.
"""

from __future__ import annotations

from ..rules.board import bit, squares_in
from ..rules.text import Text
from .attempt import UNKNOWN_PIECE, Attempt
from .candidates import (
    Candidate,
    best_explained,
    distinct,
    in_the_order_shown,
    put_down_after_lifting,
    shown,
    touch_rivals,
)
from .outcome import Ask, Revise, which
from .part import Part
from .physical import Outcome
from .state import Fit


class Ways(Part):
    """Which way to play the throw the board shows, and revising an accepted move (a part of
    judging a settled board).

    Contract: read-only. Reads the sensed board, the candidates of the throw and the hands'
    evidence, and proposes a way to play instead of the accepted one (`Revise`) or a question
    which (`Ask`); the core applies them (`Core.dispose`)."""

    def shown(self, cand: Candidate, k: int, ev: Attempt) -> bool:
        return shown(cand, k, ev, self.core.unknown)

    def fits(self, board: int, cands: list[Candidate], ev: Attempt, skip: Outcome = ()) -> list[Fit]:
        """The candidates (and how far along) that this board and the evidence show, best first."""
        fits: list[Fit] = []
        for cand in cands:
            if cand.outcome == skip or not cand.visible:
                continue
            for k in reversed(range(cand.first_stage, len(cand.boards))):  # the furthest stage that fits
                if not self.core.same(cand.boards[k], board) or not self.shown(cand, k, ev):
                    continue
                last = k == len(cand.boards) - 1
                mover = cand.steps[cand.first_stage]
                if not last and not put_down_after_lifting(ev, mover):
                    continue  # the mover may still be in the hand, not on its square
                fits.append((cand, k))
                break
        if not fits:
            return []
        kept = best_explained(fits, ev)
        chosen = [(c, k) for c, k in kept if k == len(c.boards) - 1] or kept
        rivals = touch_rivals(fits, chosen, ev, self.core.unknown)
        return distinct(in_the_order_shown(chosen + rivals, ev, self.core.unknown))

    def ask_which(self, fits: list[Fit], text: str, revise: bool = False) -> Ask:
        """Ask which of the ways `fits` was played (`revise`: in place of the provisional move)."""
        labels = [c.label() for c, _ in fits]
        if len(set(labels)) < len(labels):  # the same squares with different dice (modern)
            labels = [c.label(with_dice=True) for c, _ in fits]
        return which(text, labels, fits, revise=revise)

    def revise(self, board: int, whole: bool = False) -> Revise | Ask | None:
        """The board settled into another way of playing the throw the last move was accepted for:
        take that move back and accept this one, saying so (a `revised` line). `whole`: only a way
        whose every stage the evidence shows, to its end."""
        prov = self.state.provisional
        if prov is None or prov.attempt.lost:  # the hands juggled past following: no evidence against it
            return None
        fits = self.fits(board, prov.candidates, prov.attempt, skip=prov.outcome)
        # a way that ends where the moves under way end is no other way: its moves are played on (or
        # the board is still on the way to them), never taken back and replayed in another order
        under_way = self._under_way()
        fits = [(c, k) for c, k in fits if c.outcome not in under_way and not self._order_shown_against(c)]
        if whole:
            fits = [(c, k) for c, k in self._whole(fits, prov.attempt) if self._changes_lead_to(c)]
        if not fits:
            return None
        if len(fits) > 1:
            return self.ask_which(fits, Text("The board shows another way to play the throw. Which one?"), revise=True)
        return Revise(*fits[0])

    def _order_shown_against(self, cand: Candidate) -> bool:
        """Whether `cand` plays the accepted moves in another order that the hands never showed,
        when they showed the accepted one (two captures sending pieces to the sun, M4): the order is
        settled, and what the hands do later (a piece carried off and back along a fix) never reopens it."""
        prov = self.state.provisional
        if prov is None or sorted(str(m) for m in cand.moves) != sorted(prov.labels):
            return False
        ev = prov.attempt
        accepted = [c for c in prov.candidates if [str(m) for m in c.moves] == prov.labels]
        return (
            bool(accepted)
            and ev.passed_through(accepted[0].between_moves(), self.core.unknown)
            and not ev.passed_through(cand.between_moves(), self.core.unknown)
        )

    def _changes_lead_to(self, cand: Candidate) -> bool:
        """Whether the hands, since the move was accepted, touched only squares where `cand` leaves
        another piece than the accepted move did, and could have left `cand`'s pieces there: two
        pieces swapped elsewhere (owners mixed up by hand), or a piece lifted alone and put back, are
        no evidence that the throw was played another way."""
        prov = self.state.provisional
        if prov is None:
            return True
        other = self.game.copy()
        popped = 0
        while popped < prov.moves:
            kind, _ = other.pop()
            popped += kind == "move"
        for move in cand.moves:
            other.push(move)
        differ = sum(bit(sq) for sq in range(1, 31) if other.piece_at(sq) != self.game.piece_at(sq))
        ev = self.state.attempt  # pieces standing at the acceptance, picked up since
        moved = ev.lifted_since(prov.seen) if ev is prov.attempt else ev.lifted & ev.start
        if moved & ~differ & ~self.core.unknown:
            return False
        # and the pieces there now could be the other way's (a piece lifted alone and put back is itself)
        here = squares_in(moved & self.state.sensed & ~self.core.unknown)
        theirs = [(sq, other.piece_at(sq)) for sq in here]
        # (the evidence since the throw knows a piece the accepted move took off, held all along: M5;
        # a piece from nowhere may be one the accepted move took off, never one standing elsewhere)
        standing = {self.game.piece_at(sq) for sq in self.game.board()}
        gone = [p for _, p in theirs if p not in standing]
        if not any(e.could_be(theirs, strangers=gone) for e in (ev, prov.attempt)):
            return False
        # ... and, where both ways have the same pieces there in another order (dots swapped), could
        # not be the accepted move's with every piece accounted for: hands that may have put each
        # piece back where it was are no evidence against a move already accepted (class 2)
        mine = [(sq, self.game.piece_at(sq)) for sq in here]
        if sorted(map(repr, (p for _, p in theirs))) != sorted(map(repr, (p for _, p in mine))):
            return True
        return not any(max(on + hand) < UNKNOWN_PIECE for on, hand in ev.stories(mine))

    def another_whole_way(self, board: int) -> Revise | Ask | None:
        """The rest of the throw may fit this board, but the hands showed every stage of another whole
        way to play it that ends on the same squares (two pieces held over the end read as gone up,
        then put on 26 and sent to the sun: M5, M6). Take the way the evidence shows best; ask when it
        shows more than one. None when only the way already under way fits."""
        prov = self.state.provisional
        if prov is None or prov.taken_back or prov.attempt.lost:
            return None
        fits = self._whole(self.fits(board, prov.candidates, prov.attempt), prov.attempt)
        # the way under way, in the order it was played (the same moves in another order are the same way)
        under_way = self._under_way()
        if all(c.outcome in under_way for c, _ in fits):
            return None
        if len(fits) == 1:
            return Revise(*fits[0])
        fits = [
            (under_way[c.outcome], len(under_way[c.outcome].boards) - 1) if c.outcome in under_way else (c, k)
            for c, k in fits
        ]
        return self.ask_which(
            fits, Text("The board shows more than one way to play the throw. Which one?"), revise=True
        )

    def _under_way(self) -> dict[Outcome, Candidate]:
        """The ways to play the throw that start with the moves already accepted for it, by outcome."""
        prov = self.state.provisional
        return {c.outcome: c for c in prov.candidates if prov.continued_by(c)} if prov is not None else {}

    def _whole(self, fits: list[Fit], ev: Attempt) -> list[Fit]:
        """The fits that play the whole throw to its end, whose every stage the evidence `ev` shows
        (never the first die alone: taking back a move of an accepted turn is an undo, not another way)."""
        return [
            (c, k)
            for c, k in fits
            if c.whole and k == len(c.boards) - 1 and all(self.shown(c, j, ev) for j in range(len(c.boards)))
        ]
