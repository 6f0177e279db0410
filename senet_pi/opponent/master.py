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
#: A phase: the pieces the mover and the other side still have on the board (1-5 each).
Phase = tuple[int, int]


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
