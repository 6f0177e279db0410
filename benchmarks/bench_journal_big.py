"""How a damaged journal of many games is recovered, and how long a big journal takes to open.

Run by hand: `python benchmarks/bench_journal_big.py --games 2000 [--folder DIR] [--open]`. Builds a
journal of N games in bulk (each the inputs and verdicts of a whole scripted `secret` game, about
30 kB a game as a museum's journal grows), zeroes one page of its events table in the middle of the
file (a damaged page), and times `recover` in a child process, with its peak memory (ru_maxrss),
and splits its wall time (/proc/self/schedstat) into CPU, waiting for a core (the machine's load)
and the rest (blocked on the disk or an fsync), with what it wrote; the load average before and after.
`--open`: instead, times opening the undamaged journal as `senet-pi run` does (`Journal` and the
`Service` resuming its last game), in a child process too. `--pi MAJ:MIN`: the child runs on a
Raspberry Pi 4 stand-in, cgroup v1 limits (root): a third of a core (cpu.cfs_quota_us 33000 of
100000), 1,500 read operations and 40 MB/s on the journal's block device MAJ:MIN, 900 MB of memory;
and the journal's pages are dropped from the page cache first (posix_fadvise DONTNEED), so it is
read from the disk. A stand-in, not a Pi: its figures are estimates.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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
def sched():  # the CPU time and the time spent runnable but waiting for a core (the machine's load)
    cpu, queued = open("/proc/self/schedstat").read().split()[:2]
    return int(cpu) / 1e9, int(queued) / 1e9
def wrote():
    return int(dict(l.split(": ") for l in open("/proc/self/io").read().splitlines())["wchar"]) / 1e6
t = time.perf_counter(); c, q = sched(); w = wrote()
r = recover(sys.argv[1], sys.argv[2])
u = resource.getrusage(resource.RUSAGE_SELF)
wall = time.perf_counter() - t; c, q = (a - b for a, b in zip(sched(), (c, q)))
print(f"{wall:.1f} {c:.1f} {u.ru_maxrss / 1024:.0f} {r.said()}")
print(f"wall {wall:.1f} s = CPU {c:.1f} s + waiting for a core {q:.1f} s + blocked (disk, fsync) {wall - c - q:.1f} s;"
      f" written {wrote() - w:.0f} MB")
"""
CHILD_OPEN = """
import sys, time, resource
t = time.perf_counter()
from senet_pi.service.journal import Journal
from senet_pi.service.core import Service
j = Journal(sys.argv[1], background=True); s = Service(j)
u = resource.getrusage(resource.RUSAGE_SELF)
print(f"{time.perf_counter() - t:.1f} {u.ru_utime + u.ru_stime:.1f} {u.ru_maxrss / 1024:.0f} game {s.game_id}")
j.close()
"""


STANDIN = "senet-pi-standin"


def pi_standin(device: str) -> Callable[[], None]:
    """Make the stand-in's cgroups; returns what a child runs to join them (see the module's doc)."""
    limits = {
        "cpu": {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "33000"},
        "blkio": {
            "blkio.throttle.read_iops_device": f"{device} 1500",
            "blkio.throttle.read_bps_device": f"{device} {40 * 1000 * 1000}",
            "blkio.throttle.write_bps_device": f"{device} {40 * 1000 * 1000}",
        },
        "memory": {"memory.limit_in_bytes": str(900 * 1024 * 1024)},
    }
    for controller, values in limits.items():
        folder = Path("/sys/fs/cgroup") / controller / STANDIN
        folder.mkdir(exist_ok=True)
        for name, value in values.items():
            (folder / name).write_text(value)

    def join() -> None:
        for controller in limits:
            (Path("/sys/fs/cgroup") / controller / STANDIN / "tasks").write_text(str(os.getpid()))

    return join


def uncache(path: Path) -> None:
    """Drop a file's pages (and its -wal's) from the page cache, so the next read is from the disk."""
    for name in (path, Path(f"{path}-wal")):
        if name.exists():
            fd = os.open(name, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--folder", type=Path, default=None)
    parser.add_argument("--open", action="store_true", help="time a start on the undamaged journal instead")
    parser.add_argument("--keep", action="store_true", help="reuse a journal already built in --folder")
    parser.add_argument("--pi", metavar="MAJ:MIN", help="run the child on the Pi stand-in (cgroup v1 limits)")
    args = parser.parse_args()
    join = pi_standin(args.pi) if args.pi else None
    with tempfile.TemporaryDirectory(dir=args.folder) as name:
        folder = args.folder if args.keep and args.folder else Path(name)
        path = folder / f"big-{args.games}.sqlite"
        if not (args.keep and path.exists()):
            print(f"built {args.games} games in {build(path, args.games):.0f} s: {path.stat().st_size / 1e6:.0f} MB")
        uncache(path)
        if args.open:
            argv = [sys.executable, "-c", CHILD_OPEN, str(path)]
            print(f"load: {os.getloadavg()[0]:.1f}")
            out = subprocess.run(argv, capture_output=True, text=True, preexec_fn=join)
            print("open (wall s, CPU s, peak MB, resumed):", out.stdout.strip() or out.stderr[-2000:])
            print(f"load: {os.getloadavg()[0]:.1f}")
            return
        print(f"zeroed page {damage(path)}")
        dest = folder / "recovered.sqlite"
        dest.unlink(missing_ok=True)
        uncache(path)
        argv = [sys.executable, "-c", CHILD_RECOVER, str(path), str(dest)]
        print(f"load: {os.getloadavg()[0]:.1f}")
        out = subprocess.run(argv, capture_output=True, text=True, preexec_fn=join)
        print("recover (wall s, CPU s, peak MB, said):", out.stdout.strip() or out.stderr[-2000:])
        print(f"load: {os.getloadavg()[0]:.1f}")
        print(f"children's peak {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
