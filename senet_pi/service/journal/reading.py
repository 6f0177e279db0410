"""Reading the journal back: games, their inputs and verdicts, and its bookkeeping (notes, seats,
dates to settle, losses), each row checked; a damaged row is one JournalError line, never a traceback."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ...errors import JournalError
from ...verdicts import Verdict, parse_verdict
from .records import EventRecord, GameRecord, check_value
from .recovery import losses
from .schema import sums_ok


class Reading:
    """The journal's reading methods (a part of `Journal`)."""

    path: Path
    readonly: bool
    _db: sqlite3.Connection

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

    def games(self, where: str = "1", args: tuple[object, ...] = ()) -> list[GameRecord]:
        """Every game (or those `where` picks), oldest first; JournalError names a damaged row (one that
        does not decode, or does not match the checksum written with it)."""
        with self._reading("games"):
            rows = self._db.execute(
                "SELECT g.id, variant, players, options, position, started, ended, winner, "
                f"{self._sum('games')}, (SELECT COUNT(*) FROM events e WHERE e.game = g.id) FROM games g "
                f"WHERE {where} ORDER BY g.id",
                args,
            ).fetchall()
            for r in rows:
                if not sums_ok("games", r[:8], r[8]):
                    raise ValueError(f"game {r[0]} does not match the checksum written with it")
            return [
                GameRecord(
                    r[0],
                    r[1],
                    r[2],
                    json.loads(r[3]),
                    None if r[4] is None else json.loads(r[4]),
                    r[5],
                    r[6],
                    r[7],
                    r[9],
                )
                for r in rows
            ]

    def _sum(self, table: str) -> str:
        """The column that holds `table`'s checksums: `sum`, or NULL in an older journal opened read-only."""
        columns = [r[1] for r in self._db.execute(f"PRAGMA table_info({table})")]
        return "sum" if "sum" in columns else "NULL"

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
        for record in self.games("g.id = ?", (game,)):
            return record
        raise JournalError(f"there is no game {game} in the journal {self.path}")

    def game_in_progress(self) -> GameRecord | None:
        """The newest game that has not ended, to resume on start (that game's row alone is read: a
        start's cost does not grow with the journal; every start reads the games' rows once, see `_open`)."""
        newest = self._db.execute("SELECT MAX(id) FROM games WHERE ended IS NULL").fetchone()[0]
        return None if newest is None else self.game(int(newest))

    def events(self, game: int) -> list[EventRecord]:
        """A game's inputs in order, as journaled; JournalError names a damaged row (one that does not
        decode or match its checksum)."""
        events, why = self._events(game, ranged=False)
        if why is not None:
            raise JournalError(f"the journal {self.path} has a damaged row in events: game {game}'s {why}")
        return events

    def readable_events(self, game: int) -> tuple[list[EventRecord], str | None]:
        """A game's inputs in order up to the first row that does not decode, does not match the checksum
        written with it, or holds a value out of range (`check_value`: one journaled before the ranges
        were checked), and why that row does not (None when every row decodes): a resume goes as far
        as the record can be read, and the row is left where it is for a person to look at."""
        return self._events(game, ranged=True)

    def _events(self, game: int, ranged: bool) -> tuple[list[EventRecord], str | None]:
        rows = self._db.execute(
            f"SELECT game, seq, ms, kind, value, {self._sum('events')} FROM events WHERE game = ? ORDER BY seq",
            (game,),
        )
        events: list[EventRecord] = []
        for row in rows.fetchall():
            _, seq, ms, kind, value, stored = row
            try:
                if not sums_ok("events", row[:5], stored):
                    raise ValueError("it does not match the checksum written with it (changed since)")
                decoded = json.loads(value)
                if ranged:
                    check_value(decoded)
                events.append(EventRecord(int(seq), int(ms), str(kind), decoded))
            except (ValueError, TypeError, RecursionError) as exc:
                return events, f"input {len(events) + 1} is a damaged row: {type(exc).__name__}: {exc}"
        return events, None

    def verdicts_by_event(self, game: int) -> dict[int, list[Verdict | str]]:
        """A game's journaled verdicts, typed, grouped by the input (seq) that gave them; a row that
        does not decode, or does not match its checksum, is kept as its text, so it compares unequal
        to any re-judged verdict."""
        out: dict[int, list[Verdict | str]] = {}
        rows = self._db.execute(
            f"SELECT game, seq, event, verdict, {self._sum('verdicts')} FROM verdicts WHERE game = ? ORDER BY seq",
            (game,),
        )
        for row in rows.fetchall():
            try:
                verdict: Verdict | str = _verdict(row)
            except (ValueError, TypeError, RecursionError):
                verdict = str(row[3])
            out.setdefault(int(row[2]), []).append(verdict)
        return out

    def verdicts(self, game: int) -> list[Verdict]:
        """A game's verdicts in order, typed; JournalError names a damaged row."""
        with self._reading("verdicts"):
            rows = self._db.execute(
                f"SELECT game, seq, event, verdict, {self._sum('verdicts')} FROM verdicts WHERE game = ? ORDER BY seq",
                (game,),
            )
            return [_verdict(row) for row in rows.fetchall()]

    def losses(self) -> list[dict[str, Any]]:
        """What damaged journals lost before this one was recovered from them (`losses`)."""
        return losses(self._db)


def _verdict(row: tuple[Any, ...]) -> Verdict:
    """A verdicts row (game, seq, event, verdict, sum) as its typed verdict; ValueError when it does not
    match its checksum, is not JSON, or is not a verdict."""
    if not sums_ok("verdicts", row[:4], row[4]):
        raise ValueError(f"verdict {row[1]} of game {row[0]} does not match the checksum written with it")
    data = json.loads(row[3])
    if not isinstance(data, dict):
        raise ValueError(f"verdict {row[1]} of game {row[0]} is not a map")
    return parse_verdict(data)
