"""What a damaged journal keeps when SQLite cannot reach its rows (a table's root or interior page
lost, several pages lost, its header gone): every row on a surviving table-leaf page that passes the
journal's checks, read from the page itself; and what a row changed in place does (its checksum says
so: reported, left aside, nothing else lost). Damage is generated: any set of pages zeroed, filled
with noise, or the file cut at any page."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from senet_pi.cli.command import main
from senet_pi.errors import JournalError
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal, recover
from senet_pi.service.journal.pages import leaf_rows, table_of
from senet_pi.service.journal.schema import SCHEMA_VERSION, rowsum
from senet_pi.verdicts import Thrown, Verdict
from tests.journal_helpers import PAGE, build, kept_inputs, lose_the_events_root
from tests.journal_helpers import PAGED_GAMES as GAMES
from tests.journal_helpers import PAGED_INPUTS as INPUTS


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict[int, list[tuple[int, str, object]]]]:
    path = tmp_path_factory.mktemp("pages") / "j.sqlite"
    return path, build(path)


def pages_of(path: Path) -> dict[tuple[str, object], int]:
    """Where each game and input lives: (table, key) -> page, from the intact file's leaves."""
    out: dict[tuple[str, object], int] = {}
    for page, rowid, values in leaf_rows(path.read_bytes()):
        table = table_of(values)
        if table == "games":
            out["games", rowid] = page
        elif table == "events":
            out["events", (values[0], values[1])] = page
    return out


def test_the_page_reader_finds_every_row_sqlite_does(built):
    path, made = built
    where = pages_of(path)
    assert {k for t, k in where if t == "games"} == set(made)
    assert {k for t, k in where if t == "events"} == {(g, s) for g, inputs in made.items() for s, _, _ in inputs}
    db = sqlite3.connect(path)
    interior = [p for p in range(1, path.stat().st_size // PAGE + 1) if path.read_bytes()[(p - 1) * PAGE] == 0x05]
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchone()[0]
    db.close()
    assert interior
    assert root in interior  # the tables are deep enough to lose a parent and keep its leaves


def expected_after(made: dict, where: dict, lost_pages: set[int]) -> dict[int, list]:
    """What a recovery must keep when `lost_pages` are gone: every game whose row survived, each with
    its inputs up to the first one on a lost page."""
    out = {}
    for game, inputs in made.items():
        if where["games", game] in lost_pages:
            continue
        keep = []
        for seq, kind, value in inputs:
            if where["events", (game, seq)] in lost_pages:
                break
            keep.append((seq, kind, value))
        out[game] = keep
    return out


def damaged_copy(path: Path, folder: Path, pages: set[int], how: str, seed: int) -> Path:
    data = bytearray(path.read_bytes())
    noise = bytes((seed * 7919 + i * 104729) % 251 for i in range(PAGE))
    for page in pages:
        data[(page - 1) * PAGE : page * PAGE] = bytes(PAGE) if how == "zero" else noise
    copy = folder / f"damaged-{how}-{seed}.sqlite"
    copy.write_bytes(bytes(data))
    return copy


def test_every_parent_page_lost_keeps_every_row(built, tmp_path):
    """The roots and interior pages of every table, and the schema's page with the file's header: all
    gone, the leaves hold every game and input."""
    path, made = built
    data = path.read_bytes()
    parents = {p for p in range(2, len(data) // PAGE + 1) if data[(p - 1) * PAGE] == 0x05} | {1}
    copy = damaged_copy(path, tmp_path, parents, "zero", 0)
    found = recover(copy, tmp_path / "out.sqlite")
    assert found.games == GAMES
    assert found.inputs == GAMES * INPUTS
    assert found.lost_inputs <= 1  # SQLite could not read the table through: said as at least one, to be safe
    assert kept_inputs(tmp_path / "out.sqlite") == made


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), how=st.sampled_from(["zero", "noise"]))
def test_any_pages_lost_keep_every_intact_row_before_them(built, tmp_path_factory, data, how):
    path, made = built
    where = pages_of(path)
    count = path.stat().st_size // PAGE
    lost = set(data.draw(st.lists(st.integers(1, count), min_size=1, max_size=6), label="pages"))
    folder = tmp_path_factory.mktemp("lost")
    copy = damaged_copy(path, folder, lost, how, data.draw(st.integers(0, 1000), label="seed"))
    expected = expected_after(made, where, lost)
    try:
        found = recover(copy, folder / "out.sqlite")
    except sqlite3.DatabaseError:
        assert not expected, "nothing recovered though rows survived"
        return
    kept = kept_inputs(folder / "out.sqlite")
    assert kept == expected
    lost_inputs = sum(len(made[g]) for g in made) - sum(len(v) for v in kept.values())
    if lost_inputs:  # what is gone is counted (the inputs of a game whose own row is lost among them)
        assert found.lost > 0


@pytest.mark.parametrize("at", [0.3, 0.55, 0.8])
def test_a_file_cut_at_any_page_keeps_the_rows_before_the_cut(built, tmp_path, at):
    path, made = built
    where = pages_of(path)
    count = path.stat().st_size // PAGE
    cut = max(2, int(count * at))
    copy = tmp_path / "cut.sqlite"
    copy.write_bytes(path.read_bytes()[: cut * PAGE])
    recover(copy, tmp_path / "out.sqlite")
    assert kept_inputs(tmp_path / "out.sqlite") == expected_after(made, where, set(range(cut + 1, count + 1)))


def test_a_service_on_a_journal_whose_event_root_is_lost_resumes_its_game_in_full(tmp_path):
    path = tmp_path / "j.sqlite"
    service = Service(Journal(path))
    service.handle("throw", 3)
    game = service.game_id
    for _ in range(400):  # enough inputs that the events table has a root above its leaves (refused throws)
        service.handle("throw", 2)
    seq = service.seq
    service.close()
    lose_the_events_root(path)
    resumed = Service(Journal(path))
    try:
        assert resumed.journal.damaged
        assert resumed.game_id == game
        assert resumed.seq == seq
        assert resumed.journal.recovery is not None
        assert resumed.journal.recovery.inputs == seq
        assert list(tmp_path.glob("j.sqlite.damaged-*")), "the damaged file is kept for inspection"
    finally:
        resumed.close()


# ------------------------------------------------------------------ rows checked against their checksum


def two_games(path: Path) -> tuple[int, int]:
    with Journal(path) as journal:
        first = journal.start_game("secret", 2, {})
        for seq, value in enumerate((3, 1, 2)):
            journal.record_event(first, seq, seq * 100, "throw", value)
            journal.record_verdicts(first, seq, [Thrown("A", value)])
        journal.end_game(first, "A")
        second = journal.start_game("secret", 2, {})
        for seq, value in enumerate((4, 5, 2, 1)):
            journal.record_event(second, seq, seq * 100, "throw", value)
    return first, second


@given(bit=st.integers(0, 7), row=st.integers(0, 3))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_flipped_bit_that_still_reads_valid_is_caught_and_costs_nothing_else(tmp_path_factory, bit, row):
    folder = tmp_path_factory.mktemp("flip")
    path = folder / "j.sqlite"
    first, second = two_games(path)
    db = sqlite3.connect(path)
    value = db.execute("SELECT value FROM events WHERE game = ? AND seq = ?", (second, row)).fetchone()[0]
    flipped = bytes([value.encode()[0] ^ (1 << bit)]).decode("latin-1")
    try:
        still_valid = isinstance(json.loads(flipped), int)
    except ValueError:
        still_valid = False
    db.execute("UPDATE events SET value = ? WHERE game = ? AND seq = ?", (flipped, second, row))  # sum as written
    db.commit()
    db.close()
    with Journal(path) as journal:
        events, why = journal.readable_events(second)
        assert [e.seq for e in events] == list(range(row)), "the inputs before it are kept"
        assert why is not None
        assert f"input {row + 1} is a damaged row" in why
        if still_valid:
            assert "checksum" in why
        assert [e.value for e in journal.events(first)] == [3, 1, 2], "the other game is untouched"
        with pytest.raises(JournalError, match="damaged row in events"):
            journal.events(second)


def test_a_changed_verdict_or_game_row_is_reported_and_recovery_leaves_out_only_it(tmp_path):
    path = tmp_path / "j.sqlite"
    first, second = two_games(path)
    db = sqlite3.connect(path)
    db.execute(
        "UPDATE verdicts SET verdict = ? WHERE game = ? AND seq = 1",
        ('{"v": "throw", "player": "B", "value": 1}', first),
    )
    db.commit()
    db.close()
    with Journal(path) as journal:
        with pytest.raises(JournalError, match="verdict 1 of game 1 does not match the checksum"):
            journal.verdicts(first)
        stored = journal.verdicts_by_event(first)
        assert isinstance(stored[1][0], str)
        assert isinstance(stored[0][0], Verdict)  # kept as text: it differs
    found = recover(path, tmp_path / "out.sqlite")
    assert (found.games, found.inputs, found.verdicts, found.unreadable) == (2, 7, 2, 1)
    db = sqlite3.connect(path)
    db.execute("UPDATE games SET winner = 'B' WHERE id = ?", (first,))
    db.commit()
    db.close()
    with Journal(path, readonly=True) as journal, pytest.raises(JournalError, match="game 1 does not match"):
        journal.games()
    service = Service(Journal(path))  # its game in progress resumes; the changed game is left out
    try:
        assert service.journal.damaged
        assert service.game_id == second
        assert service.seq == 4
        assert [g.id for g in service.journal.games()] == [second]
        assert service.journal.recovery is not None
        assert service.journal.recovery.unreadable >= 1
    finally:
        service.close()


def test_verdicts_come_back_typed(tmp_path):
    path = tmp_path / "j.sqlite"
    first, _ = two_games(path)
    with Journal(path, readonly=True) as journal:
        assert journal.verdicts(first) == [Thrown("A", 3), Thrown("A", 1), Thrown("A", 2)]
        assert journal.verdicts_by_event(first) == {0: [Thrown("A", 3)], 1: [Thrown("A", 1)], 2: [Thrown("A", 2)]}


OLD_SCHEMA = """
CREATE TABLE games (id INTEGER PRIMARY KEY, variant TEXT NOT NULL, players INTEGER NOT NULL,
    options TEXT NOT NULL, position TEXT, started REAL NOT NULL, ended REAL, winner TEXT);
CREATE TABLE events (game INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, ms INTEGER NOT NULL,
    kind TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (game, seq));
CREATE TABLE verdicts (game INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, event INTEGER NOT NULL,
    verdict TEXT NOT NULL, PRIMARY KEY (game, seq));
CREATE TABLE meta (key TEXT PRIMARY KEY, value NOT NULL);
INSERT INTO games VALUES (1, 'secret', 2, '{}', NULL, 1000, NULL, NULL);
INSERT INTO events VALUES (1, 0, 0, 'throw', '3'), (1, 1, 700, 'throw', '1');
INSERT INTO verdicts VALUES (1, 0, 0, '{"v": "throw", "player": "A", "value": 3}');
INSERT INTO meta VALUES ('writes', 4), ('id', 'old');
PRAGMA user_version = 1;
"""


def test_an_older_journal_without_checksums_opens_read_only_as_it_is_and_gains_them_when_written(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.close()
    before = path.read_bytes()
    assert main(["games", "--journal", str(path)]) == 0
    assert path.read_bytes() == before, "a reading command leaves an older journal as it was"
    service = Service(Journal(path))
    try:
        assert service.game_id == 1
        assert service.seq == 2
        assert not service.journal.damaged
    finally:
        service.close()
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        rows = db.execute("SELECT game, seq, ms, kind, value, sum FROM events ORDER BY seq").fetchall()
        assert len(rows) >= 2
        assert all(r[5] == rowsum(*r[:5]) for r in rows)
        game = db.execute(
            "SELECT id, variant, players, options, position, started, ended, winner, sum FROM games"
        ).fetchone()
        assert game[8] == rowsum(*game[:8])
    finally:
        db.close()


def test_journal_recover_reads_a_file_whose_header_is_gone(built, tmp_path, capsys):
    path, made = built
    copy = tmp_path / "damaged.sqlite"
    shutil.copy(path, copy)
    data = bytearray(copy.read_bytes())
    data[:100] = bytes(100)
    copy.write_bytes(bytes(data))
    assert main(["journal", "recover", str(copy)]) == 0
    assert f"kept {GAMES} games with {GAMES * INPUTS} inputs" in capsys.readouterr().out
    assert kept_inputs(tmp_path / "damaged.sqlite.recovered") == made


def test_rows_longer_than_a_page_come_back_from_their_overflow_pages(tmp_path):
    """An input of a thousand large numbers fills three pages: its leaf holds the start and a chain
    of overflow pages the rest; with the table's root lost, the chain is followed."""
    path = tmp_path / "j.sqlite"
    big = [[2**31 - i for i in range(1000)], [-(2**31) + i for i in range(1000)]]
    with Journal(path) as journal:
        game = journal.start_game("secret", 2, {})
        for seq in range(60):
            journal.record_event(game, seq, seq, "sense", big[seq % 2] if seq % 3 == 0 else seq)
    lose_the_events_root(path)
    found = recover(path, tmp_path / "out.sqlite")
    assert found.inputs == 60
    values = [e.value for e in kept_inputs_events(tmp_path / "out.sqlite", game)]
    assert values == [big[seq % 2] if seq % 3 == 0 else seq for seq in range(60)]


def kept_inputs_events(path: Path, game: int) -> list:
    with Journal(path, readonly=True) as journal:
        return journal.events(game)
