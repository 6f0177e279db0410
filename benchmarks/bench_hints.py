"""The page's hints and the computer at the board: how long a person's decision takes to
analyse (the hint button's answer and a move's cost), and how long the state the page is sent
takes to build while an analysis runs on its thread (it must not wait for it).

Run by hand: `python benchmarks/bench_hints.py` (`--quick` for a smoke run; `--tables DIR` for a
folder of solved tables, default the user's). Prints Markdown; the README quotes the last run.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import threading
import time
from pathlib import Path

from bench_opponent import decisions as opponent_decisions  # this folder, as the scripts run

from senet_pi.opponent.tables import Tables
from senet_pi.rules import Game, new_game
from senet_pi.service.coach import engine_analyser
from senet_pi.service.core import Service


def decisions(name: str, count: int, players: int = 2) -> list[Game]:
    """Positions met in random games with a throw waiting and at least two legal moves (the opponent
    benchmark's, from its own seed)."""
    return opponent_decisions(name, count, players, seed=7)


def analysis_times(name: str, count: int, tables: Tables, players: int = 2) -> list[float]:
    analyse = engine_analyser(tables)
    out = []
    for game in decisions(name, count, players):
        start = time.perf_counter()
        analyse(game)
        out.append(time.perf_counter() - start)
    return out


def state_while_analysing(count: int, tables: Tables) -> tuple[list[float], list[float]]:
    """The service's snapshot (what the live stream sends), each timed, alone and while analyses run
    (Python threads share one interpreter lock: the analysis slows it, the service's lock does not)."""
    service = Service(None, variant="secret")
    games = decisions("modern", 10)

    def timed() -> list[float]:
        out = []
        for _ in range(count):
            start = time.perf_counter()
            service.snapshot()
            out.append(time.perf_counter() - start)
            time.sleep(0.002)
        return out

    alone = timed()
    stop = threading.Event()

    def busy() -> None:
        analyse = engine_analyser(tables)
        while not stop.is_set():
            for game in games:
                analyse(game.copy(history=False))
                if stop.is_set():
                    break

    worker = threading.Thread(target=busy, daemon=True)
    worker.start()
    time.sleep(0.2)
    loaded = timed()
    stop.set()
    worker.join()
    return alone, loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tables", type=Path)
    args = parser.parse_args()
    tables = Tables(args.tables, build=False)
    count = 3 if args.quick else 40
    print(f"Python {platform.python_version()} on {platform.machine()}; tables in {tables.folder}\n")
    print("| rule set | decisions | analysis mean | median | max |")
    print("|---|---:|---:|---:|---:|")
    for name, players in (("secret", 2), ("houses", 2), ("modern", 2), ("modern", 4), ("cards", 2)):
        times = analysis_times(name, count, tables, players) if name != "cards" else []
        if name == "cards":  # a card waiting: the value of the card played
            times = []
            rng = random.Random(3)
            analyse = engine_analyser(tables)
            game = new_game("cards")
            while len(times) < count and not game.is_over:
                if game.pending is None:
                    cards = [c for c in game.hand(game.to_move_id) if game.playable(c)]  # type: ignore[attr-defined]
                    if not cards:
                        game.push_pass()  # type: ignore[attr-defined]
                        continue
                    game.push_card(rng.choice(cards))  # type: ignore[attr-defined]
                    continue
                moves = game.legal_moves()
                if not moves:
                    game.push_pass()  # type: ignore[attr-defined]
                    continue
                if len(moves) > 1:
                    start = time.perf_counter()
                    analyse(game.copy(history=False))
                    times.append(time.perf_counter() - start)
                game.push(rng.choice(moves))
        if not times:
            continue
        label = f"{name} ({players} players)" if name == "modern" else name
        print(
            f"| {label} | {len(times)} | {statistics.mean(times) * 1000:.0f} ms | "
            f"{statistics.median(times) * 1000:.0f} ms | {max(times) * 1000:.0f} ms |"
        )
    alone, loaded = state_while_analysing(20 if args.quick else 400, tables)
    print("\n| the service's snapshot (the live stream's state) | median | max |")
    print("|---|---:|---:|")
    for label, times in (("alone", alone), ("while analyses run on their thread", loaded)):
        print(f"| {label} | {statistics.median(times) * 1000:.2f} ms | {max(times) * 1000:.2f} ms |")


if __name__ == "__main__":
    main()
