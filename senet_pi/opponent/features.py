"""The fitted middle-game evaluation of the two-player race sets: a logistic curve over a few features.

A position is judged from the side about to throw ("mover") against the other side. The
features are each side's pieces square by square (a table of 30 weights a side: it knows
that 26 is a gate, 27 is water, 30 needs a 1), pieces borne off, protected pieces (P5),
squares in blockades (S4/H3), the pieces each side can attack with the next throw, weighted
by the throw odds, and the pip lead scaled by the pips left. The weights (`WEIGHTS`) were fitted
offline by `senet_pi.opponent.fit` (logistic regression, numpy) on self-play positions labelled
with the game's outcome, or with the exact table value where the tables reach; only the
coefficients ship. Everything is read from the rule set's class (safe squares, blockade
starts, throw odds), so the code knows no rule set by name: only the weights are per rule set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..rules import Game
from ..rules.board import ALL_SQUARES, OFF, squares_in

#: The feature names, in the order of the weights (after the bias).
NAMES: tuple[str, ...] = (
    *(f"mover on {sq}" for sq in range(1, OFF)),
    *(f"other on {sq}" for sq in range(1, OFF)),
    "mover off",
    "other off",
    "mover protected",
    "other protected",
    "mover in blockades",
    "other in blockades",
    "mover's attacks",
    "other's attacks",
    "scaled pip lead",
)
N_FEATURES = len(NAMES)


@dataclass(frozen=True)
class Shape:
    """What the features read from a rule set: its safe squares, blockade starts and throw odds."""

    safe: int
    blockade_starts: int
    odds: tuple[tuple[int, float], ...]

    @classmethod
    def of(cls, game: Game) -> Shape:
        """The shape of `game`'s rule set and throw option (cached per class and option)."""
        key = (type(game), game.throw_kind.name)
        shape = _SHAPES.get(key)
        if shape is None:
            odds = tuple((int(v), float(p)) for v, p in game.throw_kind.odds().items())
            shape = _SHAPES[key] = cls(type(game)._safe_mask, type(game).blockade_starts, odds)
        return shape


_SHAPES: dict[tuple[type, str], Shape] = {}


def _runs3(occ: int, starts: int) -> int:
    r = occ & (occ >> 1) & (occ >> 2) & starts
    return r | (r << 1) | (r << 2)


def feature_vector(shape: Shape, me: int, op: int, off_me: int, off_op: int) -> list[float]:
    """The features (without the bias) of a position: board masks and pieces off of mover and other."""
    f = [0.0] * N_FEATURES
    for sq in squares_in(me):
        f[sq - 1] = 1.0
    for sq in squares_in(op):
        f[OFF - 1 + sq - 1] = 1.0
    k = 2 * (OFF - 1)
    prot_me = (me & ((me << 1) | (me >> 1))) | (me & shape.safe)
    prot_op = (op & ((op << 1) | (op >> 1))) | (op & shape.safe)
    f[k] = off_me
    f[k + 1] = off_op
    f[k + 2] = prot_me.bit_count()
    f[k + 3] = prot_op.bit_count()
    if shape.blockade_starts:
        f[k + 4] = _runs3(me, shape.blockade_starts).bit_count()
        f[k + 5] = _runs3(op, shape.blockade_starts).bit_count()
    open_op, open_me = op & ~prot_op, me & ~prot_me
    f[k + 6] = sum(p * ((me << t) & open_op & ALL_SQUARES).bit_count() for t, p in shape.odds)
    f[k + 7] = sum(p * ((op << t) & open_me & ALL_SQUARES).bit_count() for t, p in shape.odds)
    pm = sum(OFF - s for s in squares_in(me))
    po = sum(OFF - s for s in squares_in(op))
    f[k + 8] = (po - pm) / math.sqrt(pm + po + 10.0)
    return f


class Linear:
    """A fitted logistic evaluation: the mover's chance is 1 / (1 + exp(-(bias + w . features))).

    The per-square weights are folded into byte tables, so a position costs a few lookups."""

    def __init__(self, weights: tuple[float, ...]) -> None:
        if len(weights) != N_FEATURES + 1:
            raise ValueError(f"{len(weights)} weights for {N_FEATURES} features and a bias")
        self.bias = weights[0]
        w = weights[1:]
        per_me = [0.0, *w[: OFF - 1], 0.0]  # index = square (0 and OFF never set on a board mask)
        per_op = [0.0, *w[OFF - 1 : 2 * (OFF - 1)], 0.0]
        self.me_bytes = [_byte_table(per_me, shift) for shift in (0, 8, 16, 24)]
        self.op_bytes = [_byte_table(per_op, shift) for shift in (0, 8, 16, 24)]
        self.pip_bytes = [_byte_table([float(OFF - s) for s in range(OFF + 1)], shift) for shift in (0, 8, 16, 24)]
        k = 2 * (OFF - 1)
        (self.w_off_me, self.w_off_op, self.w_prot_me, self.w_prot_op, self.w_blk_me, self.w_blk_op) = w[k : k + 6]
        self.w_att_me, self.w_att_op, self.w_lead = w[k + 6], w[k + 7], w[k + 8]

    def logit(self, shape: Shape, me: int, op: int, off_me: int, off_op: int) -> float:
        """The weighted sum for the mover (the same as bias + w . feature_vector, faster)."""
        mb, ob, pb = self.me_bytes, self.op_bytes, self.pip_bytes
        m0, m1, m2, m3 = me & 255, (me >> 8) & 255, (me >> 16) & 255, me >> 24
        o0, o1, o2, o3 = op & 255, (op >> 8) & 255, (op >> 16) & 255, op >> 24
        x = self.bias + mb[0][m0] + mb[1][m1] + mb[2][m2] + mb[3][m3] + ob[0][o0] + ob[1][o1] + ob[2][o2] + ob[3][o3]
        x += self.w_off_me * off_me + self.w_off_op * off_op
        safe = shape.safe
        prot_me = (me & ((me << 1) | (me >> 1))) | (me & safe)
        prot_op = (op & ((op << 1) | (op >> 1))) | (op & safe)
        x += self.w_prot_me * prot_me.bit_count() + self.w_prot_op * prot_op.bit_count()
        starts = shape.blockade_starts
        if starts:
            x += self.w_blk_me * _runs3(me, starts).bit_count() + self.w_blk_op * _runs3(op, starts).bit_count()
        open_op, open_me = op & ~prot_op, me & ~prot_me
        if open_op or open_me:
            att_me = att_op = 0.0
            for t, p in shape.odds:
                att_me += p * ((me << t) & open_op & ALL_SQUARES).bit_count()
                att_op += p * ((op << t) & open_me & ALL_SQUARES).bit_count()
            x += self.w_att_me * att_me + self.w_att_op * att_op
        pm = pb[0][m0] + pb[1][m1] + pb[2][m2] + pb[3][m3]
        po = pb[0][o0] + pb[1][o1] + pb[2][o2] + pb[3][o3]
        return x + self.w_lead * (po - pm) / math.sqrt(pm + po + 10.0)

    def chance(self, game: Game) -> list[float]:
        """Each player's chance (two players, no throw waiting) from the side about to throw."""
        p = game.to_move
        x = self.logit(Shape.of(game), game.occ[p], game.occ[1 - p], game.off[p], game.off[1 - p])
        v = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))
        return [v, 1.0 - v] if p == 0 else [1.0 - v, v]


def _byte_table(per_square: list[float], shift: int) -> list[float]:
    """The sum of per-square values for each byte of a board mask taken at bit `shift`."""
    out = []
    for byte in range(256):
        total = 0.0
        for b in range(8):
            sq = shift + b
            if byte >> b & 1 and sq < len(per_square):
                total += per_square[sq]
        out.append(total)
    return out


#: (bias, one weight per feature of NAMES) per rule set, fitted by `python -m senet_pi.opponent.fit RULESET`
#: (see README "The computer opponent"); the throw options of a rule set share its weights.
# fmt: off
WEIGHTS: dict[str, tuple[float, ...]] = {
    "secret": (
        -0.0239, 0.3913, 0.3129, 0.2905, 0.2759, 0.1948, 0.2217, 0.2078, 0.2166, 0.1689,
        0.1377, 0.1149, 0.0973, 0.0337, 0.0646, -0.0176, 0.0128, -0.0263, -0.0277, -0.0908,
        -0.0864, -0.1487, -0.2019, -0.2012, -0.1983, -0.3337, -0.1909, 0.0, -0.1941, -0.3022,
        -0.3009, -0.3778, -0.3029, -0.2792, -0.2788, -0.2346, -0.2148, -0.2106, -0.2243, -0.1664,
        -0.1565, -0.1178, -0.1109, -0.0106, -0.0622, 0.0173, 0.0058, 0.019, 0.0449, 0.0913,
        0.0782, 0.1452, 0.2011, 0.1922, 0.2147, 0.3172, 0.1402, 0.0, 0.2168, 0.3313,
        0.2684, -0.4207, 0.4638, 0.0538, -0.0477, 0.0194, -0.0247, -0.0189, 0.0345, 0.3129,
    ),
    "houses": (
        -0.0166, 0.166, 0.1683, 0.1687, 0.0936, 0.1251, 0.1499, 0.1299, 0.1096, 0.0707,
        0.0767, 0.0664, 0.0886, 0.0469, 0.0482, -0.0261, 0.0037, -0.0083, -0.0057, -0.0416,
        -0.058, -0.0765, -0.0984, -0.1004, -0.135, -0.149, -0.126, 0.0, -0.1538, -0.1784,
        -0.1601, -0.193, -0.1583, -0.1698, -0.0983, -0.1068, -0.1404, -0.1114, -0.1226, -0.0708,
        -0.07, -0.0639, -0.0711, -0.0412, -0.0301, -0.013, 0.0011, 0.0077, 0.0003, 0.0475,
        0.0495, 0.0877, 0.0808, 0.0949, 0.1299, 0.1493, 0.0341, 0.0, 0.1599, 0.2144,
        0.1575, -0.195, 0.2462, 0.0518, -0.0435, 0.0076, -0.0105, 0.0025, 0.0189, 0.2838,
    ),
}
# fmt: on
