"""The master's evaluation: the fitted features of `features.py`, a few more, and weights per phase.

The club and the expert judge every middle-game position with one set of weights. The master's
evaluation keeps their features and adds what one straight line over them cannot say: whether
the two sides can still meet (a race with no contact left is judged by the pips alone), pieces
penned behind a blockade (S4/H3), and the pip lead as a share of the pips left. Its weights are
fitted per phase (how many pieces each side still has on the board: a lead of ten pips means
more with two pieces left than with five), each phase pulled towards one shared fit where it has
few positions. The labels are half the game's outcome and half the evaluation's own one-throw
look-ahead, anchored on the solved tables and repeated on each new fit (`python -m
senet_pi.opponent.fit RULESET --master`, see `fit.py`). The weights ship in `master_weights.py`;
levels 1-3 never read them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..rules import Game
from ..rules.board import OFF
from .features import N_FEATURES, Linear, Shape, _runs3, feature_vector

#: The features the master adds to `features.NAMES`, in the order of their weights.
EXTRA_NAMES: tuple[str, ...] = (
    "no contact",
    "no contact x scaled pip lead",
    "mover penned",
    "other penned",
    "pip lead share",
)
N_EXTRA = len(EXTRA_NAMES)
#: The throws a judge's attacks are summed over, written out (sticks and the d6 have five values).
_THROWS = 5
#: How many sides' boards a judge keeps what it reads of (`Phased.judge`'s `side`; 3.3 MiB when full).
_SIDES = 16_384
#: A phase: the pieces the mover and the other side still have on the board (1-5 each).
Phase = tuple[int, int]
#: The mover's chance from the board masks and pieces off of the mover and the other side.
Judge = Callable[[int, int, int, int], float]


def phase_of(me: int, op: int) -> Phase:
    """The phase of a position: each side's pieces on the board (a board mask's bits)."""
    return me.bit_count(), op.bit_count()


def _penned(me: int, op: int, starts: int) -> int:
    """The mover's pieces behind the other side's rearmost blockade (they cannot pass it, S4/H3)."""
    if not starts:
        return 0
    runs = _runs3(op, starts)
    if not runs:
        return 0
    first = runs & -runs
    return (me & (first - 1)).bit_count()


#: _PIPS[k][byte]: the pips to go (as `features.feature_vector` counts them) of a board mask's byte k.
_PIPS = [[sum(OFF - (8 * k + b) for b in range(8) if byte >> b & 1) for byte in range(256)] for k in range(4)]


_PIPS0, _PIPS1, _PIPS2, _PIPS3 = _PIPS


def _pips(m: int) -> int:
    return _PIPS[0][m & 255] + _PIPS[1][(m >> 8) & 255] + _PIPS[2][(m >> 16) & 255] + _PIPS[3][m >> 24]


def extra_vector(shape: Shape, me: int, op: int) -> list[float]:
    """The master's added features of a position (mover's and other side's board masks)."""
    if me and op:
        lo_me, hi_me = (me & -me).bit_length(), me.bit_length()
        lo_op, hi_op = (op & -op).bit_length(), op.bit_length()
        apart = 1.0 if lo_me > hi_op or lo_op > hi_me else 0.0
    else:
        apart = 1.0
    pm, po = _pips(me), _pips(op)
    lead = (po - pm) / math.sqrt(pm + po + 10.0)
    share = (po - pm) / (pm + po + 10.0)
    return [
        apart,
        apart * lead,
        float(_penned(me, op, shape.blockade_starts)),
        float(_penned(op, me, shape.blockade_starts)),
        share,
    ]


def master_vector(shape: Shape, me: int, op: int, off_me: int, off_op: int) -> list[float]:
    """All the master's features (without the bias): `features.feature_vector` and then the extras."""
    return feature_vector(shape, me, op, off_me, off_op) + extra_vector(shape, me, op)


class Phased:
    """A logistic evaluation with its own weights per phase (`phase_of`), the shared weights elsewhere.

    `weights` maps a phase to (bias, one weight per feature of `features.NAMES` and `EXTRA_NAMES`);
    the phase (0, 0) holds the shared weights."""

    def __init__(self, weights: dict[Phase, tuple[float, ...]]) -> None:
        self.models: dict[Phase, tuple[Linear, tuple[float, ...]]] = {}
        for phase, w in weights.items():
            if len(w) != N_FEATURES + N_EXTRA + 1:
                raise ValueError(f"{len(w)} weights for {N_FEATURES + N_EXTRA} features and a bias in phase {phase}")
            self.models[phase] = (Linear(w[: N_FEATURES + 1]), w[N_FEATURES + 1 :])
        if (0, 0) not in self.models:
            raise ValueError("no shared weights (phase (0, 0))")

    def logit(self, shape: Shape, me: int, op: int, off_me: int, off_op: int) -> float:
        """The weighted sum for the mover (bias + weights . master_vector, in the position's phase)."""
        linear, extra = self.models.get((me.bit_count(), op.bit_count())) or self.models[(0, 0)]  # phase_of
        x = linear.logit(shape, me, op, off_me, off_op)
        # extra_vector's features, summed as they are found (no list: this runs at every leaf)
        pm, po = _pips(me), _pips(op)
        total = pm + po + 10.0
        x += extra[4] * (po - pm) / total
        if not (me and op) or (me & -me).bit_length() > op.bit_length() or (op & -op).bit_length() > me.bit_length():
            x += extra[0] + extra[1] * (po - pm) / math.sqrt(total)  # no contact
        starts = shape.blockade_starts
        if starts:
            x += extra[2] * _penned(me, op, starts) + extra[3] * _penned(op, me, starts)
        return x

    def chance(self, game: Game) -> list[float]:
        """Each player's chance (two players, no throw waiting) from the side about to throw."""
        p = game.to_move
        x = self.logit(Shape.of(game), game.occ[p], game.occ[1 - p], game.off[p], game.off[1 - p])
        v = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))
        return [v, 1.0 - v] if p == 0 else [1.0 - v, v]

    def judge(self, shape: Shape) -> Judge:
        """`chance`'s value for the mover as one function of the masks, every weight at hand: what the
        search calls at each new leaf (`logit`'s and `Linear.logit`'s sums in their order, so the values
        are the same to the last bit, without a `Game`, a list, a phase lookup or a call per feature)."""
        rows = [self._row(a, b) for a in range(8) for b in range(8)]  # index: the phase's a * 8 + b
        safe, starts = shape.safe, shape.blockade_starts
        if len(shape.odds) > _THROWS:
            raise ValueError(f"a judge sums the attacks of at most {_THROWS} throws, not {len(shape.odds)}")
        # the attacks' sums written out for five throws: a throw added to fill them up weighs 0.0, and
        # x + 0.0 * n is x, so the sums are Linear's to the last bit
        (t1, p1), (t2, p2), (t3, p3), (t4, p4), (t5, p5) = (*shape.odds, *[(0, 0.0)] * (_THROWS - len(shape.odds)))
        sqrt, exp = math.sqrt, math.exp
        pips0, pips1, pips2, pips3 = _PIPS
        sides: dict[int, tuple[int, ...]] = {}  # a side's board -> what `judge` reads of it (`side`)
        known = sides.get

        def side(s: int) -> tuple[int, ...]:
            """What the judge reads of one side's board, integers only (so the sums stay `logit`'s):
            its pieces, bytes, protected pieces, open pieces, blockade squares, the squares below its
            rearmost blockade, pips, rearmost piece and the bit lengths. A few thousand boards meet
            in a decision, each judged many times: they are kept (up to `_SIDES`)."""
            prot = (s & ((s << 1) | (s >> 1))) | (s & safe)
            r = s & (s >> 1) & (s >> 2) & starts
            runs = r | (r << 1) | (r << 2)
            b0, b1, b2, b3 = s & 255, (s >> 8) & 255, (s >> 16) & 255, s >> 24
            low = s & -s
            info = (
                s.bit_count(), b0, b1, b2, b3, prot.bit_count(), s & ~prot, runs.bit_count(),
                (runs & -runs) - 1 if runs else 0, pips0[b0] + pips1[b1] + pips2[b2] + pips3[b3],
                low, low.bit_length(), s.bit_length(),
            )  # fmt: skip
            if len(sides) >= _SIDES:
                sides.clear()
            sides[s] = info
            return info

        def judge(me: int, op: int, off_me: int, off_op: int) -> float:
            n_me, m0, m1, m2, m3, prot_me, open_me, runs_me, below_me, pm, low_me, lo_me, hi_me = known(me) or side(me)
            n_op, o0, o1, o2, o3, prot_op, open_op, runs_op, below_op, po, low_op, lo_op, hi_op = known(op) or side(op)
            (
                bias, mb0, mb1, mb2, mb3, ob0, ob1, ob2, ob3,
                w_off_me, w_off_op, w_prot_me, w_prot_op, w_blk_me, w_blk_op, w_att_me, w_att_op, w_lead,
                w_apart, w_apart_lead, w_penned_me, w_penned_op, w_share,
            ) = rows[n_me * 8 + n_op]  # fmt: skip
            x = bias + mb0[m0] + mb1[m1] + mb2[m2] + mb3[m3] + ob0[o0] + ob1[o1] + ob2[o2] + ob3[o3]
            x += w_off_me * off_me + w_off_op * off_op
            x += w_prot_me * prot_me + w_prot_op * prot_op
            if starts:  # the blockades of each side
                x += w_blk_me * runs_me + w_blk_op * runs_op
            # the attacks: a side with no open piece, or none behind one, is attacked 0.0 (Linear sums its
            # zeros, the same float); an open piece is on the board, so `& ALL_SQUARES` would change nothing
            att_me = att_op = 0.0
            if low_me < open_op:  # the mover's rearmost piece is behind an open piece of the other side
                att_me = (
                    p1 * ((me << t1) & open_op).bit_count()
                    + p2 * ((me << t2) & open_op).bit_count()
                    + p3 * ((me << t3) & open_op).bit_count()
                    + p4 * ((me << t4) & open_op).bit_count()
                    + p5 * ((me << t5) & open_op).bit_count()
                )
            if low_op < open_me:
                att_op = (
                    p1 * ((op << t1) & open_me).bit_count()
                    + p2 * ((op << t2) & open_me).bit_count()
                    + p3 * ((op << t3) & open_me).bit_count()
                    + p4 * ((op << t4) & open_me).bit_count()
                    + p5 * ((op << t5) & open_me).bit_count()
                )
            if open_op or open_me:
                x += w_att_me * att_me + w_att_op * att_op
            lead, total = po - pm, pm + po + 10.0
            x += w_lead * lead / sqrt(total)  # Linear.logit ends here; the master's extras follow
            x += w_share * lead / total
            if not (me and op) or lo_me > hi_op or lo_op > hi_me:
                x += w_apart + w_apart_lead * lead / sqrt(total)  # no contact
            if starts:  # _penned: the pieces below the other side's rearmost blockade
                x += w_penned_me * (me & below_op).bit_count() + w_penned_op * (op & below_me).bit_count()
            if x > 30.0:  # max(-30.0, min(30.0, x)) without the calls
                x = 30.0
            elif x < -30.0:
                x = -30.0
            return 1.0 / (1.0 + exp(-x))

        return judge

    def _row(self, a: int, b: int) -> tuple[Any, ...]:
        """The weights of phase (a, b) in the order `judge` unpacks them."""
        linear, extra = self.models.get((a, b)) or self.models[(0, 0)]
        return (
            linear.bias,
            *linear.me_bytes,
            *linear.op_bytes,
            linear.w_off_me,
            linear.w_off_op,
            linear.w_prot_me,
            linear.w_prot_op,
            linear.w_blk_me,
            linear.w_blk_op,
            linear.w_att_me,
            linear.w_att_op,
            linear.w_lead,
            *extra,  # EXTRA_NAMES' order: no contact, no contact x lead, mover penned, other penned, share
        )
