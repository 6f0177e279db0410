"""Versions and the journal's schema: a schema change is a new release; a journal a newer release wrote
is refused and left exactly as it is; a migration keeps a copy the release before reads; and a journal
goes 0.2.0 -> this -> 0.2.0 -> this with nothing set aside (0.2.0: the code of commit 549d412, run
from `git archive` in a child process)."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

from senet_pi import __version__
from senet_pi.service.journal import Journal, JournalError
from senet_pi.service.journal.schema import RELEASES, SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[1]
RELEASED = {"0.2": 2}  # fixed history: the schema each published release writes


def test_the_schema_is_tied_to_the_version():
    minor = ".".join(__version__.split(".")[:2])
    assert RELEASES[minor] == SCHEMA_VERSION  # a schema change needs a release of its own
    assert {k: RELEASES[k] for k in RELEASED} == RELEASED  # a published release's schema never changes
    ordered = [RELEASES[k] for k in sorted(RELEASES, key=lambda v: tuple(map(int, v.split("."))))]
    assert ordered == sorted(ordered)


def newer_journal(path: Path) -> bytes:
    with Journal(path) as journal:
        journal.start_game("secret", 2, {})
    db = sqlite3.connect(path)
    db.execute("INSERT OR REPLACE INTO meta VALUES ('written_by', '9.1.0')")
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path.read_bytes()


def test_a_journal_of_a_newer_schema_is_refused_and_left_exactly_as_it_is(tmp_path):
    path = tmp_path / "j.sqlite"
    before = newer_journal(path)
    beside = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(JournalError) as refused:
        Journal(path)
    said = str(refused.value)
    assert "written by senet-pi 9.1.0" in said
    assert "update senet-pi, or restore" in said
    assert hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(before).digest()
    assert sorted(p.name for p in tmp_path.iterdir()) == beside  # nothing set aside, nothing made beside it


@pytest.mark.parametrize("command", [["games"], ["export", "last"], ["stats"]])
def test_the_reading_commands_refuse_a_newer_journal_as_run_does_and_leave_it_as_it_is(tmp_path, capsys, command):
    from senet_pi.cli.command import main

    path = tmp_path / "j.sqlite"
    before = newer_journal(path)
    beside = sorted(p.name for p in tmp_path.iterdir())
    assert main([*command, "--journal", str(path)]) != 0
    said = capsys.readouterr().err
    assert "written by senet-pi 9.1.0" in said
    assert "update senet-pi, or restore" in said
    assert "j.sqlite.schema-2" in said
    assert "Traceback" not in said
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == beside


def test_a_migration_keeps_a_copy_the_release_before_reads(tmp_path):
    path = tmp_path / "j.sqlite"
    db = sqlite3.connect(path)  # a schema-1 journal: the four tables, no checksums
    db.executescript(
        "CREATE TABLE games (id INTEGER PRIMARY KEY, variant TEXT NOT NULL, players INTEGER NOT NULL, "
        "options TEXT NOT NULL, position TEXT, started REAL NOT NULL, ended REAL, winner TEXT);"
        "CREATE TABLE events (game INTEGER NOT NULL, seq INTEGER NOT NULL, ms INTEGER NOT NULL, kind TEXT NOT NULL,"
        " value TEXT NOT NULL, PRIMARY KEY (game, seq));"
        "CREATE TABLE verdicts (game INTEGER NOT NULL, seq INTEGER NOT NULL, event INTEGER NOT NULL,"
        " verdict TEXT NOT NULL, PRIMARY KEY (game, seq));"
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value NOT NULL);"
        "INSERT INTO games VALUES (1, 'secret', 2, '{}', NULL, 1.0, NULL, NULL);"
        "INSERT INTO events VALUES (1, 0, 0, 'throw', '3');"
        "PRAGMA user_version=1;"
    )
    db.close()
    before = path.read_bytes()
    journal = Journal(path)
    assert journal.migrated
    assert "j.sqlite.schema-1" in journal.migrated
    journal.close()
    assert (tmp_path / "j.sqlite.schema-1").read_bytes() == before
    assert not list(tmp_path.glob("*.damaged-*"))


PLAY = """
import sys
from senet_pi import __version__
from senet_pi.service.journal import Journal
journal = Journal(sys.argv[1])
assert not journal.damaged, journal.damaged
game = journal.start_game("secret", 2, {"by": __version__})
for seq in range(3):
    journal.record_event(game, seq, seq * 100, "throw", seq + 1)
journal.end_game(game, "A")
print(__version__, len(journal.games()))
journal.close()
"""


def old_release(folder: Path) -> Path:
    """The package as commit 549d412 (0.2.0) has it, unpacked in `folder`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "549d412", "senet_pi"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def play(code: Path, journal: Path) -> str:
    env = {"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", PLAY, str(journal)], capture_output=True, text=True, env=env, cwd=code, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[0] + " " + done.stdout.split()[1]


def test_a_journal_goes_to_0_2_0_and_back_with_nothing_set_aside(tmp_path):
    old = old_release(tmp_path / "old")
    path = tmp_path / "data" / "j.sqlite"
    path.parent.mkdir()
    said = [play(old, path), play(ROOT, path), play(old, path), play(ROOT, path)]
    assert said == ["0.2.0 1", f"{__version__} 2", "0.2.0 3", f"{__version__} 4"]
    assert not list(path.parent.glob("*.damaged-*"))
    assert not list(path.parent.glob("*-aside"))
    with Journal(path, readonly=True) as journal:
        assert [len(journal.events(g.id)) for g in journal.games()] == [3, 3, 3, 3]


def test_status_says_the_service_refuses_a_newer_journal_and_leaves_it_as_it_is(tmp_path):
    from senet_pi.cli.status import journal_checks

    path = tmp_path / "j.sqlite"
    before = newer_journal(path)
    checks, _ = journal_checks(path)
    assert checks[0].ok is False  # never "healthy" with a journal the service will not start with
    assert "written by senet-pi 9.1.0" in checks[0].text
    assert "update senet-pi, or restore j.sqlite.schema-2" in checks[0].text
    assert path.read_bytes() == before
    current = tmp_path / "now.sqlite"
    with Journal(current) as journal:
        journal.start_game("secret", 2, {})
    assert "newer" not in journal_checks(current)[0][0].text
