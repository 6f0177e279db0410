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


def _bench_rules(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    script = str(ROOT / "benchmarks" / "bench_rules.py")
    return subprocess.run(
        [sys.executable, script, *args], capture_output=True, text=True, timeout=600, check=False, env=env
    )


def test_the_side_by_side_with_a_cpp_core_takes_the_ratio_within_each_round(tmp_path):
    """A stand-in for the C++ binary (a script printing its line) is read, run in alternating rounds,
    and each round's ratio is printed beside the figures it came from."""
    fake = tmp_path / "core"
    fake.write_text('#!/bin/sh\necho "$1 games, $(($1 * 184)) plies, 0.5 s, 100.0 games/s, 1000000.0 plies/s"\n')
    fake.chmod(0o755)
    result = _bench_rules("--cpp", str(fake), "--quick", "--rounds", "3")
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) == 3
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        cpp, py, ratio = (float(c.replace(",", "")) for c in cells[1:4])
        assert cpp == 1_000_000.0
        assert abs(ratio - py / cpp) < 0.001
        assert cells[4] == "184"
    assert "ratio within rounds: median" in result.stdout


@pytest.mark.parametrize("line", ["", "nothing like the expected line"])
def test_a_cpp_core_that_prints_something_else_is_refused_in_one_line(tmp_path, line):
    fake = tmp_path / "core"
    fake.write_text(f'#!/bin/sh\necho "{line}"\n')
    fake.chmod(0o755)
    result = _bench_rules("--cpp", str(fake), "--quick", "--rounds", "1")
    assert result.returncode != 0
    assert "expected 'N games, P plies" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_cpp_core_is_refused_in_one_line(tmp_path):
    result = _bench_rules("--cpp", str(tmp_path / "nowhere"), "--quick", "--rounds", "1")
    assert result.returncode != 0
    assert "cannot run it" in result.stderr
    assert "Traceback" not in result.stderr
