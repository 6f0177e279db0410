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
