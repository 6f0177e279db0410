"""What knowing about a lost `-wal` costs per write: the `-mark` side file against the alternatives.

Run by hand: `python benchmarks/bench_journal_safety.py [--writes 400] [--folder DIR]`. Each input
the service journals is one write (then one for its verdicts); this times a write four ways in
the folder given (put it on the SD card to measure one): as shipped (commit with synchronous=FULL,
the row's checksum set in the same transaction, then the small `-mark` file replaced, no fsync);
without the checksum; without the mark (what a lost -wal went unnoticed with); and with a
checkpoint after each write instead (the -wal folded into the main file every time, so a lost
-wal loses nothing, at the cost of writing every page twice with two more fsyncs).

`--damage N [--seed S]`: instead, N seeded random damages of a killed journal (the `-wal` cut,
deleted or a bit flipped; the main file cut or a bit flipped), each checked as the suite's property
test checks it (tests/test_journal_damage.py: what is intact kept, the loss counted and said), and a
tally of how each came out.
"""

from __future__ import annotations

import argparse
import collections
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from senet_pi.service.journal import Journal


def median_ms(folder: Path, name: str, writes: int) -> float:
    journal = Journal(folder / f"{name}.sqlite")
    if name == "no-mark":
        journal._write_mark = lambda: None  # type: ignore[method-assign]
    if name == "no-checksum":  # each write without the statement that sets its rows' checksum
        submit = journal._submit
        journal._submit = lambda unit: submit([s for s in unit if " SET sum = " not in s[0]])
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


def damages(n: int, seed: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' package
    from tests import test_journal_damage as damage

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        killed = damage.make_killed(Path(folder))
        print(
            f"journaled inputs: {len(damage.rows(killed))}, in the main file alone: {len(damage.rows(killed, False))}"
        )
        tally: collections.Counter = collections.Counter()
        start = time.monotonic()
        for _ in range(n):
            target = rng.choice(["wal", "main"])
            how = rng.choice(["cut", "flip", "delete"] if target == "wal" else ["cut", "flip"])
            aside, _kept, lost = damage.check(killed, target, how, rng.random(), rng.randrange(8))
            tally[
                f"{target} {how}: "
                + ("set aside, recovered" if aside else "no damage seen")
                + (", lost counted" if lost else "")
            ] += 1
        for outcome, count in sorted(tally.items()):
            print(f"{count:>5}  {outcome}")
        print(f"{n} damages checked in {time.monotonic() - start:.0f} s, none failed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=400)
    parser.add_argument("--folder", type=Path, help="where to write (default: a temporary folder)")
    parser.add_argument("--damage", type=int, metavar="N", help="check N random damages instead")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.damage:
        return damages(args.damage, args.seed)
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        for name in ("as shipped (mark)", "no-checksum", "no-mark", "checkpoint"):
            key = name.split()[0] if name != "as shipped (mark)" else "mark"
            print(f"{name:<20} median {median_ms(Path(folder), key, args.writes):.3f} ms per write")


if __name__ == "__main__":
    main()
