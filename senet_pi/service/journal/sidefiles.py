"""The files beside the journal: the `-mark` that counts its writes (so a lost `-wal` is noticed), the
`-reserve` given back on a full disk, the `-held` writes a clean stop could not write, and setting a
damaged file aside."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .schema import not_damage, tables

RESERVE = 96 * 1024  # bytes kept aside beside the journal (`-reserve`), given back when the disk is full:
KEEP_FOR_STOP = 32 * 1024  # all but this much while running (room for the checkpoint), the rest at a stop


class SideFiles:
    """The journal's side files (a part of `Journal`)."""

    path: Path
    mark_path: Path
    _db: sqlite3.Connection
    _id: str
    _writes: int
    _last_game: int
    _pending: list[list[tuple[str, tuple[Any, ...]]]]

    if TYPE_CHECKING:

        def flush(self) -> bool: ...  # the journal's own: writes what is queued

    def _read_mark(self) -> dict[str, Any] | None:
        try:
            mark = json.loads(self.mark_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # no mark (an older journal, or one never written): nothing to compare
        ok = isinstance(mark, dict) and isinstance(mark.get("writes"), int) and isinstance(mark.get("id"), str)
        return mark if ok else None

    def _lost_writes(self) -> str | None:
        """Why the journal holds fewer writes than its mark says it should, or None. Read-only, so
        a damaged `-wal` is not checkpointed away before it is set aside."""
        mark = self._read_mark()
        if mark is None or mark["writes"] == 0:
            return None
        if not self.path.exists() or self.path.stat().st_size == 0:
            wal = self.path.with_name(self.path.name + "-wal")
            if not self.path.exists() and not wal.exists():
                return None  # the journal was removed on purpose, with its -wal: start afresh
            return f"the main file is {'missing' if not self.path.exists() else 'empty'}, " + (
                f"it held {mark['writes']} writes"
            )
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
            try:
                found = tables(db)
                rows = dict(db.execute("SELECT key, value FROM meta").fetchall()) if "meta" in found else {}
            finally:
                db.close()
        except sqlite3.DatabaseError as exc:
            if not_damage(exc):
                return None
            return f"{exc}; it held {mark['writes']} writes"
        if rows and rows.get("id") != mark["id"]:
            return None  # the mark of another journal file (one copied in its place)
        writes = rows.get("writes", 0)
        if not isinstance(writes, int) or writes < mark["writes"]:
            return f"it holds {writes} of the {mark['writes']} writes made: its -wal was damaged or lost"
        return None

    def _unclean_without_evidence(self) -> str | None:
        """A journal whose writer did not close it (its `open` flag is set in the main file) found with
        neither its `-wal` nor its `-mark`: both were lost together, and with them whatever writes the
        `-wal` held, which nothing else can count. Said, not set aside: the main file is all there is."""
        wal = self.path.with_name(self.path.name + "-wal")
        if self.mark_path.exists() or wal.exists() or not self.path.is_file() or self.path.stat().st_size == 0:
            return None
        try:
            db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            try:
                rows = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('open', 'writes')").fetchall())
            finally:
                db.close()
        except sqlite3.Error:
            return None  # not readable as ours: the checks that follow say what it is
        if rows.get("open") != 1:
            return None
        return (
            f"the journal {self.path} was not closed by its last writer and its -wal and -mark are both missing: "
            f"the writes after its last checkpoint (it keeps {rows.get('writes')}) may be lost"
        )

    def _mark_open(self) -> None:
        """Set the main file's `open` flag for as long as this writer has it (folded into the main
        file at once, so a `-wal` lost later cannot take the flag with it); `close` clears it."""
        try:
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('open', 1)")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass  # a full disk: the flag is a hint, the journal works without it

    @property
    def _reserve_path(self) -> Path:
        return self.path.with_name(self.path.name + "-reserve")

    @property
    def _held_path(self) -> Path:
        return self.path.with_name(self.path.name + "-held")

    def _keep_reserve(self) -> None:
        """Keep RESERVE bytes aside in `<journal>-reserve` (best effort): on a full disk they are given
        back, so the checkpoint that shrinks the -wal, and the writes held in memory, have room."""
        try:
            if self._reserve_path.stat().st_size >= RESERVE:
                return
        except OSError:
            pass
        try:
            with open(self._reserve_path, "ab") as f:
                f.write(b"\0" * (RESERVE - f.tell()))
        except OSError:
            pass  # no room for all of it now: made whole again once there is

    def _release_reserve(self, stopping: bool = False) -> bool:
        """Give reserved bytes back to the disk: all but KEEP_FOR_STOP while running, the rest at a
        stop (room to keep the held writes). True if any were given back."""
        try:
            if self._reserve_path.stat().st_size > KEEP_FOR_STOP:
                os.truncate(self._reserve_path, KEEP_FOR_STOP)
            elif stopping:
                self._reserve_path.unlink()
            else:
                return False
        except OSError:
            return False
        return True

    def _save_held(self) -> bool:
        """At a clean stop with writes the disk refused: keep them in `<journal>-held` (JSON, the
        reserve's room) to be written into the journal at the next start. True when saved."""
        text = json.dumps({"id": self._id, "units": self._pending})
        try:
            tmp = self._held_path.with_name(self._held_path.name + ".tmp")
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self._held_path)
        except OSError:
            return False
        return True

    def _replay_held(self) -> None:
        """Write the writes a clean stop kept in `<journal>-held` (a full disk), in order, then remove it."""
        try:
            held = json.loads(self._held_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(held, dict) or held.get("id") != self._id or not isinstance(held.get("units"), list):
            return  # another journal's: left where it is, for a person to look at
        self._pending = [[(str(sql), tuple(args)) for sql, args in unit] for unit in held["units"]]
        if self.flush():
            self._held_path.unlink(missing_ok=True)
            self._last_game = int(self._db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0])
        else:
            self._pending.clear()  # still no room: they stay in the file, and the journal starts as it is

    def _write_mark(self) -> None:
        """Best effort, no fsync: a mark behind the journal raises no alarm; only one ahead does."""
        tmp = self.mark_path.with_name(self.mark_path.name + ".tmp")
        try:
            mark = {
                "id": self._id,
                "writes": self._writes,
                "games": self._last_game,
            }  # games: ids a recovery leaves free
            tmp.write_text(json.dumps(mark), encoding="utf-8")
            os.replace(tmp, self.mark_path)
        except OSError:
            pass

    def _set_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        n = 1
        while aside.exists():
            aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{n}")
            n += 1
        if self.path.exists():
            self.path.rename(aside)
        for suffix in ("-wal", "-shm", "-mark"):
            extra = self.path.with_name(self.path.name + suffix)
            if extra.exists():
                extra.rename(aside.with_name(aside.name + suffix))
        return aside
