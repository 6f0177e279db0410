"""How long the staff statistics take on a journal of months of games.

Run by hand: `python benchmarks/bench_stats.py [--games 20000] [--per-day 100] [--folder DIR]`.
It builds a journal of `--games` games, each with the verdicts of a real scripted `secret` game
(657 verdicts, the moves, prompts and turns of a whole game by hand), every third game with two
warnings and every fiftieth with a switch fault, `--per-day` games a day; then times
`day_stats` (what `/staff`, `/api/stats` and `senet-pi stats` run): the first reading in a process,
later ones (which count only the verdicts added since), and, for comparison, the same
counts made in Python through `Journal.games()` and `Journal.verdicts()` on the first 500 games.
The inputs (`events`) are left out: the statistics never read them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from senet_pi.referee.hands import scripted_game
from senet_pi.service.journal import Journal
from senet_pi.service.replay import parse_replay, run_replay
from senet_pi.service.stats import day_stats
from senet_pi.verdicts import parse_verdict

WARNING = {"v": "illegal", "reason": "a move is still owed (P2)", "ruling": "P2", "player": "A"}
FAULT = {"v": "switch", "square": 20, "fault": "stuck closed", "text": "the switch under 20 seems stuck closed"}


def one_game_verdicts() -> list[str]:
    script = scripted_game("secret", 1)
    replay = parse_replay(json.dumps({"variant": "secret", "options": script["options"], "events": script["events"]}))
    return [json.dumps(v) for v in run_replay(replay)]


def build(path: Path, games: int, per_day: int) -> float:
    """A journal of `games` games; returns the seconds it took (one bulk transaction, not the service's way)."""
    start = time.perf_counter()
    Journal(path).close()  # the schema, as the service makes it
    verdicts = one_game_verdicts()
    db = __import__("sqlite3").connect(path)
    db.execute("PRAGMA synchronous=OFF")
    first = time.time() - games / per_day * 86400
    with db:
        for game in range(1, games + 1):
            started = first + (game // per_day) * 86400 + (game % per_day) * 300
            won = game % 4 != 0
            ended = None if game == games else started + 900 + game % 600
            db.execute(
                "INSERT INTO games (id, variant, players, options, position, started, ended, winner)"
                " VALUES (?, 'secret', 2, '{}', NULL, ?, ?, ?)",
                (game, started, ended, "A" if won and ended else None),
            )
            rows = list(verdicts)
            if game % 3 == 0:
                rows += [json.dumps(WARNING)] * 2
            if game % 50 == 0:
                rows.append(json.dumps(FAULT))
            db.executemany(
                "INSERT INTO verdicts (game, seq, event, verdict) VALUES (?, ?, ?, ?)",
                [(game, i, i, v) for i, v in enumerate(rows)],
            )
    db.close()
    return time.perf_counter() - start


def in_python(path: Path, games: int) -> float:
    """The same counts through the Journal's reading API, per game; returns the seconds it took."""
    start = time.perf_counter()
    with Journal(path) as journal:
        counts: dict[str, list[int]] = {}
        for record in journal.games()[:games]:
            day = time.strftime("%Y-%m-%d", time.localtime(record.started))
            found = [v.json() for v in journal.verdicts(record.id)]
            row = counts.setdefault(day, [0, 0, 0])
            row[0] += 1
            row[1] += sum(v["v"] == "illegal" for v in found)
            row[2] += sum(v["v"] == "switch" and bool(v.get("fault")) for v in found)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--per-day", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=None, help="where to build the journal (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        path = Path(folder) / "journal.sqlite"
        built = build(path, args.games, args.per_day)
        size = path.stat().st_size / 2**20
        start = time.perf_counter()
        rows = day_stats(path)  # the first reading in a process: every verdict is scanned
        first = time.perf_counter() - start
        later = []
        for _ in range(args.repeat):  # later readings: only verdicts added since are scanned
            start = time.perf_counter()
            day_stats(path)
            later.append(time.perf_counter() - start)
        with Journal(path) as journal:  # one more game while the page is open
            game = journal.start_game("secret", 2, {})
            journal.record_verdicts(game, 0, [parse_verdict(json.loads(v)) for v in one_game_verdicts()])
        start = time.perf_counter()
        day_stats(path)
        one_more = time.perf_counter() - start
        assert sum(r.started for r in rows) == args.games
        days = len(rows)
        sample = min(500, args.games)
        python = in_python(path, sample)
        print(f"journal: {args.games:,} games over {days} days, {size:,.0f} MiB, built in {built:.1f} s\n")
        print("| what | time |")
        print("|---|---:|")
        print(f"| day_stats, first reading in a process (scans every verdict) | {first:.2f} s |")
        print(
            f"| day_stats, a later reading, nothing new (median of {args.repeat}) | {statistics.median(later):.3f} s |"
        )
        print(f"| day_stats, a later reading after one more game | {one_more:.3f} s |")
        print(f"| in Python through Journal.verdicts(), {sample} games | {python:.2f} s |")
        print(f"| the same, scaled to {args.games:,} games | {python / sample * args.games:.0f} s |")


if __name__ == "__main__":
    main()
