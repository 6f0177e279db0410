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
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from time import monotonic  # by name: tests stand in a wall clock for this module's `time`
from typing import TYPE_CHECKING, Any

from ... import __version__
from ...errors import JournalError, UnjournalableError
from . import aside as asides
from .check import check_in_background, forget_damage, found_damage, small
from .reading import Reading
from .records import (
    DEEPEST,
    LARGEST,
    LONGEST,
    EventRecord,
    GameRecord,
    check_value,
    default_path,
    seats_said,
)
from .recovery import PROBE, Recovery, losses, recover, recover_cli, recover_command, recover_into, valid
from .schema import (
    NOT_OURS,
    SCHEMA,
    SCHEMA_VERSION,
    TABLES,
    check_schema,
    file_schema,
    keep_before_migration,
    migrate,
    not_damage,
    reason,
    resum,
    summing,
    tables,
    text_factory,
    written_by,
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
HISTORY_READ = 2.0  # seconds between two readings of the set-aside record for the page's state


class Journal(SideFiles, Reading):
    """An open journal file. `damaged` holds the message when a damaged file was set aside.

    Writes are queued and written in order; one that fails (a full disk) stays queued, `trouble`
    says why, and the next write or `flush()` retries, so nothing is lost and the order is kept.
    After each write a small side file, `<journal>-mark`, records how many writes the journal
    holds: a journal found holding fewer on start (a deleted or damaged `-wal`, a truncated main
    file) lost committed writes: it is set aside, and the journal starts again from what of it is
    intact (`recovery` says what was kept and lost), instead of silently resumed."""

    def __init__(self, path: str | Path, *, readonly: bool = False, background: bool = False) -> None:
        """`readonly`: for the commands that only read (games, export): the file is opened with
        SQLite's `mode=ro` and never changed, set aside nor created; a file that is not a journal
        is a JournalError, one line. `background`: a damaged journal's games are recovered in a
        thread at low priority while the new journal is in use (the service), not before this returns."""
        self.path = Path(path)
        self.readonly = readonly
        self.background = background
        self._stop_recovery = threading.Event()
        self._recovering: threading.Thread | None = None
        self.recovery_failed: str | None = None  # why the last recovery tried could not finish
        self.migrated: str | None = None  # a schema brought up to date, and where the copy before is kept
        self._history: tuple[float, list[str], list[str]] | None = None  # when read, the lines, the names
        self.damaged: str | None = None
        self.recovery: Recovery | None = None  # what was kept of a damaged journal, and what was lost
        self.notice: str | None = None  # writes that may be lost though nothing looks damaged (no -wal, no -mark)
        self.trouble: str | None = None  # why the queued writes cannot be written now
        self._pending: list[list[tuple[str, tuple[Any, ...]]]] = []
        self._verdict_seq: dict[int, int] = {}
        self._last_game = 0
        self.mark_path = self.path.with_name(self.path.name + "-mark")
        self._refuse_newer()  # before anything, reading too: a newer release's journal is left exactly as it is
        if readonly:
            self._db = self._open_readonly()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lost = self._lost_writes()
            marked = found_damage(self.path) if self.path.exists() else None
            if marked:  # what a check found while it ran, or `senet-pi journal check`
                self._damaged(f"a check found it damaged: {marked}")
                forget_damage(self.path)
            elif lost:
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
        if background and not small(self.path):  # checked whole while the board plays, not before
            check_in_background(self.path, self._stop_recovery)
        try:
            self._recover_pending()
        except (OSError, sqlite3.Error) as exc:
            said = exc.strerror if isinstance(exc, OSError) else None
            raise JournalError(f"cannot open the journal {self.path}: {said or exc}") from None

    def _refuse_newer(self) -> None:
        """JournalError, the file untouched (nothing opened for writing, nothing made beside it), for a
        journal a newer release wrote: this one cannot read it, and setting it aside would hide it."""
        version = file_schema(self.path)
        if version <= SCHEMA_VERSION:
            return
        who = written_by(self.path) or f"a newer release (schema {version})"
        raise JournalError(
            f"the journal {self.path} was written by senet-pi {who}, newer than this {__version__} (schema "
            f"{SCHEMA_VERSION}): update senet-pi, or restore the copy kept when it was updated "
            f"({self.path.name}.schema-{SCHEMA_VERSION}) in its place; the journal is left as it is"
        )

    def _damaged(self, why: str, keep: bool = True) -> None:
        """Set the damaged file aside (kept for inspection) and, with `keep`, record it in
        `<journal>-aside` (durably, before anything else) for its games to be recovered into the new
        journal: each game, with its inputs up to the first one that cannot be read (see `recover_into`)."""
        mark = self._read_mark()
        aside = self._set_aside()
        if not keep:
            self.damaged = f"the journal {self.path} is damaged ({why}); kept it as {aside.name} and started a new one"
            return
        entry = {
            "aside": aside.name,
            "why": why,
            "when": time.time(),
            "first": asides.first_free_game(aside, mark),
            "mark": mark,
        }
        try:
            asides.update(self.path, aside.name, entry)
        except OSError as exc:
            raise JournalError(f"cannot record the damaged journal {aside.name} set aside: {exc.strerror}") from None
        self.damaged = f"the journal {self.path} is damaged ({why}); kept it as {aside.name}"

    def _recover_pending(self) -> None:
        """Go on with the recovery of every journal set aside and not yet recovered: now, or (the
        service) in a thread at low priority, the new journal's games numbered above the old ones'."""
        if not asides.pending(self.path):
            return
        if self.background:
            self._number_above_pending()
            if self._recovering is None:
                self._recovering = threading.Thread(target=self._recover_all, name="senet-pi recovery", daemon=True)
                self._recovering.start()
            if self.damaged:
                self.damaged += "; its games are recovered in the background while a new game is played"
            return
        self._recover_all()
        self._last_game = int(self._db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0])
        self._number_above_pending()
        if self.damaged and self.recovery is not None:
            self.damaged += f"; {self.recovery.said()}"

    def _number_above_pending(self) -> None:
        """New games numbered above every game of a journal still to be recovered."""
        for entry in asides.pending(self.path):
            first = entry.get("first", 1)
            self._last_game = max(self._last_game, (first if isinstance(first, int) else 1) - 1)

    def _recover_all(self) -> None:
        """Recover each journal set aside in turn (in the background: at the lowest priority)."""
        if self.background:
            with suppress(OSError, AttributeError):
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        try:
            for entry in asides.pending(self.path):
                if self._stop_recovery.is_set() or not self._recover_one(entry):
                    return
        except Exception as exc:  # a bug of ours: said where the history is said to be out, never lost
            self.recovery_failed = f"it stopped on an internal error ({type(exc).__name__}: {exc})"
            if not self.background:
                raise
        finally:
            self._history = None  # read afresh next time

    def _recover_one(self, entry: dict[str, Any]) -> bool:
        """Recover one journal set aside; False when stopped or it failed (its entry then stays)."""
        name = str(entry["aside"])
        source = self.path.with_name(name)
        mark = entry.get("mark") if isinstance(entry.get("mark"), dict) else None
        scratch = asides.scratch_path(self.path, name)
        if not source.is_file():
            self.recovery_failed = f"{name} is not there any more (moved or removed by hand)"
            return False
        try:
            # in the background a new game began at once: the game the damage stopped is abandoned
            first = entry.get("first")
            end_below = first if self.background and isinstance(first, int) else None
            recovery = recover_into(source, self.path, scratch, mark, self._stop_recovery, end_below)
        except sqlite3.DatabaseError as exc:
            if not_damage(exc):
                self.recovery_failed = f"cannot recover {name}: {reason(exc)}"
                return False
            recovery = self._nothing_recovered(name, mark, exc)
        except (sqlite3.Error, OSError) as exc:
            said = exc.strerror if isinstance(exc, OSError) else reason(exc)
            self.recovery_failed = f"cannot recover {name}: {said}"
            return False
        if recovery is None:
            return False  # stopped: the next start goes on from here
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{scratch}{suffix}").unlink(missing_ok=True)
        asides.update(self.path, name, None)
        self.recovery = recovery
        return True

    def _nothing_recovered(self, name: str, mark: dict[str, Any] | None, exc: Exception) -> Recovery:
        """Nothing kept, all lost: counted (every write its mark counted, else at least the file), so
        status, stats and the page say so (its `lost:` row, as a recovery that keeps something writes)."""
        writes = int(mark["writes"]) if mark else None
        recovery = Recovery(name, 0, 0, 0, writes, 0, 0 if writes else 1)
        db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
        try:
            with db:
                db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"lost:{name}", recovery.record(time.time())))
        finally:
            db.close()
        if self.damaged:
            self.damaged = self.damaged.replace(f"kept it as {name}", f"kept it as {name} and started a new one")
            self.damaged += f" (nothing could be recovered from it: {exc})"
        return recovery

    def history_out(self) -> list[str]:
        """One line for each journal set aside whose history is not back yet (empty: all is there)."""
        return list(self._history_read()[1])

    def set_aside(self) -> list[str]:
        """The names of the journals set aside whose history is not back yet (for the staff panel)."""
        return list(self._history_read()[2])

    def _history_read(self) -> tuple[float, list[str], list[str]]:
        """Read from the side files at most every HISTORY_READ seconds (the page's state asks often)."""
        now = monotonic()
        if self._history is None or now - self._history[0] >= HISTORY_READ:
            entries = asides.pending(self.path)
            self._history = (now, self._history_lines(entries), [str(e["aside"]) for e in entries])
        return self._history

    def _history_lines(self, entries: list[asides.Entry]) -> list[str]:
        lines = []
        found = found_damage(self.path)
        if found:
            lines.append(f"the journal is damaged ({found}): restart the service to set it aside and recover it")
        for entry in entries:
            done = self.recovery_failed or "being recovered in the background"
            lines.append(f"history out of service: the damaged journal {entry['aside']} is set aside, {done}")
        return lines

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
        before = file_schema(self.path)  # an older schema: copied as it is, before anything changes it
        kept = keep_before_migration(self.path, before) if 0 < before < SCHEMA_VERSION else None
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.text_factory = text_factory
        summing(db)
        try:
            # Whole only while small: a start's cost does not grow with the journal (see `check`).
            check = db.execute("PRAGMA quick_check").fetchone()[0] if small(self.path) else "ok"
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
                if kept is not None:
                    self.migrated = (
                        f"the journal was brought from schema {version} to {SCHEMA_VERSION}; a copy the release "
                        f"before reads is kept as {kept} (to go back to it: stop the service, put the copy in "
                        "place of the journal)"
                    )
            db.execute("INSERT OR REPLACE INTO meta VALUES ('written_by', ?)", (__version__,))
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

    def start_over(self, why: str) -> None:
        """Set this journal aside as damaged (a row the service cannot resume from) and open a new one
        with what of it passes the checks (see `recover`)."""
        self._db.close()
        self._pending.clear()
        self._verdict_seq.clear()
        self._damaged(why)  # a recovery keeps the games that pass its checks and leaves out the rest
        self._db = self._open()
        self._mark_open()
        self._recover_pending()

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
        """Write what is queued if the disk lets us, then close; JournalError if writes stay unsaved.
        A recovery in the background stops after its batch (the next start goes on with it)."""
        self._stop_recovery.set()
        if self._recovering is not None:
            self._recovering.join()
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
