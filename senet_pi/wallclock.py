"""Whether the wall clock can be trusted for a date, and which boot a monotonic time belongs to.

A Raspberry Pi has no real-time clock: it boots with the time it last saved (or 1970) and is set
when the network answers. The kernel knows whether the clock has been synchronised (NTP,
systemd-timesyncd: `adjtimex` answers TIME_ERROR until then), and the monotonic clock counts from
this boot (`/proc/sys/kernel/random/boot_id` names the boot). A date written before the clock was
set can be put right later from the same boot's monotonic time and one trusted reading (issue 22).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache
from pathlib import Path

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
TIME_ERROR = 5  # adjtimex's answer while the clock is not synchronised


def boot_id(path: Path = BOOT_ID) -> str | None:
    """This boot's id (monotonic times of the same boot compare), or None where there is none."""
    try:
        said = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return said or None


@cache
def _adjtimex() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.adjtimex
    except (OSError, AttributeError):
        return None


def clock_synced() -> bool | None:
    """True once the kernel's clock is synchronised, False before, None where it cannot be told (not
    Linux): the dates are then taken as they are, as before."""
    call = _adjtimex()
    if call is None:
        return None
    timex = ctypes.create_string_buffer(512)  # struct timex (about 208 bytes) with modes = 0: only read
    state = call(timex)
    if state < 0:
        return None
    return state != TIME_ERROR
