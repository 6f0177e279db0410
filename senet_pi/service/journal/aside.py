"""The record of journals set aside and not yet recovered: `<journal>-aside`, beside the journal.

A damaged journal is renamed aside and a new one begins at once; its games are copied into the new one
in the background (`recovery.recover_into`). Until that is over, or a person dismisses it (`senet-pi
journal dismiss`), its entry stays in this small JSON file, written durably (a temporary file fsynced,
renamed, the folder fsynced): every start goes on with the recovery, and `status`, the page and the
fleet say that history is out of service. Its rows' ids: the new journal's games begin at `first`, above
every game the damaged file can hold, so the two never meet.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

Entry = dict[str, Any]  # aside (the file's name), why, when, first (the new journal's first game id), mark

ROW_BYTES = 64  # fewer bytes than any games row takes: a file of N bytes holds fewer than N / 64 games


def aside_path(journal: Path) -> Path:
    return journal.with_name(journal.name + "-aside")


def scratch_path(journal: Path, aside: str) -> Path:
    """Where the recovery of `aside` gathers its rows (removed when it is over or dismissed)."""
    return journal.with_name(f"{aside}-scratch")


def pending(journal: Path) -> list[Entry]:
    """The journals set aside beside `journal` whose history is not recovered yet, oldest first."""
    try:
        data = json.loads(aside_path(journal).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        # Unreadable (a damaged card): said as a set-aside journal of its own, never taken as none.
        return [{"aside": aside_path(journal).name, "why": f"its record cannot be read: {exc}", "when": 0, "first": 1}]
    entries = data if isinstance(data, list) else []
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("aside"), str) and "/" not in e["aside"]]


def write(journal: Path, entries: list[Entry]) -> None:
    """Keep `entries` durably (none: the file removed). OSError when the disk refuses."""
    path = aside_path(journal)
    if not entries:
        path.unlink(missing_ok=True)
    else:
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(entries, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def update(journal: Path, aside: str, entry: Entry | None) -> None:
    """Replace (or, with None, remove) the entry of `aside`, keeping the others."""
    entries = [e for e in pending(journal) if e["aside"] != aside]
    write(journal, entries + ([entry] if entry is not None else []))


def first_free_game(aside: Path, mark: dict[str, Any] | None) -> int:
    """An id above every game the damaged file can hold: its games table's largest id when SQLite can
    still read it, its `-mark`'s count of games, else a bound from its size (far above, never below)."""
    found = [int(mark["games"])] if mark and isinstance(mark.get("games"), int) else []
    try:
        db = sqlite3.connect(f"{aside.resolve().as_uri()}?mode=ro", uri=True)
        try:
            top = db.execute("SELECT MAX(id) FROM games").fetchone()[0]
        finally:
            db.close()
        if isinstance(top, int):
            found.append(top)
    except sqlite3.Error:
        pass
    if not found:
        try:
            found.append(aside.stat().st_size // ROW_BYTES)
        except OSError:
            found.append(0)
    return max(found) + 1


def dismiss(journal: Path, name: str | None) -> str:
    """`senet-pi journal dismiss [NAME]`: forget the set-aside journal NAME (the only one when not
    named): its recovery stops for good, its scratch file goes; the file itself is left for a person to
    keep or remove. The line to say; ValueError, one line, when there is nothing to dismiss."""
    entries = pending(journal)
    if not entries:
        raise ValueError(f"no journal set aside beside {journal} is waiting to be recovered")
    if name is None and len(entries) > 1:
        names = ", ".join(e["aside"] for e in entries)
        raise ValueError(f"more than one journal is set aside ({names}): name the one to dismiss")
    chosen = [e for e in entries if name is None or e["aside"] == Path(name).name]
    if not chosen:
        names = ", ".join(e["aside"] for e in entries)
        raise ValueError(f"{name} is not waiting to be recovered (these are: {names})")
    entry = chosen[0]
    scratch = scratch_path(journal, entry["aside"])
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{scratch}{suffix}").unlink(missing_ok=True)
    update(journal, entry["aside"], None)
    return (
        f"dismissed {entry['aside']}: its games will not be recovered into {journal.name}; the file is left "
        f"in {journal.parent} for you to keep or remove"
    )
