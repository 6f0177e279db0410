"""A damaged journal set aside: its games recovered into the new journal game by game, in the
background while the board plays a new game (numbered above the old ones), resumable when stopped
part-way, recorded in `<journal>-aside` until recovered or dismissed, and said by every start,
`status` and the page's (and so the fleet's) state meanwhile."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from senet_pi.cli.command import main
from senet_pi.cli.status import journal_checks
from senet_pi.service.journal import Journal, recover, salvage
from senet_pi.service.journal import aside as asides
from tests.journal_helpers import build, kept_inputs, lose_the_events_root


@pytest.fixture(scope="module")
def damaged(tmp_path_factory) -> tuple[Path, dict]:
    """A journal of 24 games whose events table lost its root page, and what an uninterrupted
    recovery keeps of it (the reference)."""
    folder = tmp_path_factory.mktemp("aside")
    path = folder / "j.sqlite"
    build(path)
    lose_the_events_root(path)
    recover(path, folder / "reference.sqlite")
    return path, kept_inputs(folder / "reference.sqlite")


def fresh(damaged: tuple[Path, dict], tmp_path: Path) -> Path:
    path = tmp_path / "j.sqlite"
    shutil.copy(damaged[0], path)
    return path


def test_a_damaged_journal_is_recovered_in_the_background_while_a_new_game_is_numbered_above(damaged, tmp_path):
    path = fresh(damaged, tmp_path)
    gate = threading.Event()
    started = threading.Event()
    real = salvage.Scratch.commit

    def held(self, rows, progress):  # the recovery waits until the new game is on
        started.set()
        gate.wait(10)
        return real(self, rows, progress)

    salvage.Scratch.commit = held  # type: ignore[method-assign]
    try:
        journal = Journal(path, background=True)
        assert started.wait(10)
        assert journal.damaged
        assert "recovered in the background" in journal.damaged
        assert journal.history_out()
        assert "history out of service" in journal.history_out()[0]
        game = journal.start_game("secret", 2, {})
        assert game > 24  # above every game of the journal set aside
        checks, _ = journal_checks(path)
        assert checks[0].ok is False
        assert "history out of service" in checks[0].text
    finally:
        gate.set()
        salvage.Scratch.commit = real  # type: ignore[method-assign]
    journal._recovering.join(30)
    assert journal.history_out() == []
    assert asides.pending(path) == []
    journal.close()
    kept = kept_inputs(path)
    assert {g: v for g, v in kept.items() if g <= 24} == damaged[1]
    assert kept[game] == []
    assert not list(tmp_path.glob("*-scratch*"))


def test_a_recovery_stopped_part_way_is_recorded_and_goes_on_at_the_next_start(damaged, tmp_path, monkeypatch):
    path = fresh(damaged, tmp_path)
    monkeypatch.setattr(salvage, "BATCH", 50)  # many batches, so it stops part-way
    stop = threading.Event()
    real = salvage.Scratch.commit
    commits = []

    def counting(self, rows, progress):
        commits.append(1)
        if len(commits) == 3:
            stop.set()  # as a restart or the out-of-memory killer would, between two batches
        self.stop = stop
        return real(self, rows, progress)

    monkeypatch.setattr(salvage.Scratch, "commit", counting)
    journal = Journal(path, background=True)
    journal._recovering.join(30)
    assert stop.is_set()
    assert asides.pending(path)  # stopped, still recorded
    journal.close()
    checks, _ = journal_checks(path)
    assert checks[0].ok is False
    assert "history out of service" in checks[0].text
    monkeypatch.setattr(salvage.Scratch, "commit", real)
    monkeypatch.setattr(Journal, "_recover_all", lambda self: None)
    from senet_pi.service.core import Service

    service = Service(Journal(path, background=True))  # a start with the recovery still to finish says so
    assert any("history out of service" in note for note in service.notes)
    service.journal.close()
    monkeypatch.undo()
    again = Journal(path)  # the next start goes on from where it stopped
    assert asides.pending(path) == []
    again.close()
    assert {g: v for g, v in kept_inputs(path).items() if g <= 24} == damaged[1]
    assert commits
    assert len(commits) >= 3


def test_dismiss_forgets_a_set_aside_journal_and_keeps_its_file(damaged, tmp_path, capsys, monkeypatch):
    path = fresh(damaged, tmp_path)
    monkeypatch.setattr(Journal, "_recover_all", lambda self: None)  # never recovered: a person gives it up
    Journal(path).close()
    entry = asides.pending(path)[0]
    assert main(["journal", "dismiss", "--journal", str(path)]) == 0
    assert "dismissed" in capsys.readouterr().out
    assert asides.pending(path) == []
    assert (tmp_path / entry["aside"]).exists()
    assert main(["journal", "dismiss", "--journal", str(path)]) != 0
    assert "no journal set aside" in capsys.readouterr().err


def test_a_big_journal_is_checked_in_the_background_and_set_aside_at_the_next_start(damaged, tmp_path, monkeypatch):
    from senet_pi.service.journal import check

    path = fresh(damaged, tmp_path)
    monkeypatch.setattr(check, "CHECK_AT_START", 0)  # every journal "big": not checked whole on the way up
    journal = Journal(path)  # the games table reads: opened, the damage in its inputs not seen yet
    assert journal.damaged is None
    journal.close()
    assert main(["journal", "check", "--journal", str(path)]) == 1  # on demand: found and kept
    assert check.found_damage(path)
    checks, _ = journal_checks(path)
    assert checks[0].ok is False
    assert "damaged" in checks[0].text
    again = Journal(path)  # the next start sets it aside and recovers it
    assert again.damaged
    assert "a check found it damaged" in again.damaged
    assert check.found_damage(path) is None
    assert asides.pending(path) == []
    again.close()
    assert {g: v for g, v in kept_inputs(path).items() if g <= 24} == damaged[1]


def test_the_service_checks_a_big_journal_in_a_thread(damaged, tmp_path, monkeypatch):
    from senet_pi.service.journal import check

    path = fresh(damaged, tmp_path)
    monkeypatch.setattr(check, "CHECK_AT_START", 0)
    threads = []
    real = check.check_in_background
    monkeypatch.setattr(
        "senet_pi.service.journal.check_in_background", lambda *a: threads.append(real(*a)) or threads[-1]
    )
    journal = Journal(path, background=True)
    threads[0].join(30)
    assert check.found_damage(path)
    assert "restart the service" in journal.history_out()[0]
    journal.close()


def test_the_state_the_page_and_the_fleet_publish_says_history_is_out_of_service(damaged, tmp_path, monkeypatch):
    import json

    from senet_pi.fleet.published import Board, state_json
    from senet_pi.service.core import Service

    path = fresh(damaged, tmp_path)
    monkeypatch.setattr(Journal, "_recover_all", lambda self: None)  # still waiting to be recovered
    service = Service(Journal(path, background=True))
    notes = json.loads(state_json(Board(service)))["journal_notes"]
    assert any("history out of service" in note and ".damaged-" in note for note in notes)
    assert service.game_id > 24
    assert any("damaged" in note for note in service.notes)
    service.journal.close()


def test_status_says_how_far_a_recovery_got(tmp_path):
    import json
    import sqlite3

    path = tmp_path / "j.sqlite"
    Journal(path).close()
    name = "j.sqlite.damaged-20261206-030000"
    asides.write(path, [{"aside": name, "why": "a test", "when": 1.0, "first": 40}])
    db = sqlite3.connect(path)
    db.execute("INSERT INTO meta VALUES (?, ?)", (f"recovering:{name}", json.dumps({"games": 3})))
    db.commit()
    db.close()
    checks, _ = journal_checks(path)
    assert checks[0].ok is False
    assert f"{name} set aside at" in checks[0].text
    assert "3 of its games copied back so far" in checks[0].text


def test_the_game_the_damage_stopped_comes_back_abandoned_not_open_for_ever(tmp_path):
    """In the background the board starts a new game at once, so the game in progress when the damage
    came is abandoned: it comes back ended (at its last input), and the statistics count it so."""
    import json
    import sqlite3

    from senet_pi.service.stats import day_stats

    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        won = journal.start_game("secret", 2, {})
        journal.record_event(won, 0, 0, "throw", 3)
        journal.end_game(won, "A")
        stopped = journal.start_game("secret", 2, {})
        journal.record_event(stopped, 0, 0, "throw", 3)
        journal.record_event(stopped, 1, 1500, "throw", 2)
    mark_path = tmp_path / "j.sqlite-mark"
    mark = json.loads(mark_path.read_text())
    mark["writes"] += 5  # writes the file no longer holds: damage, set aside and recovered
    mark_path.write_text(json.dumps(mark))
    journal = Journal(path, background=True)
    assert journal.damaged
    playing = journal.start_game("secret", 2, {})  # the board's new game, while the recovery runs
    journal._recovering.join(30)
    assert asides.pending(path) == []
    journal.close()
    db = sqlite3.connect(path)
    rows = {r[0]: r[1:] for r in db.execute("SELECT id, started, ended, winner FROM games")}
    db.close()
    started, ended, winner = rows[stopped]
    assert ended == pytest.approx(started + 1.5)  # at its last input, on its own clock
    assert winner is None
    assert rows[won][2] is not None
    assert rows[playing][2] is None  # the board's own game is left as it is
    with Journal(path, readonly=True) as reading:
        assert reading.game(stopped).ended is not None  # its checksum rewritten with it: it reads
    (day,) = day_stats(path)
    assert (day.finished, day.abandoned, day.open) == (1, 1, 1)
