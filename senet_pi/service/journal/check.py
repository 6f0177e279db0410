"""Checking a journal file whole (SQLite's `PRAGMA quick_check`) without making every start pay for it.

A start checks a journal whole only while it is small (CHECK_AT_START bytes: a few seconds on a Pi);
a larger one is opened at once (its games table and the game to resume are read, so damage there is
still found on the way up) and checked in a thread at the lowest priority. Damage found there, or by
`senet-pi journal check`, is kept in `<journal>-damaged`: the next start sets the journal aside and
recovers it, and until then `status` and the page say so.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from contextlib import suppress
from pathlib import Path

CHECK_AT_START = 64 * 1024 * 1024  # bytes: a journal up to this size is checked whole on every start


def marker_path(journal: Path) -> Path:
    return journal.with_name(journal.name + "-damaged")


def found_damage(journal: Path) -> str | None:
    """The damage a check found and kept in `<journal>-damaged`, or None."""
    try:
        data = json.loads(marker_path(journal).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return "a check found it damaged"
    return str(data.get("why")) if isinstance(data, dict) else "a check found it damaged"


def keep_damage(journal: Path, why: str) -> None:
    """Keep what a check found (fsynced), for the next start to set the journal aside."""
    path = marker_path(journal)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"why": why, "when": time.time()}, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def forget_damage(journal: Path) -> None:
    marker_path(journal).unlink(missing_ok=True)


def quick_check(journal: Path) -> str | None:
    """SQLite's quick_check of the whole file, read-only: None when it is fine, else its first finding."""
    quiet = "" if Path(f"{journal}-wal").exists() else "&immutable=1"
    try:
        db = sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro{quiet}", uri=True, timeout=5.0)
        try:
            check = str(db.execute("PRAGMA quick_check").fetchone()[0])
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    if check == "ok":
        return None
    return next((line for line in check.splitlines() if not line.startswith("***")), check)


def small(journal: Path) -> bool:
    """Whether the journal is small enough to be checked whole on the way up."""
    try:
        return journal.stat().st_size <= CHECK_AT_START
    except OSError:
        return True


def check_in_background(journal: Path, stop: threading.Event) -> threading.Thread:
    """Check the journal whole in a thread at the lowest priority; damage found is kept (`keep_damage`)."""

    def run() -> None:
        with suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        found = quick_check(journal)
        if found is not None and not stop.is_set():
            with suppress(OSError):
                keep_damage(journal, found)

    thread = threading.Thread(target=run, name="senet-pi journal check", daemon=True)
    thread.start()
    return thread


def check_command(journal: Path) -> tuple[bool, str]:
    """`senet-pi journal check`: the whole file checked now, read-only; whether it is fine, and the line."""
    if not journal.is_file():
        return False, f"there is no journal at {journal}"
    found = quick_check(journal)
    if found is None:
        forget_damage(journal)
        return True, f"{journal}: checked whole, not damaged"
    with suppress(OSError):
        keep_damage(journal, found)
    return False, (
        f"{journal} is damaged ({found}): the service sets it aside and recovers what is intact on its next start "
        "(restart it: systemctl restart senet-pi)"
    )
