"""Which moves are legal, found two ways that must agree: the fast generator and the readable validator.

`legal_moves()` works on bit masks of the whole board at once (P3-P5, S2/H2, S4/H3, S12), for
the referee's every scan and the opponent's search; `check_move()` takes one move and says why it is
illegal, naming the ruling. The property tests play random games and check the two agree. `Game`
mixes this in; a rule set changes legality through the class attributes `Game` declares, which the
generator reads (`sources.py`), and the validator's hooks here (`destination`, `_check_path`,
`_check_landing`, `_check_bear_off`...), which state the same rulings square by square.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from ..errors import IllegalMoveError
from .board import (
    FIRST,
    LAST,
    OFF,
    between,
    bit,
    runs_of_three,
    runs_of_two,
    square_name,
    squares_in,
)
from .move import Move, cached_move
from .reasons import Reason
from .sources import Generator


def count_of(throw: object) -> int:
    """A throw the core's rules play: a count of squares (sticks, a die, a stick card's value)."""
    if not isinstance(throw, int):
        raise TypeError(f"a throw here is a count of squares, not {throw!r}")
    return throw


class Legality:
    """The legal moves of the position a `Game` holds (the state and the rule set's tables are `Game`'s)."""

    # What legality reads of the game: its state and its rule set's tables (set by `Game`).
    occ: list[int]
    pending: object
    winner: int | None
    to_move: int
    opening: bool
    player_ids: tuple[str, ...]
    _version: int
    _cache: tuple[int, list[Move]]
    safe_squares: ClassVar[dict[int, str]]
    blockade_starts: ClassVar[int]
    blockade_ruling: ClassVar[str]
    opening_square: ClassVar[int | None]
    opening_ruling: ClassVar[str]
    backward_moves: ClassVar[bool]
    _safe_mask: ClassVar[int]
    _plain_sources: ClassVar[tuple[int, ...]]
    _bent_sources: ClassVar[tuple[int, ...]]
    _forward_table: ClassVar[tuple[tuple[Move | None, ...], ...]]
    _backward_table: ClassVar[tuple[tuple[Move | None, ...], ...]]
    _generator: ClassVar[Generator]

    if TYPE_CHECKING:  # Game's, read here

        def owner(self, square: int) -> str | None: ...
        @property
        def to_move_id(self) -> str: ...

    # ------------------------------------------------------------------ the fast generator

    def legal_moves(self) -> list[Move]:
        """Every legal move for the throw waiting to be played (empty when no throw waits).

        Computed once per position; do not change the returned list."""
        version, moves = self._cache
        if version != self._version:
            moves = self.generate_legal_moves()
            self._cache = (self._version, moves)
        return moves

    def generate_legal_moves(self) -> list[Move]:
        """Like `legal_moves()`, but always computed afresh."""
        if self.pending is None or self.winner is not None:
            return []
        return self._generate(self.to_move, self.pending)

    def move_sequences(self) -> list[tuple[Move, ...]]:
        """Every complete way to play the throw waiting: one move each here (`modern` pairs dice)."""
        return [(m,) for m in self.legal_moves()]

    def must_move_squares(self) -> frozenset[int]:
        """Squares of the mover's whose piece a rule says must move with the throw waiting (none in
        the common rules; `modern`'s M8 names some), so the referee can name the rule and the piece."""
        return frozenset()

    @property
    def version(self) -> int:
        """A number that changes whenever the game changes, for caches kept outside the game."""
        return self._version

    def is_legal(self, move: Move) -> bool:
        """Whether `move` is among the legal moves now."""
        return move in self.legal_moves()

    def _blockade(self, p: int) -> int:
        """S4/H3: the squares of player p's blockades (runs of three)."""
        return runs_of_three(self.occ[p], self.blockade_starts) if self.blockade_starts else 0

    def _generate(self, p: int, throw: object) -> list[Move]:
        """The legal moves of player p with `throw` (the core's: a count; rule sets read their own kinds)."""
        t = count_of(throw)
        srcs = self._forward_sources(p, t)
        if srcs:
            table = self._forward_table[t]
        elif self.backward_moves:
            srcs = self._backward_sources(p, t)
            table = self._backward_table[t]
        else:
            return []
        moves: list[Move | None] = []
        while srcs:
            low = srcs & -srcs
            moves.append(table[low.bit_length() - 1])
            srcs ^= low
        return cast(list[Move], moves)  # the sources name only squares whose table entry is a move

    def _forward_sources(self, p: int, t: int) -> int:
        """The squares whose piece can move forward by t, for all pieces at once (`sources.py`)."""
        occ = self.occ
        return self._generator.forward(occ[p], occ[1 - p], t, self.opening)

    def _backward_sources(self, p: int, t: int) -> int:
        """S12: the squares whose piece can move back by t (only asked when nothing moves forward)."""
        occ = self.occ
        return self._generator.backward(occ[p], occ[1 - p], t, self.opening)

    # ------------------------------------------------------------------ the readable validator

    @classmethod
    def destination(cls, from_sq: int, throw: int) -> int:
        """Where a forward move by `throw` ends, ignoring other pieces; IllegalMoveError if nowhere.

        P3: straight on by the throw; bearing off (31) only exactly (S11, M5 differ per set)."""
        dest = from_sq + throw
        if dest > OFF:
            raise IllegalMoveError(Reason.EXACT_BEAR_OFF, square=from_sq, throw=throw)
        return dest

    def check_move(self, from_sq: int, to_sq: int, by: int = 0) -> Move:
        """The legal `Move` from `from_sq` to `to_sq` with the throw waiting, or IllegalMoveError."""
        p, t = self._require_throw()
        if by and by != t:
            raise IllegalMoveError(Reason.WRONG_DIE, by=by, left=t)
        self._check_piece(p, from_sq)
        self._check_source(p, from_sq, t)
        if to_sq == from_sq:
            raise IllegalMoveError(Reason.NOT_A_MOVE)
        if to_sq < from_sq:
            return self._check_backward(p, from_sq, to_sq, t)
        dest = self.destination(from_sq, t)
        if to_sq != dest:
            raise IllegalMoveError(
                Reason.WRONG_DISTANCE, throw=t, square=from_sq, expected=square_name(dest), target=square_name(to_sq)
            )
        self._check_path(p, from_sq, dest)
        self._check_landing(p, from_sq, dest)
        return cached_move(from_sq, dest, t)

    def _require_pending(self) -> tuple[int, object]:
        """The player to move and the throw waiting; IllegalMoveError when the game is over or none waits."""
        if self.winner is not None:
            raise IllegalMoveError(Reason.GAME_OVER)
        if self.pending is None:
            raise IllegalMoveError(Reason.NO_THROW, player=self.to_move_id)
        return self.to_move, self.pending

    def _require_throw(self) -> tuple[int, int]:
        """The player to move and the count waiting (the core's throws are counts)."""
        p, throw = self._require_pending()
        return p, count_of(throw)

    def _check_piece(self, p: int, from_sq: int) -> None:
        if not FIRST <= from_sq <= LAST:
            raise IllegalMoveError(Reason.NOT_A_SQUARE, square=from_sq)
        owner = self.owner(from_sq)
        if owner is None:
            raise IllegalMoveError(Reason.EMPTY_SQUARE, square=from_sq)
        if owner != self.player_ids[p]:
            raise IllegalMoveError(Reason.NOT_YOUR_PIECE, square=from_sq, owner=owner, player=self.player_ids[p])

    def _check_source(self, p: int, from_sq: int, t: int) -> None:
        """S2/H2: the first move of the game starts from the opening square."""
        if self.opening and from_sq != self.opening_square:
            raise IllegalMoveError(Reason.OPENING, square=self.opening_square, ruling=self.opening_ruling)

    def _check_backward(self, p: int, from_sq: int, to_sq: int, t: int) -> Move:
        """S12: back by the throw, only when nothing moves forward, never from or onto 26-30."""
        if not self.backward_moves:
            raise IllegalMoveError(Reason.NO_BACKWARD)
        if self._forward_sources(p, t):
            raise IllegalMoveError(Reason.BACKWARD_NOT_NEEDED)
        if from_sq >= 26:
            raise IllegalMoveError(Reason.BACKWARD_SPECIAL)
        if from_sq - t < FIRST:
            raise IllegalMoveError(Reason.BELOW_SQUARE_1, throw=t, square=from_sq)
        if to_sq != from_sq - t:
            raise IllegalMoveError(
                Reason.WRONG_DISTANCE, throw=t, square=from_sq, expected=from_sq - t, target=square_name(to_sq)
            )
        self._check_path(p, from_sq, to_sq)
        self._check_landing(p, from_sq, to_sq)
        return cached_move(from_sq, to_sq, t)

    def _check_path(self, p: int, from_sq: int, to_sq: int) -> None:
        """S4/H3: no blockade of the opponent strictly between the two squares."""
        crossed = self._blockade(1 - p) & between(from_sq, min(to_sq, OFF))
        if crossed:
            blk = self._blockade(1 - p)
            first = last = squares_in(crossed)[0]
            while blk & bit(first - 1):
                first -= 1
            while blk & bit(last + 1):
                last += 1
            raise IllegalMoveError(
                Reason.BLOCKADE, owner=self.player_ids[1 - p], first=first, last=last, ruling=self.blockade_ruling
            )

    def _check_landing(self, p: int, from_sq: int, to_sq: int) -> None:
        """P3-P5: never on an own piece; an opponent piece only when it is not protected."""
        if to_sq == OFF:
            self._check_bear_off(p, from_sq)
            return
        b = bit(to_sq)
        if self.occ[p] & b:
            raise IllegalMoveError(Reason.OWN_PIECE, target=to_sq, player=self.player_ids[p])
        q = 1 - p
        if self.occ[q] & b:
            if to_sq in self.safe_squares:
                raise IllegalMoveError(Reason.PROTECTED_SAFE, target=to_sq, ruling=self.safe_squares[to_sq])
            if runs_of_two(self.occ[q]) & b:
                raise IllegalMoveError(Reason.PROTECTED_RUN, target=to_sq)

    def _check_bear_off(self, p: int, from_sq: int) -> None:
        """Conditions on bearing off beyond an exact throw (S11 in `secret`); none by default."""
