"""Referee speed: time from the last switch change to its verdict (the settle time left out), and
what the journal costs per input. Run by hand: `python benchmarks/bench_referee.py` (`--quick`).

Scripted physical games (random moves done by hand) are fed to a referee; for every judgement
that produced a verdict, the time of that `tick` call is taken. The journal figure is one input
written durably (WAL, synchronous=FULL) plus its verdicts, on this machine's disk.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
import time
from pathlib import Path

from senet_pi.events import timed_inputs
from senet_pi.referee import Referee
from senet_pi.referee.hands import scripted_game
from senet_pi.rules import new_game
from senet_pi.service.journal import Journal
from senet_pi.verdicts import Moved, Turn, Verdict


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def verdict_latencies(variant: str, players: int, games: int) -> tuple[list[float], list[float], list[float]]:
    """Seconds spent in each judgement that gave a verdict (wall clock, and this thread's CPU time,
    which a machine busy with other work does not inflate), and in taking each throw (which works
    out the boards the legal moves would leave)."""
    out: list[float] = []
    cpu: list[float] = []
    throws: list[float] = []
    for seed in range(games):
        script = scripted_game(variant, seed, players)
        options = script.get("options")  # the card game's deck order is part of the script
        referee = Referee(new_game(variant, players=players, options=options if isinstance(options, dict) else None))
        for ms, kind, value in timed_inputs(script["events"]):
            start, start_cpu = time.perf_counter(), time.thread_time()
            verdicts = referee.apply(kind, value, ms / 1000)
            spent, spent_cpu = time.perf_counter() - start, time.thread_time() - start_cpu
            if kind == "tick" and verdicts:
                out.append(spent)
                cpu.append(spent_cpu)
            elif kind == "throw":
                throws.append(spent)
    return out, cpu, throws


def journal_costs(inputs: int) -> list[float]:
    """Seconds to write one input and its verdicts durably."""
    out: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        journal = Journal(Path(folder) / "journal.sqlite")
        game = journal.start_game("secret", 2, {})
        verdict: list[Verdict] = [Moved("B", 10, 13, 3), Turn("A")]
        for seq in range(inputs):
            start = time.perf_counter()
            journal.record_event(game, seq, seq * 100, "lift" if seq % 2 else "place", 10)
            journal.record_verdicts(game, seq, verdict if seq % 4 == 0 else [])
            out.append(time.perf_counter() - start)
        journal.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few games only, to check the script runs")
    args = parser.parse_args()
    games = 2 if args.quick else 12
    print(f"Python {platform.python_version()} on {platform.machine()}, one process\n")
    print("| rule set | verdicts timed | median | p99 | p99, CPU time | max | a throw taken, p99 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for variant, players in (("secret", 2), ("houses", 2), ("cards", 2), ("modern", 2), ("modern", 3), ("modern", 4)):
        times, cpu, throws = verdict_latencies(variant, players, games)
        name = variant if players == 2 else f"{variant} ({players} players)"
        throw_cell = f"{percentile(throws, 99) * 1e3:.2f} ms" if throws else "(cards: none)"
        print(
            f"| {name} | {len(times)} | {statistics.median(times) * 1e3:.3f} ms "
            f"| {percentile(times, 99) * 1e3:.3f} ms | {percentile(cpu, 99) * 1e3:.3f} ms "
            f"| {max(times) * 1e3:.3f} ms | {throw_cell} |"
        )
    costs = journal_costs(50 if args.quick else 500)
    print(
        f"\njournal, one input with its verdicts (fsync each): median {statistics.median(costs) * 1e3:.2f} ms, "
        f"p99 {percentile(costs, 99) * 1e3:.2f} ms over {len(costs)} inputs"
    )


if __name__ == "__main__":
    main()
