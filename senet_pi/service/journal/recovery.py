"""Recovery from damage: what of a damaged journal can be read (through SQLite, from a copy of a file
cut short, and from its table pages read directly) written as a new journal, with what was lost counted."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import JournalError
from ...verdicts import parse_verdict
from .pages import as_row, leaf_rows, table_of
from .records import check_value
from .schema import SCHEMA, SCHEMA_VERSION, TABLES, resum, summing, sums_ok, text_factory

Row = tuple[Any, ...]  # one table row as read, its columns in TABLES order

PROBE = 2000  # rows looked up one by one past a damaged page before giving up on a table


@dataclass(frozen=True)
class Recovery:
    """What was kept of a damaged journal, and what was lost (see `recover`)."""

    aside: str  # the damaged file's name, kept beside the journal for inspection
    games: int
    inputs: int
    verdicts: int
    lost_writes: int | None  # writes its -mark counted that the file no longer held (None: no mark)
    lost_inputs: int  # inputs that could not be read, or came after one that could not
    unreadable: int  # rows of games, verdicts and bookkeeping that could not be read

    @property
    def lost(self) -> int:
        """Everything counted as lost, in one number (writes, inputs and rows)."""
        return (self.lost_writes or 0) + self.lost_inputs + self.unreadable

    def said(self) -> str:
        """One sentence: what was kept and what was lost."""
        kept = f"kept {self.games} games with {self.inputs} inputs"
        parts = []
        if self.lost_writes:
            parts.append(f"{self.lost_writes} writes its -wal held")
        if self.lost_inputs:
            parts.append(f"{self.lost_inputs} inputs that could not be read or came after one that could not")
        if self.unreadable:
            parts.append(f"{self.unreadable} other rows that could not be read")
        lost = "lost " + ", ".join(parts) if parts else "lost nothing that could be counted"
        return f"{kept}; {lost}"

    def record(self, when: float) -> str:
        """The JSON kept in the recovered journal's meta table as `lost:<aside>`."""
        return json.dumps({**self.__dict__, "when": when, "lost": self.lost})


def _salvage(db: sqlite3.Connection, table: str) -> tuple[list[Row], int]:
    """The rows of `table` that can be read, in rowid order, and how many reads failed: a scan up to
    the first damaged page, then rows looked up one by one past it (at most PROBE misses in a row)."""
    found = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
    columns = ", ".join([*TABLES[table], "sum" if "sum" in found else "NULL"])
    rows: dict[int, Row] = {}
    try:
        for row in db.execute(f"SELECT rowid, {columns} FROM {table} ORDER BY rowid"):
            rows[row[0]] = row[1:]
        return list(rows.values()), 0
    except sqlite3.DatabaseError:
        failed = 1
    try:
        top = db.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0]
    except sqlite3.DatabaseError:
        top = None
    rowid, misses = (max(rows) if rows else 0) + 1, 0
    while misses < PROBE and (top is None or rowid <= top):
        try:
            row = db.execute(f"SELECT rowid, {columns} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            row, failed = None, failed + 1
        if row is None:
            misses += 1
        else:
            rows[row[0]], misses = row[1:], 0
        rowid += 1
    return [rows[k] for k in sorted(rows)], failed


def _salvage_all(uri: str) -> dict[str, tuple[list[Row], int]]:
    """Every journal table's readable rows (see `_salvage`) from the database at `uri`."""
    db = sqlite3.connect(uri, uri=True)
    db.text_factory = text_factory
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {t: _salvage(db, t) if t in tables else ([], 0) for t in TABLES}
    finally:
        db.close()


@contextmanager
def _cut_file_opened(source: Path, folder: Path) -> Iterator[str]:
    """A copy of a journal cut short (a torn write, a card that lost its last sectors) that SQLite
        will open: whole pages only, the header's page count what is there, and the schema rows whose
        pages are gone (and every index: the tables are read by rowid) dropped, made in `folder` (the
    new journal's, not a RAM disk). The source is only read."""
    data = bytearray(source.read_bytes())
    if len(data) < 100 or not data.startswith(b"SQLite format 3\x00"):
        raise sqlite3.DatabaseError("file is not a database")
    size = int.from_bytes(data[16:18], "big")
    size = 65536 if size == 1 else size
    pages = len(data) // size
    del data[pages * size :]
    data[28:32] = pages.to_bytes(4, "big")
    copy = folder / f".senet-pi-recover-{os.getpid()}-{time.monotonic_ns()}.sqlite"
    try:
        copy.write_bytes(bytes(data))
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


def _loose(source: Path) -> dict[str, list[Row]]:
    """The rows on the main file's table-leaf pages (`pages.leaf_rows`), by the table their shape fits,
    as SQLite would read them (TABLES' columns, then the checksum); `cells`: every cell read, for
    telling a file with no page of ours from one whose rows all failed their checks."""
    found: dict[str, list[Row]] = {table: [] for table in [*TABLES, "cells"]}
    try:
        data = source.read_bytes()
    except OSError:
        return found
    for _, rowid, values in leaf_rows(data):
        table = table_of(values) if rowid != -1 else None
        if table is not None:
            found[table].append(as_row(table, rowid, values))
            found["cells"].append(())
    return found


def _key(table: str, row: Row) -> object:
    """What names a row of `table` (the same row on two pages, or read twice, is one row)."""
    return row[0] if table in ("games", "meta") else (row[0], row[1])


def valid(table: str, row: Row) -> bool:
    """Whether a row read back is one the journal wrote: it matches its checksum (when it has one) and
    passes the journal's own checks (its JSON decodes to what the readers expect, values in range)."""
    width = len(TABLES[table])
    if not sums_ok(table, row[:width], row[width] if len(row) > width else None):
        return False
    try:
        if table == "games":
            options, position = json.loads(row[3]), None if row[4] is None else json.loads(row[4])
            ints = isinstance(row[0], int) and isinstance(row[2], int) and isinstance(row[5], float | int)
            return ints and isinstance(row[1], str) and isinstance(options, dict) and isinstance(position, dict | None)
        if table == "events":
            check_value(json.loads(row[4]))
            return all(isinstance(v, int) for v in row[:3]) and isinstance(row[3], str)
        if table == "verdicts":
            data = json.loads(row[3])
            return all(isinstance(v, int) for v in row[:3]) and isinstance(data, dict) and bool(parse_verdict(data))
        return isinstance(row[0], str)
    except (ValueError, TypeError, RecursionError):
        return False


def _order(key: object) -> tuple[Any, ...]:
    """A key as a tuple, to sort by (a game's id; a game and seq)."""
    return key if isinstance(key, tuple) else (key,)


def _merge(table: str, read: list[Row], failed: int, loose: list[Row]) -> tuple[list[Row], int]:
    """The valid rows of `table`, those SQLite read first, then those only its loose pages hold, in key
    order; and how many were lost: rows that fail their checks, else, when SQLite could not read the
    table through, at least one (the rows of a lost leaf page past the last one found leave no gap to
    count), or every failed read when no page of it was found."""
    kept: dict[object, Row] = {}
    bad: set[object] = set()
    for row in [*read, *loose]:
        key = _key(table, row)
        if key in kept:
            continue
        if valid(table, row):
            kept[key] = row
            bad.discard(key)
        else:
            bad.add(key)
    rows = list(kept.values()) if table == "meta" else [kept[k] for k in sorted(kept, key=_order)]
    return rows, len(bad) or (min(failed, 1) if loose else failed)


def _read(source: Path, folder: Path) -> dict[str, tuple[list[Row], int]]:
    """What SQLite reads of `source`, through its b-trees (see `_salvage`): as it is, else from a copy
    cut to whole pages (made in `folder`), else nothing (its header or schema damaged)."""
    try:
        return _salvage_all(f"{source.resolve().as_uri()}?mode=ro")
    except sqlite3.DatabaseError:  # a file cut short: its header and schema name pages it lacks
        try:
            with _cut_file_opened(source, folder) as uri:
                return _salvage_all(uri)
        except sqlite3.DatabaseError:  # its header or schema damaged: its pages are all there is
            return {table: ([], 1) for table in TABLES}


def _in_order(games: list[Row], events: list[Row]) -> tuple[list[Row], dict[int, int], int]:
    """Each game's inputs from its first up to the first missing one (those after it could not be
    judged in order), the seq of each game's last input kept, and how many inputs are missing
    though a later one of their game was found."""
    kept: list[Row] = []
    last: dict[int, int] = {}
    missing = 0
    for game in sorted(row[0] for row in games):
        seqs = sorted((row for row in events if row[0] == game), key=lambda r: r[1])
        expected = 0
        for row in seqs:
            if row[1] != expected:
                break
            kept.append(row)
            expected += 1
        last[game] = expected - 1
        missing += (seqs[-1][1] + 1 - len(seqs)) if seqs else 0
    return kept, last, missing


def _lost_writes(meta: list[Row], mark: dict[str, Any] | None) -> int | None:
    """Writes the `-mark` counted that the file's bookkeeping does not hold (None: no mark of its own)."""
    before = dict((row[0], row[1]) for row in meta)
    held = before.get("writes")
    if mark is not None and isinstance(held, int) and before.get("id") == mark.get("id"):
        return max(int(mark["writes"]) - held, 0)
    if mark is not None and not meta:
        return int(mark["writes"])  # not even the bookkeeping could be read
    return None


def recover(source: str | Path, dest: str | Path, mark: dict[str, Any] | None = None) -> Recovery:
    """Write a new journal at `dest` (which must not exist) with what of the journal `source` (and its
    `-wal`) can be read: every game, each game's inputs up to the first that cannot be read (a resume
    goes on from there), their verdicts, the bookkeeping; only rows that pass the journal's checks
    (`valid`), read through SQLite and from the file's table pages directly. `source` is only read.
    `mark`: its `-mark`, to count the writes a damaged or lost `-wal` took. sqlite3.Error or OSError
    if nothing can be."""
    source, dest = Path(source), Path(dest)
    if dest.exists():
        raise OSError(f"{dest} already exists")
    found = _read(source, dest.parent)
    loose = _loose(source)
    games, bad_games = _merge("games", *found["games"], loose["games"])
    events, bad_events = _merge("events", *found["events"], loose["events"])
    verdicts, bad_verdicts = _merge("verdicts", *found["verdicts"], loose["verdicts"])
    meta, bad_meta = _merge("meta", *found["meta"], loose["meta"] if found["meta"][1] else [])
    if not games and not events and not meta and not loose["cells"]:
        raise sqlite3.DatabaseError("no page of it reads as a journal's")
    kept_events, last, missing = _in_order(games, events)
    kept_verdicts = [row for row in verdicts if row[0] in last and row[2] <= last[row[0]]]
    ids = sorted(last)
    lost_games = (ids[-1] - ids[0] + 1 - len(ids)) if ids else 0  # ids are given in turn: a gap is a lost row
    recovery = Recovery(
        source.name,
        len(games),
        len(kept_events),
        len(kept_verdicts),
        _lost_writes(meta, mark),
        len(events) - len(kept_events) + missing + bad_events,
        bad_games + lost_games + bad_verdicts + bad_meta,
    )
    tmp = dest.with_name(dest.name + ".recovering")
    tmp.unlink(missing_ok=True)
    try:
        _write_recovered(tmp, games, kept_events, kept_verdicts, meta, source.name, recovery)
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a disk that filled half way: nothing half-written is left
        raise
    return recovery


def _write_recovered(
    tmp: Path, games: list[Row], events: list[Row], verdicts: list[Row], meta: list[Row], aside: str, recovery: Recovery
) -> None:
    """The recovered journal's file, written in one transaction and fsynced."""
    out = sqlite3.connect(tmp, isolation_level=None)
    summing(out)
    try:
        out.execute("BEGIN")
        for statement in SCHEMA.split(";"):
            out.execute(statement)
        for table, rows in (("games", games), ("events", events), ("verdicts", verdicts)):
            columns = TABLES[table]
            sql = f"INSERT OR IGNORE INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            out.executemany(sql, (row[: len(columns)] for row in rows))
            out.execute(resum(table, "1"))  # every row kept was checked: its checksum is as it was
        ours = [row[:2] for row in meta if row[0] not in ("writes", "id", "open")]
        out.executemany("INSERT OR IGNORE INTO meta VALUES (?, ?)", ours)
        out.execute("INSERT INTO meta VALUES ('writes', 0)")
        out.execute("INSERT INTO meta VALUES ('id', ?)", (os.urandom(8).hex(),))
        out.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"lost:{aside}", recovery.record(time.time())))
        out.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        out.execute("COMMIT")
        out.execute("PRAGMA journal_mode=WAL")
    finally:
        out.close()
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())


def recover_command(source: Path, output: Path | None = None) -> str:
    """`senet-pi journal recover FILE [-o OUT]`: what can be read of the damaged journal FILE (and its
    `-wal`) written as a new journal OUT (FILE.recovered beside it unless told); FILE is only read.
    The line to print; JournalError, one line, when nothing can be recovered."""
    if not source.is_file():
        raise JournalError(f"there is no file {source} to recover")
    output = output or source.with_name(source.name + ".recovered")
    if output.exists():
        raise JournalError(f"{output} already exists: name another with -o, or move it away first")
    mark_path = source.with_name(source.name + "-mark")
    try:
        mark = json.loads(mark_path.read_text(encoding="utf-8"))
        mark = mark if isinstance(mark, dict) and isinstance(mark.get("writes"), int) else None
    except (OSError, ValueError):
        mark = None
    try:
        recovery = recover(source, output, mark)
    except (sqlite3.Error, OSError) as exc:
        raise JournalError(f"cannot recover anything from {source}: {exc}") from None
    return f"{output}: {recovery.said()} (stop the service, then put it in place of the journal to use it)"


def recover_cli(args: Any) -> int:
    """`senet-pi journal recover`'s handler (args: `file`, `output`): prints the line, exit status 0."""
    print(recover_command(args.file, args.output))
    return 0


def losses(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """The losses `recover` recorded in a journal's meta table, oldest first: each a dict with `aside`,
    `when` (seconds), `lost` and its parts. Rows that are not ours are left out."""
    out = []
    try:
        rows = db.execute("SELECT value FROM meta WHERE key LIKE 'lost:%' ORDER BY rowid").fetchall()
    except sqlite3.Error:
        return []  # no meta table: an older journal, nothing recorded
    for (value,) in rows:
        try:
            loss = json.loads(value)
        except (TypeError, ValueError):
            continue
        if isinstance(loss, dict) and isinstance(loss.get("lost"), int) and isinstance(loss.get("when"), int | float):
            out.append(loss)
    return out
