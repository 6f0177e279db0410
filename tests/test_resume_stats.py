"""Resumed games in the statistics: a game the service could not resume past some input goes on
as a new record (its inputs until then copied). That is one game, carried on, not one abandoned and
another begun: counted once, on the day it began, with the resume noted."""

from __future__ import annotations

import pytest

from senet_pi.cli import main
from senet_pi.service import Service
from senet_pi.service.journal import Journal
from senet_pi.service.stats import day_stats, to_csv
from tests.journal_helpers import restart_failing_at


def test_a_game_carried_on_past_two_failed_resumes_is_one_game_resumed(two_games, tmp_path, monkeypatch, capsys):
    path = tmp_path / "j.sqlite"
    _first, second = two_games(path)
    before = day_stats(path)[0]
    restart_failing_at(path, monkeypatch, second - 5).close()  # game 2 goes on as game 3
    again = restart_failing_at(path, monkeypatch, second - 12)  # and game 3 as game 4
    assert again.game_id == 4
    assert [g.id for g in again.journal.games()] == [1, 2, 3, 4]
    again.close()

    day = day_stats(path)[0]
    assert (day.started, day.finished, day.abandoned, day.open) == (before.started, 0, before.abandoned, 1)
    assert day.resumed == 1
    assert before.resumed == 0
    assert day.warnings <= before.warnings  # the copied verdicts are not counted twice
    assert "resumed" in to_csv([day]).splitlines()[0].split(",")
    assert main(["stats", "--journal", str(path)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[-1] == "resumed"
    assert table[1].split()[-1] == "1"


@pytest.mark.parametrize("value", ["x", "3a", ""])
def test_a_carried_note_that_is_not_ours_counts_the_games_as_they_are(tmp_path, value):
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    service = Service(journal)
    service.new_game("secret")
    journal.record_carried(1, 2)
    journal._submit([("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", ("carried:1", value))])
    service.close()
    day = day_stats(path)[0]
    assert (day.started, day.abandoned, day.open, day.resumed) == (2, 1, 1, 0)
