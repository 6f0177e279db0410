"""The journal: every game's inputs and verdicts in an embedded SQLite file, written as they happen.

WAL mode with `synchronous=FULL`: each input is on disk before it is judged, so neither a
`kill -9` nor a power cut loses an accepted move. A write the disk refuses (full) is held in
memory and retried in order, so the game goes on. A journal that cannot be read or
has lost committed writes (counted in a `-mark` side file) is kept aside under a new name, and
the journal starts again from what of it is intact (`recover`): every game, each game's inputs up
to the first that cannot be read; what was lost is counted, recorded and said.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SenetError

if TYPE_CHECKING:
    from ..verdicts import Verdict

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


WAL_PAGES = 16  # the -wal is checkpointed after this many pages (SQLite's default 1000 is 4 MB)
WAL_LIMIT = 64 * 1024  # bytes the -wal is cut back to after a checkpoint
RESERVE = 96 * 1024  # bytes kept aside beside the journal (`-reserve`), given back when the disk is full:
KEEP_FOR_STOP = 32 * 1024  # all but this much while running (room for the checkpoint), the rest at a stop


class JournalError(SenetError, OSError):
    """The journal file cannot be opened or written (a full disk, a read-only folder...)."""


class UnjournalableError(SenetError, ValueError):
    """An input whose value no referee could judge again (not finite, too large, nested too deep):
    refused before it is journaled, so a resume never meets it."""


LARGEST = 2**31  # no input of any board, page or terminal counts past this (masks are 30 bits)
DEEPEST = 8  # lists in lists at most this deep (a move is [from, to, by])
LONGEST = 1000  # characters of one text value, items of one list


def check_value(value: object, depth: int = 0) -> None:
    """UnjournalableError unless `value` is JSON a referee can judge: finite numbers under LARGEST,
    short texts and lists, string keys; bool and None as they are."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if abs(value) > LARGEST:
            raise UnjournalableError(f"{str(value)[:24]} is out of range (at most {LARGEST} either way)")
    elif isinstance(value, float):
        if not math.isfinite(value) or abs(value) > LARGEST:
            raise UnjournalableError(f"{value:.3g} is out of range (a finite number, at most {LARGEST} either way)")
    elif isinstance(value, str):
        if len(value) > LONGEST:
            raise UnjournalableError(f"a text of {len(value)} characters is too long (at most {LONGEST})")
    elif isinstance(value, list | tuple | dict):
        if depth >= DEEPEST or len(value) > LONGEST:
            raise UnjournalableError(f"a value nested or listed too deeply (at most {DEEPEST} deep, {LONGEST} long)")
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise UnjournalableError("a map whose keys are not all text")
            items: Iterable[object] = [*value.keys(), *value.values()]
        else:
            items = value
        for item in items:
            check_value(item, depth + 1)
    else:
        raise UnjournalableError(f"a {type(value).__name__} is not an input value")


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


def seats_said(seats: dict[str, list[str]]) -> dict[str, str]:
    """Who held each seat, in words: {"B": "human, then computer level 3"} (`senet-pi games`, export)."""
    return {
        pid: ", then ".join(e.replace("computer ", "computer level ", 1) for e in entries)
        for pid, entries in seats.items()
    }


def default_path() -> Path:
    """Where the journal lives unless told: `$SENET_PI_JOURNAL`, else the XDG state folder."""
    if os.environ.get("SENET_PI_JOURNAL"):
        return Path(os.environ["SENET_PI_JOURNAL"])
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return state / "senet-pi" / "journal.sqlite"


#: SQLite errors that say the disk or the folder is at fault, not the file: never set aside for these.
_NOT_DAMAGE = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_BUSY")
_NOT_OURS = ("not a senet-pi journal", "a foreign schema", "written by a newer")  # set aside, nothing recovered
TABLES = {
    "games": ["id", "variant", "players", "options", "position", "started", "ended", "winner"],
    "events": ["game", "seq", "ms", "kind", "value"],
    "verdicts": ["game", "seq", "event", "verdict"],
    "meta": ["key", "value"],
}


def _text(data: bytes) -> str:
    """A TEXT column as read: a byte that is not UTF-8 (a flipped bit) is replaced, so the row reads as
    damaged (its JSON does not decode, or differs) instead of failing the whole query."""
    return data.decode("utf-8", "replace")


def _not_damage(exc: sqlite3.Error) -> bool:
    return str(getattr(exc, "sqlite_errorname", "")).startswith(_NOT_DAMAGE)


def _reason(exc: sqlite3.Error) -> str:
    return "disk full" if str(getattr(exc, "sqlite_errorname", "")) == "SQLITE_FULL" else str(exc)


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


def _salvage(db: sqlite3.Connection, table: str) -> tuple[list[tuple], int]:
    """The rows of `table` that can be read, in rowid order, and how many reads failed: a scan up to
    the first damaged page, then rows looked up one by one past it (at most PROBE misses in a row)."""
    columns = ", ".join(TABLES[table])
    rows: dict[int, tuple] = {}
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


def _salvage_all(uri: str) -> dict[str, tuple[list[tuple], int]]:
    """Every journal table's readable rows (see `_salvage`) from the database at `uri`."""
    db = sqlite3.connect(uri, uri=True)
    db.text_factory = _text
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


def recover(source: str | Path, dest: str | Path, mark: dict | None = None) -> Recovery:
    """Write a new journal at `dest` (which must not exist) with what of the journal `source` (and its
    `-wal`) can be read: every game, each game's inputs up to the first that cannot be read (a resume
    goes on from there), their verdicts, the bookkeeping. `source` is only read. `mark`: its `-mark`,
    to count the writes a damaged or lost `-wal` took. sqlite3.Error or OSError if nothing can be."""
    source, dest = Path(source), Path(dest)
    if dest.exists():
        raise OSError(f"{dest} already exists")
    try:
        found = _salvage_all(f"{source.resolve().as_uri()}?mode=ro")
    except sqlite3.DatabaseError:  # a file cut short: its header and schema name pages it lacks
        with _cut_file_opened(source, dest.parent) as uri:
            found = _salvage_all(uri)
    games, bad_games = found["games"]
    events, bad_events = found["events"]
    verdicts, bad_verdicts = found["verdicts"]
    meta, bad_meta = found["meta"]
    known = {row[0] for row in games}
    kept_events: list[tuple] = []
    last: dict[int, int] = {}  # game: the seq of its last input kept
    for game in sorted(known, key=lambda g: (not isinstance(g, int), str(g))):
        seqs = sorted((row for row in events if row[0] == game), key=lambda r: r[1])
        expected = 0
        for row in seqs:
            if row[1] != expected:
                break  # an input missing (unreadable): the ones after it cannot be judged without it
            kept_events.append(row)
            expected += 1
        last[game] = expected - 1
    lost_inputs = len(events) - len(kept_events) + bad_events
    kept_verdicts = [row for row in verdicts if row[0] in last and isinstance(row[2], int) and row[2] <= last[row[0]]]
    before = dict((row[0], row[1]) for row in meta)
    held = before.get("writes")
    lost_writes = None
    if mark is not None and isinstance(held, int) and before.get("id") == mark.get("id"):
        lost_writes = max(int(mark["writes"]) - held, 0)
    elif mark is not None and not meta:
        lost_writes = int(mark["writes"])  # not even the bookkeeping could be read
    recovery = Recovery(
        source.name,
        len(games),
        len(kept_events),
        len(kept_verdicts),
        lost_writes,
        lost_inputs,
        bad_games + bad_verdicts + bad_meta,
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
    tmp: Path, games: list, events: list, verdicts: list, meta: list, aside: str, recovery: Recovery
) -> None:
    """The recovered journal's file, written in one transaction and fsynced."""
    out = sqlite3.connect(tmp, isolation_level=None)
    try:
        out.execute("BEGIN")
        for statement in SCHEMA.split(";"):
            out.execute(statement)
        out.executemany("INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)", games)
        out.executemany("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?)", events)
        out.executemany("INSERT OR IGNORE INTO verdicts VALUES (?, ?, ?, ?)", verdicts)
        ours = [row for row in meta if row[0] not in ("writes", "id", "open")]
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


def losses(db: sqlite3.Connection) -> list[dict]:
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


class Journal:
    """An open journal file. `damaged` holds the message when a damaged file was set aside.

    Writes are queued and written in order; one that fails (a full disk) stays queued, `trouble`
    says why, and the next write or `flush()` retries, so nothing is lost and the order is kept.
    After each write a small side file, `<journal>-mark`, records how many writes the journal
    holds: a journal found holding fewer on start (a deleted or damaged `-wal`, a truncated main
    file) lost committed writes: it is set aside, and the journal starts again from what of it is
    intact (`recovery` says what was kept and lost), instead of silently resumed."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        """`readonly`: for the commands that only read (games, export): the file is opened with
        SQLite's `mode=ro` and never changed, set aside nor created; a file that is not a journal
        is a JournalError, one line."""
        self.path = Path(path)
        self.readonly = readonly
        self.damaged: str | None = None
        self.recovery: Recovery | None = None  # what was kept of a damaged journal, and what was lost
        self._unrecorded_loss = False  # a loss nothing was recovered from, to record in the new journal
        self.notice: str | None = None  # writes that may be lost though nothing looks damaged (no -wal, no -mark)
        self.trouble: str | None = None  # why the queued writes cannot be written now
        self._pending: list[list[tuple[str, tuple]]] = []
        self._verdict_seq: dict[int, int] = {}
        self._last_game = 0
        self.mark_path = self.path.with_name(self.path.name + "-mark")
        if readonly:
            self._db = self._open_readonly()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lost = self._lost_writes()
            if lost:
                self._damaged(lost)
            else:
                self.notice = self._unclean_without_evidence()
            self._db = self._open()
            self._mark_open()
            self._replay_held()
            self._keep_reserve()
        except sqlite3.DatabaseError as exc:
            if _not_damage(exc):
                raise JournalError(f"cannot open the journal {self.path}: {_reason(exc)}") from None
            self._damaged(str(exc), keep=not str(exc).startswith(_NOT_OURS))
            self._db = self._open()
        except OSError as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc.strerror or exc}") from None
        try:
            self._record_loss()
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc.strerror or exc}") from None

    def _damaged(self, why: str, keep: bool = True) -> None:
        """Set the damaged file aside (kept for inspection) and, with `keep`, start the journal again
        from what of it is intact: its games, and each game's inputs up to the first one that cannot
        be read (see `recover`)."""
        mark = self._read_mark()
        aside = self._set_aside()
        if not keep:
            self.damaged = f"the journal {self.path} is damaged ({why}); kept it as {aside.name} and started a new one"
            return
        try:
            self.recovery = recover(aside, self.path, mark)
        except (sqlite3.Error, OSError) as exc:
            with suppress(OSError):
                self.path.unlink()  # a half-written recovery: start empty instead
            # Nothing kept, all lost: counted (every write its mark counted, else at least the file), so
            # status, stats and the page say so once the new journal is open (see _record_loss).
            writes = int(mark["writes"]) if mark else None
            self.recovery = Recovery(aside.name, 0, 0, 0, writes, 0, 0 if writes else 1)
            self._unrecorded_loss = True
            self.damaged = (
                f"the journal {self.path} is damaged ({why}); kept it as {aside.name} and started a new one "
                f"(nothing could be recovered from it: {exc})"
            )
            return
        self.damaged = f"the journal {self.path} is damaged ({why}); kept it as {aside.name}; {self.recovery.said()}"

    def _open_readonly(self) -> sqlite3.Connection:
        """A connection that cannot write: `mode=ro`, and `immutable` when no `-wal` is beside the file
        (nobody has it open), so not even an empty `-wal` or `-shm` is made next to it."""
        if not self.path.is_file():
            raise JournalError(f"there is no journal at {self.path} (no game has been played with it yet)")
        quiet = "" if self.path.with_name(self.path.name + "-wal").exists() else "&immutable=1"
        try:
            db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro{quiet}", uri=True, check_same_thread=False)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open the journal {self.path} read-only: {exc}") from None
        db.text_factory = _text
        try:
            tables = self._tables(db)
            self._check_schema(db)
            if not {"games", "events", "verdicts"} <= tables:
                raise sqlite3.DatabaseError("not a senet-pi journal (it has no games, events and verdicts tables)")
        except sqlite3.Error as exc:
            db.close()
            why = str(exc)
            if not why.startswith("not a senet-pi journal"):
                why = f"not a senet-pi journal ({why})"
            raise JournalError(f"{self.path} is {why}; left as it was") from None
        return db

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.text_factory = _text
        try:
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(check)
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            # A bounded -wal: folded into the main file every WAL_PAGES pages and cut back to
            # WAL_LIMIT bytes after, so on a small partition it cannot grow into the space a full disk
            # frees and leave no room for the checkpoint that would empty it.
            db.execute(f"PRAGMA wal_autocheckpoint={WAL_PAGES}")
            db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"written by a newer senet-pi (schema {version})")
            self._check_schema(db)
            if version != SCHEMA_VERSION or not set(TABLES) <= self._tables(db):
                with db:
                    db.execute("BEGIN")
                    for statement in SCHEMA.split(";"):
                        db.execute(statement)
                    db.execute("INSERT OR IGNORE INTO meta VALUES ('writes', 0)")
                    db.execute("INSERT OR IGNORE INTO meta VALUES ('id', ?)", (os.urandom(8).hex(),))
                    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self._writes = int(db.execute("SELECT value FROM meta WHERE key = 'writes'").fetchone()[0])
            self._id = str(db.execute("SELECT value FROM meta WHERE key = 'id'").fetchone()[0])
            self._last_game = int(db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0])
        except (sqlite3.DatabaseError, TypeError, ValueError) as exc:
            db.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise
            raise sqlite3.DatabaseError(f"a damaged bookkeeping row: {exc}") from None
        return db

    @staticmethod
    def _tables(db: sqlite3.Connection) -> set[str]:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _check_schema(self, db: sqlite3.Connection) -> None:
        """DatabaseError for a file that is some other program's, or ours with other columns."""
        tables = self._tables(db)
        if tables and not tables & set(TABLES):
            raise sqlite3.DatabaseError(f"not a senet-pi journal (it has tables {', '.join(sorted(tables))})")
        for table, columns in TABLES.items():
            if table in tables:
                found = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
                if found != columns:
                    raise sqlite3.DatabaseError(f"a foreign schema: table {table} has columns {', '.join(found)}")

    def _record_loss(self) -> None:
        """A damaged journal nothing could be recovered from is still a loss on record (the meta
        table's `lost:` row, as `recover` writes when it keeps something): never "healthy" after it."""
        if not self._unrecorded_loss or self.recovery is None:
            return
        self._unrecorded_loss = False
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                (f"lost:{self.recovery.aside}", self.recovery.record(time.time())),
            )

    def _read_mark(self) -> dict | None:
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
                tables = self._tables(db)
                rows = dict(db.execute("SELECT key, value FROM meta").fetchall()) if "meta" in tables else {}
            finally:
                db.close()
        except sqlite3.DatabaseError as exc:
            if _not_damage(exc):
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
            tmp.write_text(json.dumps({"id": self._id, "writes": self._writes}), encoding="utf-8")
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

    def losses(self) -> list[dict]:
        """What damaged journals lost before this one was recovered from them (`losses`)."""
        return losses(self._db)

    def start_over(self, why: str) -> None:
        """Set this journal aside as damaged (a row the service cannot resume from) and open a new one."""
        self._db.close()
        self._pending.clear()
        self._verdict_seq.clear()
        self._damaged(why, keep=False)  # its games themselves do not decode: recovering them would not help
        self._db = self._open()
        self._mark_open()

    # ------------------------------------------------------------------ writing

    def _submit(self, unit: list[tuple[str, tuple]]) -> None:
        self._pending.append([*unit, ("UPDATE meta SET value = value + 1 WHERE key = 'writes'", ())])
        self.flush()

    def flush(self) -> bool:
        """Write the queued writes, in order, each in its own transaction; True when none is left.
        A failure keeps the write queued and sets `trouble`; nothing raises."""
        checkpointed = False
        while self._pending:
            unit = self._pending[0]
            try:
                with self._db:
                    self._db.execute("BEGIN")
                    for sql, args in unit:
                        self._db.execute(sql, args)
            except sqlite3.Error as exc:
                try:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    if not checkpointed and _reason(exc) == "disk full":
                        # The -wal may be what fills the disk: give back the reserve, so there is room
                        # to fold the -wal into the main file and truncate it, then try once more.
                        checkpointed = True
                        self._release_reserve()
                        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                        continue
                except sqlite3.Error:
                    pass
                self.trouble = f"journal cannot write: {_reason(exc)} ({len(self._pending)} writes held in memory)"
                return False
            self._pending.pop(0)
            self._writes += 1
            self._write_mark()
        if self.trouble is not None or checkpointed:
            self._keep_reserve()  # space came back: keep the reserve again for the next full disk
        self.trouble = None
        return True

    @property
    def pending(self) -> int:
        """Writes held in memory, waiting for the disk."""
        return len(self._pending)

    def start_game(
        self, variant: str, players: int, options: dict, position: dict | None = None, started: float | None = None
    ) -> int:
        """Record a new game; returns its id (chosen here, so a queued write still has one). `started`:
        when it began, if not now (a game carried on from one that could not be resumed)."""
        self._last_game += 1
        game = self._last_game
        self._verdict_seq[game] = 0
        self._submit(
            [
                (
                    "INSERT INTO games (id, variant, players, options, position, started) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        game,
                        variant,
                        players,
                        json.dumps(options),
                        None if position is None else json.dumps(position),
                        time.time() if started is None else started,
                    ),
                )
            ]
        )
        return game

    def record_event(self, game: int, seq: int, ms: int, kind: str, value: object) -> None:
        """Record one input, durably, before it is judged (queued if the disk refuses it).
        UnjournalableError, and nothing written, for a value no referee could judge (`check_value`)."""
        check_value(value)
        if not isinstance(ms, int) or abs(ms) > 2**53:
            raise UnjournalableError(f"an input at {ms!r} ms is out of range")
        self._submit(
            [
                (
                    "INSERT INTO events (game, seq, ms, kind, value) VALUES (?, ?, ?, ?, ?)",
                    (game, seq, ms, kind, json.dumps(value, allow_nan=False)),
                )
            ]
        )

    def record_verdicts(self, game: int, event: int, verdicts: Sequence[Verdict]) -> None:
        """Record what the referee decided on an input, in one transaction, in the verdicts' JSON form."""
        if not verdicts:
            return
        if game not in self._verdict_seq:
            first = self._db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM verdicts WHERE game = ?", (game,))
            self._verdict_seq[game] = int(first.fetchone()[0])
        start = self._verdict_seq[game]
        self._verdict_seq[game] = start + len(verdicts)
        sql = "INSERT INTO verdicts (game, seq, event, verdict) VALUES (?, ?, ?, ?)"
        self._submit([(sql, (game, start + i, event, json.dumps(v.json()))) for i, v in enumerate(verdicts)])

    def end_game(self, game: int, winner: str | None) -> None:
        """Mark a game finished (won, or abandoned for a new one when `winner` is None). Ending it again
        with the same outcome (a new game after a win) keeps the first end, so a win's time stays its own."""
        sql = "UPDATE games SET ended = ?, winner = ? WHERE id = ? AND (ended IS NULL OR winner IS NOT ?)"
        self._submit([(sql, (time.time(), winner, game, winner))])

    def shift_time(self, game: int, column: str, delta: float) -> None:
        """Move a game's `started` or `ended` by `delta` seconds: it was written by a wall clock that
        was then set (a Pi without a real-time clock, at boot), and the service knows by how much."""
        if column not in ("started", "ended"):
            raise ValueError(f"not a time column: {column}")
        sql = f"UPDATE games SET {column} = {column} + ? WHERE id = ? AND {column} IS NOT NULL"
        self._submit([(sql, (delta, game))])

    def record_note(self, key: str, text: str) -> None:
        """Keep a finding about the journal (a game that could not be resumed, a record that differs
        from its re-judging) in its meta table as `note:<key>`, for `senet-pi status` to show."""
        self._submit([("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (f"note:{key}", text))])

    def record_carried(self, old: int, new: int) -> None:
        """Keep that game `new` is game `old` carried on past an input a resume could not judge (its
        inputs until then copied): the statistics count the two as one game, resumed."""
        self._submit([("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (f"carried:{old}", str(new)))])

    def record_pending_date(self, game: int, column: str, boot: str, mono: float) -> None:
        """Keep, beside a game's `started` or `ended` written while the wall clock was not known to be
        set, the boot and monotonic time it was written at: `senet_pi.service.dates` puts it right later."""
        value = json.dumps({"boot": boot, "mono": mono})
        self._submit([("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (f"pending:{game}:{column}", value))])

    def pending_dates(self) -> list[tuple[int, str, str, float, float | None]]:
        """The dates kept by `record_pending_date`: (game, column, boot, monotonic time, the date as written)."""
        rows = self._db.execute("SELECT key, value FROM meta WHERE key LIKE 'pending:%' ORDER BY rowid").fetchall()
        out = []
        for key, value in rows:
            try:
                _, game, column = str(key).split(":")
                said = json.loads(value)
                boot, mono = str(said["boot"]), float(said["mono"])
            except (ValueError, TypeError, KeyError):
                continue  # not ours: left alone
            if column not in ("started", "ended") or not game.isdigit():
                continue
            row = self._db.execute(f"SELECT {column} FROM games WHERE id = ?", (int(game),)).fetchone()
            out.append((int(game), column, boot, mono, None if row is None or row[0] is None else float(row[0])))
        return out

    def settle_date(self, game: int, column: str, value: float | None, undated: bool = False) -> None:
        """A pending date worked out: set to `value` (None: left as written), or `undated` (it cannot be
        known: shown as unknown rather than wrong). Its pending record goes."""
        if column not in ("started", "ended"):
            raise ValueError(f"not a time column: {column}")
        unit: list[tuple[str, tuple]] = [("DELETE FROM meta WHERE key = ?", (f"pending:{game}:{column}",))]
        if value is not None:
            unit.append((f"UPDATE games SET {column} = ? WHERE id = ?", (value, game)))
        if undated:
            unit.append(("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (f"undated:{game}:{column}",)))
        self._submit(unit)

    def correct_pending(self, game: int, column: str, value: float) -> None:
        """A pending date moved with the clock of its own boot (still pending: not yet known set)."""
        if column not in ("started", "ended"):
            raise ValueError(f"not a time column: {column}")
        self._submit([(f"UPDATE games SET {column} = ? WHERE id = ?", (value, game))])

    def meta_keys(self, prefix: str) -> list[str]:
        """The meta table's keys that start with `prefix` (its own records: notes, dates, resumes)."""
        try:
            rows = self._db.execute("SELECT key FROM meta WHERE substr(key, 1, ?) = ?", (len(prefix), prefix))
            return [str(r[0]) for r in rows.fetchall()]
        except sqlite3.Error:  # an older journal without a meta table: none
            return []

    def notes(self) -> dict[str, str]:
        """The findings kept by `record_note`, by key."""
        rows = self._db.execute("SELECT key, value FROM meta WHERE key LIKE 'note:%' ORDER BY rowid").fetchall()
        return {str(k)[5:]: str(v) for k, v in rows}

    def record_seats(self, game: int, seats: dict[str, list[str]]) -> None:
        """Who held each seat of a game: {"A": ["human"], "B": ["human", "computer 3"]},
        in order when it changed during the game; kept in the meta table as `seats:<game>`."""
        self._submit([("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (f"seats:{game}", json.dumps(seats)))])

    def seats(self, game: int) -> dict[str, list[str]] | None:
        """What `record_seats` kept for a game, or None (nobody recorded: every seat a person's)."""
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (f"seats:{game}",)).fetchone()
        except sqlite3.OperationalError:  # a journal without a meta table: nothing recorded
            return None
        if row is None:
            return None
        with self._reading("meta"):
            data = json.loads(row[0])
            if not isinstance(data, dict) or not all(
                isinstance(v, list) and all(isinstance(e, str) for e in v) for v in data.values()
            ):
                raise ValueError(f"seats of game {game} are not a map of lists of names")
            return {str(k): list(v) for k, v in data.items()}

    # ------------------------------------------------------------------ reading

    def games(self) -> list[GameRecord]:
        """Every game, oldest first; JournalError names a damaged row."""
        with self._reading("games"):
            rows = self._db.execute(
                "SELECT g.id, variant, players, options, position, started, ended, winner, "
                "(SELECT COUNT(*) FROM events e WHERE e.game = g.id) FROM games g ORDER BY g.id"
            ).fetchall()
            return [
                GameRecord(r[0], r[1], r[2], json.loads(r[3]), None if r[4] is None else json.loads(r[4]), *r[5:])
                for r in rows
            ]

    @contextmanager
    def _reading(self, table: str) -> Iterator[None]:
        """A row that does not decode is damage: JournalError, one line, instead of a traceback."""
        try:
            yield
        except (ValueError, TypeError, RecursionError) as exc:
            raise JournalError(f"the journal {self.path} has a damaged row in {table}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            if not self.readonly:
                raise
            raise JournalError(f"cannot read {table} in the journal {self.path}: {exc}") from None

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
        """A game's inputs in order; JournalError names a damaged row."""
        with self._reading("events"):
            rows = self._db.execute("SELECT seq, ms, kind, value FROM events WHERE game = ? ORDER BY seq", (game,))
            return [EventRecord(int(seq), int(ms), str(kind), json.loads(value)) for seq, ms, kind, value in rows]

    def readable_events(self, game: int) -> tuple[list[EventRecord], str | None]:
        """A game's inputs in order up to the first row that does not decode, or holds a value out of
        range (`check_value`: one journaled before the ranges were checked), and why that row does
        not (None when every row decodes): a resume goes as far as the record can be read."""
        rows = self._db.execute("SELECT seq, ms, kind, value FROM events WHERE game = ? ORDER BY seq", (game,))
        events: list[EventRecord] = []
        for seq, ms, kind, value in rows.fetchall():
            try:
                decoded = json.loads(value)
                check_value(decoded)
                events.append(EventRecord(int(seq), int(ms), str(kind), decoded))
            except (ValueError, TypeError, RecursionError) as exc:
                return events, f"input {len(events) + 1} is a damaged row: {type(exc).__name__}: {exc}"
        return events, None

    def verdicts_by_event(self, game: int) -> dict[int, list[object]]:
        """A game's journaled verdicts grouped by the input (seq) that gave them; a row that does not
        decode is kept as its text, so it compares unequal to any re-judged verdict."""
        out: dict[int, list[object]] = {}
        rows = self._db.execute("SELECT event, verdict FROM verdicts WHERE game = ? ORDER BY seq", (game,))
        for event, text in rows.fetchall():
            try:
                verdict: object = json.loads(text)
            except (ValueError, TypeError, RecursionError):
                verdict = text
            out.setdefault(int(event), []).append(verdict)
        return out

    def verdicts(self, game: int) -> list[dict]:
        """A game's verdicts in order; JournalError names a damaged row."""
        with self._reading("verdicts"):
            rows = self._db.execute("SELECT verdict FROM verdicts WHERE game = ? ORDER BY seq", (game,))
            return [json.loads(v) for (v,) in rows]

    def close(self) -> None:
        """Write what is queued if the disk lets us, then close; JournalError if writes stay unsaved."""
        self.flush()
        if self._pending:  # the disk is full at a clean stop: the reserve's last room keeps them
            while self._release_reserve(stopping=True):
                pass
            if self._save_held():
                self._pending.clear()  # kept in <journal>-held, written into the journal at the next start
        if not self._pending and not self.readonly:
            with suppress(sqlite3.Error):
                self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('open', 0)")
        self._db.close()
        if self._pending:
            raise JournalError(f"{self.trouble}: {len(self._pending)} writes of this session are lost")

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
