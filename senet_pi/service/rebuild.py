"""Rebuilding a refused endgame table while the board plays on: `senet-pi solve` for that one table,
in a process of its own at the lowest CPU priority, so the page and the computer's seat keep theirs."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

#: The nice value of the rebuild (19: it runs only on time nothing else wants).
NICE = 19


def rebuild_in_background(ruleset: str, throws: str, pieces: int, folder: Path) -> subprocess.Popen[bytes]:
    """Start `senet-pi solve RULESET --throws THROWS` into `folder` at low priority; the caller polls it."""
    command = [sys.executable, "-m", "senet_pi", "solve", ruleset, "--throws", throws, "--pieces", str(pieces)]
    command += ["--tables", str(folder)]
    process = subprocess.Popen(  # our own command, no shell
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    with contextlib.suppress(OSError):  # it ended already, or the system will not lower it: it still builds
        os.setpriority(os.PRIO_PROCESS, process.pid, NICE)
    return process
