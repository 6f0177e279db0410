"""The journal's tables, the checks that a file is ours, the rows' checksums, and the migration that
brings an older journal's schema up to date."""

from __future__ import annotations

import os
import shutil
import sqlite3
import zlib
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path

#: 1: the four tables; 2: a `sum` column on games, events and verdicts (`rowsum` of the row's content).
SCHEMA_VERSION = 2
#: The schema each release (major.minor) writes: a schema change is a new release (tests/test_journal_versions.py).
RELEASES = {"0.2": 2, "0.3": 2}
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    players INTEGER NOT NULL,
    options TEXT NOT NULL,
    position TEXT,
    started REAL NOT NULL,
    ended REAL,
    winner TEXT,
    sum INTEGER
);
CREATE TABLE IF NOT EXISTS events (
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    sum INTEGER,
    PRIMARY KEY (game, seq)
);
CREATE TABLE IF NOT EXISTS verdicts (
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    event INTEGER NOT NULL,
    verdict TEXT NOT NULL,
    sum INTEGER,
    PRIMARY KEY (game, seq)
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value NOT NULL
);
"""


NOT_DAMAGE = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_BUSY")
NOT_OURS = ("not a senet-pi journal", "a foreign schema", "written by a newer")  # set aside, nothing recovered
TABLES = {
    "games": ["id", "variant", "players", "options", "position", "started", "ended", "winner"],
    "events": ["game", "seq", "ms", "kind", "value"],
    "verdicts": ["game", "seq", "event", "verdict"],
    "meta": ["key", "value"],
}


def text_factory(data: bytes) -> str:
    """A TEXT column as read: a byte that is not UTF-8 (a flipped bit) is replaced, so the row reads as
    damaged (its JSON does not decode, or differs) instead of failing the whole query."""
    return data.decode("utf-8", "replace")


def not_damage(exc: sqlite3.Error) -> bool:
    return str(getattr(exc, "sqlite_errorname", "")).startswith(NOT_DAMAGE)


def reason(exc: sqlite3.Error) -> str:
    return "disk full" if str(getattr(exc, "sqlite_errorname", "")) == "SQLITE_FULL" else str(exc)


def tables(db: sqlite3.Connection) -> set[str]:
    """The names of the tables in the database."""
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def check_schema(db: sqlite3.Connection) -> None:
    """DatabaseError for a file that is some other program's, or ours with other columns."""
    found_tables = tables(db)
    if found_tables and not found_tables & set(TABLES):
        raise sqlite3.DatabaseError(f"not a senet-pi journal (it has tables {', '.join(sorted(found_tables))})")
    for table in TABLES:
        if table in found_tables:
            found = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
            if not ours(table, found):
                raise sqlite3.DatabaseError(f"a foreign schema: table {table} has columns {', '.join(found)}")


SUMMED = ("games", "events", "verdicts")  # the tables whose rows carry a checksum (meta's rows are rewritten)


def ours(table: str, columns: Sequence[str]) -> bool:
    """Whether `columns` are those of the journal's `table`, with or without its `sum` column (an
    older journal, or one a reading command opens before a writer has brought it up to date)."""
    want = TABLES[table]
    return list(columns) == want or (table in SUMMED and list(columns) == [*want, "sum"])


def rowsum(*values: object) -> int:
    """The checksum of one row's content (its columns in TABLES order, as SQLite stores them): a CRC-32
    of their reprs, so any flipped bit, even one that leaves a row that decodes, is caught."""
    return zlib.crc32("\x1f".join(map(repr, values)).encode("utf-8", "surrogatepass"))


def sums_ok(table: str, content: Sequence[object], stored: object) -> bool:
    """Whether a row read back matches the checksum written with it (None: a row written before rows
    had checksums, or by hand: nothing to check it against)."""
    return stored is None or (table in SUMMED and rowsum(*content) == stored)


def resum(table: str, where: str) -> str:
    """The statement that sets the checksum of the rows of `table` matched by `where`, from what is
    stored (so SQLite's type conversions are in it), written in the same transaction as the rows."""
    return f"UPDATE {table} SET sum = rowsum({', '.join(TABLES[table])}) WHERE {where}"


def summing(db: sqlite3.Connection) -> None:
    """Teach a connection that writes the journal its `rowsum` function."""
    db.create_function("rowsum", -1, rowsum, deterministic=True)


def file_schema(path: Path) -> int:
    """The schema number in a journal file's header (SQLite's user_version, bytes 60-63), read without
    opening it through SQLite (so nothing is written beside it); 0 for a new or short file."""
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except FileNotFoundError:
        return 0
    if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
        return 0
    return int.from_bytes(head[60:64], "big", signed=True)


def written_by(path: Path) -> str | None:
    """The release that last wrote a journal (its meta `written_by`), read-only; None if not said."""
    quiet = "" if Path(f"{path}-wal").exists() else "&immutable=1"
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro{quiet}", uri=True)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'written_by'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return str(row[0]) if row else None


def keep_before_migration(path: Path, version: int) -> Path | None:
    """A copy of a journal of an older schema, made before it is migrated, for the release before
    to read after a rollback: `<journal>.schema-<N>` beside it (never replaced once made)."""
    if version == 0 or not path.is_file():
        return None
    copy = path.with_name(f"{path.name}.schema-{version}")
    if not copy.exists():
        tmp = copy.with_name(copy.name + ".tmp")
        shutil.copyfile(path, tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, copy)
    return copy


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Bring the journal at `db` (schema `version`, 0 for a new file) up to SCHEMA_VERSION, in one
    transaction: the tables made, a `sum` column added to an older journal's tables and filled from
    the rows as they are, the bookkeeping started. `db` must know `rowsum` (`summing`)."""
    with db:
        db.execute("BEGIN")
        for statement in SCHEMA.split(";"):
            db.execute(statement)
        for table in SUMMED:
            columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
            if "sum" not in columns:
                db.execute(f"ALTER TABLE {table} ADD COLUMN sum INTEGER")
                # a row whose text is not UTF-8 (damage) fails it: left without sums, the reads find it
                with suppress(sqlite3.OperationalError):
                    db.execute(resum(table, "sum IS NULL"))
        db.execute("INSERT OR IGNORE INTO meta VALUES ('writes', 0)")
        db.execute("INSERT OR IGNORE INTO meta VALUES ('id', ?)", (os.urandom(8).hex(),))
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
