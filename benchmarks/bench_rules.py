"""Rules engine speed: full random games per second and legal-move generations per second.

Run by hand, on one core: `python benchmarks/bench_rules.py` (add `--quick` for a smoke run).
Prints a Markdown table; the README quotes the figures of the last run.

`--cpp PATH` also measures the random playouts (`play_random_game`, `secret`) side by side with
a C++ Senet core: PATH is a binary, never built or shipped here, that takes a number of games as
its argument, plays them at random and prints one line "N games, P plies, T s, G games/s, R
plies/s" (a ply is one throw). Both run pinned to the same core in alternating rounds, so a load
that comes and goes falls on both, and the ratio of plies a second is taken within each round.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time

from senet_pi.rules import RULESETS, Game, new_game
from senet_pi.rules.random_play import play_random_card_turn, play_random_game


def games_per_second(name: str, games: int, seed: int) -> tuple[float, float]:
    """(games/s, throws per game) over `games` random games."""
    rng = random.Random(seed)
    throws = 0
    start = time.perf_counter()
    for _ in range(games):
        game = new_game(name)
        throws += play_random_game(game, rng)  # in the card game, turns: a card played or exchanged
    elapsed = time.perf_counter() - start
    return games / elapsed, throws / games


def positions(name: str, count: int, seed: int) -> list[Game]:
    """Positions met in random games, each with a throw waiting to be played and at least one move."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        game = new_game(name)
        while not game.is_over and len(out) < count:
            if game.turn_starts_with == "card":
                stick = [c for c in game.hand(game.to_move_id) if c in "12345" and game.playable(c)]
                if not stick:
                    play_random_card_turn(game, rng)
                    continue
                game.push_card(stick[0])
            else:
                game.push_throw(game.random_throw(rng))
            if game.legal_moves():
                out.append(game.copy())
            while game.legal_moves():
                moves = game.legal_moves()
                game.push(moves[rng.randrange(len(moves))])
    return out


def generations_per_second(pool: list[Game], rounds: int) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        for game in pool:
            game.generate_legal_moves()
    return rounds * len(pool) / (time.perf_counter() - start)


#: What the C++ binary prints: "N games, P plies, T s, G games/s, R plies/s" (more may follow).
_CPP_LINE = re.compile(r"(\d+) games, (\d+) plies, ([\d.]+) s, ([\d.]+) games/s, ([\d.]+) plies/s")


def cpp_round(path: str, games: int) -> tuple[float, float]:
    """(plies/s, plies per game) of one run of the C++ binary; SystemExit with the reason if it fails."""
    try:
        done = subprocess.run([path, str(games)], capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SystemExit(f"--cpp {path}: cannot run it ({exc})") from None
    found = _CPP_LINE.search(done.stdout)
    if done.returncode != 0 or found is None:
        said = (done.stdout + done.stderr).strip()[:200]
        raise SystemExit(f"--cpp {path}: expected 'N games, P plies, T s, G games/s, R plies/s', got {said!r}")
    n, plies = int(found.group(1)), int(found.group(2))
    return float(found.group(5)), plies / max(1, n)


def python_round(games: int, seed: int) -> tuple[float, float]:
    """(plies/s, plies per game) of `games` random `secret` games on the fast path (wall clock, as C++'s)."""
    rng = random.Random(seed)
    plies = 0
    start = time.perf_counter()
    for _ in range(games):
        plies += play_random_game(new_game("secret"), rng)
    return plies / (time.perf_counter() - start), plies / games


def side_by_side(path: str, rounds: int, seconds: float) -> None:
    """The C++ core and the Python engine in alternating rounds on one core; the ratio within each round."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # the C++ child inherits the same core
    cpp_rate, _ = cpp_round(path, 200)  # a first guess of the speeds, so each round takes `seconds`
    py_rate, per_game = python_round(20, seed=0)
    cpp_games = max(1, int(seconds * cpp_rate / per_game))
    py_games = max(1, int(seconds * py_rate / per_game))
    print("\n| round | C++ plies/s | Python plies/s | ratio | C++ plies a game | Python plies a game |")
    print("|---:|---:|---:|---:|---:|---:|")
    ratios, cpps, pys = [], [], []
    for r in range(1, rounds + 1):
        order = [("cpp", 0), ("py", 0)] if r % 2 else [("py", 0), ("cpp", 0)]  # alternate which goes first
        got: dict[str, tuple[float, float]] = {}
        for side, _ in order:
            got[side] = cpp_round(path, cpp_games) if side == "cpp" else python_round(py_games, seed=r)
        (c, c_per), (p, p_per) = got["cpp"], got["py"]
        ratios.append(p / c)
        cpps.append(c)
        pys.append(p)
        print(f"| {r} | {c:,.0f} | {p:,.0f} | {p / c:.3f} | {c_per:.0f} | {p_per:.0f} |")
    print(
        f"\nratio within rounds: median {statistics.median(ratios):.3f}, min {min(ratios):.3f}, max {max(ratios):.3f};"
        f" of the medians {statistics.median(pys) / statistics.median(cpps):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few games only, to check the script runs")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    parser.add_argument("--cpp", metavar="PATH", help="a C++ core's random-playout binary to compare with")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds against --cpp (default 7)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds a side a round (default 3)")
    args = parser.parse_args()
    if args.cpp:
        print(f"Python {platform.python_version()} on {platform.machine()}, one core, {sys.argv[0]} --cpp")
        side_by_side(args.cpp, args.rounds, 0.2 if args.quick else args.seconds)
        return
    scale = 0.05 if args.quick else 1.0
    games = {"secret": 2000, "houses": 2000, "cards": 300, "modern": 400}
    print(f"Python {platform.python_version()} on {platform.machine()}, one process, best of {args.repeat}\n")
    print("| rule set | full random games/s | throws (cards: turns) per game | legal-move generations/s |")
    print("|---|---:|---:|---:|")
    for name in RULESETS:
        n = max(5, int(games[name] * scale))
        best_games, per_game = max(games_per_second(name, n, seed) for seed in range(args.repeat))
        pool = positions(name, max(50, int(2000 * scale)), seed=99)
        best_gen = max(generations_per_second(pool, rounds=5) for _ in range(args.repeat))
        print(f"| {name} | {best_games:,.0f} | {per_game:.0f} | {best_gen:,.0f} |")


if __name__ == "__main__":
    main()
