"""How much of a checkpointed journal a recovery keeps when pages of its main file are lost.

Run by hand: `python benchmarks/bench_journal_pages.py [--damages 100] [--seed 1]`. Builds the
suite's journal of 24 games of 40 inputs (tests/test_journal_pages.py), then, N times with a seeded
random choice: 1-6 random pages zeroed or filled with noise, or the file cut at a random page; each
recovered with `recover`, and compared with what the damage left intact (each surviving game's
inputs up to the first one on a lost page). Prints how many damages kept exactly that, and the
inputs kept against the inputs journaled and the inputs intact. `--without-pages`: the same
through SQLite alone (no page read directly), for comparison.
"""

from __future__ import annotations

import argparse
import collections
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--damages", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--without-pages", action="store_true", help="through SQLite alone, for comparison")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' package
    from senet_pi.service.journal import recover, salvage
    from tests import test_journal_pages as pages

    if args.without_pages:  # the leaf pages never read
        salvage._gather_loose = lambda source, scratch, meta_too: scratch.commit({}, {"loose": "done"})

    rng = random.Random(args.seed)
    tally: collections.Counter[str] = collections.Counter()
    journaled = intact = kept_total = 0
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        made = pages.build(folder / "j.sqlite")
        where = pages.pages_of(folder / "j.sqlite")
        count = (folder / "j.sqlite").stat().st_size // pages.PAGE
        start = time.monotonic()
        for i in range(args.damages):
            how = rng.choice(["zero", "noise", "cut"])
            if how == "cut":
                at = rng.randrange(1, count)
                lost = set(range(at + 1, count + 1))
                copy = folder / f"cut-{i}.sqlite"
                copy.write_bytes((folder / "j.sqlite").read_bytes()[: at * pages.PAGE])
            else:
                lost = {rng.randrange(1, count + 1) for _ in range(rng.randrange(1, 7))}
                copy = pages.damaged_copy(folder / "j.sqlite", folder, lost, how, i)
            expected = pages.expected_after(made, where, lost)
            out = folder / f"out-{i}.sqlite"
            try:
                recover(copy, out)
                kept = pages.kept_inputs(out)
            except sqlite3.DatabaseError:
                kept = {}
            journaled += sum(len(v) for v in made.values())
            intact += sum(len(v) for v in expected.values())
            kept_total += sum(len(v) for v in kept.values())
            tally[f"{how}: " + ("kept all that was intact" if kept == expected else "kept less than was intact")] += 1
            copy.unlink()
            out.unlink(missing_ok=True)
        for outcome, n in sorted(tally.items()):
            print(f"{n:>5}  {outcome}")
        print(
            f"{args.damages} damages in {time.monotonic() - start:.0f} s: inputs kept {kept_total} "
            f"of {intact} intact ({journaled} journaled)"
        )


if __name__ == "__main__":
    main()
