"""Who stands where, once the board's occupancy is right: a repair under way done or not (two pieces
swapped back, a piece replaced), pieces the people said are mixed up put right a pair at a time,
and, where the hands left it unsure, a question (were the two swapped? is each back?) rather than
an owner swapped in silence."""

from __future__ import annotations

from ..rules.board import bit
from ..rules.text import Text
from .attempt import Piece
from .outcome import (
    Afresh,
    Ask,
    Clearing,
    Good,
    Outcome,
    Repaired,
    ReplaceWarn,
    SwapWarn,
    Wait,
    whose,
)
from .part import Part
from .state import BackQuestion, Mixed, Replace, SwapBack, SwapQuestion


class Whereabouts(Part):
    """The referee's judgement of who stands where on a board whose occupancy is right (a part of
    judging a settled board, and of accepting a move made while other pieces were in the hand).

    Contract: read-only. Reads the hands' evidence, the repair under way, the warning and the game,
    and proposes an `Outcome` (the board good, a swap or a replacement warned, a question); the
    core applies it."""

    def standing(self) -> Outcome:
        """A board whose occupancy is right: but were two different pieces swapped by hand? The open
        repairs first (a swap to undo, a piece to replace), then who stands where: sure (warned),
        unsure between one pair lifted together (asked, or warned when it crossed or was an attack),
        or among three or more (asked)."""
        match self.state.repair:
            case SwapBack() as swap:
                return self._swapping_back(swap)
            case Replace() as replacement:
                return self._replaced(replacement)
        ev = self.state.attempt
        pieces = {sq: piece for sq in self.game.board() if (piece := self.game.piece_at(sq)) is not None}
        unsure = ev.unsure_of(pieces, self.core.unknown)  # an owner swapped in silence is worse than a question
        mixed = {  # sure, not the game's: the people's answers (or the order of the hands) said so
            sq: ids[0] for sq in sorted(pieces) if len(ids := ev.may_stand(sq)) == 1 and ids[0] != pieces[sq]
        }
        mixed |= {sq: None for sq in pieces if ev.foreign(sq)}  # said to be no piece of the game's
        if not unsure:
            return self.put_right(mixed) if mixed else Good()
        # one pair lifted together whose only doubt is whether they changed places
        pair = (
            len(unsure) == 2
            and not mixed
            and ev.empty_together(*unsure)
            and all(set(ev.may_stand(sq)) <= {pieces[sq] for sq in unsure} for sq in unsure)
        )
        return self._one_pair(unsure[0], unsure[1], pieces) if pair else self._many_in_the_hand(unsure, pieces)

    def in_doubt(self) -> bool:
        """Whether, the move's own pieces placed, the hands' stories still leave a piece on the board
        unsure or known to be another than the game's (two pieces swapped while the move was made)."""
        if self.state.attempt.lost:
            return False
        game = {sq: self.game.piece_at(sq) for sq in self.game.board()}
        in_game = set(game.values())
        for sq, piece in game.items():
            if self.core.unknown & bit(sq):
                continue
            # a piece the move took out of the game (held, then put aside) is no doubt about this square
            ids = [p for p in self.state.attempt.may_stand(sq) if p in in_game]
            if len(ids) > 1 or (len(ids) == 1 and ids[0] != piece):
                return True
        return False

    def put_right(self, mixed: Mixed) -> Outcome:
        """Pieces the people said stand on each other's squares (three or more mixed up by hand):
        swapped back a pair at a time, the first swap putting the right piece on one square; a piece
        whose own is on none of them (it is off the board) replaced."""
        pieces = self.game.board()
        a = min(mixed)
        wanted = self.game.piece_at(a)
        b = next((sq for sq, real in sorted(mixed.items()) if real == wanted and sq != a), None)
        if pieces.get(a) is None:
            return Good(force=self.state.warning is not None)
        if b is None:  # the game's piece for `a` stands on none of them: it is off the board
            return Afresh(ReplaceWarn(a, mixed[a], mixed))
        return Afresh(SwapWarn(a, b, mixed))

    def _swapping_back(self, swap: SwapBack) -> Outcome:
        """Two pieces believed swapped by hand: swapped back (the next mixed-up pair, if any, or the
        board good), or the swap warning stands."""
        a, b = swap.a, swap.b
        if not self.state.attempt.empty_together(a, b):
            standing = self.state.warning is not None and self.state.warning.swap is not None
            return Afresh(Wait() if standing else SwapWarn(a, b, swap.mixed))
        mixed = dict(swap.mixed)
        if mixed:  # three or more were mixed up: the next pair, if any is still wrong
            mixed[a], mixed[b] = mixed.get(b, self.game.piece_at(b)), mixed.get(a, self.game.piece_at(a))
            left = {sq: real for sq, real in mixed.items() if real != self.game.piece_at(sq)}
            if left:
                return Repaired(self.put_right(left))
        return Repaired(Good(force=True))

    def _replaced(self, replacement: Replace) -> Outcome:
        """A piece to replace by the game's: done once that square was lifted (the switches cannot see
        which piece it is, so until then the warning stands)."""
        if not self.state.attempt.lifted & bit(replacement.square):
            return Wait()
        left = {sq: real for sq, real in replacement.mixed.items() if sq != replacement.square}
        return Repaired(self.put_right(left) if left else Good(force=True))

    def _many_in_the_hand(self, unsure: list[int], pieces: dict[int, Piece]) -> Outcome:
        """Three or more pieces went through the hands together: no one pair to ask about. Most often
        each went back where it was: ask that once; else whose piece is on each square (and once all
        are known, the mixed-up ones are swapped back a pair at a time). One square alone (its
        partner left the board) is asked about by name: "whose piece?"."""
        if len(unsure) > 1 and self.state.attempt.could_be((sq, pieces[sq]) for sq in unsure):
            listed = ", ".join(str(sq) for sq in unsure)
            text = Text(
                "The pieces on {squares} were in the hand together. Is each back on its own square?", squares=listed
            )
            options: list[str] = [Text("each on its own square"), Text("some were mixed up")]
            return Clearing(Ask(BackQuestion(text=text, options=options, squares=tuple(unsure))))
        return Clearing(whose(unsure[0], self.state.attempt.may_stand(unsure[0])))

    def _one_pair(self, a: int, b: int, pieces: dict[int, Piece]) -> Outcome:
        """Two pieces lifted together, either may stand on either square: the same piece (nothing to
        ask), crossed over or an attack by the mover (a swap warned), else asked (every square is
        right: only who is where)."""
        if pieces[a] == pieces[b]:
            return Good()
        ev = self.state.attempt
        crossed = ev.origin(a) == b and ev.origin(b) == a
        owners = {pieces[a][0], pieces[b][0]}
        attack = self.game.pending is not None and self.game.to_move_id in owners and len(owners) == 2
        if crossed or attack:
            return Afresh(SwapWarn(a, b, {}))
        text = Text("The pieces on {a} and {b} were both lifted. Were they swapped?", a=a, b=b)
        return Clearing(Ask(SwapQuestion(text=text, options=[Text("put back"), Text("swapped")], a=a, b=b)))
