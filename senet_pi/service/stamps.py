"""The journal's dates kept true to the wall clock: each date the service writes is remembered, so
that when the clock is set (a jump, as on a Pi without a real-time clock once the network sets it)
the dates written on the old clock move with it, and those written before it was set are put right
once it is (senet_pi.service.dates does the putting right)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from ..errors import SenetError
from . import dates, wallclock
from .journal import Journal

#: A change this large (seconds) between the wall clock and the monotonic clock is the clock being set.
CLOCK_JUMP = 60.0


class NoDates:
    """The dates of a service without a journal: there are none to keep."""

    def stamp(self, game: int, column: str) -> None:
        """No date was written."""

    def settle(self, force: bool = False) -> None:
        """No date to put right."""

    def watch(self) -> None:
        """No date to move with the clock."""


class Dates:
    """The dates one service writes into its journal, kept true while the wall clock is set."""

    def __init__(self, journal: Journal, wall: Callable[[], float], notes: list[str]) -> None:
        """`wall`: the clock the dates come from; `notes`: where a failure to check them is said at start."""
        self._journal = journal
        self._wall = wall
        self._notes = notes
        self._wall_offset = wall() - time.monotonic()
        self._stamped: list[tuple[int, str]] = []  # dates written on this wall clock since it last jumped
        self._boot = wallclock.boot_id()  # dates written before the clock is set are kept with it (dates.py)
        self._synced: bool | None = None
        self._checked = -1e9

    def stamp(self, game: int, column: str) -> None:
        """A date just written for `game`: moved with the clock when it jumps in this run; and while
        timesyncd has not yet set the clock, kept with this boot's monotonic time, so a later run
        can still put it right (or say it cannot be known) after a restart or a power cut."""
        self._synced = wallclock.clock_synced()
        if self._synced is False and self._boot is not None:
            self._journal.record_pending_date(game, column, self._boot, time.monotonic())
        else:
            self._stamped.append((game, column))

    def settle(self, force: bool = False) -> None:
        """Put right the dates written before the clock was set, once it is (see senet_pi.service.dates);
        looked at once a second at most, and at once when the clock jumps or becomes synchronised."""
        now = time.monotonic()
        if not force and now - self._checked < 1.0:
            return
        self._checked = now
        synced, was = wallclock.clock_synced(), self._synced
        self._synced = synced
        if force or (synced and not was):
            try:
                dates.settle(self._journal, self._boot, self._wall() - now, synced, CLOCK_JUMP)
            except (SenetError, sqlite3.Error, ValueError, TypeError) as exc:  # a damaged old row: dates wait
                if force:
                    self._notes.append(f"dates written before the clock was set not checked: {exc}"[:200])

    def watch(self) -> None:
        """The wall clock was set (it moved against the monotonic clock by more than CLOCK_JUMP, as on a
        Pi without a real-time clock when the network sets it): the dates this service wrote on the
        old clock move with it, so a game begun before the jump is counted on its real day."""
        offset = self._wall() - time.monotonic()
        delta = offset - self._wall_offset
        if abs(delta) <= CLOCK_JUMP:
            self.settle()  # timesyncd may call the clock set without a jump (it was right)
            return
        self._wall_offset = offset
        for game, column in dict.fromkeys(self._stamped):
            self._journal.shift_time(game, column, delta)
        self._stamped.clear()
        self.settle(force=True)  # and those kept with this boot's monotonic time
