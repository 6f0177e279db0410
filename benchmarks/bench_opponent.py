"""The computer opponent: random games/s, search nodes/s per level, and a check of the built tables.

Run by hand: `python benchmarks/bench_opponent.py` (`--quick` for a smoke run; `--tables DIR`
for another table folder). The "before" figures of the README come from the same script run on
an export of the older tree (`PYTHONPATH=/tmp/before python benchmarks/bench_opponent.py`).
The tables check recomputes the Bellman update of random covered
positions through the rules engine's own moves (independent of the solver's numpy moves) and
prints the largest difference from the stored value: 16-bit values allow about 2e-5.
Times are the process's CPU time (time.process_time), so other jobs on a shared machine slow the
figures less than wall-clock time would. Prints Markdown; the README quotes the last run.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from pathlib import Path

try:
    from senet_pi.opponent.light import light_copy
except ImportError:  # an older tree (for the "before" figures: PYTHONPATH=that tree) has no light copy
    light_copy = None  # type: ignore[assignment]
from senet_pi.errors import SenetError
from senet_pi.opponent.players import BASELINES, LEVELS, Computer
from senet_pi.opponent.tables import Tables, table_path, throws_of
from senet_pi.rules import Game, new_game
from senet_pi.rules.random_play import play_random_game


def random_games(name: str, games: int, light: bool = False) -> float:
    """Full random games per second (on the engine, or on the search's light copy of it)."""
    rng = random.Random(1)
    start = time.process_time()
    for _ in range(games):
        game = new_game(name)
        play_random_game(light_copy(game) if light and light_copy else game, rng)
    return games / (time.process_time() - start)


def decisions(name: str, count: int, players: int = 2, seed: int = 2) -> list[Game]:
    """Positions met in random games with a throw waiting and at least two legal moves."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        game = new_game(name, players=players) if players != 2 else new_game(name)
        while not game.is_over and len(out) < count:
            game.push_throw(game.random_throw(rng))
            while game.pending is not None and not game.is_over:
                moves = game.legal_moves()
                if len(moves) > 1 and rng.random() < 0.3:
                    out.append(game.copy(history=False))
                game.push(moves[rng.randrange(len(moves))])
    return out


def search_speed(name: str, level: str, count: int, tables: Tables | None) -> tuple[float, float, float, float]:
    """(nodes/s, nodes per decision, seconds per decision, the slowest decision's seconds) of one level."""
    player = Computer(LEVELS[int(level)] if level.isdigit() else BASELINES[level], tables)
    nodes = 0
    positions = decisions(name, count)
    slowest = 0.0
    start = time.process_time()
    for game in positions:
        before = time.process_time()
        player.choose(game)
        slowest = max(slowest, time.process_time() - before)
        nodes += player.last.nodes
    spent = time.process_time() - start
    return nodes / spent, nodes / count, spent / count, slowest


def lost_against_master(name: str, count: int, tables: Tables | None, seed: int = 5) -> dict[str, tuple[float, int]]:
    """Each level's chance lost per decision against the master's judgement, over decisions the tables do
    not settle (at least one move's value is the master's estimate): (mean lost, decisions)."""
    judge = Computer(LEVELS[max(LEVELS)], tables, 0)
    players = {str(n): Computer(level, tables, n) for n, level in LEVELS.items()}
    lost = dict.fromkeys(players, 0.0)
    seen = 0
    for game in decisions(name, count, seed=seed):
        scored, stats = judge.values(game)
        if stats.depth == 0 and len(scored) > 0 and tables is not None and _settled(game, tables):
            continue  # a solved endgame: measured against the tables in the tournaments instead
        values = {str(m): v for m, v in scored}
        best = max(values.values())
        for n, player in players.items():
            lost[n] += best - values[str(player.choose(game))]
        seen += 1
    return {n: (total / max(1, seen), seen) for n, total in lost.items()}


def _settled(game: Game, tables: Tables) -> bool:
    """Whether every legal move leads where the tables (or the game's end) give an exact value."""
    for m in game.legal_moves():
        game.push(m)
        try:
            if not game.is_over and (game.pending is not None or tables.exact(game) is None):
                return False
        finally:
            game.pop()
    return True


def bellman_check(game_name: str, throws: str, tables: Tables, samples: int, pieces: int = 3) -> float:
    """The largest |T(V) - V| over random positions of at most `pieces` a side (those the table covers),
    T computed with the engine's moves."""
    rng = random.Random(3)
    worst = 0.0
    options = {"throws": throws} if "throws" in new_game(game_name).option_defaults() else {}
    squares = [*range(1, 27), 28, 29, 30]
    for _ in range(samples):
        a, b = rng.randint(1, pieces), rng.randint(1, pieces)
        cells = rng.sample(squares, a + b)
        position = {"A": sorted(cells[:a]), "B": sorted(cells[a:]), "off": {"A": 5 - a, "B": 5 - b}, "to_move": "A"}
        game = new_game(game_name, options=options, position=position)
        v = tables.exact(game)
        assert v is not None
        total = 0.0
        again = 0.0
        for t, p in game.throw_kind.odds().items():
            game.push_throw(t)
            if game.pending is None:  # P7
                if game.to_move == 0:
                    again += float(p)
                else:
                    total += float(p) * (1.0 - tables.exact(game))  # type: ignore[operator]
            else:
                best = 0.0
                for m in game.legal_moves():
                    game.push(m)
                    if game.is_over:
                        w = 1.0
                    else:
                        e = tables.exact(game)
                        w = e if game.to_move == 0 else 1.0 - e  # type: ignore[operator]
                    game.pop()
                    best = max(best, w)
                total += float(p) * best
            game.pop()
        worst = max(worst, abs(total / (1.0 - again) - v))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few games and positions, no tables")
    parser.add_argument("--tables", type=Path, help="the table folder (default: senet-pi's)")
    args = parser.parse_args()
    quick = args.quick
    print(f"Python {platform.python_version()} on {platform.machine()}, one process\n")
    print("| rule set | random games/s (engine) | random games/s (light copy) |")
    print("|---|---:|---:|")
    for name in ("secret", "houses"):
        n = 20 if quick else 500
        light = f"{random_games(name, n, light=True):,.0f}" if light_copy else "-"
        print(f"| {name} | {random_games(name, n):,.0f} | {light} |")
    tables = None if quick else Tables(args.tables, build=False)
    print("\n| rule set | player | nodes/s | nodes per decision | ms per decision | slowest decision, ms |")
    print("|---|---|---:|---:|---:|---:|")
    for name in ("secret", "houses"):
        for level in [*map(str, sorted(LEVELS)), "pip3"]:
            rate, per, secs, slowest = search_speed(name, level, 5 if quick else 200, tables)
            print(f"| {name} | {level} | {rate:,.0f} | {per:,.0f} | {1000 * secs:.1f} | {1000 * slowest:.0f} |")
    print("\n| rule set | decisions | " + " | ".join(f"level {n} lost" for n in sorted(LEVELS)) + " |")
    print("|---|---:|" + "---:|" * len(LEVELS))
    for name in ("secret", "houses"):
        lost = lost_against_master(name, 5 if quick else 100, tables)
        seen = next(iter(lost.values()))[1]
        cells = " | ".join(f"{100 * lost[str(n)][0]:.2f} pp" for n in sorted(LEVELS))
        print(f"| {name} | {seen} | {cells} |")
    if quick or tables is None:
        return
    print("\n| table | positions | file | solved in | sweeps (3 v 3) | residual | engine Bellman check |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in table_rows(tables):
        print(row)


def table_rows(tables: Tables, samples: int = 300) -> list[str]:
    """A Markdown row for each table a new user needs, on any cache state (missing, partial, unreadable)."""
    rows = []
    for name, throws in (("secret", "sticks"), ("secret", "d6"), ("houses", "sticks")):
        game = new_game(name, options={"throws": throws} if name == "secret" else {})
        if not table_path(name, throws_of(game), tables.folder).exists():
            rows.append(f"| {name} ({throws}) | not built | | | | | |")
            continue
        try:  # a table left unreadable, or built for fewer pieces, is reported, not a crash
            table = tables.for_game(game, 3)
        except SenetError as exc:
            rows.append(f"| {name} ({throws}) | unreadable: {exc} | | | | | |")
            continue
        if table is None:  # the file exists: it failed a check
            rows.append(f"| {name} ({throws}) | unreadable: {tables.refused.get((name, throws))} | | | | | |")
            continue
        h = table.header
        sweeps = dict(((a, b), n) for a, b, n in h["sweeps"]).get((3, 3), "-")
        check = bellman_check(name, throws, tables, samples, table.max_pieces)
        size = table.path.stat().st_size / 1e6
        partial = "" if table.max_pieces >= 3 else f" (only {table.max_pieces} a side)"
        rows.append(
            f"| {name} ({throws}) | {table.layout.size:,}{partial} | {size:.1f} MB | {h['seconds']} s | {sweeps} | "
            f"{h['residual']:.1e} | {check:.1e} |"
        )
    return rows


if __name__ == "__main__":
    main()
