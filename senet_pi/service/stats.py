"""Statistics for staff: games started, finished, abandoned and open, durations, warnings and switch
faults, per day, computed from the journal alone.

The journal is opened read-only on a connection of its own (SQLite's WAL lets it be read while
the service writes) and counted in SQL. Verdicts are only ever appended, so a process counts each
one once: the first reading of a large journal scans it (see benchmarks/bench_stats.py), the
next ones only what was added since.

- A game's day is the day it started, in the machine's local time (SQLite's `localtime`, i.e.
  the TZ the Pi is set to: no setting of ours). A game past midnight counts on the day it began.
- finished: ended with a winner; abandoned: ended without one (a new game was started over it);
  open: not ended (the game on the board, or one left by a power cut and not resumed).
- durations: of finished games, from their start to their win, in seconds of wall time.
- warnings: the referee's `illegal` verdicts (a wrong board, a refused throw or move).
- switch faults: the referee's `switch` verdicts that judge a switch faulty (stuck open or
  closed; the square is then judged unknown). A chattering switch reported by the scanner is a
  note shown on the page but not journaled, so it is not counted here.
- resumed: a game the service could not resume past some input after a restart goes on as a new
  record with its inputs until then copied; the two records are one game, counted once
  (as the record that goes on: its start is the first's, its warnings include the copied ones),
  and `resumed` says how many of a day's games went on so.
"""

from __future__ import annotations

import csv
import io
import sqlite3
import statistics
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

from .. import __version__
from ..errors import StatsError
from ..rules.text import Text
from .dates import out_of_order
from .journal import Journal, losses
from .journal.schema import SCHEMA_VERSION, file_schema, ours, written_by

#: The day of games whose date was written before the clock was set and cannot be worked out.
UNKNOWN_DAY = "unknown"


@dataclass(frozen=True)
class DayStats:
    """One day's games (by the day they started, local time)."""

    date: str  # YYYY-MM-DD
    started: int
    finished: int
    abandoned: int
    open: int
    median_duration_s: float | None  # of finished games; None when none finished
    mean_duration_s: float | None
    warnings: int  # illegal verdicts in the day's games
    warnings_per_game: float  # warnings / games started
    switch_faults: int  # switches judged faulty in the day's games
    resumed: int = 0  # of the games started, those carried on past an input a resume could not judge
    lost: int = 0  # writes or inputs a damaged journal lost, by the day it was recovered (see journal.recover)


COLUMNS = [f.name for f in fields(DayStats)]

#: Warnings and switch faults per game among the verdicts added since `rowid` ?. The instr filters
#: skip the JSON parse for the many verdicts that are neither (moves, turns, throws, prompts).
_MARKS = """
SELECT game,
    SUM(json_extract(verdict, '$.v') = 'illegal'),
    SUM(json_extract(verdict, '$.v') = 'switch' AND json_extract(verdict, '$.fault') IS NOT NULL)
FROM verdicts
WHERE rowid > ? AND rowid <= ? AND (instr(verdict, '"v": "illegal"') OR instr(verdict, '"v": "switch"'))
GROUP BY game
"""

#: A finished game's length is its last input's time on the game's own clock (`events.ms`: monotonic,
#: carried over restarts), not `ended - started`, which a wall clock set at boot on a Pi without a
#: real-time clock can make years long; a game without inputs falls back to the wall clock.
_GAMES = """
SELECT id, date(started, 'unixepoch', 'localtime'), ended IS NOT NULL, winner IS NOT NULL, started,
    CASE WHEN winner IS NOT NULL THEN COALESCE(
        (SELECT ms FROM events e WHERE e.game = g.id ORDER BY seq DESC LIMIT 1) / 1000.0, ended - started) END
FROM games g ORDER BY id
"""


@dataclass
class _Tally:
    """The verdicts of one journal counted so far: rows are only ever appended, so each reading
    counts only those added since the last (a month of games is read once, not at every visit)."""

    journal_id: str
    last_rowid: int = 0
    marks: dict[int, list[int]] = field(default_factory=dict)  # game: [warnings, switch faults]


_tallies: dict[Path, _Tally] = {}
_tally_lock = threading.Lock()


def _connect(path: Path) -> sqlite3.Connection:
    """A read-only connection to the journal at `path`; StatsError when it is missing or not ours."""
    if not path.is_file():
        raise StatsError(Text("there is no journal at {path} (no game has been played with it yet)", path=str(path)))
    _refuse_newer(path)
    try:
        # immutable when no -wal is beside it (nobody writing): not even an empty -wal or -shm is left
        quiet = "" if Path(f"{path}-wal").exists() else "&immutable=1"
        db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro{quiet}", uri=True, isolation_level=None)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table in ("games", "verdicts", "meta"):
            found = [r[1] for r in db.execute(f"PRAGMA table_info({table})")] if table in tables else []
            if not ours(table, found):
                db.close()
                raise StatsError(
                    Text(
                        "cannot read the journal {path}: it has no senet-pi {table} table (not our journal?)",
                        path=str(path),
                        table=table,
                    )
                )
    except sqlite3.Error as exc:
        raise StatsError(
            Text(
                "cannot read the journal {path}: {problem} (damaged, or not a senet-pi journal)",
                path=str(path),
                problem=str(exc),
            )
        ) from None
    return db


def _refuse_newer(path: Path) -> None:
    """StatsError for a journal a newer release wrote (its columns may mean other things): the file is
    read no further and left exactly as it is, as `senet-pi run` leaves it."""
    version = file_schema(path)
    if version > SCHEMA_VERSION:
        raise StatsError(
            Text(
                "the journal {path} was written by senet-pi {who}, newer than this {version}: update senet-pi, "
                "or restore the copy kept when it was updated ({copy}) in its place; the journal is left as it is",
                path=str(path),
                who=written_by(path) or f"schema {version}",
                version=__version__,
                copy=f"{path.name}.schema-{SCHEMA_VERSION}",
            )
        )


def _count_new_verdicts(db: sqlite3.Connection, path: Path) -> dict[int, list[int]]:
    """Per game [warnings, switch faults], counting only the verdicts this process has not seen yet."""
    journal_id = str((db.execute("SELECT value FROM meta WHERE key = 'id'").fetchone() or ("",))[0])
    last = int(db.execute("SELECT COALESCE(MAX(rowid), 0) FROM verdicts").fetchone()[0])
    key = path.resolve()
    with _tally_lock:
        tally = _tallies.get(key)
        if tally is None or tally.journal_id != journal_id or last < tally.last_rowid:
            tally = _tallies[key] = _Tally(journal_id)  # another journal in its place: count afresh
        if last > tally.last_rowid:
            for game, warnings, faults in db.execute(_MARKS, (tally.last_rowid, last)):
                mark = tally.marks.setdefault(int(game), [0, 0])
                mark[0] += int(warnings)
                mark[1] += int(faults)
            tally.last_rowid = last
        return {game: list(mark) for game, mark in tally.marks.items()}


def day_stats(journal: Journal | str | Path) -> list[DayStats]:
    """Every day with games in `journal` (a Journal or its path), oldest first, read-only."""
    path = journal.path if isinstance(journal, Journal) else Path(journal)
    db = _connect(path)
    days: dict[str, list[Any]] = {}  # day: [started, finished, abandoned, open, warnings, faults, durations]
    try:
        db.execute("BEGIN")  # one snapshot: the games and their verdicts as of one moment
        marks = _count_new_verdicts(db, path)
        carried = _carried(db)
        went_on = set(carried.values())
        games = db.execute(_GAMES).fetchall()
        unknown = _undated(db, games)
        for loss in losses(db):
            day = time.strftime("%Y-%m-%d", time.localtime(loss["when"]))
            days.setdefault(day, [0, 0, 0, 0, 0, 0, [], 0, 0])[8] += loss["lost"]
        for game, day, ended, won, _started, seconds in games:
            if day is None:  # a start time SQLite cannot read as a date
                raise StatsError(
                    Text(
                        "the journal {path} has a damaged row in games: game {game} has no start time",
                        path=str(path),
                        game=game,
                    )
                )
            if game in unknown:  # written before the clock was set, and not to be worked out
                day = UNKNOWN_DAY
            row = days.setdefault(day, [0, 0, 0, 0, 0, 0, [], 0, 0])
            if game in carried:  # the same game goes on as another record: counted there, once
                continue
            row[7] += game in went_on
            row[0] += 1
            row[1 if ended and won else 2 if ended else 3] += 1
            warnings, faults = marks.get(game, (0, 0))
            row[4] += warnings
            row[5] += faults
            if ended and won:
                row[6].append(float(seconds))
    except sqlite3.Error as exc:
        raise StatsError(
            Text("cannot read the journal {path}: {problem} (damaged?)", path=str(path), problem=str(exc))
        ) from None
    except (TypeError, ValueError) as exc:  # a value of the wrong type: a damaged row
        raise StatsError(
            Text("the journal {path} has a damaged row: {problem}", path=str(path), problem=str(exc))
        ) from None
    finally:
        db.close()
    return [
        DayStats(
            date=day,
            started=started,
            finished=finished,
            abandoned=abandoned,
            open=still_open,
            median_duration_s=statistics.median(won) if won else None,
            mean_duration_s=statistics.fmean(won) if won else None,
            warnings=warnings,
            warnings_per_game=warnings / started if started else 0.0,
            switch_faults=faults,
            resumed=resumed,
            lost=lost,
        )
        for day, (started, finished, abandoned, still_open, warnings, faults, won, resumed, lost) in sorted(
            days.items()
        )
        if started or lost
    ]


class _Started(NamedTuple):
    id: int
    started: float


def _undated(db: sqlite3.Connection, games: list[tuple[Any, ...]]) -> set[int]:
    """The games whose day cannot be known: their start was written before the clock was set and
    either could not be worked out (marked undated) or is not yet, and the journal's order says it
    is wrong (see senet_pi.service.dates)."""
    marked: dict[str, set[int]] = {"undated": set(), "pending": set()}
    for (key,) in db.execute("SELECT key FROM meta WHERE key LIKE 'undated:%' OR key LIKE 'pending:%'"):
        kind, game, column = [*str(key).split(":"), "", ""][:3]
        if kind in marked and game.isdigit() and column == "started":
            marked[kind].add(int(game))
    if not marked["undated"] and not marked["pending"]:
        return set()
    started = [_Started(int(g[0]), float(g[4])) for g in games if isinstance(g[4], (int, float))]
    unsure = {(g, "started") for g in marked["undated"] | marked["pending"]}
    by_id = {g.id: g.started for g in started}
    wrong = {g for g in marked["pending"] if g in by_id and out_of_order(g, by_id[g], started, unsure)}
    return marked["undated"] | wrong


def _carried(db: sqlite3.Connection) -> dict[int, int]:
    """Game -> the game it goes on as, past an input a resume could not judge (`Journal.record_carried`)."""
    out: dict[int, int] = {}
    for key, value in db.execute("SELECT key, value FROM meta WHERE key LIKE 'carried:%'"):
        old, new = str(key)[len("carried:") :], str(value)
        if old.isdigit() and new.isdigit():  # anything else is not ours: counted as the games it has
            out[int(old)] = int(new)
    return out


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"
    return str(value)


def to_csv(rows: Iterable[DayStats]) -> str:
    """The rows as CSV with a header of the field names (durations in seconds; empty = none finished)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_cell(v) for v in asdict(row).values()])
    return out.getvalue()


def minutes(seconds: float | None) -> str:
    """A duration for people: `12.5 min`, or `-` when there is none."""
    return "-" if seconds is None else f"{seconds / 60:.1f} min"


def to_table(rows: list[DayStats]) -> str:
    """The rows as a plain-text table for the terminal, with a total line."""
    head = f"{'date':<10} {'started':>7} {'finished':>8} {'abandoned':>9} {'open':>4} "
    head += f"{'median':>10} {'mean':>10} {'warnings/game':>13} {'switch faults':>13} {'lost':>5} {'resumed':>7}"
    lines = [head]
    for r in rows:
        lines.append(
            f"{r.date:<10} {r.started:>7} {r.finished:>8} {r.abandoned:>9} {r.open:>4} "
            f"{minutes(r.median_duration_s):>10} {minutes(r.mean_duration_s):>10} "
            f"{r.warnings_per_game:>13.2f} {r.switch_faults:>13} {r.lost:>5} {r.resumed:>7}"
        )
    started = sum(r.started for r in rows)
    if started or any(r.lost for r in rows):
        warnings = sum(r.warnings for r in rows)
        lines.append(
            f"{'total':<10} {started:>7} {sum(r.finished for r in rows):>8} {sum(r.abandoned for r in rows):>9} "
            f"{sum(r.open for r in rows):>4} {'':>10} {'':>10} {warnings / max(started, 1):>13.2f} "
            f"{sum(r.switch_faults for r in rows):>13} {sum(r.lost for r in rows):>5} {sum(r.resumed for r in rows):>7}"
        )
    return "\n".join(lines) + "\n"
