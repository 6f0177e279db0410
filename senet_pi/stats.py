"""Statistics for staff: games started, finished, abandoned and open, durations, warnings and switch
faults, per day, computed from the journal alone.

The journal is opened read-only on a connection of its own (SQLite's WAL lets it be read while
the service writes), and counted in SQL, so months of games take a fraction of a second.

- A game's day is the day it started, in the machine's local time (SQLite's `localtime`, i.e.
  the TZ the Pi is set to: no setting of ours). A game past midnight counts on the day it began.
- finished: ended with a winner; abandoned: ended without one (a new game was started over it);
  open: not ended (the game on the board, or one left by a power cut and not resumed).
- durations: of finished games, from their start to their win, in seconds of wall time.
- warnings: the referee's `illegal` verdicts (a wrong board, a refused throw or move).
- switch faults: the referee's `switch` verdicts that judge a switch faulty (stuck open or
  closed; the square is then judged unknown). A chattering switch reported by the scanner is a
  note shown on the page but not journaled, so it is not counted here.
"""

from __future__ import annotations

import csv
import io
import sqlite3
import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from urllib.parse import quote

from .journal import TABLES, Journal, JournalError


class StatsError(JournalError):
    """The journal cannot be read for statistics: missing, damaged, or not a senet-pi journal."""


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


COLUMNS = [f.name for f in fields(DayStats)]

#: Per game: its day, its outcome, its duration if won, its warnings and switch faults. The LIKE
#: filters skip the JSON parse for the many verdicts that are neither (moves, turns, throws).
_PER_DAY = """
WITH marks AS (
    SELECT game,
        SUM(json_extract(verdict, '$.v') = 'illegal') AS warnings,
        SUM(json_extract(verdict, '$.v') = 'switch' AND json_extract(verdict, '$.fault') IS NOT NULL) AS faults
    FROM verdicts
    WHERE verdict LIKE '%"v": "illegal"%' OR verdict LIKE '%"v": "switch"%'
    GROUP BY game
)
SELECT date(g.started, 'unixepoch', 'localtime') AS day,
    COUNT(*),
    SUM(g.ended IS NOT NULL AND g.winner IS NOT NULL),
    SUM(g.ended IS NOT NULL AND g.winner IS NULL),
    SUM(g.ended IS NULL),
    COALESCE(SUM(m.warnings), 0),
    COALESCE(SUM(m.faults), 0)
FROM games g LEFT JOIN marks m ON m.game = g.id
GROUP BY day ORDER BY day
"""

_DURATIONS = """
SELECT date(started, 'unixepoch', 'localtime'), ended - started FROM games
WHERE ended IS NOT NULL AND winner IS NOT NULL
"""


def _connect(path: Path) -> sqlite3.Connection:
    """A read-only connection to the journal at `path`; StatsError when it is missing or not ours."""
    if not path.is_file():
        raise StatsError(f"there is no journal at {path} (no game has been played with it yet)")
    try:
        db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as exc:
        raise StatsError(f"cannot read the journal {path}: {exc} (damaged, or not a senet-pi journal)") from None
    for table in ("games", "verdicts"):
        found = [r[1] for r in db.execute(f"PRAGMA table_info({table})")] if table in tables else []
        if found != TABLES[table]:
            db.close()
            raise StatsError(f"cannot read the journal {path}: it has no senet-pi {table} table (not our journal?)")
    return db


def day_stats(journal: Journal | str | Path) -> list[DayStats]:
    """Every day with games in `journal` (a Journal or its path), oldest first, read-only."""
    path = journal.path if isinstance(journal, Journal) else Path(journal)
    db = _connect(path)
    try:
        days = db.execute(_PER_DAY).fetchall()
        durations: dict[str, list[float]] = {}
        for day, seconds in db.execute(_DURATIONS):
            durations.setdefault(day, []).append(float(seconds))
    except sqlite3.Error as exc:
        raise StatsError(f"cannot read the journal {path}: {exc} (damaged?)") from None
    except (TypeError, ValueError) as exc:  # a row of the wrong type: a damaged file
        raise StatsError(f"the journal {path} has a damaged row in games: {exc}") from None
    finally:
        db.close()
    rows = []
    for day, started, finished, abandoned, still_open, warnings, faults in days:
        if day is None:  # a start time SQLite cannot read as a date
            raise StatsError(f"the journal {path} has a damaged row in games: a start time that is not a time")
        won = durations.get(day, [])
        rows.append(
            DayStats(
                date=day,
                started=started,
                finished=finished,
                abandoned=abandoned,
                open=still_open,
                median_duration_s=statistics.median(won) if won else None,
                mean_duration_s=statistics.fmean(won) if won else None,
                warnings=warnings,
                warnings_per_game=warnings / started,
                switch_faults=faults,
            )
        )
    return rows


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
    head += f"{'median':>10} {'mean':>10} {'warnings/game':>13} {'switch faults':>13}"
    lines = [head]
    for r in rows:
        lines.append(
            f"{r.date:<10} {r.started:>7} {r.finished:>8} {r.abandoned:>9} {r.open:>4} "
            f"{minutes(r.median_duration_s):>10} {minutes(r.mean_duration_s):>10} "
            f"{r.warnings_per_game:>13.2f} {r.switch_faults:>13}"
        )
    started = sum(r.started for r in rows)
    if started:
        warnings = sum(r.warnings for r in rows)
        lines.append(
            f"{'total':<10} {started:>7} {sum(r.finished for r in rows):>8} {sum(r.abandoned for r in rows):>9} "
            f"{sum(r.open for r in rows):>4} {'':>10} {'':>10} {warnings / started:>13.2f} "
            f"{sum(r.switch_faults for r in rows):>13}"
        )
    return "\n".join(lines) + "\n"
