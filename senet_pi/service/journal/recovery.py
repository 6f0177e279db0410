"""Recovery from damage: what of a damaged journal can be read (gathered by `salvage`: through SQLite,
from a copy of a file cut short, and from its table pages read directly) written into a journal game by
game, with what was lost counted. Time grows with the file, memory with a batch only, and a recovery
stopped part-way goes on from where it stopped (its progress is committed with its rows)."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from threading import Event
from typing import Any

from ...errors import JournalError
from ...verdicts import parse_verdict
from .records import check_value
from .salvage import PROBE, Row, Scratch, Stopped, gather, key_of
from .schema import SCHEMA, SCHEMA_VERSION, TABLES, resum, summing, sums_ok, text_factory

__all__ = ["PROBE", "Recovery", "losses", "recover", "recover_cli", "recover_command", "recover_into", "valid"]

STEP = 25  # games copied per committed batch
TOP = 2**63 - 1  # the largest game id SQLite can hold


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


def valid(table: str, row: Row) -> bool:
    """Whether a row read back is one the journal wrote: it matches its checksum (when it has one) and
    passes the journal's own checks (its JSON decodes to what the readers expect, values in range)."""
    width = len(TABLES[table])
    stored = row[width] if len(row) > width else None
    if not sums_ok(table, row[:width], stored):
        return False
    if stored is not None and all(isinstance(v, int) for v in row[: 1 if table == "games" else 2]):
        return True  # the journal's own row, as it wrote it (checked then): the checksum says so
    return _reads_as_written(table, row)


def _reads_as_written(table: str, row: Row) -> bool:
    """Whether a row without a checksum passes the journal's checks (its JSON decodes to what the
    readers expect, values of the types it writes)."""
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


def _first_valid(table: str, rows: list[Row]) -> tuple[dict[object, Row], int]:
    """The first valid row read of each key of `table` (SQLite's read before loose pages'), by key as
    read, and how many keys have no valid row."""
    kept: dict[object, Row] = {}
    bad: set[object] = set()
    for row in rows:
        key = key_of(table, row)
        if key in kept:
            continue
        if valid(table, row):
            kept[key] = row
            bad.discard(key)
        else:
            bad.add(key)
    return kept, len(bad)


@dataclass
class _Tally:
    """A recovery's counts so far, kept with its progress in the new journal (`recovering:<aside>`)."""

    next: int = 0  # the first game id not yet looked at
    games: int = 0
    inputs: int = 0
    verdicts: int = 0
    lost_inputs: int = 0
    bad: dict[str, int] = field(default_factory=dict)  # keys of a table with no valid row
    low: int | None = None  # the lowest and highest game ids kept (a gap between is a lost game)
    high: int | None = None
    found: int = 0  # valid rows of games and events (none, no meta and no cell: not a journal)

    def add_bad(self, table: str, n: int) -> None:
        self.bad[table] = self.bad.get(table, 0) + n

    def keep(self, game: int) -> None:
        self.games += 1
        self.low = game if self.low is None else min(self.low, game)
        self.high = game if self.high is None else max(self.high, game)


def _game(
    tally: _Tally, game: int, row: Row | None, events: list[Row], verdicts: list[Row]
) -> tuple[list[Row], list[Row]]:
    """One game's inputs from its first up to the first missing one (those after it could not be
    judged in order) and the verdicts on them, counted into `tally`; nothing of a game whose own row
    is lost, its inputs counted lost."""
    tally.found += len(events) + (row is not None)
    if row is None:
        tally.lost_inputs += len(events)
        return [], []
    tally.keep(game)
    kept: list[Row] = []
    for event in events:  # in seq order
        if event[1] != len(kept):
            break
        kept.append(event)
    if events:
        tally.lost_inputs += len(events) - len(kept) + events[-1][1] + 1 - len(events)
    said = [v for v in verdicts if v[2] < len(kept)]
    tally.inputs += len(kept)
    tally.verdicts += len(said)
    return kept, said


def _next_game(scratch: Scratch, after: int) -> int | None:
    """The lowest game id gathered from `after` on, in any of the game tables (None: no more)."""
    lows = []
    for table in ("games", "events", "verdicts"):
        row = scratch.db.execute(
            "SELECT MIN(a) FROM rows WHERE tbl = ? AND a BETWEEN ? AND ?", (table, after, TOP)
        ).fetchone()
        if row[0] is not None:
            lows.append(math.floor(row[0]))
    return min(lows) if lows else None


def _copy_batch(scratch: Scratch, out: sqlite3.Connection, tally: _Tally, low: int, high: int) -> None:
    """Copy the valid rows of games `low`..`high` into `out`, with the progress, in one transaction."""
    picked = {}
    for table in ("games", "events", "verdicts"):
        picked[table], bad = _first_valid(table, scratch.rows(table, low, high))
        tally.add_bad(table, bad)
    ids = sorted({int(row[0]) for rows in picked.values() for row in rows.values()})
    games: list[Row] = []
    events: list[Row] = []
    verdicts: list[Row] = []
    by_game: dict[str, dict[int, list[Row]]] = {"events": {}, "verdicts": {}}
    for table in by_game:
        for row in picked[table].values():
            by_game[table].setdefault(row[0], []).append(row)
    for game in ids:
        found = picked["games"].get((game, 0))
        kept, said = _game(tally, game, found, by_game["events"].get(game, []), by_game["verdicts"].get(game, []))
        games += [found] if found is not None else []
        events += kept
        verdicts += said
    tally.next = high + 1
    with out:
        out.execute("BEGIN")
        for table, rows in (("games", games), ("events", events), ("verdicts", verdicts)):
            columns = [*TABLES[table], "sum"]  # a row's own checksum, which `valid` found right, kept as it is
            sql = f"INSERT OR IGNORE INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            out.executemany(sql, (row[: len(columns)] for row in rows))
            first = "id" if table == "games" else "game"
            out.execute(resum(table, f"sum IS NULL AND {first} BETWEEN ? AND ?"), (low, high))  # rows without one
        out.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (tally_key(scratch), json.dumps(tally.__dict__)))


def tally_key(scratch: Scratch) -> str:
    """The meta key a recovery's progress is kept under in the new journal."""
    return f"recovering:{scratch.aside}"


def _unkeyed(scratch: Scratch, table: str) -> int:
    """Rows gathered whose key is not a number (damage): each a row lost."""
    sql = "SELECT COUNT(*) FROM (SELECT DISTINCT a, b FROM rows WHERE tbl = ? AND typeof(a) NOT IN ('integer', 'real'))"
    return int(scratch.db.execute(sql, (table,)).fetchone()[0])


def _lost_rows(scratch: Scratch, tally: _Tally, bad_meta: int) -> int:
    """Rows of games, verdicts and bookkeeping lost: rows that fail their checks, else, when SQLite could
    not read a table through, at least one (the rows of a lost leaf page past the last one found leave
    no gap to count), or every failed read when no page of it was found; and the games between the
    first and last kept that are missing (ids are given in turn)."""
    total = 0
    for table in ("games", "verdicts", "meta"):
        bad = bad_meta if table == "meta" else tally.bad.get(table, 0) + _unkeyed(scratch, table)
        failed = int(scratch.get(f"failed:{table}", 0))
        total += bad or (min(failed, 1) if int(scratch.get(f"loose:{table}", 0)) else failed)
    if tally.low is not None and tally.high is not None:
        total += tally.high - tally.low + 1 - tally.games
    return total


def _lost_events(scratch: Scratch, tally: _Tally) -> int:
    bad = tally.bad.get("events", 0) + _unkeyed(scratch, "events")
    failed = int(scratch.get("failed:events", 0))
    return tally.lost_inputs + (bad or (min(failed, 1) if int(scratch.get("loose:events", 0)) else failed))


def recover_into(
    source: Path,
    dest: Path,
    scratch_path: Path,
    mark: dict[str, Any] | None = None,
    stop: Event | None = None,
    end_below: int | None = None,
) -> Recovery | None:
    """Copy what of the journal `source` (and its `-wal`) can be read into the journal at `dest` (open,
    perhaps in use by the service: its own games have higher ids), game by game, each batch committed
    with how far it got, so a run stopped part-way goes on from there; the rows first gathered into
    `scratch_path` (see `salvage`). None when `stop` was set before the end; sqlite3.Error or OSError
    if nothing can be read. `source` is only read; memory stays bounded by a batch. `end_below`: the
    service played on in a new game (numbered from it), so a recovered game left open is ended as abandoned."""
    scratch = Scratch(scratch_path, source.name)
    scratch.stop = stop
    out = sqlite3.connect(dest, isolation_level=None, timeout=30.0, check_same_thread=False)
    out.text_factory = text_factory
    summing(out)
    try:
        out.execute("PRAGMA synchronous=NORMAL")  # each batch and its progress commit together
        gather(source, scratch)
        row = out.execute("SELECT value FROM meta WHERE key = ?", (tally_key(scratch),)).fetchone()
        tally = _Tally(**json.loads(row[0])) if row else _Tally()
        while (low := _next_game(scratch, tally.next)) is not None:
            if stop is not None and stop.is_set():
                return None
            _copy_batch(scratch, out, tally, low, min(low + STEP - 1, TOP))
        return _finish(scratch, out, tally, mark, end_below)
    except Stopped:
        return None
    finally:
        out.close()
        scratch.close()


def _finish(
    scratch: Scratch, out: sqlite3.Connection, tally: _Tally, mark: dict[str, Any] | None, end_below: int | None
) -> Recovery:
    """The bookkeeping copied, the loss recorded (`lost:<aside>`), the games left open ended (with
    `end_below`) and the progress removed, in one transaction: the recovery is over."""
    meta, bad_meta = _first_valid("meta", scratch.rows("meta", "", "\U0010ffff"))
    meta_rows = list(meta.values())
    cells = int(scratch.get("cells", 0))
    if not tally.found and not meta_rows and not cells:
        raise sqlite3.DatabaseError("no page of it reads as a journal's")
    recovery = Recovery(
        scratch.aside,
        tally.games,
        tally.inputs,
        tally.verdicts,
        _lost_writes(meta_rows, mark),
        _lost_events(scratch, tally),
        _lost_rows(scratch, tally, bad_meta),
    )
    with out:
        out.execute("BEGIN")
        ours = [row[:2] for row in meta_rows if row[0] not in ("writes", "id", "open")]
        out.executemany("INSERT OR IGNORE INTO meta VALUES (?, ?)", ours)
        loss = (f"lost:{scratch.aside}", recovery.record(time.time()))
        out.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", loss)
        out.execute("DELETE FROM meta WHERE key = ?", (tally_key(scratch),))
        if end_below is not None:
            _end_abandoned(out, end_below)
    return recovery


def _end_abandoned(out: sqlite3.Connection, below: int) -> None:
    """End the recovered games below `below` still open (the one in progress when the damage came: a
    new game was started over it, so it is abandoned, not open for ever in the statistics), at its last
    input's time on its own clock (or its start), the rows' checksums rewritten with them."""
    ids = [int(r[0]) for r in out.execute("SELECT id FROM games WHERE id < ? AND ended IS NULL", (below,))]
    if not ids:
        return
    where = f"id IN ({', '.join(map(str, ids))})"
    last = "(SELECT ms FROM events e WHERE e.game = games.id ORDER BY seq DESC LIMIT 1) / 1000.0"
    out.execute(f"UPDATE games SET ended = started + COALESCE({last}, 0) WHERE {where}")
    out.execute(resum("games", where))


def _lost_writes(meta: list[Row], mark: dict[str, Any] | None) -> int | None:
    """Writes the `-mark` counted that the file's bookkeeping does not hold (None: no mark of its own)."""
    before = dict((row[0], row[1]) for row in meta)
    held = before.get("writes")
    if mark is not None and isinstance(held, int) and before.get("id") == mark.get("id"):
        return max(int(mark["writes"]) - held, 0)
    if mark is not None and not meta:
        return int(mark["writes"])  # not even the bookkeeping could be read
    return None


def new_journal(path: Path) -> None:
    """An empty journal file at `path` (its tables, bookkeeping and schema version), for a recovery
    to write into."""
    out = sqlite3.connect(path, isolation_level=None)
    try:
        out.execute("BEGIN")
        for statement in SCHEMA.split(";"):
            out.execute(statement)
        out.execute("INSERT INTO meta VALUES ('writes', 0)")
        out.execute("INSERT INTO meta VALUES ('id', ?)", (os.urandom(8).hex(),))
        out.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        out.execute("COMMIT")
        out.execute("PRAGMA journal_mode=WAL")
    finally:
        out.close()


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
    tmp = dest.with_name(dest.name + ".recovering")
    scratch = dest.with_name(dest.name + ".scratch")
    try:
        for stale in (tmp, scratch):
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{stale}{suffix}").unlink(missing_ok=True)
        new_journal(tmp)
        recovery = recover_into(source, tmp, scratch, mark)
        assert recovery is not None  # nothing stops it
        db = sqlite3.connect(tmp)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, dest)
    except BaseException:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)  # a disk that filled half way: nothing half-written
        raise
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{scratch}{suffix}").unlink(missing_ok=True)
    return recovery


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
