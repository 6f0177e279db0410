"""What stands between this process and the Pi's pins besides a missing library: the user's groups
(a group joined since this login is not in effect yet) and lgpio's working folder (lgpio writes its
notification files where it runs, which a service's user may not write)."""

from __future__ import annotations

import grp
import os
import pwd
import tempfile
from pathlib import Path

#: The Pi's GPIO character devices, as the kernel names them (Pi 5: gpiochip4 too).
CHIPS = ("/dev/gpiochip0", "/dev/gpiochip4")


def lgpio_work_dir() -> str | None:
    """Point lgpio at a folder it can write (its LG_WD) when the current one is not writable, before
    lgpio loads (it reads LG_WD once, when it loads); the folder chosen, or None when nothing changed."""
    if os.environ.get("LG_WD"):
        return None
    try:
        if os.access(os.getcwd(), os.W_OK):
            return None
    except OSError:
        pass  # the current folder is gone
    os.environ["LG_WD"] = tempfile.gettempdir()
    return os.environ["LG_WD"]


def pin_access_problem(chips: tuple[str, ...] = CHIPS) -> str | None:
    """Why this user may not open the pins (a cause and a fix, one line), or None when it may or
    when there are no pins to open."""
    chip = next((Path(c) for c in chips if Path(c).exists()), None)
    if chip is None or os.access(chip, os.R_OK | os.W_OK):
        return None
    st = chip.stat()
    if st.st_gid == 0 or st.st_mode & 0o060 != 0o060:  # plain Debian: no group may, so joining one is no fix
        return (
            f"this user may not use the pins: only root may open {chip} on this system (it gives the pins to no "
            "group, as plain Debian does): scripts/install-pi or exhibit/install.sh gives them to the group gpio; "
            "or use sudo"
        )
    try:
        group = grp.getgrgid(st.st_gid)
    except KeyError:
        return f"this user may not open {chip}: run it with sudo"
    user = pwd.getpwuid(os.geteuid()).pw_name
    where = f"{chip} belongs to the group {group.gr_name}"
    if user in group.gr_mem and st.st_gid not in os.getgroups():
        return (
            f"this user may not use the pins yet: {where}, which {user} joined after this login began. Log out and "
            f"in again (or reboot), or run it in the group now: sg {group.gr_name} -c 'senet-pi selftest'"
        )
    return (
        f"this user may not use the pins: {where}. Join it with: sudo adduser {user} {group.gr_name}, then log in again"
    )
