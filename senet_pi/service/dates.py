"""Dates written before the wall clock was set, put right later or said to be unknown.

A Pi without a real-time clock boots with a wrong time and is set when the network answers. The
service keeps, beside each game's `started` and `ended` written while timesyncd had not yet set
the clock (see wallclock.py), the boot and the monotonic time it was written at (`Journal.
record_pending_date`). Later:

- in the same boot (the service restarted, or is still running) the monotonic clock is the same:
  the date is exactly `monotonic time + (wall - monotonic now)`, moved as soon as the clock is set
  and settled once timesyncd says the clock is set;
- from an earlier boot the monotonic clock says nothing now: a date that the journal's own order
  contradicts (a game dated before one that came before it, or after one that came after it, or
  after now) cannot be worked out and is marked undated, shown as unknown rather than wrong; a date
  that fits is kept as written.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from .journal import Journal

#: Seconds a date may be out of the journal's order before it is taken as wrong (clocks slew a little).
SLACK = 60.0


class Dated(Protocol):
    """A game as far as its start date goes: the journal's game record, or a row of the stats."""

    @property
    def id(self) -> int: ...
    @property
    def started(self) -> float: ...


def settle(journal: Journal, boot: str | None, offset: float, synced: bool | None, jump: float = 60.0) -> int:
    """Put right the pending dates that can be: `boot` this boot's id, `offset` the wall clock minus
    the monotonic clock now, `synced` whether the kernel calls the clock set. Returns how many
    dates changed or were settled."""
    pending = journal.pending_dates()
    if not pending:
        return 0
    games = journal.games()
    unsure = {(game, column) for game, column, *_ in pending} | undated(journal)
    now = offset + _monotonic() if synced else None
    done = 0
    for game, column, their_boot, mono, written in pending:
        if written is None:  # no date to put right (an end not written): nothing pending any more
            journal.settle_date(game, column, None)
            continue
        if boot is not None and their_boot == boot:  # the same boot: the same monotonic clock
            exact = mono + offset
            if synced:
                journal.settle_date(game, column, exact if abs(exact - written) > jump else None)
                done += 1
            elif abs(exact - written) > jump:  # the clock was set, not yet called synchronised
                journal.correct_pending(game, column, exact)
                done += 1
            continue
        wrong = out_of_order(game, written, games, unsure, now)
        journal.settle_date(game, column, None, undated=wrong)
        done += 1
    return done


def out_of_order(
    game: int, written: float, games: Iterable[Dated], unsure: set[tuple[int, str]], now: float | None = None
) -> bool:
    """Whether `written`, a date of `game`, contradicts the journal: games start in the order of their
    ids, so it cannot be before a sure date of an earlier game or after one of a later game (nor after
    `now`, when the clock is known to be right)."""
    before = [g.started for g in games if g.id < game and (g.id, "started") not in unsure]
    after = [g.started for g in games if g.id > game and (g.id, "started") not in unsure]
    if before and written < max(before) - SLACK:
        return True
    if after and written > min(after) + SLACK:
        return True
    return now is not None and written > now + SLACK


def undated(journal: Journal) -> set[tuple[int, str]]:
    """The dates marked as not to be known: (game, column)."""
    out = set()
    for key in journal.meta_keys("undated:"):
        _, game, column = [*key.split(":"), "", ""][:3]
        if game.isdigit() and column in ("started", "ended"):
            out.add((int(game), column))
    return out


def _monotonic() -> float:
    import time

    return time.monotonic()
