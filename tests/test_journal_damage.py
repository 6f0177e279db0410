"""A damaged journal keeps everything intact, over many random damages: the `-wal` cut at any byte,
deleted, or with any bit flipped; the main file cut or with any bit flipped. Each time the service
starts and resumes; a damaged file is kept aside; after damage to the `-wal` the inputs kept are all
those the main file held and a prefix of those journaled, and every input lost is counted, said by
`senet-pi status` (never healthy) and in the statistics. `SENET_PI_DAMAGE_CASES` runs more cases by hand."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from senet_pi.cli.command import main
from senet_pi.cli.status import journal_checks
from senet_pi.referee.hands import scripted_game
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from senet_pi.service.stats import day_stats, to_table
from tests.journal_helpers import ScriptClock, feed, timed

INPUTS = timed(scripted_game("secret", 2)["events"])
CASES = int(os.environ.get("SENET_PI_DAMAGE_CASES", "25"))
FILES = ("", "-wal", "-mark")


def rows(path: Path, wal: bool = True) -> list[tuple[int, int, str, object]]:
    """(game, seq, kind, value) of every input journaled at `path`, read from a copy (with its -wal, or
    the main file alone: what was checkpointed)."""
    folder = Path(tempfile.mkdtemp())
    try:
        for suffix in FILES[:2] if wal else FILES[:1]:
            if Path(f"{path}{suffix}").exists():
                shutil.copy(f"{path}{suffix}", folder / f"copy.sqlite{suffix}")
        db = sqlite3.connect(folder / "copy.sqlite")
        try:
            found = db.execute("SELECT game, seq, kind, value FROM events ORDER BY game, seq").fetchall()
        finally:
            db.close()
    finally:
        shutil.rmtree(folder)
    return [(g, s, k, json.loads(v)) for g, s, k, v in found]


@pytest.fixture(scope="module")
def killed(tmp_path_factory) -> Path:
    return make_killed(tmp_path_factory.mktemp("killed"))


def make_killed(folder: Path) -> Path:
    """A journal as a kill -9 (or a power cut) leaves it: a game ended, a game in progress, its last
    writes still in the -wal (copied while the service had it open)."""
    path = folder / "live" / "j.sqlite"
    path.parent.mkdir()
    clock = ScriptClock()
    service = Service(Journal(path), clock=clock)
    feed(service, clock, INPUTS[:25])
    clock.t += 1
    service.new_game("secret", 2)
    base = clock.t
    for i, (ms, kind, value) in enumerate(INPUTS[: len(INPUTS) * 2 // 3]):
        if i == len(INPUTS) // 2:  # the last inputs all in the -wal, as a kill between checkpoints leaves them
            service.journal._db.execute("PRAGMA wal_autocheckpoint=0")
        clock.t = base + ms / 1000
        service.tick() if kind == "tick" else service.handle(kind, value)
    kept = folder / "j.sqlite"
    for suffix in FILES:
        shutil.copy(f"{path}{suffix}", f"{kept}{suffix}")
    service.journal._db.close()
    return kept


def damage(path: Path, target: str, how: str, where: float, bit: int) -> None:
    file = Path(f"{path}-wal") if target == "wal" else path
    data = bytearray(file.read_bytes())
    at = min(int(where * len(data)), max(len(data) - 1, 0))
    if how == "delete":
        file.unlink()
    elif how == "cut":
        file.write_bytes(bytes(data[:at]))
    elif data:
        data[at] ^= 1 << bit
        file.write_bytes(bytes(data))


def by_game(found: list) -> dict[int, list]:
    out: dict[int, list] = {}
    for game, seq, kind, value in found:
        out.setdefault(game, []).append((seq, kind, value))
    return out


def check(killed: Path, target: str, how: str, where: float, bit: int) -> tuple[bool, int, int]:
    """Damage a copy of `killed`, start a service on it, check; (set aside?, inputs kept, counted lost)."""
    before = rows(killed)
    checkpointed = rows(killed, wal=False)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "j.sqlite"
        for suffix in FILES:
            shutil.copy(f"{killed}{suffix}", f"{path}{suffix}")
        damage(path, target, how, where, bit)
        service = Service(Journal(path))  # never raises: whatever the damage, the service starts
        journal = service.journal
        kept = [(g.id, e.seq, e.kind, e.value) for g in journal.games() for e in journal.readable_events(g.id)[0]]
        set_aside = sorted(Path(folder).glob("j.sqlite.damaged-*"))
        if journal.damaged:
            assert set_aside, "the damaged file is kept for inspection"
        if journal.recovery is not None:  # each game's inputs run from its first with no gap
            for game, inputs in by_game(kept).items():
                assert [seq for seq, _, _ in inputs] == list(range(len(inputs))), game
        if target == "wal":
            assert set(checkpointed) <= set(kept), "everything the main file held is kept"
            for game, inputs in by_game(kept).items():
                assert inputs == by_game(before)[game][: len(inputs)], "a prefix of what was journaled"
            if len(kept) < len(before):  # something lost: counted, said, never healthy
                assert journal.damaged
                assert journal.recovery is not None
                assert journal.recovery.lost >= len(before) - len(kept)
        if journal.damaged and journal.recovery is not None:
            assert journal.losses()
            assert any(n.startswith("the journal") for n in service.notes)
            game_in_progress = journal.game_in_progress()
            if game_in_progress is not None and game_in_progress.id == service.game_id:
                assert service.seq == len(journal.events(service.game_id))  # resumed after its last intact input
        service.close()
        if journal.damaged and journal.recovery is not None and journal.recovery.lost:
            checks, _ = journal_checks(path)
            assert [c.ok for c in checks if c.name == "journal"] == [False]
            assert sum(d.lost for d in day_stats(path)) == journal.recovery.lost
        return bool(journal.damaged), len(kept), journal.recovery.lost if journal.recovery else 0


@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    target=st.sampled_from(["wal", "main"]),
    how=st.sampled_from(["cut", "flip", "delete"]),
    where=st.floats(0, 1),
    bit=st.integers(0, 7),
)
def test_damage_any_cut_or_flipped_bit_keeps_what_is_intact(killed, target, how, where, bit):
    if target == "main" and how == "delete":
        how = "cut"  # a deleted main file with its -wal: cut to nothing
    check(killed, target, how, where, bit)


@pytest.mark.parametrize("where", [0.0, 0.3, 0.6, 0.9, 0.999])
def test_damage_a_wal_cut_anywhere_in_its_frames_keeps_the_rest(killed, where):
    check(killed, "wal", "cut", where, 0)


def test_damage_the_loss_is_said_by_status_stats_and_the_page(killed, tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    for suffix in FILES:
        shutil.copy(f"{killed}{suffix}", f"{path}{suffix}")
    before = rows(path)
    Path(f"{path}-wal").unlink()  # the -wal lost with its last writes
    service = Service(Journal(path))
    recovery = service.journal.recovery
    assert recovery is not None
    assert recovery.lost >= len(before) - recovery.inputs > 0
    from senet_pi_web import create_app
    from senet_pi_web.state import state

    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=service)
    with app.test_request_context("/"):
        notes = state(for_session=False)["journal_notes"]
    assert any("the journal was damaged" in str(n) and "lost" in str(n) for n in notes)
    service.close()
    checks, _ = journal_checks(path)
    journal = next(c for c in checks if c.name == "journal")
    assert journal.ok is False
    assert "recovered from damage" in journal.text
    assert "remove it" in journal.text
    assert "lost" in to_table(day_stats(path)).splitlines()[0]
    capsys.readouterr()
    assert main(["status", "--journal", str(path), "--page-port", "1"]) == 1
    out = capsys.readouterr().out
    assert "recovered from damage" in out
    assert "NOT healthy" in out
    for aside in tmp_path.glob("j.sqlite.damaged-*"):  # looked at and removed: said, no longer a problem
        aside.unlink()
    journal = next(c for c in journal_checks(path)[0] if c.name == "journal")
    assert journal.ok is True
    assert "since removed" in journal.text


def test_damage_journal_recover_writes_what_can_be_read_and_leaves_the_file(killed, tmp_path, capsys):
    path = tmp_path / "damaged.sqlite"
    for suffix in FILES:
        shutil.copy(f"{killed}{suffix}", f"{path}{suffix}")
    damage(path, "wal", "cut", 0.5, 0)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name != "damaged.sqlite-shm"}
    assert main(["journal", "recover", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert "damaged.sqlite.recovered" in out
    assert "kept 2 games" in out
    for name, data in before.items():
        assert (tmp_path / name).read_bytes() == data  # only read
    recovered = tmp_path / "damaged.sqlite.recovered"
    with Journal(recovered, readonly=True) as journal:
        assert len(journal.games()) == 2
        assert journal.events(2)
    assert main(["journal", "recover", str(path)]) == 1  # never over a file already there
    assert "already exists" in capsys.readouterr().err
    assert main(["journal", "recover", str(tmp_path / "missing.sqlite")]) == 1
    assert "no file" in capsys.readouterr().err


def checkpointed_then_damaged(killed: Path, folder: Path, how: str, where: float, bit: int) -> Path:
    """A copy of `killed` whose -wal is gone (checkpointed, then lost) and whose main file is damaged."""
    path = folder / "j.sqlite"
    for suffix in FILES:
        shutil.copy(f"{killed}{suffix}", f"{path}{suffix}")
    Path(f"{path}-wal").unlink()
    damage(path, "main", how, where, bit)
    return path


def test_a_main_file_cut_short_with_no_wal_keeps_what_its_pages_still_hold(killed, tmp_path):
    """Checkpointed, then torn (no -wal left): SQLite will not open a file shorter than its header
    says, so the recovery reads a copy cut to whole pages with the missing ones out of its schema."""
    path = checkpointed_then_damaged(killed, tmp_path, "cut", 0.5, 0)
    journal = Journal(path)
    try:
        assert journal.recovery is not None
        assert journal.recovery.games == 2
        assert journal.recovery.lost > 0
        assert [g.id for g in journal.games()][:2] == [1, 2]
    finally:
        journal.close()
    assert sorted(tmp_path.glob("j.sqlite.damaged-*")), "the damaged file is kept for inspection"
    checks, _ = journal_checks(path)
    assert [c.ok for c in checks if c.name == "journal"] == [False]


def test_a_journal_nothing_could_be_recovered_from_is_still_a_loss_on_record(killed, tmp_path):
    """A main file overwritten whole (no page of it a journal's), its -wal gone: even when nothing can
    be read back, what its mark counted is lost on record, so status is never healthy and stats count it."""
    path = checkpointed_then_damaged(killed, tmp_path, "flip", 0.0, 3)
    path.write_bytes(bytes(range(256)) * (path.stat().st_size // 256))
    journal = Journal(path)
    try:
        assert journal.damaged
        assert "nothing could be recovered" in journal.damaged
        assert journal.recovery is not None
        assert journal.recovery.games == 0
        assert journal.recovery.lost > 0
        assert [loss["lost"] for loss in journal.losses()] == [journal.recovery.lost]
    finally:
        journal.close()
    assert sorted(tmp_path.glob("j.sqlite.damaged-*")), "the damaged file is kept for inspection"
    checks, _ = journal_checks(path)
    assert [c.ok for c in checks if c.name == "journal"] == [False]
    assert sum(d.lost for d in day_stats(path)) == journal.recovery.lost
