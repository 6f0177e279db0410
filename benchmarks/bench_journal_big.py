"""How a damaged journal of many games is recovered, and how long a big journal takes to open.

Run by hand: `python benchmarks/bench_journal_big.py --games 2000 [--folder DIR] [--open]`. Builds a
journal of N games in bulk (each the inputs and verdicts of a whole scripted `secret` game, about
30 kB a game as a museum's journal grows), zeroes one page of its events table in the middle of the
file (a damaged page), and times `recover` in a child process, with its peak memory (ru_maxrss).
`--open`: instead, times opening the undamaged journal as `senet-pi run` does (`Journal` and the
`Service` resuming its last game), in a child process too. Prefix with a CPU and I/O limit (e.g.
`systemd-run --scope -p CPUQuota=33% ...`) for a Raspberry Pi stand-in.
"""

from __future__ import annotations

import argparse
import json
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from senet_pi.events import timed_inputs
from senet_pi.referee.hands import scripted_game
from senet_pi.service.journal import Journal
from senet_pi.service.journal.schema import rowsum
from senet_pi.service.replay import parse_replay, run_replay

PAGE = 4096
INPUTS, VERDICTS = 200, 200  # of a whole game's 554 and 657: about 30 kB a game, as the year (1.1 GB)


def one_game() -> tuple[list[tuple[int, str, str]], list[str]]:
    script = scripted_game("secret", 1)
    inputs = [(ms, kind, json.dumps(value)) for ms, kind, value in timed_inputs(script["events"], spacing_ms=1)]
    inputs = [i for i in inputs if i[1] != "tick"][:INPUTS]
    replay = parse_replay(json.dumps({"variant": "secret", "options": script["options"], "events": script["events"]}))
    return inputs, [json.dumps(v) for v in run_replay(replay)][:VERDICTS]


def build(path: Path, games: int) -> float:
    """A journal of `games` games, rows with their checksums; the seconds it took (bulk, not the service's way)."""
    start = time.perf_counter()
    Journal(path).close()
    inputs, verdicts = one_game()
    db = sqlite3.connect(path)
    db.execute("PRAGMA synchronous=OFF")
    first = time.time() - games * 900.0
    with db:
        for game in range(1, games + 1):
            started = first + game * 900.0
            ended, winner = (None, None) if game == games else (started + 600.0, "A")
            row = (game, "secret", 2, "{}", None, started, ended, winner)
            db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row, rowsum(*row)))
            events = [(game, seq, ms, kind, value) for seq, (ms, kind, value) in enumerate(inputs)]
            db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", [(*e, rowsum(*e)) for e in events])
            said = [(game, seq, min(seq, len(inputs) - 1), v) for seq, v in enumerate(verdicts)]
            db.executemany("INSERT INTO verdicts VALUES (?, ?, ?, ?, ?)", [(*v, rowsum(*v)) for v in said])
        db.execute("UPDATE meta SET value = value + ? WHERE key = 'writes'", (games,))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return time.perf_counter() - start


def damage(path: Path) -> int:
    """Zero a leaf page of the events table half way through the file; returns its number."""
    with open(path, "r+b") as f:
        pages = path.stat().st_size // PAGE
        for page in range(pages // 2, pages):
            f.seek((page - 1) * PAGE)
            head = f.read(PAGE)
            if head[0] == 0x0D and (b"move" in head or b"throw" in head):
                f.seek((page - 1) * PAGE)
                f.write(bytes(PAGE))
                return page
    raise SystemExit("no events page found")


CHILD_RECOVER = """
import sys, time, resource
from senet_pi.service.journal import recover
t = time.perf_counter(); r = recover(sys.argv[1], sys.argv[2])
print(f"{time.perf_counter() - t:.1f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} {r.said()}")
"""
CHILD_OPEN = """
import sys, time, resource
t = time.perf_counter()
from senet_pi.service.journal import Journal
from senet_pi.service.core import Service
j = Journal(sys.argv[1], background=True); s = Service(j)
print(f"{time.perf_counter() - t:.1f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} game {s.game_id}")
j.close()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--folder", type=Path, default=None)
    parser.add_argument("--open", action="store_true", help="time a start on the undamaged journal instead")
    parser.add_argument("--keep", action="store_true", help="reuse a journal already built in --folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.folder) as name:
        folder = args.folder if args.keep and args.folder else Path(name)
        path = folder / f"big-{args.games}.sqlite"
        if not (args.keep and path.exists()):
            print(f"built {args.games} games in {build(path, args.games):.0f} s: {path.stat().st_size / 1e6:.0f} MB")
        if args.open:
            out = subprocess.run([sys.executable, "-c", CHILD_OPEN, str(path)], capture_output=True, text=True)
            print("open (s, peak MB, resumed):", out.stdout.strip() or out.stderr[-2000:])
            return
        print(f"zeroed page {damage(path)}")
        dest = folder / "recovered.sqlite"
        dest.unlink(missing_ok=True)
        out = subprocess.run([sys.executable, "-c", CHILD_RECOVER, str(path), str(dest)], capture_output=True, text=True)
        print("recover (s, peak MB, said):", out.stdout.strip() or out.stderr[-2000:])
        print(f"children's peak {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
