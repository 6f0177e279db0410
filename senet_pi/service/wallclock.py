"""Whether the wall clock can be trusted for a date, and which boot a monotonic time belongs to.

A Raspberry Pi has no real-time clock: it boots with the time it last saved (or 1970) and is set
when the network answers. systemd-timesyncd (Raspberry Pi OS's clock keeper) says so in /run: its
folder exists while it runs, and `synchronized` in it once the clock has been set since boot. The
monotonic clock counts from this boot (`/proc/sys/kernel/random/boot_id` names the boot). A date
written before the clock was set can be put right later from the same boot's monotonic time and
one trusted reading. Not the kernel's own `adjtimex`: the service's unit filters system
calls (@system-service, ProtectClock=yes) and that one is not allowed, even to read.
"""

from __future__ import annotations

from pathlib import Path

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
TIMESYNC = Path("/run/systemd/timesync")


def boot_id(path: Path = BOOT_ID) -> str | None:
    """This boot's id (monotonic times of the same boot compare), or None where there is none."""
    try:
        said = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return said or None


def clock_synced(timesync: Path = TIMESYNC) -> bool | None:
    """True once the clock has been set since boot, False while timesyncd waits for the network,
    None where it cannot be told (no timesyncd: another clock keeper, not Linux): the dates are
    then taken as they are."""
    try:
        if (timesync / "synchronized").exists():
            return True
        return False if timesync.is_dir() else None
    except OSError:
        return None
