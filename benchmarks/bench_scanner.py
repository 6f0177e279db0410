"""Scanner cost: the share of one core the scanning thread takes at the chosen scan rate.

Run by hand: `python benchmarks/bench_scanner.py [--seconds 10]`. It scans the simulated
board (gpiozero's MockFactory, the mock pins wired like the diode matrix) in the real
background thread and measures the thread's CPU time against the wall clock. On a Pi the
pins are read through lgpio instead of mock pins; the figure here is the Python side.
"""

from __future__ import annotations

import argparse
import platform
import time

from gpiozero.pins.mock import MockFactory

from senet_pi.hardware.board import SCAN_RATE, ReedSwitchBoard
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.hardware.sim import SimBoard
from senet_pi.rules import new_game


def thread_cpu_share(rate: float, seconds: float) -> tuple[float, float]:
    """(share of a core, milliseconds per scan) for the scanning thread at `rate` scans a second."""
    pinmap = load_pinmap()
    sim = SimBoard(pinmap, MockFactory(), new_game("secret").occupied())
    board = ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=sim.factory, scan_rate=rate)
    start_cpu = time.process_time()
    start = time.perf_counter()
    board.start()
    time.sleep(seconds)
    board.close()
    cpu = time.process_time() - start_cpu  # the main thread sleeps: this is the scanner's time
    wall = time.perf_counter() - start
    scans = board._scans
    return cpu / wall, cpu / max(scans, 1) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, MockFactory pins, {args.seconds:g} s each\n")
    print("| scans per second | share of one core | CPU per scan |")
    print("|---:|---:|---:|")
    for rate in (SCAN_RATE, 100.0, 200.0):
        share, per_scan = thread_cpu_share(rate, args.seconds)
        mark = " (chosen)" if rate == SCAN_RATE else ""
        print(f"| {rate:g}{mark} | {share * 100:.1f} % | {per_scan:.3f} ms |")


if __name__ == "__main__":
    main()
