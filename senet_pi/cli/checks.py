"""One line of `senet-pi status` (a name, whether it is fine, what was found), and the unit it asks about."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

UNIT = "senet-pi.service"
#: The exhibit's screen: Chromium full-screen on the page (exhibit/install.sh --kiosk).
KIOSK_UNIT = "senet-pi-kiosk.service"
#: How a check runs systemctl (the tests give a stand-in).
Run = Callable[..., subprocess.CompletedProcess[str]]


@dataclass(frozen=True)
class Check:
    """One line of the report: `ok` True (fine), False (a problem) or None (for information)."""

    name: str
    ok: bool | None
    text: str

    def line(self) -> str:
        mark = {True: "ok", False: "FAIL", None: "--"}[self.ok]
        return f"{self.name:<10}{mark:<6}{self.text}"


def systemd_runs() -> bool:
    """Whether systemd runs this machine and systemctl is here to ask it (as sd_booted(3) finds out)."""
    return Path("/run/systemd/system").is_dir() and shutil.which("systemctl") is not None


def unit_properties(unit: str, run: Run = subprocess.run) -> dict[str, str] | str:
    """The unit's LoadState, ActiveState, SubState and Result as systemctl shows them, or why
    systemctl did not answer."""
    try:
        argv = ["systemctl", "show", "--property=LoadState,ActiveState,SubState,Result", unit]
        result = run(argv, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"systemctl did not answer: {exc}"
    return dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
