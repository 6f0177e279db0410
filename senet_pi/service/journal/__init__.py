"""The journal: every game's inputs and verdicts in an embedded SQLite file, written as they happen.

WAL mode with `synchronous=FULL`: each input is on disk before it is judged, so neither a
`kill -9` nor a power cut loses an accepted move. A write the disk refuses (full) is held in
memory and retried in order, so the game goes on. A journal that cannot be read or
has lost committed writes (counted in a `-mark` side file) is kept aside under a new name, and
the journal starts again from what of it is intact (`recover`): every game, each game's inputs up
to the first that cannot be read; what was lost is counted, recorded and said.

This module opens the journal and writes it; beside it: `records` (what it holds and the values it
takes), `schema` (its tables and migrations), `reading`, `sidefiles` (the `-mark`, `-reserve` and
`-held` files) and `recovery` (what is kept of a damaged file).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import JournalError, UnjournalableError
from .reading import Reading
from .records import DEEPEST, LARGEST, LONGEST, EventRecord, GameRecord, check_value, default_path, seats_said
from .recovery import PROBE, Recovery, losses, recover, recover_cli, recover_command, valid
from .schema import (
    NOT_OURS,
    SCHEMA,
    SCHEMA_VERSION,
    TABLES,
    check_schema,
    migrate,
    not_damage,
    reason,
    resum,
    summing,
    tables,
    text_factory,
)
from .sidefiles import KEEP_FOR_STOP, RESERVE, SideFiles

if TYPE_CHECKING:
    from ...verdicts import Verdict

__all__ = [
    "DEEPEST",
    "KEEP_FOR_STOP",
    "LARGEST",
    "LONGEST",
    "PROBE",
    "RESERVE",
    "SCHEMA",
    "SCHEMA_VERSION",
    "TABLES",
    "EventRecord",
    "GameRecord",
    "Journal",
    "JournalError",
    "Recovery",
    "UnjournalableError",
    "check_value",
    "default_path",
    "losses",
    "recover",
    "recover_cli",
    "recover_command",
    "seats_said",
]

WAL_PAGES = 16  # the -wal is checkpointed after this many pages (SQLite's default 1000 is 4 MB)
WAL_LIMIT = 64 * 1024  # bytes the -wal is cut back to after a checkpoint


class Journal(SideFiles, Reading):
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
        self._pending: list[list[tuple[str, tuple[Any, ...]]]] = []
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
            if not_damage(exc):
                raise JournalError(f"cannot open the journal {self.path}: {reason(exc)}") from None
            self._damaged(str(exc), keep=not str(exc).startswith(NOT_OURS))
            self._db = self._open()
        except OSError as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc.strerror or exc}") from None
        try:
            self._record_loss()
        except (OSError, sqlite3.Error) as exc:
            said = exc.strerror if isinstance(exc, OSError) else None
            raise JournalError(f"cannot open the journal {self.path}: {said or exc}") from None

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
        db.text_factory = text_factory
        try:
            found = tables(db)
            check_schema(db)
            if not {"games", "events", "verdicts"} <= found:
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
        db.text_factory = text_factory
        summing(db)
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
            check_schema(db)
            if version != SCHEMA_VERSION or not set(TABLES) <= tables(db):
                migrate(db, version)
            self._writes = int(db.execute("SELECT value FROM meta WHERE key = 'writes'").fetchone()[0])
            self._id = str(db.execute("SELECT value FROM meta WHERE key = 'id'").fetchone()[0])
            self._last_game = int(db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0])
            # One row per game, read by every start: a damaged one is found here, so the recovery keeps
            # the others and the game in progress resumes (a damaged input is found by the resume).
            for row in db.execute(f"SELECT {', '.join(TABLES['games'])}, sum FROM games"):
                if not valid("games", row):
                    raise sqlite3.DatabaseError(
                        f"game {row[0]} is a damaged row (it does not decode or match its checksum)"
                    )
        except (sqlite3.DatabaseError, TypeError, ValueError) as exc:
            db.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise
            raise sqlite3.DatabaseError(f"a damaged bookkeeping row: {exc}") from None
        return db

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

    def start_over(self, why: str) -> None:
        """Set this journal aside as damaged (a row the service cannot resume from) and open a new one
        with what of it passes the checks (see `recover`)."""
        self._db.close()
        self._pending.clear()
        self._verdict_seq.clear()
        self._damaged(why)  # a recovery keeps the games that pass its checks and leaves out the rest
        self._db = self._open()
        self._mark_open()

    # ------------------------------------------------------------------ writing

    def _submit(self, unit: list[tuple[str, tuple[Any, ...]]]) -> None:
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
                    if not checkpointed and reason(exc) == "disk full":
                        # The -wal may be what fills the disk: give back the reserve, so there is room
                        # to fold the -wal into the main file and truncate it, then try once more.
                        checkpointed = True
                        self._release_reserve()
                        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                        continue
                except sqlite3.Error:
                    pass
                self.trouble = f"journal cannot write: {reason(exc)} ({len(self._pending)} writes held in memory)"
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
        self,
        variant: str,
        players: int,
        options: dict[str, Any],
        position: dict[str, Any] | None = None,
        started: float | None = None,
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
                ),
                (resum("games", "id = ?"), (game,)),
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
                ),
                (resum("events", "game = ? AND seq = ?"), (game, seq)),
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
        unit: list[tuple[str, tuple[Any, ...]]] = [
            (sql, (game, start + i, event, json.dumps(v.json()))) for i, v in enumerate(verdicts)
        ]
        unit.append((resum("verdicts", "game = ? AND seq BETWEEN ? AND ?"), (game, start, start + len(verdicts) - 1)))
        self._submit(unit)

    def end_game(self, game: int, winner: str | None) -> None:
        """Mark a game finished (won, or abandoned for a new one when `winner` is None). Ending it again
        with the same outcome (a new game after a win) keeps the first end, so a win's time stays its own."""
        sql = "UPDATE games SET ended = ?, winner = ? WHERE id = ? AND (ended IS NULL OR winner IS NOT ?)"
        self._submit([(sql, (time.time(), winner, game, winner)), (resum("games", "id = ?"), (game,))])

    def shift_time(self, game: int, column: str, delta: float) -> None:
        """Move a game's `started` or `ended` by `delta` seconds: it was written by a wall clock that
        was then set (a Pi without a real-time clock, at boot), and the service knows by how much."""
        if column not in ("started", "ended"):
            raise ValueError(f"not a time column: {column}")
        sql = f"UPDATE games SET {column} = {column} + ? WHERE id = ? AND {column} IS NOT NULL"
        self._submit([(sql, (delta, game)), (resum("games", "id = ?"), (game,))])

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

    def settle_date(self, game: int, column: str, value: float | None, undated: bool = False) -> None:
        """A pending date worked out: set to `value` (None: left as written), or `undated` (it cannot be
        known: shown as unknown rather than wrong). Its pending record goes."""
        if column not in ("started", "ended"):
            raise ValueError(f"not a time column: {column}")
        unit: list[tuple[str, tuple[Any, ...]]] = [("DELETE FROM meta WHERE key = ?", (f"pending:{game}:{column}",))]
        if value is not None:
            unit += [
                (f"UPDATE games SET {column} = ? WHERE id = ?", (value, game)),
                (resum("games", "id = ?"), (game,)),
            ]
        if undated:
            unit.append(("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (f"undated:{game}:{column}",)))
        self._submit(unit)

    def correct_pending(self, game: int, column: str, value: float) -> None:
        """A pending date moved with the clock of its own boot (still pending: not yet known set)."""
        if column not in ("started", "ended"):
            raise ValueError(f"not a time column: {column}")
        self._submit(
            [(f"UPDATE games SET {column} = ? WHERE id = ?", (value, game)), (resum("games", "id = ?"), (game,))]
        )

    def record_seats(self, game: int, seats: dict[str, list[str]]) -> None:
        """Who held each seat of a game: {"A": ["human"], "B": ["human", "computer 3"]},
        in order when it changed during the game; kept in the meta table as `seats:<game>`."""
        self._submit([("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (f"seats:{game}", json.dumps(seats)))])

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
