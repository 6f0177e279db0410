"""npm packages the tests run (MicroPython's WebAssembly port, axe-core), installed once under .ci/node.
Installs take a lock first: with pytest-xdist two workers may both find a fresh clone's .ci/node
empty, and two `npm install`s into one folder at once can leave it broken."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / ".ci" / "node"


def npm_install(package: str, marker: Path, needed_for: str) -> None:
    """`npm install package` under .ci/node unless `marker` (a file it installs) is there already."""
    if marker.exists():
        return
    NODE.mkdir(parents=True, exist_ok=True)
    with open(NODE / ".install-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be installing: wait, then look again
        if marker.exists():
            return
        npm = shutil.which("npm")
        assert npm, f"{needed_for} need Debian's nodejs and npm (apt-get install nodejs npm)"
        subprocess.run([npm, "install", "--silent", "--prefix", str(NODE), package], check=True)
