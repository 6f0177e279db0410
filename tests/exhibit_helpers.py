"""The exhibit's files for the tests: where they are, a unit's settings, and `systemd-analyze verify`
on a copy whose executables exist here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXHIBIT = ROOT / "exhibit"
SENET_PI = Path(sys.executable).with_name("senet-pi")  # the venv's console script, as pip writes it


def unit(name: str) -> dict[str, list[str]]:
    """A unit file's settings, every value of each key in order (comments and sections dropped)."""
    settings: dict[str, list[str]] = {}
    for line in (EXHIBIT / name).read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            settings.setdefault(key, []).append(value)
    return settings


def verify(tmp_path: Path, name: str, rewrite: dict[str, str]) -> subprocess.CompletedProcess:
    """`systemd-analyze verify` on a copy of the unit whose executables point at ones that exist here.

    verify refuses an ExecStart that is not executable, and there is no /opt/senet-pi here: the
    copy runs this venv's `senet-pi` (the same console script the installed venv has), and for the
    kiosk xinit (a Debian package, not ours) the real one if installed, else a stand-in script.
    Everything else (every directive, its value, the sandboxing, the dependencies) is checked as is."""
    text = (EXHIBIT / name).read_text()
    for old, new in rewrite.items():
        assert old in text, f"{name} no longer runs {old}"
        text = text.replace(old, new)
    copy = tmp_path / name
    copy.write_text(text)
    return subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
