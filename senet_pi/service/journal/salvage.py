"""A recovery's first stage: every row that can be read of a damaged journal, gathered into a scratch
file on disk (never all in memory), batch by batch, each batch committed with how far it got, so a
recovery stopped part-way (a restart, the out-of-memory killer) goes on from there.

Rows are read through SQLite (its b-trees, in rowid order; past a damaged page one by one), from a
copy cut to whole pages when the file is cut short, and, when any table could not be read through,
from the file's table-leaf pages directly (`pages.leaf_rows`, page by page through a memory map).
Nothing is judged here: `recovery` keeps the rows that pass the journal's checks, game by game.
"""

from __future__ import annotations

import bisect
import json
import mmap
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from threading import Event
from typing import Any

from .pages import as_row, leaf_rows, table_of
from .schema import TABLES, text_factory

Row = tuple[Any, ...]  # one table row as read, its columns in TABLES order, then its checksum

PROBE = 2000  # rows looked up one by one past a damaged page before giving up on a table
BATCH = 4000  # rows gathered per committed batch
TOP = 2**63  # above every rowid
WIDTH = 9  # columns kept per row: the widest table (games) and its checksum

SCRATCH = f"""
CREATE TABLE IF NOT EXISTS rows (tbl TEXT NOT NULL, a, b, {", ".join(f"c{i}" for i in range(WIDTH))});
CREATE INDEX IF NOT EXISTS rows_key ON rows (tbl, a, b);
CREATE TABLE IF NOT EXISTS progress (key TEXT PRIMARY KEY, value);
"""


class Stopped(Exception):
    """A recovery asked to stop (the service closes): what it did is kept, and a later run goes on."""


def key_of(table: str, row: Row) -> tuple[object, object]:
    """What names a row of `table` (the same row on two pages, or read twice, is one row)."""
    return (row[0], 0) if table in ("games", "meta") else (row[0], row[1])


class Scratch:
    """The scratch file: the rows gathered (`rows`, in the order read: SQLite's first) and how far
    the gathering got (`progress`)."""

    def __init__(self, path: Path, aside: str) -> None:
        self.path = path
        self.aside = aside  # the damaged file's name
        self.stop: Event | None = None  # set: the next commit is the last (Stopped is raised after it)
        self.db = sqlite3.connect(path, isolation_level=None)  # its texts were decoded once already: valid UTF-8
        # A rollback journal, not a WAL: its rows are appended, so little is journaled, where a WAL
        # writes every page twice (the scratch file is the biggest write of a recovery). Never
        # fsynced: a scratch file that does not read after a power cut is begun again.
        self.db.execute("PRAGMA journal_mode=DELETE")
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.executescript(SCRATCH)

    def get(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM progress WHERE key = ?", (key,)).fetchone()
        return default if row is None else row[0]

    def commit(self, rows: dict[str, list[Row]], progress: dict[str, object]) -> None:
        """Keep `rows` (by table) and the progress that says they are kept, in one transaction."""
        sql = f"INSERT INTO rows VALUES (?, ?, ?, {', '.join('?' * WIDTH)})"
        with self.db:
            self.db.execute("BEGIN")
            for table, some in rows.items():
                self.db.executemany(sql, ((table, *key_of(table, r), *r, *[None] * (WIDTH - len(r))) for r in some))
            self.db.executemany("INSERT OR REPLACE INTO progress VALUES (?, ?)", progress.items())
        if self.stop is not None and self.stop.is_set():
            raise Stopped

    def rows(self, table: str, low: object, high: object) -> list[Row]:
        """The rows gathered of `table` whose first key is in [low, high], by key, then as read."""
        width = len(TABLES[table]) + 1
        sql = f"SELECT {', '.join(f'c{i}' for i in range(width))} FROM rows WHERE tbl = ? AND a BETWEEN ? AND ? "
        return self.db.execute(sql + "ORDER BY a, b, rowid", (table, low, high)).fetchall()

    def close(self) -> None:
        self.db.close()

    def remove(self) -> None:
        """Close and delete the scratch file (the recovery is over, or dismissed)."""
        with suppress(sqlite3.Error):
            self.db.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)


def _scan(db: sqlite3.Connection, table: str, after: int) -> Iterator[tuple[int, Row | None]]:
    """(rowid, row) of `table`'s rows past rowid `after`, in rowid order; (rowid, None) for each read
    that failed. A scan up to a damaged page, then rows looked up one by one past it (at most PROBE
    misses in a row), and a scan again from the next row found."""
    found = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
    columns = ", ".join([*TABLES[table], "sum" if "sum" in found else "NULL"])
    try:
        top = db.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0]
    except sqlite3.DatabaseError:
        top = None
    rowid = after
    while True:
        try:
            for row in db.execute(f"SELECT rowid, {columns} FROM {table} WHERE rowid > ? ORDER BY rowid", (rowid,)):
                rowid = row[0]
                yield rowid, row[1:]
            return
        except sqlite3.DatabaseError:
            yield rowid, None
        misses = 0
        while misses < PROBE and (top is None or rowid < top):
            rowid += 1
            try:
                row = db.execute(f"SELECT {columns} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
            except sqlite3.DatabaseError:
                yield rowid, None
                row = None
            if row is not None:
                yield rowid, row
                break
            misses += 1
        else:
            return


def _gather_table(db: sqlite3.Connection, table: str, scratch: Scratch) -> None:
    """Gather `table` through SQLite into `scratch`, from where an earlier run left off."""
    done = scratch.get(f"sqlite:{table}", 0)
    if done == "done":
        return
    failed = int(scratch.get(f"failed:{table}", 0))
    runs: list[list[int]] = json.loads(scratch.get(f"runs:{table}", "[]"))
    batch: list[Row] = []
    last = int(done)
    for rowid, row in _scan(db, table, last):
        last = rowid
        if row is None:
            failed += 1
            continue
        batch.append(row)
        if runs and runs[-1][1] == rowid - 1:
            runs[-1][1] = rowid
        else:
            runs.append([rowid, rowid])
        if len(batch) >= BATCH:
            progress = {f"sqlite:{table}": last, f"failed:{table}": failed, f"runs:{table}": json.dumps(runs)}
            scratch.commit({table: batch}, progress)
            batch = []
    progress = {f"sqlite:{table}": "done", f"failed:{table}": failed, f"runs:{table}": json.dumps(runs)}
    scratch.commit({table: batch}, progress)


def _gather_sqlite(uri: str, scratch: Scratch) -> None:
    db = sqlite3.connect(uri, uri=True)
    db.text_factory = text_factory
    try:
        found = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table in TABLES:
            if table in found:
                _gather_table(db, table, scratch)
            else:
                scratch.commit({}, {f"sqlite:{table}": "done"})
    finally:
        db.close()


@contextmanager
def _cut_file_opened(source: Path, folder: Path) -> Iterator[str]:
    """A copy of a journal cut short (a torn write, a card that lost its last sectors) that SQLite
    will open: whole pages only, the header's page count what is there, and the schema rows whose
    pages are gone (and every index: the tables are read by rowid) dropped, made in `folder` (the
    new journal's, not a RAM disk), copied in blocks. The source is only read."""
    with open(source, "rb") as f:
        head = f.read(100)
    if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
        raise sqlite3.DatabaseError("file is not a database")
    size = int.from_bytes(head[16:18], "big")
    size = 65536 if size == 1 else size
    pages = source.stat().st_size // size
    copy = folder / f".senet-pi-recover-{os.getpid()}-{time.monotonic_ns()}.sqlite"
    try:
        with open(source, "rb") as src, open(copy, "wb") as dst:
            left = pages * size
            while left:
                block = src.read(min(left, 1 << 20))
                if not block:
                    break
                dst.write(block)
                left -= len(block)
            dst.seek(28)
            dst.write(pages.to_bytes(4, "big"))
        db = sqlite3.connect(copy)
        try:
            db.execute("PRAGMA writable_schema=ON")
            db.execute("DELETE FROM sqlite_master WHERE type = 'index' OR rootpage > ?", (pages,))
            db.commit()
        finally:
            db.close()
        yield f"{copy.resolve().as_uri()}?mode=ro"
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)


def _gather_loose(source: Path, scratch: Scratch, meta_too: bool) -> None:
    """The rows on the main file's table-leaf pages, by the table their shape fits, from the page an
    earlier run left off at; `cells` counts every cell read (a file with no page of ours is told from
    one whose rows all failed their checks)."""
    start = scratch.get("loose", 1)
    if start == "done":
        return
    try:
        with open(source, "rb") as f:
            try:
                data: mmap.mmap | bytes = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):
                data = b""  # an empty file: no page to read
            try:
                _read_pages(data, int(start), scratch, meta_too)
            finally:
                if isinstance(data, mmap.mmap):
                    data.close()
    except OSError:
        scratch.commit({}, {"loose": "done"})


def _read_pages(data: mmap.mmap | bytes, start: int, scratch: Scratch, meta_too: bool) -> None:
    """`_gather_loose`'s reading, batch by batch, each committed with the page it got to."""
    cells = int(scratch.get("cells", 0))
    found = {table: int(scratch.get(f"loose:{table}", 0)) for table in TABLES}
    batch: dict[str, list[Row]] = {table: [] for table in TABLES}
    count, current = 0, start
    runs = {table: json.loads(scratch.get(f"runs:{table}", "[]")) for table in TABLES}

    def known(table: str, low: int, high: int) -> bool:  # rows SQLite read already: a page of them is passed over
        at = bisect.bisect_right(runs[table], [low, TOP]) - 1
        return at >= 0 and runs[table][at][0] <= low and high <= runs[table][at][1]

    for page, rowid, values in leaf_rows(data, start, known):
        if page != current and count >= BATCH:
            scratch.commit(batch, {"loose": page, "cells": cells, **_counts(found)})
            batch = {table: [] for table in TABLES}
            count = 0
        current = page
        table = table_of(values) if rowid != -1 else None
        if table is None or (table == "meta" and not meta_too):
            cells += table is not None
            continue
        batch[table].append(as_row(table, rowid, values))
        found[table] += 1
        cells += 1
        count += 1
    scratch.commit(batch, {"loose": "done", "cells": cells, **_counts(found)})


def _counts(found: dict[str, int]) -> dict[str, object]:
    return {f"loose:{table}": n for table, n in found.items()}


def gather(source: Path, scratch: Scratch) -> None:
    """Gather every row that can be read of `source` (and its `-wal`) into `scratch`, going on from
    where an earlier run stopped: through SQLite as it is, else from a copy cut to whole pages, else
    nothing (its header or schema damaged); then, when a table could not be read through, its
    table-leaf pages directly. Stopped when `scratch.stop` is set (what is gathered stays gathered)."""
    if scratch.get("sqlite") != "done":
        try:
            _gather_sqlite(f"{source.resolve().as_uri()}?mode=ro", scratch)
        except sqlite3.DatabaseError:  # a file cut short: its header and schema name pages it lacks
            try:
                with _cut_file_opened(source, scratch.path.parent) as uri:
                    _gather_sqlite(uri, scratch)
            except sqlite3.DatabaseError:  # its header or schema damaged: its pages are all there is
                scratch.commit({}, {f"failed:{t}": 1 for t in TABLES} | {f"sqlite:{t}": "done" for t in TABLES})
        scratch.commit({}, {"sqlite": "done"})
    failed = {t: int(scratch.get(f"failed:{t}", 0)) for t in TABLES}
    anything = scratch.db.execute("SELECT 1 FROM rows LIMIT 1").fetchone() is not None
    if any(failed.values()) or not anything:
        _gather_loose(source, scratch, meta_too=bool(failed["meta"]))
    else:
        scratch.commit({}, {"loose": "done"})
