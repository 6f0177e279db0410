"""What knowing about a lost `-wal` costs per write: the `-mark` side file against the alternatives.

Run by hand: `python benchmarks/bench_journal_safety.py [--writes 400] [--folder DIR]`. Each input
the service journals is one write (then one for its verdicts); this times a write three ways in
the folder given (put it on the SD card to measure one): as shipped (commit with synchronous=FULL,
then the small `-mark` file replaced, no fsync); without the mark (what a lost -wal went unnoticed
with); and with a checkpoint after each write instead (the -wal folded into the main file every time,
so a lost -wal loses nothing, at the cost of writing every page twice with two more fsyncs).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from senet_pi.journal import Journal


def median_ms(folder: Path, name: str, writes: int) -> float:
    journal = Journal(folder / f"{name}.sqlite")
    if name == "no-mark":
        journal._write_mark = lambda: None  # type: ignore[method-assign]
    game = journal.start_game("secret", 2, {})
    times = []
    for seq in range(writes):
        start = time.perf_counter()
        journal.record_event(game, seq, seq * 700, "place", 13)
        if name == "checkpoint":
            journal._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        times.append(time.perf_counter() - start)
    journal.close()
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=400)
    parser.add_argument("--folder", type=Path, help="where to write (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        for name in ("as shipped (mark)", "no-mark", "checkpoint"):
            key = name.split()[0] if name != "as shipped (mark)" else "mark"
            print(f"{name:<20} median {median_ms(Path(folder), key, args.writes):.3f} ms per write")


if __name__ == "__main__":
    main()
