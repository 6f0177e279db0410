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
from tests.test_journal_pages import build, kept_inputs, lose_the_events_root


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
        assert journal.damaged and "recovered in the background" in journal.damaged
        assert journal.history_out() and "history out of service" in journal.history_out()[0]
        game = journal.start_game("secret", 2, {})
        assert game > 24  # above every game of the journal set aside
        checks, _ = journal_checks(path)
        assert checks[0].ok is False and "history out of service" in checks[0].text
    finally:
        gate.set()
        salvage.Scratch.commit = real  # type: ignore[method-assign]
    journal._recovering.join(30)
    assert journal.history_out() == [] and asides.pending(path) == []
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
    assert stop.is_set() and asides.pending(path)  # stopped, still recorded
    journal.close()
    checks, _ = journal_checks(path)
    assert checks[0].ok is False and "history out of service" in checks[0].text
    monkeypatch.setattr(salvage.Scratch, "commit", real)
    again = Journal(path)  # the next start goes on from where it stopped
    assert asides.pending(path) == []
    again.close()
    assert {g: v for g, v in kept_inputs(path).items() if g <= 24} == damaged[1]
    assert commits and len(commits) >= 3


def test_dismiss_forgets_a_set_aside_journal_and_keeps_its_file(damaged, tmp_path, capsys, monkeypatch):
    path = fresh(damaged, tmp_path)
    monkeypatch.setattr(Journal, "_recover_all", lambda self: None)  # never recovered: a person gives it up
    Journal(path).close()
    entry = asides.pending(path)[0]
    assert main(["journal", "dismiss", "--journal", str(path)]) == 0
    assert "dismissed" in capsys.readouterr().out
    assert asides.pending(path) == [] and (tmp_path / entry["aside"]).exists()
    assert main(["journal", "dismiss", "--journal", str(path)]) != 0
    assert "no journal set aside" in capsys.readouterr().err
