"""Fitting the middle-game evaluation offline: `python -m senet_pi.opponent.fit RULESET [--games N]`.

Self-play games (one-throw greedy on the current evaluation, a tenth of the moves at random so
that more positions are seen) give positions with no throw waiting; each is labelled with the
exact table value where the solved tables reach, else with whether the side about to throw
went on to win. A logistic regression (Newton's method with a small ridge, numpy) fits the
weights of `features.NAMES`; the printed tuple is what `features.WEIGHTS` ships.

The master's evaluation (`master.py`): `python -m senet_pi.opponent.fit RULESET --master
--games 2000 --rounds 3 --outcome 0.5 --write` labels each position half by the outcome and half
by the evaluation's own one-throw look-ahead (the tables where they reach), fits weights per
phase, repeats on the new fit, and writes `master_weights.py` (about 2.5 minutes of CPU a rule
set here). Run by hand only: nothing at run time imports this module.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import numpy as np

from ..rules import Game, find_ruleset
from ..rules.board import OFF
from .evaluate import Evaluation, Evaluator, fitted_chance, race_chance
from .features import N_FEATURES, WEIGHTS, Linear, Shape, feature_vector
from .master import Phase, Phased, master_vector
from .tables import Tables

#: A position's features: (shape, mover's mask, other's mask, mover's pieces off, other's pieces off).
Vector = Callable[[Shape, int, int, int, int], list[float]]


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
    evaluation: Evaluation | None = None,
    vector: Vector = feature_vector,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and exactness (1 for a table value) of the positions of `games` self-play games.

    A label is `outcome` times whether the mover won plus the rest times the one-throw look-ahead value.
    The games are played (and looked ahead) by `evaluation` if given, else by `weights`' features."""
    rng = random.Random(seed)
    linear = Linear(weights) if weights else None
    evaluator = Evaluator(tables, evaluation or (linear.chance if linear else race_chance))
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
            xs.append(vector(shape, game.occ[p], game.occ[1 - p], game.off[p], game.off[1 - p]))
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


def fit_logistic(
    x: np.ndarray, y: np.ndarray, ridge: float = 1e-3, steps: int = 30, prior: np.ndarray | None = None
) -> np.ndarray:
    """Logistic regression of y (in [0, 1]) on x with a bias, by Newton's method; returns (bias, weights...).

    The ridge pulls the weights (not the bias) towards `prior` (zero if none), `ridge` a position."""
    a = np.hstack([np.ones((len(x), 1)), x])
    w0 = np.zeros(a.shape[1]) if prior is None else np.asarray(prior, dtype=float)
    w = w0.copy()
    reg = ridge * len(a) * np.eye(a.shape[1])
    reg[0, 0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ w, -30, 30)))
        grad = a.T @ (p - y) + reg @ (w - w0)
        hess = (a * (p * (1 - p))[:, None]).T @ a + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w


def fit_phased(x: np.ndarray, y: np.ndarray, pull: float = 2000.0, least: int = 500) -> dict[Phase, np.ndarray]:
    """One shared fit (phase (0, 0)), then one a phase pulled towards it as strongly as `pull` positions.

    A phase is read from the per-square features (the first 2 x 30 columns); phases with fewer than
    `least` positions keep the shared weights."""
    n = OFF - 1
    phases = np.stack([x[:, :n].sum(axis=1), x[:, n : 2 * n].sum(axis=1)], axis=1).astype(int)
    shared = fit_logistic(x, y)
    out: dict[Phase, np.ndarray] = {(0, 0): shared}
    for me, op in sorted({(int(a), int(b)) for a, b in phases}):
        rows = (phases[:, 0] == me) & (phases[:, 1] == op)
        if rows.sum() >= least:
            out[(me, op)] = fit_logistic(x[rows], y[rows], ridge=pull / rows.sum(), prior=shared)
    return out


def predict_phased(weights: dict[Phase, np.ndarray], x: np.ndarray) -> np.ndarray:
    """The chances a phased fit gives positions `x` (the same phases as `fit_phased` reads)."""
    n = OFF - 1
    me, op = x[:, :n].sum(axis=1).astype(int), x[:, n : 2 * n].sum(axis=1).astype(int)
    z = np.empty(len(x))
    for i in range(len(x)):
        w = weights.get((int(me[i]), int(op[i])), weights[(0, 0)])
        z[i] = w[0] + x[i] @ w[1:]
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def fit_master(
    cls: type[Game],
    games: int,
    seed: int,
    rounds: int,
    tables: Tables,
    outcome: float = 0.5,
    stream: TextIO | None = None,
) -> dict[Phase, tuple[float, ...]]:
    """The master's phased weights from `rounds` rounds of self-play (deterministic for a seed).

    A label beyond the tables is `outcome` times the result and the rest the one-throw look-ahead
    of the round's evaluation: the shipped `fitted_chance` first, then each round's fit."""
    evaluation: Evaluation = fitted_chance
    weights: dict[Phase, tuple[float, ...]] = {}
    for r in range(rounds):
        started = time.process_time()
        x, y, exact = self_play(
            cls, games, seed + r, tables, None, outcome=outcome, evaluation=evaluation, vector=master_vector
        )
        fitted = fit_phased(x, y)
        p = predict_phased(fitted, x)
        error = np.abs(p - y)
        on_guessed = f"{error[exact == 0].mean():.4f}" if (exact == 0).any() else "-"
        on_exact = f"{error[exact == 1].mean():.4f}" if exact.any() else "-"
        print(
            f"# round {r}: {len(y)} positions ({exact.mean():.0%} exact), {len(fitted)} phases, "
            f"mean error on the labels beyond the tables {on_guessed}, on exact {on_exact}, "
            f"{time.process_time() - started:.0f} s of CPU",
            file=stream,
            flush=True,
        )
        weights = {ph: tuple(round(float(v), 4) for v in w) for ph, w in fitted.items()}
        evaluation = Phased(weights).chance
    return weights


def format_master_weights(table: dict[str, dict[Phase, tuple[float, ...]]]) -> str:
    """The source of `master_weights.py` holding `table` (rule set -> phase -> weights)."""
    lines = [
        '"""The master\'s phased evaluation weights (`master.Phased`), per rule set and phase: written by',
        '`python -m senet_pi.opponent.fit RULESET --master --write` (docs: "The computer opponent"); not by hand."""',
        "",
        "# fmt: off",
        "MASTER_WEIGHTS: dict[str, dict[tuple[int, int], tuple[float, ...]]] = {",
    ]
    for name in sorted(table):
        lines.append(f'    "{name}": {{')
        for phase in sorted(table[name]):
            w = table[name][phase]
            lines.append(f"        {phase}: (")
            lines += ["            " + " ".join(f"{v!r}," for v in w[i : i + 10]) for i in range(0, len(w), 10)]
            lines.append("        ),")
        lines.append("    },")
    lines += ["}", "# fmt: on", ""]
    return "\n".join(lines)


def write_master_weights(name: str, weights: dict[Phase, tuple[float, ...]], path: Path | None = None) -> Path:
    """Write `weights` as rule set `name`'s entry of `master_weights.py` (the other rule sets' kept)."""
    from .master_weights import MASTER_WEIGHTS

    path = path or Path(__file__).with_name("master_weights.py")
    path.write_text(format_master_weights({**MASTER_WEIGHTS, name: weights}), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset")
    parser.add_argument("--games", type=int, default=4000, help="self-play games a round (default 4000, as shipped)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=2, help="self-play rounds, each on the last round's fit")
    parser.add_argument("--outcome", type=float, default=1.0, help="the outcome's share of a label (rest: look-ahead)")
    parser.add_argument("--start", choices=["race", "shipped"], default="race", help="the first round's evaluation")
    parser.add_argument("--master", action="store_true", help="fit the master's phased evaluation (master.py)")
    parser.add_argument("--write", action="store_true", help="with --master: write the weights into master_weights.py")
    args = parser.parse_args()
    cls = find_ruleset(args.ruleset)
    tables = Tables(build=False)
    if args.master:
        phased = fit_master(cls, args.games, args.seed, args.rounds, tables, args.outcome)
        if args.write:
            print(f"# wrote {write_master_weights(cls.name, phased)}")
        else:
            print(f'"{cls.name}": {phased},')
        return
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
