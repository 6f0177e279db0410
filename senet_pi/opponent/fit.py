"""Fitting the middle-game evaluation offline: `python -m senet_pi.opponent.fit RULESET [--games N]`.

Self-play games (one-throw greedy on the current evaluation, a tenth of the moves at random so
that more positions are seen) give positions with no throw waiting; each is labelled with the
exact table value where the solved tables reach, else with whether the side about to throw
went on to win. A logistic regression (Newton's method with a small ridge, numpy) fits the
weights of `features.NAMES`; the printed tuple is what `features.WEIGHTS` ships. Run by hand
only: nothing at run time imports this module.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from ..rules import Game, find_ruleset
from .evaluate import Evaluator, race_chance
from .features import N_FEATURES, WEIGHTS, Linear, Shape, feature_vector
from .tables import Tables


def one_throw(game: Game, evaluator: Evaluator) -> float:
    """The mover's chance one throw on: each throw's best move judged by `evaluator` (a bootstrapped label)."""
    p = game.to_move
    total = 0.0
    for t, prob in game.throw_kind.odds().items():
        game.push_throw(t)
        if game.pending is None:  # P7
            v = evaluator(game)[p]
        else:
            v = 0.0
            for m in game.legal_moves():
                game.push(m)
                v = max(v, evaluator(game)[p])
                game.pop()
        game.pop()
        total += float(prob) * v
    return total


def self_play(
    cls: type[Game],
    games: int,
    seed: int,
    tables: Tables,
    weights: tuple[float, ...] | None,
    explore: float = 0.1,
    outcome: float = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and exactness (1 for a table value) of the positions of `games` self-play games.

    A label is `outcome` times whether the mover won plus the rest times the one-throw look-ahead value."""
    rng = random.Random(seed)
    linear = Linear(weights) if weights else None
    evaluator = Evaluator(tables, linear.chance if linear else race_chance)
    xs: list[list[float]] = []
    ys: list[float] = []
    exact: list[int] = []
    for _ in range(games):
        game = cls()
        shape = Shape.of(game)
        seen: list[tuple[int, int]] = []  # (row in xs, mover) of the positions judged by the outcome
        while not game.is_over:
            p = game.to_move
            v = tables.exact(game)
            xs.append(feature_vector(shape, game.occ[p], game.occ[1 - p], game.off[p], game.off[1 - p]))
            if v is None:
                ys.append(0.0 if outcome >= 1 else (1 - outcome) * one_throw(game, evaluator))
                exact.append(0)
                seen.append((len(ys) - 1, p))
            else:
                ys.append(v)
                exact.append(1)
            game.push_throw(game.random_throw(rng))
            while game.pending is not None and not game.is_over:
                moves = game.legal_moves()
                if len(moves) == 1 or rng.random() < explore:
                    game.push(moves[rng.randrange(len(moves))])
                    continue
                best, best_v = moves[0], -1.0
                for m in moves:
                    game.push(m)
                    w = evaluator(game)[p]
                    game.pop()
                    if w > best_v:
                        best, best_v = m, w
                game.push(best)
        for row, mover in seen:
            ys[row] += outcome * (game.winner == mover)
    return np.array(xs), np.array(ys), np.array(exact)


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float = 1e-3, steps: int = 30) -> np.ndarray:
    """Logistic regression of y (in [0, 1]) on x with a bias, by Newton's method; returns (bias, weights...)."""
    a = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(a.shape[1])
    reg = ridge * len(a) * np.eye(a.shape[1])
    reg[0, 0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ w, -30, 30)))
        grad = a.T @ (p - y) + reg @ w
        hess = (a * (p * (1 - p))[:, None]).T @ a + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset")
    parser.add_argument("--games", type=int, default=4000, help="self-play games a round (default 4000, as shipped)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=2, help="self-play rounds, each on the last round's fit")
    parser.add_argument("--outcome", type=float, default=1.0, help="the outcome's share of a label (rest: look-ahead)")
    parser.add_argument("--start", choices=["race", "shipped"], default="race", help="the first round's evaluation")
    args = parser.parse_args()
    cls = find_ruleset(args.ruleset)
    tables = Tables(build=False)
    weights: tuple[float, ...] | None = WEIGHTS.get(cls.name) if args.start == "shipped" else None
    for r in range(args.rounds):
        started = time.monotonic()
        x, y, exact = self_play(cls, args.games, args.seed + r, tables, weights, outcome=args.outcome)
        w = fit_logistic(x, y)
        p = 1.0 / (1.0 + np.exp(-(w[0] + x @ w[1:])))
        loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
        mae = np.abs(p - y)[exact == 1].mean() if exact.any() else float("nan")
        print(
            f"# round {r}: {len(y)} positions ({exact.mean():.0%} exact), log loss {loss:.4f}, "
            f"mean error on exact {mae:.4f}, {time.monotonic() - started:.0f} s",
            flush=True,
        )
        weights = tuple(round(float(v), 4) for v in w)
    assert weights is not None and len(weights) == N_FEATURES + 1
    print(f'"{cls.name}": {weights},')


if __name__ == "__main__":
    main()
