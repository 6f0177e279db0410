"""The code stays `ruff` and `mypy` clean (the project's lint and type settings are in pyproject.toml)."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    result = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing():
    """mypy, strict on the rules and the referee: the files and flags are pyproject.toml's [tool.mypy]."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_examples_replay_cleanly():
    from senet_pi.service.replay import read_replay_file, run_replay

    for path in sorted((ROOT / "examples").glob("*.json")):
        verdicts = list(run_replay(read_replay_file(path)))
        assert verdicts, path
        if path.name.startswith("physical-"):  # whole games played by hand through switch events only
            kinds = [v["v"] for v in verdicts]
            assert "win" in kinds and "illegal" not in kinds and "prompt" in kinds, path
