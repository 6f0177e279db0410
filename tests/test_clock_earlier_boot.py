"""Across restarts: dates written before a Pi's clock was set, by a run that ended
before the clock was (a restart, a power cut). In the same boot the monotonic clock still tells
the real date exactly; from an earlier boot, a date the journal's order contradicts is shown as
unknown, not as the wrong day; one that fits is kept."""

from __future__ import annotations

import time

import pytest

from senet_pi.cli import main
from senet_pi.service import Service, wallclock
from senet_pi.service.journal import Journal
from senet_pi.service.stats import UNKNOWN_DAY, day_stats
from tests.journal_helpers import SEVEN_YEARS, ScriptClock, Wall


class Machine:
    """The Pi as the service sees it: which boot it is, whether the kernel calls the clock set, and
    how far behind its wall clock is (time.time)."""

    def __init__(self, monkeypatch) -> None:
        self.boot = "boot-1"
        self.synced = True
        self.wall = Wall(0.0)
        monkeypatch.setattr(wallclock, "boot_id", lambda: self.boot)
        monkeypatch.setattr(wallclock, "clock_synced", lambda: self.synced)
        monkeypatch.setattr(time, "time", self.wall)

    def run(self, path, variant: str = "secret") -> Service:
        return Service(Journal(path), variant=variant, clock=ScriptClock())


@pytest.fixture
def pi(monkeypatch):
    return Machine(monkeypatch)


def started(path, game: int) -> float:
    journal = Journal(path)
    try:
        return next(g.started for g in journal.games() if g.id == game)
    finally:
        journal.close()


def test_a_date_written_before_the_clock_was_set_is_put_right_by_the_next_run_of_the_same_boot(pi, tmp_path):
    path = tmp_path / "j.sqlite"
    pi.synced, pi.wall.behind = False, SEVEN_YEARS  # booted without a real-time clock
    pi.run(path).close()  # game 1 begun, then the service restarts before the clock is set
    assert started(path, 1) < pi.wall.real() - SEVEN_YEARS + 60
    pi.synced, pi.wall.behind = True, 0.0  # the network sets the clock
    service = pi.run(path)  # the same boot: the monotonic clock still relates the two
    assert abs(started(path, 1) - pi.wall.real()) < 30
    assert service.journal.meta_keys("pending:") == []
    service.close()
    assert day_stats(path)[0].date == time.strftime("%Y-%m-%d", time.localtime(pi.wall.real()))


def test_a_date_from_an_earlier_boot_that_the_journal_contradicts_is_unknown_not_wrong(pi, tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    pi.run(path).close()  # boot 0, clock set: game 1 on its real day
    pi.boot, pi.synced, pi.wall.behind = "boot-2", False, SEVEN_YEARS  # a boot with no network...
    service = pi.run(path)
    service.new_game("houses")  # game 2, dated 7 years back
    service.close()  # ...and the power is cut before the clock is ever set
    pi.boot, pi.synced, pi.wall.behind = "boot-3", True, 0.0
    pi.run(path).close()  # a later boot knows the time, but not boot 2's monotonic clock
    rows = {r.date: r for r in day_stats(path)}
    today = time.strftime("%Y-%m-%d", time.localtime(pi.wall.real()))
    assert rows[UNKNOWN_DAY].started == 1  # game 2 is not counted 7 years ago
    assert sum(r.started for r in rows.values()) == 2
    assert rows[today].started == 1
    assert main(["games", "--journal", str(path)]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert "date unknown" in listing[1]
    assert "date unknown" not in listing[0]


def test_a_date_from_an_earlier_boot_that_fits_the_journal_is_kept(pi, tmp_path):
    path = tmp_path / "j.sqlite"
    pi.wall.behind = 7200.0  # game 1, two hours ago (the test's "now" is later than the real one)
    pi.run(path).close()
    pi.boot, pi.synced = "boot-2", False  # a boot whose clock was near right (saved at shutdown, restored)
    pi.wall.behind = 3600.0  # game 2 dated an hour ago: after game 1, before now; nothing contradicts it
    service = pi.run(path)
    service.new_game("houses")
    service.close()
    written = started(path, 2)
    pi.boot, pi.synced, pi.wall.behind = "boot-3", True, 0.0
    service = pi.run(path)
    assert started(path, 2) == written
    assert service.journal.meta_keys("undated:") == []
    assert service.journal.meta_keys("pending:") == []  # settled: nothing left to check at each start
    service.close()
    assert UNKNOWN_DAY not in {r.date for r in day_stats(path)}


def test_while_the_clock_is_still_behind_the_statistics_say_unknown_not_seven_years_ago(pi, tmp_path):
    path = tmp_path / "j.sqlite"
    pi.run(path).close()
    pi.synced, pi.wall.behind = False, SEVEN_YEARS  # the same boot, clock stepped back (or a new one)
    pi.boot = "boot-2"
    service = pi.run(path)
    service.new_game("houses")
    rows = {r.date: r.started for r in day_stats(path)}
    assert rows.get(UNKNOWN_DAY) == 1
    assert len(rows) == 2
    service.close()


def test_the_clock_is_known_set_from_timesyncds_flag_and_unknown_without_timesyncd(tmp_path):
    timesync = tmp_path / "timesync"
    assert wallclock.clock_synced(timesync) is None  # no timesyncd: dates taken as they are
    timesync.mkdir()
    assert wallclock.clock_synced(timesync) is False  # waiting for the network
    (timesync / "synchronized").touch()
    assert wallclock.clock_synced(timesync) is True
    boot = tmp_path / "boot_id"
    assert wallclock.boot_id(boot) is None
    boot.write_text("2a10efef-3a6f-4ad4-bf2b-2f06c144e657\n")
    assert wallclock.boot_id(boot) == "2a10efef-3a6f-4ad4-bf2b-2f06c144e657"


def test_the_exhibits_unit_allows_what_the_clock_check_reads():
    """The service's sandbox (ProtectClock, @system-service) refuses adjtimex even to read: the check
    reads files only, and /run is readable under ProtectSystem=strict."""
    import inspect

    source = inspect.getsource(wallclock)
    assert "ctypes" not in source
    assert "adjtimex(" not in source


def test_an_old_row_that_cannot_be_read_leaves_the_dates_for_later_and_the_service_starts(pi, tmp_path, monkeypatch):
    from senet_pi.errors import JournalError
    from senet_pi.service import dates

    path = tmp_path / "j.sqlite"
    pi.synced, pi.wall.behind = False, SEVEN_YEARS
    pi.run(path).close()

    def unreadable(*_args, **_kwargs):
        raise JournalError("the journal has a damaged row in games: game 1")

    monkeypatch.setattr(dates, "settle", unreadable)
    pi.boot, pi.synced, pi.wall.behind = "boot-2", True, 0.0
    service = pi.run(path)  # the exhibit starts: the dates are not worth a service that will not
    assert service.game_id == 1
    assert any("not checked" in n for n in service.notes)
    service.tick()
    service.close()
