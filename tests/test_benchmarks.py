"""The benchmarks still run (quick mode): their figures are measured by hand, never asserted here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "args",
    [
        ["bench_rules.py", "--quick", "--repeat", "1"],
        ["bench_opponent.py", "--quick"],
        ["bench_scanner.py", "--seconds", "0.2"],
        ["bench_page.py", "--quick"],
        ["bench_stats.py", "--games", "200", "--per-day", "20", "--repeat", "1"],
        ["bench_first_draw.py", "--runs", "1"],
        ["bench_hints.py", "--quick"],
        ["bench_lights.py", "--trials", "1"],
    ],
    ids=["rules", "opponent", "scanner", "page", "stats", "first-draw", "hints", "lights"],
)
def test_benchmark_scripts_run(args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "|---" in result.stdout  # it printed its table
