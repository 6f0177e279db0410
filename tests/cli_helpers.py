"""Running the installed `senet-pi` command as a person types it, and what its errors must look like."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

SENET_PI = shutil.which("senet-pi", path=str(Path(sys.executable).parent)) or "senet-pi"


def senet_pi(*args: str, cwd: Path, stdin: str = "", timeout: float = 60) -> subprocess.CompletedProcess:
    """The installed console script, as a person types it, with its own journal's folder."""
    env = {**os.environ, "XDG_STATE_HOME": str(cwd / "state")}
    env.pop("SENET_PI_JOURNAL", None)
    env.pop("SENET_PI_DEBUG", None)
    return subprocess.run(
        [SENET_PI, *args], input=stdin, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env, check=False
    )


def assert_one_line(result: subprocess.CompletedProcess, status: int, *words: str) -> str:
    """Exit `status`, one line on standard error with `words` in it, no traceback."""
    err = result.stderr
    assert result.returncode == status, (result.returncode, err)
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err + result.stdout
    assert "internal error" not in err
    for word in words:
        assert word in err
    return err


def start_board(
    journal: Path, port: int, env: dict[str, str], stderr: int | None = subprocess.PIPE
) -> subprocess.Popen:
    """`senet-pi run` on the simulated board with its page on `port`, commands on its standard input,
    once it serves its page and has judged B's first move, 10 -> 11 (a throw of 1)."""
    run = [sys.executable, "-m", "senet_pi", "run", "--backend", "sim", "--journal", str(journal)]
    board = subprocess.Popen(
        [*run, "--page-port", str(port)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )
    assert board.stdin is not None
    assert board.stdout is not None
    while "the page:" not in (line := board.stdout.readline()):
        assert line, "senet-pi run stopped before serving its page"
    board.stdin.write("throw 1\nlift 10\nplace 11\n")
    board.stdin.flush()
    while "B moves 10 -> 11" not in (line := board.stdout.readline()):
        assert line, "senet-pi run stopped before judging the move"
    return board
