"""`senet-pi backup` while the board runs and `senet-pi restore` onto a fresh install: the games
export identical, owners and modes are kept, a journal with games and a running board are refused,
and a bad archive is one clear line with nothing written."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import subprocess
import tarfile
from pathlib import Path

import pytest

from senet_pi.cli.command import main
from senet_pi.cli.export import export_text
from senet_pi.referee.hands import scripted_game
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from senet_pi.service.runlock import RunLock
from tests.journal_helpers import ScriptClock, feed, timed


@pytest.fixture
def board(tmp_path, monkeypatch):
    """A board as an exhibit keeps one: its instance folder (config root:4321 0640, the page's key
    0600, a certificate named from elsewhere) and its journal, with a game half played and the
    board still running (the journal open, its -wal holding the last moves, the run's lock held)."""
    instance = tmp_path / "etc"
    instance.mkdir()
    certs = tmp_path / "certs"
    certs.mkdir()
    (certs / "broker-ca.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    config = instance / "config.toml"
    config.write_text(f'EXHIBIT = true\nMQTT_CA_FILE = "{certs / "broker-ca.pem"}"\n\n[contacts]\nname = "Ada"\n')
    os.chown(config, 0, 4321)
    config.chmod(0o640)
    (instance / "secret_key").write_text("k" * 64)
    (instance / "secret_key").chmod(0o600)
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("SENET_PI_INSTANCE", str(instance))
    journal_path = state / "journal.sqlite"
    lock = RunLock(journal_path)
    lock.acquire()
    journal = Journal(journal_path)
    clock = ScriptClock()
    first = scripted_game("secret", 5)
    service = Service(journal, variant="secret", options=first["options"], clock=clock)
    feed(service, clock, timed(first["events"])[:40])  # a game left after 40 inputs
    service.new_game("houses")
    inputs = timed(scripted_game("houses", 4)["events"])[:30]
    start = clock.t * 1000
    feed(service, clock, [(start + ms + 1, kind, value) for ms, kind, value in inputs])  # and one in progress
    assert service.snapshot().to_json()["winner"] is None  # mid-game
    assert journal_path.with_name("journal.sqlite-wal").stat().st_size > 0  # the last moves only in the -wal
    yield instance, journal_path, certs
    journal.close()
    lock.release()


def exports(path: Path) -> list[str]:
    with Journal(path, readonly=True) as journal:
        return [export_text(journal, game.id) for game in journal.games()]


def fresh_install(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    instance = tmp_path / "fresh" / "etc"
    state = tmp_path / "fresh" / "state"
    instance.mkdir(parents=True)
    state.mkdir()
    (instance / "config.toml").write_text('SECRET_KEY = "new"\n')  # as a fresh exhibit install writes it
    os.chown(instance / "config.toml", 0, 4321)
    (instance / "config.toml").chmod(0o640)
    monkeypatch.setenv("SENET_PI_INSTANCE", str(instance))
    return instance, state / "journal.sqlite"


def test_a_backup_taken_mid_game_restores_onto_a_fresh_install_and_exports_identical(
    board, tmp_path, monkeypatch, capsys
):
    instance, journal, certs = board
    archive = tmp_path / "backup.tar.gz"
    assert main(["backup", str(archive), "--journal", str(journal)]) == 0  # the board is running
    assert "the journal (2 games)" in capsys.readouterr().out
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600  # it holds the secrets
    live = exports(journal)
    assert len(live) == 2

    (certs / "broker-ca.pem").unlink()  # a new card: the named file is gone too
    new_instance, new_journal = fresh_install(tmp_path, monkeypatch)
    assert main(["restore", str(archive), "--journal", str(new_journal)]) == 0
    assert exports(new_journal) == live
    assert (new_instance / "config.toml").read_bytes() == (instance / "config.toml").read_bytes()
    assert (new_instance / "secret_key").read_text() == "k" * 64
    assert stat.S_IMODE((new_instance / "secret_key").stat().st_mode) == 0o600  # a new file: the backup's mode
    replaced = (new_instance / "config.toml").stat()
    assert (replaced.st_gid, stat.S_IMODE(replaced.st_mode)) == (4321, 0o640)  # the install's, kept
    assert (certs / "broker-ca.pem").read_text() == "-----BEGIN CERTIFICATE-----\n"
    with Journal(new_journal) as reopened:  # the board starts on it: nothing damaged, nothing lost
        assert reopened.damaged is None
        assert reopened.notice is None
        assert reopened.game_in_progress() is not None


def test_restore_refuses_a_journal_with_games_unless_forced_and_keeps_it(board, tmp_path, monkeypatch, capsys):
    _, journal, _ = board
    archive = tmp_path / "backup.tar.gz"
    assert main(["backup", str(archive), "--journal", str(journal)]) == 0
    _, other = fresh_install(tmp_path, monkeypatch)
    with Journal(other) as older:
        older.start_game("modern", 3, {}, None)
    before = other.read_bytes()
    capsys.readouterr()
    assert main(["restore", str(archive), "--journal", str(other)]) == 1
    err = capsys.readouterr().err
    assert "holds 1 game: nothing restored" in err
    assert "--force" in err
    assert other.read_bytes() == before
    assert main(["restore", str(archive), "--journal", str(other), "--force"]) == 0
    kept = [
        p for p in other.parent.iterdir() if ".before-restore-" in p.name and p.name.endswith("sqlite" + p.name[-15:])
    ]
    aside = [p for p in other.parent.iterdir() if p.name.startswith("journal.sqlite.before-restore-")]
    assert aside, kept
    assert len(exports(other)) == 2


def test_restore_refuses_while_the_board_runs(board, tmp_path, capsys):
    _, journal, _ = board
    archive = tmp_path / "backup.tar.gz"
    assert main(["backup", str(archive), "--journal", str(journal)]) == 0
    capsys.readouterr()
    assert main(["restore", str(archive), "--journal", str(journal), "--force"]) == 1
    assert "in use by another senet-pi run" in capsys.readouterr().err


def archive_of(tmp_path: Path, members: dict[str, bytes], manifest: object = None) -> Path:
    path = tmp_path / "made.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        if manifest is not None:
            members = {"manifest.json": json.dumps(manifest).encode(), **members}
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def entry(name: str, data: bytes, role: str = "instance", path: str = "/x") -> dict[str, object]:
    sha = hashlib.sha256(data).hexdigest()
    return {"name": name, "role": role, "path": path, "mode": 0o600, "user": "root", "group": "root", "sha256": sha}


GOOD = b'LANGUAGE = "de"\n'


@pytest.mark.parametrize(
    ("members", "manifest", "said"),
    [
        ({}, None, "it has no manifest.json"),
        ({}, {"format": "other"}, "its manifest is another program's"),
        ({}, {"format": "senet-pi backup", "version": 9, "files": []}, "a backup of version 9"),
        (
            {"instance/config.toml": b"changed"},
            {"format": "senet-pi backup", "version": 1, "files": [entry("instance/config.toml", GOOD)]},
            "is damaged (its checksum differs)",
        ),
        (
            {"instance/config.toml": GOOD, "../../etc/passwd": b"x"},
            {"format": "senet-pi backup", "version": 1, "files": [entry("instance/config.toml", GOOD)]},
            "holds files its manifest does not list",
        ),
        (
            {"files/x/sudoers": b"x"},
            {
                "format": "senet-pi backup",
                "version": 1,
                "files": [entry("files/x/sudoers", b"x", "file", "/etc/sudoers")],
            },
            "would write /etc/sudoers, which its config.toml does not name",
        ),
        (
            {},
            {"format": "senet-pi backup", "version": 1, "files": [entry("instance/config.toml", GOOD)]},
            "is missing instance/config.toml",
        ),
    ],
)
def test_a_bad_archive_is_one_line_and_nothing_is_written(tmp_path, monkeypatch, capsys, members, manifest, said):
    instance, journal = fresh_install(tmp_path, monkeypatch)
    for listed in (manifest or {}).get("files", []):
        listed["path"] = listed["path"].replace("VICTIM", str(tmp_path / "victim"))
    before = (instance / "config.toml").read_bytes()
    code = main(["restore", str(archive_of(tmp_path, members, manifest)), "--journal", str(journal)])
    err = capsys.readouterr().err
    assert code == 1
    assert said in err
    assert len(err.strip().splitlines()) == 1
    assert (instance / "config.toml").read_bytes() == before
    assert not (tmp_path / "victim").exists()


def test_a_file_that_is_no_archive_is_said_so(tmp_path, capsys):
    not_one = tmp_path / "notes.tar.gz"
    not_one.write_text("shopping list")
    assert main(["restore", str(not_one)]) == 1
    assert "is not a senet-pi backup (not a whole tar.gz archive" in capsys.readouterr().err
    truncated = tmp_path / "cut.tar.gz"
    whole = archive_of(tmp_path, {"a": b"x" * 100000}, {"format": "senet-pi backup", "version": 1, "files": []})
    truncated.write_bytes(whole.read_bytes()[:200])
    assert main(["restore", str(truncated)]) == 1
    assert "not a senet-pi backup" in capsys.readouterr().err


def test_a_folder_gets_a_dated_archive_and_keep_prunes_only_this_hosts_older_ones(board, tmp_path, capsys, monkeypatch):
    import socket

    _, journal, _ = board
    monkeypatch.setattr(socket, "gethostname", lambda: "hall-1")
    folder = tmp_path / "backups"
    folder.mkdir()
    older = [folder / f"senet-pi-hall-1-2026010{day}-033000.tar.gz" for day in (1, 2, 3)]
    for path in older:
        path.write_text("old")
    theirs = folder / "senet-pi-hall-2-20260101-033000.tar.gz"
    theirs.write_text("another board's")
    mine = folder / "notes.txt"
    mine.write_text("a person's")
    assert main(["backup", str(folder), "--keep", "2", "--journal", str(journal)]) == 0
    out = capsys.readouterr().out
    left = sorted(p.name for p in folder.iterdir())
    made = [name for name in left if name.startswith("senet-pi-hall-1-") and name not in {p.name for p in older}]
    assert len(made) == 1
    assert left == sorted([made[0], older[2].name, theirs.name, mine.name])
    assert out.count("removed the older backup") == 2
    assert main(["backup", str(folder / made[0]), "--keep", "2"]) == 1  # --keep needs a folder
    assert "--keep N needs a folder" in capsys.readouterr().err


def test_a_missing_folder_is_named_as_a_stick_not_mounted(board, tmp_path, capsys):
    """The crontab's `senet-pi backup /media/stick --keep 14` with the stick out: the folder named, nothing written."""
    _, journal, _ = board
    gone = tmp_path / "stick"
    for argv in ([str(gone), "--keep", "14"], [str(gone / "senet-pi.tar.gz")]):
        assert main(["backup", *argv, "--journal", str(journal)]) == 1
        err = capsys.readouterr().err
        assert f"there is no folder {gone}: plug in and mount the stick" in err
        assert "Traceback" not in err
    assert not gone.exists()


def test_the_daily_backup_units_pass_systemd_analyze_verify(tmp_path):
    from tests.exhibit_helpers import EXHIBIT, SENET_PI, verify

    (tmp_path / "senet-pi-backup.timer").write_text((EXHIBIT / "senet-pi-backup.timer").read_text())
    result = verify(tmp_path, "senet-pi-backup.service", {"/opt/senet-pi/bin/senet-pi": str(SENET_PI)})
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr
    timer = subprocess.run(
        ["systemd-analyze", "verify", str(tmp_path / "senet-pi-backup.timer")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert timer.returncode == 0, timer.stderr
    assert timer.stderr == "", timer.stderr
    assert "Persistent=true" in (EXHIBIT / "senet-pi-backup.timer").read_text()  # a Pi off at night catches up


def test_install_backup_daily_takes_only_a_full_path():
    from tests.exhibit_helpers import EXHIBIT

    result = subprocess.run(
        ["bash", str(EXHIBIT / "install.sh"), "--backup-daily", "backups"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "senet-pi install: --backup-daily needs a full path with no spaces or quotes, like /media/backup"
    )
    script = (EXHIBIT / "install.sh").read_text()
    assert "systemctl enable --now senet-pi-backup.timer" in script
