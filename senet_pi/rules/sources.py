"""The move generator as functions of plain integers: which pieces may move, for all at once, and
where a move leaves the two boards.

`legal_moves()`, the fast path (`fast.py`) and random playouts all ask these functions, made once
per rule set from its data (`Game.__init_subclass__`): the two boards as bit masks, the throw and
whether the opening move is still to come go in, a mask of source squares comes out. They read
only the rule set's class attributes and tables (destinations, safe squares, blockade starts, the
opening square, `top_row_gate`, `stop_square`, backward moves), never a hook, so one call
answers a throw; the readable validator (`check_move()` and its hooks) states the same rulings
square by square, and the property tests check that the two agree on every position met.
`landing` is what a move does to the two boards (P4's exchange, S7/H6's water) for the fast path,
playouts and the search's last throw; `Game.push` states it readably, and `tests/test_rules_fast.py`
checks the two move for move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, cast

from .board import OFF, ROW1, between, free_square_from, mask

if TYPE_CHECKING:
    from .core import Game

#: The sources of one throw: (own board, opponent's board, throw, opening move to come) -> mask.
SourcesFn = Callable[[int, int, int, bool], int]
#: A move's boards: (mover's board, other board, from, to) -> the two boards after it.
LandingFn = Callable[[int, int, int, int], tuple[int, int]]

#: Set in a source mask when its moves go backward (S12); bit 0 is no square.
BACKWARD = 1
#: S12: the squares a piece may move back by t from (index t): above t, below 26.
BACK_FROM = tuple(mask(range(t + 1, 26)) for t in range(32))


class Generator(NamedTuple):
    """One rule set's generator: forward (P3-P5, blockades, S2/H2, S3/S11, H5), backward (S12) and
    both in one call (forward, else backward with `BACKWARD` set), as `fast_throw` asks; and a move's
    two boards after it (`landing`)."""

    forward: SourcesFn
    backward: SourcesFn
    sources: SourcesFn
    landing: LandingFn


def generator(cls: type[Game]) -> Generator:
    """The generator of rule set `cls` from its class attributes and tables (set before this)."""
    plain, bent, safe, starts = cls._plain_sources, cls._bent_sources, cls._safe_mask, cls.blockade_starts
    dests = cls._forward_dest
    opening_only = -1 if cls.opening_square is None else 1 << cls.opening_square
    gate = cls.top_row_gate
    bears_off = tuple(mask(f for f, d in enumerate(row) if d == OFF) for row in dests)
    stop = 0 if cls.stop_square is None else 1 << cls.stop_square
    back_allowed = cls.backward_moves
    back_from = BACK_FROM

    def bent_ok(me: int, op: int, f: int, to: int) -> bool:
        """A move whose destination is not f + t (H5, H7, K9): P3-P5 and blockades for it alone."""
        path = between(f, to)  # `to` is at most OFF: the squares strictly between
        r = op & (op >> 1) & (op >> 2) & starts
        if r and path & (r | (r << 1) | (r << 2)):
            return False
        if stop and (me | op) & stop and (to == cls.stop_square or path & stop):
            return False  # H5: while 26 is taken nobody lands on or passes it
        if to == OFF:
            return not (gate and me & ROW1)
        tb = 1 << to
        return not (me & tb or (op & tb and (tb & safe or op & ((op << 1) | (op >> 1)) & tb)))

    def backward(me: int, op: int, t: int, opening: bool) -> int:
        crossed = 0
        r = op & (op >> 1) & (op >> 2) & starts
        if r:
            blk = r | (r << 1) | (r << 2)
            for k in range(1, t):
                crossed |= blk << k
        m = me & back_from[t] & ~crossed & ~((me | (op & ((op << 1) | (op >> 1))) | (op & safe)) << t)
        if m:
            if opening:
                m &= opening_only
            if gate:
                row1 = me & ROW1
                if row1:
                    m &= ~ROW1 | 1 << (row1.bit_length() - 1)
        return m

    def sources(  # the rule set's data bound as defaults: local names, the fastest to read
        me: int,
        op: int,
        t: int,
        opening: bool,
        back: bool = back_allowed,
        plain: tuple[int, ...] = plain,
        safe: int = safe,
        starts: int = starts,
        bent: tuple[int, ...] | None = bent if any(bent) else None,
        gate: bool = gate,
        row1_mask: int = ROW1,
        steps: tuple[range, ...] = tuple(range(1, t) for t in range(len(plain))),
    ) -> int:
        """Forward (its body here, not a call: this is asked once a ply), else backward if `back`."""
        m = me & plain[t] & ~(((op & ((op << 1) | (op >> 1))) | (op & safe) | me) >> t)
        if m and starts:
            r = op & (op >> 1) & (op >> 2) & starts
            if r:
                blk = r | (r << 1) | (r << 2)
                for k in steps[t]:
                    m &= ~(blk >> k)
        if bent is not None:
            b = me & bent[t]
            while b:  # moves whose destination is not simply f + t: checked one by one
                low = b & -b
                b ^= low
                if bent_ok(me, op, low.bit_length() - 1, dests[t][low.bit_length() - 1]):
                    m |= low
        if m:
            if opening:  # S2/H2: the first move of the game starts from the opening square
                m &= opening_only
            if gate:
                row1 = me & row1_mask
                if row1:  # S3: only the highest piece of row 1 moves; S11: nothing bears off
                    m &= (~row1_mask | 1 << (row1.bit_length() - 1)) & ~bears_off[t]
            if m:
                return m
        if not back:
            return 0
        m = backward(me, op, t, opening)
        return m | BACKWARD if m else 0

    def forward(me: int, op: int, t: int, opening: bool) -> int:
        return sources(me, op, t, opening, False)

    water, rebirth = cls.water_square, cls.rebirth_square

    def landing(me: int, op: int, f: int, to: int) -> tuple[int, int]:
        """The mover's and the other board after the mover's piece on `f` goes to `to` (a legal move)."""
        fb = 1 << f
        if to == OFF:
            return me ^ fb, op
        tb = 1 << to
        if op & tb:  # P4: attack = exchange
            op ^= tb | fb
        me ^= fb | tb
        if to == water:  # S7/H6: ten pieces never fill 1-15 while one of them is on the water
            me ^= tb | 1 << cast(int, free_square_from(me | op, rebirth))
        return me, op

    return Generator(forward, backward, sources, landing)
