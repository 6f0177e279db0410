"""Judging a position without searching it: the solved tables where they reach, a fitted guess elsewhere.

Every evaluation returns, for a position with no throw waiting, each player's chance to win.
The fitted guess is a logistic curve of the race: the pips each side still has to go,
scaled by the square root of the pips left in all (a lead counts for more near the end),
plus a small edge for the side about to throw. Its weights were fitted by
`fit_race_weights` on the exact values of the solved 3-against-3 and 2-against-3 positions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache

from ..rules import Game
from ..rules.board import OFF
from .features import WEIGHTS, Linear, Shape
from .master import Judge, Phased
from .master_weights import MASTER_WEIGHTS
from .tables import Tables

Evaluation = Callable[[Game], list[float]]

#: (bias for the side to throw, weight of the scaled pip lead), per rule set's throw odds; fitted
#: by fit_race_weights on the solved tables (see README "The computer opponent").
#: Fitted 2026-11-24 on 60,000 positions (20,000 each of 3 v 3, 2 v 3, 3 v 2) of the sticks tables.
RACE_WEIGHTS: dict[str, tuple[float, float]] = {
    "secret": (0.064, 0.105),
    "houses": (0.090, 0.164),
    "default": (0.077, 0.135),  # their mean, for the sets without tables
}


#: _SQUARE_SUMS[k][byte]: the sum of the squares of a board mask's byte k (a mask's pips in 4 lookups).
_SQUARE_SUMS = [[sum(8 * k + b for b in range(8) if byte >> b & 1) for byte in range(256)] for k in range(4)]


def pips(game: Game, p: int) -> int:
    """How far player p's pieces on the board still have to go, all together."""
    m = game.occ[p]
    s = _SQUARE_SUMS
    on_board = m.bit_count()
    total = OFF * on_board - (s[0][m & 255] + s[1][(m >> 8) & 255] + s[2][(m >> 16) & 255] + s[3][m >> 24])
    waiting = game.pieces - on_board - game.off[p]
    return total + 30 * waiting if waiting > 0 else total


def _waiting(game: Game, p: int) -> int:
    """Pieces neither on the board nor finished (none in the race sets)."""
    return max(0, game.pieces - game.occ[p].bit_count() - game.off[p])


def race_chance(game: Game, weights: tuple[float, float] | None = None) -> list[float]:
    """The fitted guess: each player's chance from the pips left (and, beyond two players, a share)."""
    bias, slope = weights or RACE_WEIGHTS.get(game.name, RACE_WEIGHTS["default"])
    left = [pips(game, p) for p in range(game.players)]
    if game.players == 2:
        p = game.to_move
        me, op = left[p], left[1 - p]
        x = bias + slope * (op - me) / math.sqrt(me + op + 10.0)
        v = 1.0 / (1.0 + math.exp(-x))
        return [v, 1.0 - v] if p == 0 else [1.0 - v, v]
    strength = [-slope * pl / math.sqrt(sum(left) + 10.0) for pl in left]
    strength[game.to_move] += bias
    top = max(strength)
    weights_ = [math.exp(s - top) for s in strength]
    total = sum(weights_)
    return [w / total for w in weights_]


def pip_ratio(game: Game) -> list[float]:
    """Horolsky's leaf score: each side's share of the pips both still have to go (lower is better)."""
    left = [pips(game, p) + 1 for p in range(game.players)]
    inverse = [1.0 / pl for pl in left]
    total = sum(inverse)
    return [i / total for i in inverse]


@cache
def _linear(name: str) -> Linear | None:
    """The fitted evaluation of a rule set, made once; None where it has no weights."""
    weights = WEIGHTS.get(name)
    return Linear(weights) if weights else None


@cache
def _phased(name: str) -> Phased | None:
    """The master's phased evaluation of a rule set, made once; None where it has no weights."""
    weights = MASTER_WEIGHTS.get(name)
    return Phased(weights) if weights else None


def fitted_chance(game: Game) -> list[float]:
    """The fitted feature evaluation (`features.py`) where the rule set has weights, else the race curve."""
    linear = _linear(game.name)
    if linear is None or game.players != 2:  # no weights for this rule set
        return race_chance(game)
    return linear.chance(game)


def master_chance(game: Game) -> list[float]:
    """The master's phased evaluation (`master.py`) where the rule set has its weights, else `fitted_chance`."""
    phased = _phased(game.name)
    if phased is None or game.players != 2:
        return fitted_chance(game)
    return phased.chance(game)


@cache
def _phased_judge(name: str, shape: Shape) -> Judge | None:
    phased = _phased(name)
    return phased.judge(shape) if phased is not None else None


def mask_judge(evaluation: Evaluation, game: Game) -> Judge | None:
    """`evaluation` as a function of the board masks (`master.Judge`), where it has one (the master's
    phased evaluation), for the leaves of a search on the fast path; None where the search must call
    `evaluation` on the game itself."""
    if evaluation is master_chance and game.players == 2:
        return _phased_judge(game.name, Shape.of(game))
    return None


#: The evaluations a level can name.
EVALUATIONS: dict[str, Evaluation] = {
    "master": master_chance,
    "fitted": fitted_chance,
    "race": race_chance,
    "pip": pip_ratio,
}


def final(game: Game) -> list[float]:
    """1 for the winner, 0 for the others (a game that is over)."""
    return [1.0 if p == game.winner else 0.0 for p in range(game.players)]


class Evaluator:
    """Exact where a table covers the position, the fitted race guess elsewhere."""

    def __init__(self, tables: Tables | None, fallback: Evaluation = race_chance) -> None:
        self.tables = tables
        self.fallback = fallback

    def exact(self, game: Game) -> float | None:
        """The table's value for the player to throw, or None where no table covers it."""
        return self.tables.exact(game) if self.tables is not None else None

    def __call__(self, game: Game) -> list[float]:
        if game.is_over:
            return final(game)
        v = self.exact(game)
        if v is None:
            return self.fallback(game)
        return [v, 1.0 - v] if game.to_move == 0 else [1.0 - v, v]


def fit_race_weights(samples: Sequence[tuple[int, int, float]], steps: int = 50) -> tuple[float, float]:
    """Logistic regression (Newton's method) of exact values on the scaled pip lead.

    `samples` are (mover's pips, other side's pips, exact chance of the mover)."""
    xs = [((o - m) / math.sqrt(m + o + 10.0), v) for m, o, v in samples]
    b0, b1 = 0.0, 1.0
    for _ in range(steps):
        g0 = g1 = h00 = h01 = h11 = 0.0
        for x, v in xs:
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, b0 + b1 * x))))
            w = p * (1 - p)
            g0 += p - v
            g1 += (p - v) * x
            h00 += w
            h01 += w * x
            h11 += w * x * x
        det = h00 * h11 - h01 * h01
        if det <= 0:
            break
        d0, d1 = (h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det
        scale = min(1.0, 1.0 / max(abs(d0), abs(d1), 1e-12))  # damped: at most 1 a step
        b0 -= scale * d0
        b1 -= scale * d1
    return b0, b1
