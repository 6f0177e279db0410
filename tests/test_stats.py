"""Statistics for staff: per-day counts from the journal, the PIN-guarded page
with its SVG plots, the CSV and JSON, and `senet-pi stats`."""

from __future__ import annotations

import csv
import io
import shutil
import sqlite3
import time
import types
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.security import generate_password_hash

import senet_pi.service.journal as journal_module
from senet_pi.cli.command import main
from senet_pi.errors import StatsError
from senet_pi.referee.hands import scripted_game
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from senet_pi.service.stats import COLUMNS, day_stats, to_csv
from senet_pi_web import create_app
from senet_pi_web.plots import nice_top
from tests.journal_helpers import ScriptClock, feed, timed
from tests.web_helpers import sign_in

PIN = "1357"
SVG = "{http://www.w3.org/2000/svg}"
# 2026-03-01 09:00 at UTC+3 (the zone set below): the first visitor of day one.
DAY1_9AM = 1772344800.0
DAY3_0130 = DAY1_9AM + 86400 + 16.5 * 3600  # day 3, 01:30 local (22:30 UTC of day 2): game 8 begins


class WallClock:
    """The journal's wall clock (`time.time()` in senet_pi.service.journal), set by the test."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def local_zone(monkeypatch):
    """Local time is UTC+3 for this test (SQLite's `localtime` follows TZ), back to normal after."""
    monkeypatch.setenv("TZ", "<+03>-3")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def play_to_the_end(service: Service, variant: str, seed: int, wall: WallClock, seconds: float) -> None:
    """A whole scripted game on a new game, won `seconds` of wall time after it started."""
    script = scripted_game(variant, seed)
    clock = ScriptClock()
    service._clock = clock  # the game's own clock, for the scripted inputs' milliseconds
    service.new_game(variant, 2, script["options"])
    wall.t += seconds
    inputs = timed(script["events"])
    hand = [ms for ms, kind, _ in inputs if kind != "tick"][-1]  # the winning hand...
    won = min(ms for ms, kind, _ in inputs if kind == "tick" and ms > hand)  # ...judged when it settles
    # The game's own clock says it took `seconds` too: the waits are stretched, never the hands (a
    # script's hands are 1 ms apart; stretched, three pieces would leave their switches within a
    # knock's few milliseconds, and the referee rightly reads a knock, not a move).
    times = [ms for ms, _, _ in inputs]
    gaps = [b - a for a, b in zip([0, *times[:-1]], times, strict=True)]
    quick = sum(g for g, (ms, _, _) in zip(gaps, inputs, strict=True) if g <= 1 and ms <= won)
    stretch = (seconds * 1000 - quick) / (won - quick)
    at, stretched = 0.0, []
    for gap, (_, kind, value) in zip(gaps, inputs, strict=True):
        at += gap if gap <= 1 else gap * stretch
        stretched.append((round(at), kind, value))
    feed(service, clock, stretched)
    assert service.referee.game.winner_id is not None


@pytest.fixture(scope="module")
def three_days_built(tmp_path_factory) -> Path:
    """The journal of `journal_of_three_days`, written once for the module (its thousands of inputs
    are each synced to disk, seconds of waiting); each test gets a copy of the folder."""
    folder = tmp_path_factory.mktemp("three_days")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("TZ", "<+03>-3")  # as local_zone
        time.tzset()
        try:
            _write_three_days(folder, monkeypatch).close()
        finally:
            monkeypatch.undo()
            time.tzset()
    return folder


@pytest.fixture
def journal_of_three_days(three_days_built, tmp_path, monkeypatch, local_zone) -> Iterator[tuple[Path, Service]]:
    """Day 1: two games won (15 and 25 minutes), one abandoned after two refused throws. Day 2: one
    abandoned after a switch welded closed. Day 3 (local; still day 2 in UTC): one game open.
    A copy of the module's journal, and a service that resumed its open game at the wall time it
    was started (game 8, day 3, 01:30 local)."""
    for file in three_days_built.iterdir():
        shutil.copy2(file, tmp_path / file.name)
    wall = WallClock(DAY3_0130)
    monkeypatch.setattr(journal_module, "time", types.SimpleNamespace(time=wall, strftime=time.strftime))
    service = Service(Journal(tmp_path / "journal.sqlite"), variant="secret", clock=ScriptClock())
    assert service.game_id == 8
    yield service.journal.path, service
    service.close()


def _write_three_days(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Service:
    """Play the three days into `folder`/journal.sqlite; the service, at game 8."""
    wall = WallClock(DAY1_9AM)
    monkeypatch.setattr(journal_module, "time", types.SimpleNamespace(time=wall, strftime=time.strftime))
    journal = Journal(folder / "journal.sqlite")
    service = Service(journal, variant="secret", clock=ScriptClock())  # game 1, replaced at once: abandoned
    wall.t += 60
    play_to_the_end(service, "secret", 1, wall, 15 * 60)  # game 2: won
    wall.t += 60
    service.new_game("secret")  # game 3: the win of game 2 keeps its own time
    service.handle("throw", 1)
    service.handle("throw", 2)  # a move is owed: refused (P2), a warning
    service.handle("throw", 3)  # and again
    wall.t += 120
    play_to_the_end(service, "houses", 2, wall, 25 * 60)  # game 3 abandoned, game 4 won
    wall.t = DAY1_9AM + 86400  # day 2, 09:00
    service.new_game("secret")  # game 5
    clock = ScriptClock()
    service._clock = clock
    service.new_game("secret")  # game 6, on a fresh game clock
    occupied = [sq for sq in range(1, 31) if service.referee.expected >> sq & 1]
    feed(service, clock, [(0, "sense", [*occupied, 20]), (600, "tick", True)])  # 20 welded closed, empty
    for i, sq in enumerate((1, 3)):  # people touch pieces, puzzled
        base = 700 + i * 800
        feed(service, clock, [(base, "lift", sq), (base + 100, "place", sq), (base + 700, "tick", True)])
    wall.t = DAY1_9AM + 86400 + 13.5 * 3600  # day 2, 22:30 local
    service.new_game("secret")  # game 7: abandons game 6
    wall.t = DAY3_0130
    service.new_game("secret")  # game 8: open
    return service


def test_days_count_games_by_their_local_start_day(journal_of_three_days):
    path, service = journal_of_three_days
    journal = service.journal
    verdicts = {g.id: [v.json() for v in journal.verdicts(g.id)] for g in journal.games()}
    assert sum(v["v"] == "illegal" for v in verdicts[3]) == 2
    assert not any(v["v"] == "illegal" for g in (2, 4) for v in verdicts[g])  # the scripted games play clean
    faults = [v for v in verdicts[6] if v["v"] == "switch" and v["fault"]]
    assert [(v["square"], v["fault"]) for v in faults] == [(20, "stuck closed")]

    rows = day_stats(path)
    assert [r.date for r in rows] == ["2026-03-01", "2026-03-02", "2026-03-03"]
    one, two, three = rows
    assert (one.started, one.finished, one.abandoned, one.open) == (4, 2, 2, 0)
    assert one.median_duration_s == pytest.approx(20 * 60)
    assert one.mean_duration_s == pytest.approx(20 * 60)
    assert (one.warnings, one.warnings_per_game, one.switch_faults) == (2, 0.5, 0)
    assert (two.started, two.finished, two.abandoned, two.open, two.switch_faults) == (3, 0, 3, 0, 1)
    assert two.median_duration_s is None
    assert two.mean_duration_s is None
    assert (three.started, three.open, three.abandoned, three.warnings_per_game) == (1, 1, 0, 0.0)
    assert day_stats(service.journal) == rows  # a Journal works as well as its path


def test_a_second_reading_counts_what_was_added_since_and_a_new_journal_afresh(journal_of_three_days, monkeypatch):
    path, service = journal_of_three_days
    assert day_stats(path)[-1].warnings == 0
    service.handle("throw", 1)
    service.handle("throw", 2)  # refused: a move is owed (P2)
    last = day_stats(path)[-1]
    assert (last.date, last.warnings, last.warnings_per_game) == ("2026-03-03", 1, 1.0)
    service.close()
    for name in ("journal.sqlite", "journal.sqlite-mark"):  # staff start over with an empty journal
        (path.parent / name).unlink()
    monkeypatch.setattr(journal_module, "time", types.SimpleNamespace(time=lambda: DAY1_9AM, strftime=time.strftime))
    fresh = Journal(path)
    fresh.start_game("secret", 2, {})
    fresh.close()
    assert [(r.date, r.started, r.warnings) for r in day_stats(path)] == [("2026-03-01", 1, 0)]


def test_a_win_keeps_its_time_when_the_next_game_ends_it_again(tmp_path, monkeypatch):
    wall = WallClock(1000.0)
    monkeypatch.setattr(journal_module, "time", types.SimpleNamespace(time=wall, strftime=time.strftime))
    with Journal(tmp_path / "j.sqlite") as journal:
        game = journal.start_game("secret", 2, {})
        wall.t = 1600.0
        journal.end_game(game, "A")
        wall.t = 9000.0
        journal.end_game(game, "A")  # what a new game does to the game it replaces
        assert journal.game(game).ended == 1600.0
        journal.end_game(game, None)  # the win was undone and the game then abandoned: that counts
        assert (journal.game(game).ended, journal.game(game).winner) == (9000.0, None)


def test_a_missing_damaged_or_foreign_journal_is_one_clear_error_and_is_left_as_it_was(tmp_path, capsys):
    with pytest.raises(StatsError, match="there is no journal at"):
        day_stats(tmp_path / "none.sqlite")
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(b"not SQLite at all" * 100)
    with pytest.raises(StatsError, match="cannot read the journal"):
        day_stats(damaged)
    foreign = tmp_path / "foreign.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE games (name TEXT)")
    db.commit()
    db.close()
    with pytest.raises(StatsError, match="no senet-pi games table"):
        day_stats(foreign)
    assert main(["stats", "--journal", str(damaged)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("senet-pi stats: cannot read the journal")
    assert err.count("\n") == 1
    assert damaged.read_bytes() == b"not SQLite at all" * 100  # read, never set aside
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.sqlite", "foreign.sqlite"]


def test_the_cli_prints_the_table_and_the_csv(journal_of_three_days, capsys):
    path, _ = journal_of_three_days
    assert main(["stats", "--journal", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:5] == ["date", "started", "finished", "abandoned", "open"]
    assert lines[1].split()[:7] == ["2026-03-01", "4", "2", "2", "0", "20.0", "min"]
    assert lines[-1].split()[:5] == ["total", "8", "2", "5", "1"]
    assert main(["stats", "--journal", str(path), "--csv"]) == 0
    assert capsys.readouterr().out == to_csv(day_stats(path))


def test_the_csv_has_a_header_and_a_row_per_day_that_match_the_stats(journal_of_three_days):
    path, _ = journal_of_three_days
    rows = day_stats(path)
    parsed = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert list(parsed[0]) == COLUMNS
    assert len(parsed) == len(rows)
    for got, row in zip(parsed, rows, strict=True):
        assert got["date"] == row.date
        assert int(got["started"]) == row.started
        assert int(got["abandoned"]) == row.abandoned
        assert int(got["switch_faults"]) == row.switch_faults
        median = got["median_duration_s"]
        assert (median == "") if row.median_duration_s is None else float(median) == row.median_duration_s


# ---------------------------------------------------------------- the staff page


@pytest.fixture
def staff_client(journal_of_three_days):
    _, service = journal_of_three_days
    app = create_app(
        {
            "TESTING": True,
            "OPERATOR_PIN_HASH": generate_password_hash(PIN, method="pbkdf2:sha256:1000"),
            "PIN_DELAY": 0.01,
            "SECRET_KEY": "t",
        },
        service=service,
    )
    return app.test_client()


def test_the_staff_page_csv_and_json_refuse_a_session_not_signed_in(staff_client):
    page = staff_client.get("/staff")
    assert page.status_code == 401
    assert b"sign in with the operator PIN" in page.data
    assert b"<svg" not in page.data
    for url in ("/staff/stats.csv", "/api/stats"):
        refused = staff_client.get(url)
        assert refused.status_code == 401
        assert "sign in" in refused.json["error"]
        assert b"2026-03" not in refused.data


def test_with_no_pin_set_the_statistics_are_disabled(journal_of_three_days):
    _, service = journal_of_three_days
    client = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=service).test_client()
    assert client.get("/staff").status_code == 401
    assert client.get("/api/stats").status_code == 403


def test_signed_in_the_staff_page_draws_a_bar_per_day_in_each_plot(staff_client):
    sign_in(staff_client, PIN)
    page = staff_client.get("/staff")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "https://" not in html
    assert "style=" not in html  # offline, and nothing the CSP refuses
    svgs = [html[html.index("<svg", i) : html.index("</svg>", i) + 6] for i in _starts(html, "<svg")]
    assert len(svgs) == 3
    for text in svgs:
        svg = ET.fromstring(text)
        assert svg.get("role") == "img"
        assert svg.find(f"{SVG}title").text
        bars = svg.findall(f"{SVG}g[@class='bar']")
        assert [b.get("data-label") for b in bars] == ["2026-03-01", "2026-03-02", "2026-03-03"]
    games = ET.fromstring(svgs[0])
    day_one = games.findall(f"{SVG}g[@class='bar']")[0]
    assert [r.find(f"{SVG}title").text for r in day_one] == [
        "2026-03-01: 2 finished",
        "2026-03-01: 2 abandoned",
        "2026-03-01: 0 still open",
    ]
    assert "2026-03-01: 2 finished, 2 abandoned, 0 still open" in games.find(f"{SVG}desc").text
    assert 'href="/staff/stats.csv"' in html


def test_signed_in_the_csv_and_json_download(staff_client, journal_of_three_days):
    path, _ = journal_of_three_days
    sign_in(staff_client, PIN)
    response = staff_client.get("/staff/stats.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == 'attachment; filename="senet-pi-stats.csv"'
    assert response.get_data(as_text=True) == to_csv(day_stats(path))
    days = staff_client.get("/api/stats").json["days"]
    assert [d["date"] for d in days] == ["2026-03-01", "2026-03-02", "2026-03-03"]
    assert days[0]["finished"] == 2
    assert days[1]["switch_faults"] == 1


def test_the_operator_panel_links_to_the_staff_page(staff_client):
    assert b'href="/staff"' in staff_client.get("/").data


def _starts(text: str, needle: str) -> list[int]:
    out, i = [], text.find(needle)
    while i >= 0:
        out.append(i)
        i = text.find(needle, i + 1)
    return out


@pytest.mark.parametrize(("value", "top"), [(0, 1.0), (3, 3.0), (7, 8.0), (0.5, 0.5), (23, 25.0), (1234, 1250.0)])
def test_the_y_axis_ends_on_a_round_number_at_or_above_the_tallest_bar(value, top):
    got, step = nice_top(value)
    assert got == pytest.approx(top)
    assert got >= value
    assert got / step <= 5


@pytest.mark.parametrize(("value", "top"), [(0, 1), (1, 1), (2, 2), (3, 3), (7, 8), (23, 25), (1234, 1250)])
def test_a_count_axis_has_gridlines_on_whole_numbers_only(value, top):
    got, step = nice_top(value, whole=True)
    assert got == pytest.approx(top)
    assert got >= value
    assert got / step <= 5
    assert step >= 1
    assert step == int(step)


def test_signed_in_the_staff_page_of_a_service_with_no_journal_says_so():
    """A service with no journal: the staff page says so in words."""
    app = create_app(
        {
            "TESTING": True,
            "OPERATOR_PIN_HASH": generate_password_hash(PIN, method="pbkdf2:sha256:1000"),
            "PIN_DELAY": 0.01,
            "SECRET_KEY": "t",
        },
        service=Service(None),
    )
    client = app.test_client()
    sign_in(client, PIN)
    page = client.get("/staff")
    assert page.status_code == 503, page.status_code  # nothing to show, said in words
    assert "This service keeps no journal." in page.get_data(as_text=True)
    assert client.get("/api/stats").json == {"error": "This service keeps no journal."}


def test_the_staff_page_says_while_a_damaged_journal_s_games_are_not_back(staff_client, journal_of_three_days):
    from senet_pi.service.journal import aside

    _, service = journal_of_three_days
    sign_in(staff_client, PIN)
    assert "History out of service" not in staff_client.get("/staff").get_data(as_text=True)
    aside.write(
        service.journal.path, [{"aside": "j.sqlite.damaged-20260301-120000", "why": "t", "when": 1, "first": 9}]
    )
    html = staff_client.get("/staff").get_data(as_text=True)
    assert "History out of service" in html
    assert "j.sqlite.damaged-20260301-120000" in html
