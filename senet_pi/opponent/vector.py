"""The rules of a two-player rule set for many positions at once (numpy), for the endgame solver.

Everything here is read from the rule set's class (its destination table, safe squares,
bonus throws and landings, blockades, backward moves, water square, S3/S11 and H5 as data),
never from its name; tests check that it yields exactly the engine's legal moves and
resulting positions, exchanges, drowning, bonus throws and forfeits included.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from ..errors import IllegalMoveError
from ..rules import Game
from ..rules.board import OFF, ROW1

_MAX_THROW = 12
#: BETWEEN[a, b]: the squares strictly between a and b along the path (a < b).
BETWEEN = np.zeros((OFF + 1, OFF + 1), dtype=np.int64)
for _lo in range(OFF + 1):
    for _hi in range(_lo + 1, OFF + 1):
        BETWEEN[_lo, _hi] = ((1 << _hi) - 1) & ~((1 << (_lo + 1)) - 1)
ONE = np.int64(1)


@dataclass(frozen=True)
class RuleData:
    """A rule set's movement rules as arrays (for one throw option)."""

    dest: np.ndarray  # (13, 32): forward destination of square f by throw t, OFF to bear off, -1 for none
    odds: tuple[tuple[int, float], ...]
    safe: int
    blockade_starts: int
    backward: bool
    water: int
    rebirth: int
    bonus_throw: np.ndarray  # (13,) bool
    bonus_landing: np.ndarray  # (32,) bool
    extra_bonus: np.ndarray  # (32, 32) bool: a bonus for how a square was reached (S8)
    top_row_gate: bool
    stop_square: int

    @classmethod
    def of(cls, ruleset: type[Game], throws: str | None = None) -> RuleData:
        """The data of `ruleset` with throw option `throws` (None: its default)."""
        options = {"throws": throws} if throws and "throws" in ruleset.option_defaults() else {}
        game = ruleset(options=options)
        dest = np.full((_MAX_THROW + 1, OFF + 1), -1, dtype=np.int64)
        for t in range(1, _MAX_THROW + 1):
            for f in range(1, OFF):
                with contextlib.suppress(IllegalMoveError):
                    dest[t, f] = ruleset.destination(f, t)
        extra = np.zeros((OFF + 1, OFF + 1), dtype=bool)
        for f in range(1, OFF):
            for d in range(1, OFF + 1):
                extra[f, d] = game._extra_bonus(f, d)
        bonus_throw = np.zeros(_MAX_THROW + 1, dtype=bool)
        bonus_throw[list(ruleset.bonus_throws)] = True
        landing = np.zeros(OFF + 1, dtype=bool)
        landing[list(ruleset.bonus_landings)] = True
        odds = tuple((int(v), float(p)) for v, p in sorted(game.throw_kind.odds().items()))
        return cls(
            dest=dest,
            odds=odds,
            safe=ruleset._safe_mask,
            blockade_starts=ruleset.blockade_starts,
            backward=ruleset.backward_moves,
            water=ruleset.water_square or 0,
            rebirth=ruleset.rebirth_square,
            bonus_throw=bonus_throw,
            bonus_landing=landing,
            extra_bonus=extra,
            top_row_gate=ruleset.top_row_gate,
            stop_square=ruleset.stop_square or 0,
        )


@dataclass
class Moves:
    """For each position (rows) and each of the mover's pieces (columns, lowest square first):
    whether the piece moves with the throw, where to, and what the position is after it."""

    legal: np.ndarray  # (N, k) bool
    src: np.ndarray  # (N, k) square moved from
    dst: np.ndarray  # (N, k) square moved to (OFF = borne off)
    me: np.ndarray  # (N, k) the mover's mask after the move
    op: np.ndarray  # (N, k) the other side's mask after it
    bonus: np.ndarray  # (N, k) the mover throws again (P6)
    off: np.ndarray  # (N, k) a piece was borne off


def _bit(mask: np.ndarray, square: np.ndarray | int) -> np.ndarray:
    return ((mask >> square) & ONE).astype(bool)


def generate(rd: RuleData, me: np.ndarray, op: np.ndarray, me_sq: np.ndarray, t: int) -> Moves:
    """Every move of throw `t` for positions given by masks `me`, `op` and the mover's sorted squares `me_sq`."""
    n, k = me_sq.shape
    protected = (op & ((op << ONE) | (op >> ONE))) | (op & rd.safe)  # P5
    r = op & (op >> ONE) & (op >> np.int64(2)) & rd.blockade_starts  # S4/H3
    blockade = r | (r << ONE) | (r << np.int64(2))
    stop_taken = _bit(me | op, rd.stop_square) if rd.stop_square else np.zeros(n, dtype=bool)
    if rd.top_row_gate:
        in_row1 = (me & ROW1) != 0
        front = np.where(me_sq <= 10, me_sq, 0).max(axis=1)
    legal = np.zeros((n, k), dtype=bool)
    dst = np.zeros((n, k), dtype=np.int64)
    for j in range(k):
        f = me_sq[:, j]
        d = rd.dest[t][f]
        ok = d >= 0
        d = np.where(ok, d, f)
        between = BETWEEN[f, d]
        ok &= ~_bit(me, d) & ~_bit(protected, d) & ((blockade & between) == 0)
        if rd.stop_square:  # H5
            ok &= ~(stop_taken & ((d == rd.stop_square) | _bit(between, rd.stop_square)))
        if rd.top_row_gate:  # S3, S11
            ok &= ~(in_row1 & (((f <= 10) & (f != front)) | (d == OFF)))
        legal[:, j] = ok
        dst[:, j] = d
    if rd.backward:  # S12: back by the throw, only where nothing moves forward
        stuck = ~legal.any(axis=1)
        for j in range(k):
            f = me_sq[:, j]
            d = np.maximum(f - t, 0)
            ok = stuck & (f > t) & (f <= 25)
            ok &= ~_bit(me, d) & ~_bit(protected, d) & ((blockade & BETWEEN[d, f]) == 0)
            if rd.top_row_gate:
                ok &= ~(in_row1 & (f <= 10) & (f != front))
            legal[:, j] |= ok
            dst[:, j] = np.where(ok, d, dst[:, j])
    src = me_sq
    off = dst == OFF
    land = np.where(off, 0, ONE << dst)
    me2 = (me[:, None] ^ (ONE << src)) | land
    hit = (op[:, None] & land) != 0  # P4: the attacked piece goes to the attacker's square
    op2 = np.where(hit, op[:, None] ^ (land | (ONE << src)), op[:, None])
    if rd.water:  # S7/H6: to the rebirth square, or the first empty square behind it
        wet = dst == rd.water
        if wet.any():
            free = ~(me2 | op2) & ((ONE << (rd.rebirth + 1)) - 2)
            top = np.log2(np.maximum(free, 1)).astype(np.int64)
            me2 = np.where(wet, (me2 ^ (ONE << rd.water)) | (ONE << top), me2)
    bonus = rd.bonus_throw[t] | rd.bonus_landing[dst] | rd.extra_bonus[src, dst]
    return Moves(legal, src, dst, me2, op2, bonus, off)
