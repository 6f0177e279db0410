"""`senet-pi status`'s line for the exhibit's own screen: whether the kiosk shows the live page.

A kiosk whose Chromium runs but shows an error page, or a page that lost its stream, looks alive to
systemd. The page counts the live streams opened from this machine (`GET /api/screens`), so
the line says whether the screen is really following the game. Only where the kiosk is installed.
"""

from __future__ import annotations

import subprocess
from typing import Any

from .checks import KIOSK_UNIT, Check, Run, systemd_runs, unit_properties

RESTART = f"sudo systemctl restart {KIOSK_UNIT.removesuffix('.service')}"


def screen_checks(state: dict[str, Any] | str, run: Run = subprocess.run, booted: bool | None = None) -> list[Check]:
    """The screen's line: none without systemd or without the kiosk; else whether its page is live."""
    if not (systemd_runs() if booted is None else booted):
        return []
    props = unit_properties(KIOSK_UNIT, run)
    if isinstance(props, str):
        return [Check("screen", None, props)]
    if props.get("LoadState") in (None, "not-found"):
        return []
    if props.get("ActiveState") != "active":
        how = f"{props.get('ActiveState', 'unknown')} ({props.get('SubState', '?')})"
        return [Check("screen", False, f"{KIOSK_UNIT} {how}: journalctl -u senet-pi-kiosk -n 50 says why")]
    if isinstance(state, str):
        return [Check("screen", None, f"{KIOSK_UNIT} runs; no page to ask whether it shows the game")]
    screens = state.get("screens")
    if not isinstance(screens, int):
        return [Check("screen", None, f"{KIOSK_UNIT} runs; the page does not say whether it shows the game")]
    if screens > 0:
        return [Check("screen", True, f"the page is live on this machine's screen ({KIOSK_UNIT})")]
    return [
        Check(
            "screen",
            False,
            f"{KIOSK_UNIT} runs but its page is not live (it reconnects by itself within seconds of a"
            f" restart; if this stays, {RESTART})",
        )
    ]
