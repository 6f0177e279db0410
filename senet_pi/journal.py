"""The journal: every game's inputs and verdicts in an embedded SQLite file, written as they happen.

WAL mode with `synchronous=FULL`: each input is on disk before it is judged, so neither a
`kill -9` nor a power cut loses an accepted move. A journal that cannot be read is kept
aside under a new name and a fresh one is started, with a clear message.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import SenetError

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
"""


class JournalError(SenetError, OSError):
    """The journal file cannot be opened or written (a full disk, a read-only folder...)."""


@dataclass(frozen=True)
class GameRecord:
    """One game in the journal."""

    id: int
    variant: str
    players: int
    options: dict
    position: dict | None
    started: float
    ended: float | None
    winner: str | None
    events: int


@dataclass(frozen=True)
class EventRecord:
    """One input of a game: `ms` since the game started, the kind and its value."""

    seq: int
    ms: int
    kind: str
    value: object


def default_path() -> Path:
    """Where the journal lives unless told: `$SENET_PI_JOURNAL`, else the XDG state folder."""
    if os.environ.get("SENET_PI_JOURNAL"):
        return Path(os.environ["SENET_PI_JOURNAL"])
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return state / "senet-pi" / "journal.sqlite"


class Journal:
    """An open journal file. `damaged` holds the message when a damaged file was set aside."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.damaged: str | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            aside = self._set_aside()
            self.damaged = f"the journal {self.path} is damaged ({exc}); kept it as {aside.name} and started a new one"
            self._db = self._open()
        except OSError as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc.strerror or exc}") from None

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(check)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"written by a newer senet-pi (schema {version})")
            db.executescript(SCHEMA)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _set_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        n = 1
        while aside.exists():
            aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{n}")
            n += 1
        self.path.rename(aside)
        for suffix in ("-wal", "-shm"):
            extra = self.path.with_name(self.path.name + suffix)
            if extra.exists():
                extra.rename(aside.with_name(aside.name + suffix))
        return aside

    def _write(self, sql: str, args: tuple) -> sqlite3.Cursor:
        try:
            return self._db.execute(sql, args)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot write the journal {self.path}: {exc}") from None

    # ------------------------------------------------------------------ writing

    def start_game(self, variant: str, players: int, options: dict, position: dict | None = None) -> int:
        """Record a new game; returns its id."""
        cursor = self._write(
            "INSERT INTO games (variant, players, options, position, started) VALUES (?, ?, ?, ?, ?)",
            (variant, players, json.dumps(options), None if position is None else json.dumps(position), time.time()),
        )
        return int(cursor.lastrowid)  # type: ignore[arg-type]

    def record_event(self, game: int, seq: int, ms: int, kind: str, value: object) -> None:
        """Record one input, durably, before it is judged."""
        self._write(
            "INSERT INTO events (game, seq, ms, kind, value) VALUES (?, ?, ?, ?, ?)",
            (game, seq, ms, kind, json.dumps(value)),
        )

    def record_verdicts(self, game: int, event: int, verdicts: list[dict]) -> None:
        """Record what the referee decided on an input, in one transaction."""
        if not verdicts:
            return
        try:
            with self._db:
                self._db.execute("BEGIN")
                first = self._db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM verdicts WHERE game = ?", (game,))
                start = first.fetchone()[0]
                self._db.executemany(
                    "INSERT INTO verdicts (game, seq, event, verdict) VALUES (?, ?, ?, ?)",
                    [(game, start + i, event, json.dumps(v)) for i, v in enumerate(verdicts)],
                )
        except sqlite3.Error as exc:
            raise JournalError(f"cannot write the journal {self.path}: {exc}") from None

    def end_game(self, game: int, winner: str | None) -> None:
        """Mark a game finished (won, or abandoned for a new one when `winner` is None)."""
        self._write("UPDATE games SET ended = ?, winner = ? WHERE id = ?", (time.time(), winner, game))

    # ------------------------------------------------------------------ reading

    def games(self) -> list[GameRecord]:
        """Every game, oldest first."""
        rows = self._db.execute(
            "SELECT g.id, variant, players, options, position, started, ended, winner, "
            "(SELECT COUNT(*) FROM events e WHERE e.game = g.id) FROM games g ORDER BY g.id"
        ).fetchall()
        return [
            GameRecord(r[0], r[1], r[2], json.loads(r[3]), None if r[4] is None else json.loads(r[4]), *r[5:])
            for r in rows
        ]

    def game(self, game: int) -> GameRecord:
        """One game by id; JournalError if there is none."""
        for record in self.games():
            if record.id == game:
                return record
        raise JournalError(f"there is no game {game} in the journal {self.path}")

    def game_in_progress(self) -> GameRecord | None:
        """The newest game that has not ended, to resume on start."""
        open_games = [g for g in self.games() if g.ended is None]
        return open_games[-1] if open_games else None

    def events(self, game: int) -> list[EventRecord]:
        rows = self._db.execute("SELECT seq, ms, kind, value FROM events WHERE game = ? ORDER BY seq", (game,))
        return [EventRecord(seq, ms, kind, json.loads(value)) for seq, ms, kind, value in rows]

    def verdicts(self, game: int) -> list[dict]:
        rows = self._db.execute("SELECT verdict FROM verdicts WHERE game = ? ORDER BY seq", (game,))
        return [json.loads(v) for (v,) in rows]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
