"""The journal's tables, the checks that a file is ours, and the migrations that bring an older
journal's schema up to date."""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    players INTEGER NOT NULL,
    options TEXT NOT NULL,
    position TEXT,
    started REAL NOT NULL,
    ended REAL,
    winner TEXT
);
CREATE TABLE IF NOT EXISTS events (
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (game, seq)
);
CREATE TABLE IF NOT EXISTS verdicts (
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    event INTEGER NOT NULL,
    verdict TEXT NOT NULL,
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
    for table, columns in TABLES.items():
        if table in found_tables:
            found = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
            if found != columns:
                raise sqlite3.DatabaseError(f"a foreign schema: table {table} has columns {', '.join(found)}")
