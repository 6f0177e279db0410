"""The journal through a full disk, and a damaged journal never silent."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from senet_pi.cli import main
from senet_pi.service import Service
from senet_pi.service.journal import Journal
from senet_pi.verdicts import JournalNews, Verdict
from tests.journal_helpers import INPUTS, ScriptClock, feed, fill_partition, straight_history


class FlakyDisk:
    """A sqlite3 connection that fails every write with SQLITE_FULL while `full` is set."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db, self.full = db, False

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if self.full and sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
            exc = sqlite3.OperationalError("database or disk is full")
            exc.sqlite_errorname = "SQLITE_FULL"
            raise exc
        return self.db.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self.db, name)

    def __enter__(self) -> sqlite3.Connection:
        return self.db.__enter__()

    def __exit__(self, *exc: object) -> object:
        return self.db.__exit__(*exc)


def play_through_a_full_disk(service: Service, clock: ScriptClock, fill, free, said: list[str]) -> None:
    third = len(INPUTS) // 3
    feed(service, clock, INPUTS[:third])
    fill()
    feed(service, clock, INPUTS[third : 2 * third])  # the game goes on, nothing raises
    assert service.journal.pending > 0
    assert "journal cannot write: disk full" in service.journal_trouble
    assert sum("journal cannot write: disk full" in t for t in said) == 1  # said once, not per input
    free()
    clock.t += 1.5
    service.tick()  # an idle tick retries
    assert service.journal.pending == 0 and service.journal_trouble is None, service.journal.trouble
    assert said[-1].startswith("the journal caught up")
    feed(service, clock, INPUTS[2 * third :])


def check_resume_gives_the_same_game(path: Path, expected: list[dict]) -> None:
    journal = Journal(path)
    game = journal.games()[-1].id
    assert [v.json() for v in journal.verdicts(game)] == expected  # nothing lost, order kept
    assert [e.seq for e in journal.events(game)] == list(range(len(journal.events(game))))
    clock = ScriptClock()
    resumed_journal = Journal(path)
    # reopen the finished game as in progress to check a resume after catch-up judges the same
    resumed_journal._db.execute("UPDATE games SET ended = NULL, winner = NULL, sum = NULL")  # by hand: unchecked
    resumed = Service(resumed_journal, clock=clock)
    assert json.loads(json.dumps([v.json() for v in resumed.history])) == expected
    journal.close()
    resumed.close()


def test_disk_full_injected_fault_holds_writes_and_catches_up(tmp_path):
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    disk = FlakyDisk(journal._db)
    journal._db = disk  # type: ignore[assignment]
    clock = ScriptClock()
    service = Service(journal, clock=clock)
    said: list[str] = []
    service.subscribe(lambda verdicts: said.extend(v.text for v in verdicts if isinstance(v, JournalNews)))

    def fill() -> None:
        disk.full = True

    def free() -> None:
        disk.full = False

    play_through_a_full_disk(service, clock, fill, free, said)
    journal._db = disk.db  # type: ignore[assignment]
    journal.close()
    check_resume_gives_the_same_game(path, straight_history())


def test_disk_full_terminal_says_it_in_one_line(tmp_path):
    from senet_pi.cli.terminal import describe

    line = describe(JournalNews("journal cannot write: disk full (3 writes held in memory)"))
    assert line == "!! journal cannot write: disk full (3 writes held in memory)"


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A 256 kB tmpfs: a real full disk. Skipped only where mounting is impossible (not root, no tmpfs)."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", f"senet-{uuid.uuid4().hex[:6]}", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        why = result.stderr.strip() or "mount failed"
        pytest.skip(f"cannot mount a tmpfs here ({why}); the injected-fault test covers a full disk")
    try:
        yield mount
    finally:
        if subprocess.run(["umount", str(mount)], check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], check=False)  # a file still open: detach it anyway


def test_disk_full_on_a_real_tiny_tmpfs_the_game_resumes_unchanged(tiny_tmpfs, tmp_path):
    path = tiny_tmpfs / "j.sqlite"
    clock = ScriptClock()
    journal = Journal(path)
    journal._db.execute("PRAGMA wal_autocheckpoint=8")  # a -wal of a few pages, on a disk of 64 pages
    service = Service(journal, clock=clock)
    said: list[str] = []
    service.subscribe(lambda verdicts: said.extend(v.text for v in verdicts if isinstance(v, JournalNews)))
    ballast = tiny_tmpfs / "ballast"

    def fill() -> None:
        service.journal._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # so the ballast, not the -wal, fills it
        Path(f"{path}-reserve").unlink(missing_ok=True)  # and the reserve too: a disk full past all help
        fill_partition(ballast)  # every byte the tmpfs has left

    def free() -> None:
        ballast.unlink()

    play_through_a_full_disk(service, clock, fill, free, said)
    service.close()
    check_resume_gives_the_same_game(path, straight_history())


# ------------------------------------------------------------------ a damaged journal is never silent


def half_game(path: Path, kill: bool = True) -> int:
    """Play half a game, leaving its last writes in the -wal as a kill -9 would (no checkpoint)."""
    clock = ScriptClock()
    journal = Journal(path)
    journal._db.execute("PRAGMA wal_autocheckpoint=0")
    service = Service(journal, clock=clock)
    feed(service, clock, INPUTS[: len(INPUTS) // 2])
    if kill:  # copy the files as they stand, like a kill -9: the -wal is not checkpointed
        for suffix in ("", "-wal", "-mark"):
            shutil.copy(str(path) + suffix, str(path) + suffix + ".kill")
        journal._db.close()
        for suffix in ("", "-wal", "-mark"):
            os.replace(str(path) + suffix + ".kill", str(path) + suffix)
        Path(str(path) + "-shm").unlink(missing_ok=True)
    return service.seq


def aside(tmp_path: Path) -> list[Path]:
    return sorted(tmp_path.glob("j.sqlite.damaged-*"))


def journaled_inputs(path: Path) -> list[tuple[int, int, str, object]]:
    """(game, seq, kind, value) of every input in the journal at `path` (with its -wal), read from a copy."""
    folder = Path(tempfile.mkdtemp())
    for suffix in ("", "-wal"):
        if Path(str(path) + suffix).exists():
            shutil.copy(str(path) + suffix, str(folder / "copy.sqlite") + suffix)
    db = sqlite3.connect(folder / "copy.sqlite")
    try:
        rows = db.execute("SELECT game, seq, kind, value FROM events ORDER BY game, seq").fetchall()
    except sqlite3.Error:
        rows = []
    finally:
        db.close()
        shutil.rmtree(folder)
    return [(g, s, k, json.loads(v)) for g, s, k, v in rows]


def assert_set_aside_and_kept(path: Path, note_part: str, before: list) -> Service:
    """The damaged file is set aside (kept), the journal starts again from what of it is intact: the
    inputs kept are the first ones journaled, and the game in progress resumes after the last of them."""
    service = Service(Journal(path))
    notes = [n for n in service.notes if "is damaged" in n]
    assert len(notes) == 1
    assert note_part in notes[0]
    assert "\n" not in notes[0]
    assert aside(path.parent)  # kept, not deleted
    kept = [(e.seq, e.kind, e.value) for g in service.journal.games() for e in service.journal.events(g.id)]
    assert kept == [(s, k, v) for _, s, k, v in before][: len(kept)]  # a prefix: nothing changed, nothing reordered
    assert service.seq == len(kept)
    assert not kept or any(n.startswith("resumed") for n in service.notes)
    lost = service.journal.losses()
    assert len(lost) == 1
    assert lost[0]["lost"] >= len(before) - len(kept)  # counted: at least the inputs gone
    return service


def test_damaged_journal_a_deleted_wal_after_a_kill_is_detected(tmp_path):
    path = tmp_path / "j.sqlite"
    half_game(path)
    before = journaled_inputs(path)
    Path(str(path) + "-wal").unlink()
    assert_set_aside_and_kept(path, "-wal was damaged or lost", before).close()


def test_damaged_journal_a_truncated_wal_is_detected(tmp_path):
    path = tmp_path / "j.sqlite"
    half_game(path)
    before = journaled_inputs(path)
    wal = Path(str(path) + "-wal")
    original = wal.read_bytes()
    wal.write_bytes(original[: len(original) // 2])
    service = assert_set_aside_and_kept(path, "-wal was damaged or lost", before)
    assert 0 < service.seq < len(before)  # half the -wal's inputs kept, the game resumed after them
    service.close()
    kept = [p for p in aside(tmp_path) if p.name.endswith("-wal")]
    assert kept
    assert kept[0].read_bytes() == original[: len(original) // 2]  # the evidence, untouched


def test_damaged_journal_a_damaged_wal_is_detected(tmp_path):
    path = tmp_path / "j.sqlite"
    half_game(path)
    wal = Path(str(path) + "-wal")
    data = bytearray(wal.read_bytes())
    for i in range(len(data) // 3, len(data) // 3 + 64):
        data[i] ^= 0x5A
    before = journaled_inputs(path)
    wal.write_bytes(bytes(data))
    assert_set_aside_and_kept(path, "is damaged", before).close()


def test_damaged_journal_a_main_file_truncated_to_zero_is_detected(tmp_path):
    path = tmp_path / "j.sqlite"
    half_game(path)
    before = journaled_inputs(path)
    path.write_bytes(b"")
    assert_set_aside_and_kept(path, "is damaged", before).close()


def test_damaged_journal_a_sound_journal_after_a_kill_resumes_without_alarm(tmp_path):
    path = tmp_path / "j.sqlite"
    seq = half_game(path)
    service = Service(Journal(path))
    assert not aside(tmp_path)
    assert service.seq == seq
    assert any(n.startswith("resumed") for n in service.notes)
    service.close()


def test_damaged_journal_a_foreign_schema_is_set_aside(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO games VALUES (1, 'not ours')")
    db.commit()
    db.close()
    service = Service(Journal(path))  # not ours: set aside whole, nothing taken from it
    notes = [n for n in service.notes if "is damaged" in n]
    assert len(notes) == 1
    assert "foreign schema" in notes[0]
    assert aside(tmp_path)
    assert service.seq == 0
    assert service.journal.games()[-1].id == service.game_id == 1
    assert service.journal.losses() == []
    service.close()
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE photos (id INTEGER)")
    db.commit()
    db.close()
    before = other.read_bytes()
    assert main(["games", "--journal", str(other)]) == 1  # a reading command never sets it aside
    err = capsys.readouterr().err
    assert "not a senet-pi journal" in err
    assert err.count("\n") == 1
    assert other.read_bytes() == before
    assert not list(tmp_path.glob("other.sqlite.damaged-*"))


def test_damaged_journal_a_bad_row_in_the_game_in_progress_resumes_up_to_it(tmp_path):
    """A row that does not decode costs only the inputs from it on, not the journal."""
    path = tmp_path / "j.sqlite"
    half_game(path, kill=False)
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET value = '{not json' WHERE seq = 3")
    db.commit()
    db.close()
    service = Service(Journal(path))
    assert not aside(tmp_path)
    assert any("could not be resumed past input 3" in n and "damaged row" in n for n in service.notes)
    assert service.seq == 3
    assert service.game_id == 2
    assert service.journal.game(1).ended is not None
    assert service.journal.events(2)[-1].seq == 2
    service.close()


def test_damaged_journal_a_bad_row_in_an_old_game_is_one_line_exit_1(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    half_game(path, kill=False)
    db = sqlite3.connect(path)
    db.execute("UPDATE games SET ended = 1, options = 'nope'")
    db.execute("INSERT INTO games (variant, players, options, started) VALUES ('secret', 2, '{}', 1)")
    db.commit()
    db.close()
    assert main(["export", "1", "--journal", str(path)]) == 1
    err = capsys.readouterr().err
    assert "has a damaged row in games" in err
    assert err.count("\n") == 1
    assert "internal error" not in err


def test_disk_full_no_thread_dies_while_the_disk_is_full(tmp_path):
    import io
    import threading

    from senet_pi.cli.run import Runner
    from senet_pi.hardware.backend import SimBackend
    from senet_pi.hardware.pinmap import load_pinmap

    journal = Journal(tmp_path / "j.sqlite")
    disk = FlakyDisk(journal._db)
    journal._db = disk  # type: ignore[assignment]
    service = Service(journal)
    out = io.StringIO()
    runner = Runner(service, SimBackend(load_pinmap()), out=out)
    seen: dict[str, threading.Event] = {k: threading.Event() for k in ("progress", "cleared", "caught up")}

    def watch(verdicts: list[Verdict]) -> None:
        for v in (verdict.json() for verdict in verdicts):
            if v["v"] in seen:
                seen[v["v"]].set()
            if v["v"] == "settled":  # a piece put back at once: the board came back as it was
                seen["cleared"].set()
            if v["v"] == "journal" and "caught up" in v["text"]:
                seen["caught up"].set()

    service.subscribe(watch)
    try:
        runner.start()
        disk.full = True
        runner.command("lift 10")  # before the throw: judged (a warning), journaled nowhere yet
        assert seen["progress"].wait(10)
        runner.command("place 10")
        assert seen["cleared"].wait(10)  # the scanner and the ticks kept going
        assert journal.pending > 0
        assert "journal cannot write: disk full" in out.getvalue()
        assert runner._ticker.is_alive()
        assert runner.backend.board._thread.is_alive()
        disk.full = False
        assert seen["caught up"].wait(10)  # the idle ticks retried by themselves
        assert journal.pending == 0
    finally:
        journal._db = disk.db  # type: ignore[assignment]
        runner.close()


def test_disk_full_the_page_state_says_it(tmp_path):
    from senet_pi_web import create_app

    journal = Journal(tmp_path / "j.sqlite")
    disk = FlakyDisk(journal._db)
    journal._db = disk  # type: ignore[assignment]
    service = Service(journal)
    app = create_app({"TESTING": True, "SECRET_KEY": "x"}, service=service)
    client = app.test_client()
    assert client.get("/api/state").get_json()["journal"] is None
    disk.full = True
    service.handle("throw", 3)
    assert "journal cannot write: disk full" in client.get("/api/state").get_json()["journal"]
    disk.full = False
    journal.flush()
    service.tick()
    assert client.get("/api/state").get_json()["journal"] is None
    journal._db = disk.db  # type: ignore[assignment]
    service.close()
