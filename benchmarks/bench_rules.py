"""Rules engine speed: full random games per second and legal-move generations per second.

Run by hand, on one core: `python benchmarks/bench_rules.py` (add `--quick` for a smoke run).
Prints a Markdown table; the README quotes the figures of the last run.
"""

from __future__ import annotations

import argparse
import platform
import random
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few games only, to check the script runs")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    args = parser.parse_args()
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
