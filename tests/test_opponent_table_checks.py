"""A wrong endgame table is never trusted: a flipped bit, a file cut short, another rule set's table
under this one's name and another version's header are each refused with their own message, the
computer still moves and hints are then estimates; `run` rebuilds a refused table in the
background, and a build that fails leaves no file behind."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from senet_pi.errors import TableError
from senet_pi.opponent import tables as tables_module
from senet_pi.opponent.players import LEVELS, Computer
from senet_pi.opponent.tables import MAGIC, Table, Tables, build_table, table_path
from senet_pi.rules import HousesGame, SecretGame
from senet_pi.service.hint import Hinter


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A good 1-piece table of each of two rule sets, built once; each test damages its own copy."""
    folder = tmp_path_factory.mktemp("built")
    build_table(HousesGame, "sticks", max_pieces=1, folder=folder)
    build_table(SecretGame, "sticks", max_pieces=1, folder=folder)
    return folder


@pytest.fixture
def folder(tmp_path, built):
    for path in built.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def _endgame():
    """Houses, one piece a side, a throw waiting: the tables decide the hint."""
    game = HousesGame(position={"A": [24], "B": [20], "to_move": "A"})
    return game


def _flip_a_value_bit(path):
    table = Table(path)
    at = table.values.offset + 2 * 100  # the 101st value: inside the first block
    data = bytearray(path.read_bytes())
    data[at] ^= 0x04
    path.write_bytes(bytes(data))


def _truncate(path):
    path.write_bytes(path.read_bytes()[:-2])


def _other_rule_set(path):
    shutil.copy(path.with_name("secret-sticks.table"), path)


def _other_version(path):
    data = path.read_bytes()
    path.write_bytes(b"senet-pi endgame table v1\n" + data[len(MAGIC) :])


DAMAGE = [
    (_flip_a_value_bit, "block 0 fails its checksum (the file is damaged)"),
    (_truncate, "the file is cut short or too long"),
    (_other_rule_set, "it holds another rule set (secret, not houses)"),
    (_other_version, "it was written by another version of senet-pi (table format 1, this one reads 2)"),
]


@pytest.mark.parametrize(("damage", "message"), DAMAGE, ids=["bit", "short", "ruleset", "version"])
def test_a_wrong_table_is_refused_with_its_message_and_the_computer_still_moves(folder, damage, message):
    path = table_path("houses", "sticks", folder)
    good = Tables(folder, build=False).exact(_endgame())
    assert good is not None
    damage(path)
    started = []
    tables = Tables(folder, build=False, rebuild=lambda *args: started.append(args))
    game = _endgame()
    assert tables.exact(game) is None  # never a value from the damaged file
    assert message in tables.refused[("houses", "sticks")]
    assert started == [("houses", "sticks", 3, folder)]  # rebuilt in the background, once
    assert tables.exact(game) is None
    assert len(started) == 1
    game.push_throw(2)
    move = Computer(LEVELS[3], tables).choose(game)
    assert move in game.legal_moves()
    win, exact = Hinter(tables).chance(_endgame(), 0)
    assert exact is False
    assert 0 <= win <= 1
    [problem] = tables.problems()
    assert problem["table"] == "houses-sticks.table"
    assert message in problem["text"]
    assert "search alone" in problem["text"]


@pytest.mark.parametrize(("damage", "message"), DAMAGE, ids=["bit", "short", "ruleset", "version"])
def test_opening_a_wrong_table_raises_its_message(folder, damage, message):
    path = table_path("houses", "sticks", folder)
    damage(path)
    with pytest.raises(TableError) as caught:
        Table(path, "houses", "sticks").verify()
    assert message in str(caught.value)


def test_a_flipped_bit_found_mid_game_stops_the_table_at_once(folder):
    """The table opened fine and served values; a block damaged since is refused when first read."""
    tables = Tables(folder, build=False)
    table = tables.for_game(_endgame(), 1)
    assert table is not None
    table._checked[0] = 0  # as if never read yet: the next value checks its block
    table.sums[0] ^= 1  # the block's bytes and its checksum now disagree
    assert tables.exact(_endgame()) is None
    assert "fails its checksum" in tables.refused[("houses", "sticks")]
    assert tables.for_game(_endgame(), 1) is None


def test_the_hint_command_rebuilds_a_wrong_table_and_is_exact_again(folder):
    path = table_path("houses", "sticks", folder)
    good = Tables(folder, build=False).exact(_endgame())
    _flip_a_value_bit(path)
    stream = io.StringIO()
    tables = Tables(folder, stream=stream)  # `senet-pi hint`: building allowed
    assert tables.exact(_endgame()) == good
    said = stream.getvalue()
    assert "is not used: block 0 fails its checksum" in said
    assert "solving houses (sticks) endgames" in said
    assert tables.refused == {}
    Table(path, "houses", "sticks").verify()


def test_a_rebuild_that_ends_opens_the_table_again(folder, built):
    path = table_path("houses", "sticks", folder)
    _truncate(path)
    now = [0.0]

    class Done:
        def poll(self):
            return 0

    def rebuild(*args):
        shutil.copy(built / path.name, path)  # what `senet-pi solve` would have written
        return Done()

    tables = Tables(folder, build=False, rebuild=rebuild, clock=lambda: now[0])
    assert tables.exact(_endgame()) is None
    now[0] += 2.0
    assert tables.exact(_endgame()) is not None
    assert tables.problems() == []


def test_the_background_rebuild_runs_solve_at_low_priority(tmp_path, monkeypatch):
    from senet_pi.service import rebuild

    calls = {}

    class Process:
        pid = 4242

    def popen(command, **kwargs):
        calls["command"], calls["kwargs"] = command, kwargs
        return Process()

    monkeypatch.setattr(rebuild.subprocess, "Popen", popen)
    monkeypatch.setattr(rebuild.os, "setpriority", lambda which, pid, nice: calls.update(nice=(pid, nice)))
    rebuild.rebuild_in_background("houses", "sticks", 3, tmp_path)
    assert calls["command"][:3] == [sys.executable, "-m", "senet_pi"]
    assert calls["command"][3:] == ["solve", "houses", "--throws", "sticks", "--pieces", "3", "--tables", str(tmp_path)]
    assert calls["nice"] == (4242, 19)
    assert calls["kwargs"]["stdin"] == subprocess.DEVNULL


def test_a_build_that_fails_removes_its_temporary_file_and_retries_leave_none(tmp_path, monkeypatch):
    """A full disk, simulated: the value write fails part-way; neither the table nor a temporary file stays."""
    real = tables_module.np.ndarray.tobytes
    writes = [0]

    class FullDisk:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            writes[0] += 1
            if writes[0] > 1:
                raise OSError(28, "No space left on device")
            return self.fh.write(data)

        def __getattr__(self, name):
            return getattr(self.fh, name)

    real_open = tables_module.Path.open

    def full_open(self, mode="r", *args, **kwargs):
        fh = real_open(self, mode, *args, **kwargs)
        return FullDisk(fh) if ".tmp" in self.name and "w" in mode else fh

    monkeypatch.setattr(tables_module.Path, "open", full_open)
    for _ in range(3):
        writes[0] = 0
        with pytest.raises(OSError, match="No space left"):
            build_table(HousesGame, "sticks", max_pieces=1, folder=tmp_path)
        assert list(tmp_path.iterdir()) == []
    assert real is tables_module.np.ndarray.tobytes


def test_a_build_stopped_part_way_leaves_a_file_the_next_build_removes(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f"houses-sticks.tmp{int(dead.stdout)}"
    stale.write_bytes(b"half a table")
    mine = tmp_path / f"houses-sticks.tmp{os.getpid()}x"  # not a process id: left alone
    mine.write_bytes(b"")
    build_table(HousesGame, "sticks", max_pieces=1, folder=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["houses-sticks.table", mine.name]


def test_the_header_names_rule_set_throws_layout_and_version(folder):
    table = Table(table_path("houses", "sticks", folder), "houses", "sticks")
    h = table.header
    assert (h["format"], h["ruleset"], h["throws"], h["max_pieces"]) == (2, "houses", "sticks", 1)
    assert h["groups"] == [[1, 1, table.layout.size]]
    assert h["version"]
    assert json.loads(json.dumps(h)) == h
    assert len(table.sums) == 1


def test_status_and_the_page_state_say_a_table_is_refused(folder):
    from senet_pi.cli.status import render, table_checks

    path = table_path("houses", "sticks", folder)
    _truncate(path)
    tables = Tables(folder, build=False)
    tables.exact(_endgame())
    state = {"computer": {"tables": [p["text"] for p in tables.problems()]}}
    checks = table_checks(state)
    assert [c.name for c in checks] == ["tables"]
    assert "houses-sticks.table is not used (the file is cut short" in checks[0].text
    assert render(checks, False).endswith("NOT healthy: tables")
    assert table_checks({"computer": {"tables": []}}) == []


def test_the_page_state_and_the_fleet_name_a_refused_table_in_the_page_language(tmp_path, folder):
    """`GET /api/state` (which the fleet's state topic republishes) carries the refusal in words."""
    from senet_pi.service.core import Service
    from senet_pi.service.journal import Journal
    from senet_pi.service.seat import ComputerPlayer, TablesWhenNeeded
    from senet_pi_web import create_app

    assert TablesWhenNeeded().problems() == []  # nothing read yet: nothing refused, numpy not needed
    _truncate(table_path("houses", "sticks", folder))
    tables = Tables(folder, build=False)
    tables.exact(_endgame())
    journal = Journal(tmp_path / "j.sqlite")
    service = Service(journal)
    player = ComputerPlayer(service, {}, pause=0.0, tables=tables)
    try:
        app = create_app({"SECRET_KEY": "t"}, service=service)
        app.extensions["senet"].board.computer = player
        client = app.test_client()
        [said] = client.get("/api/state").get_json()["computer"]["tables"]
        assert said.startswith("the endgame table houses-sticks.table is not used (the file is cut short")
        [gesagt] = client.get("/api/state?lang=de").get_json()["computer"]["tables"]
        assert gesagt.startswith(
            "die Endspieltabelle houses-sticks.table wird nicht benutzt (die Datei ist abgeschnitten"
        )
    finally:
        player.close()
        journal.close()


def test_the_background_rebuild_really_builds_the_table_at_nice_19(tmp_path):
    from senet_pi.service.rebuild import rebuild_in_background

    process = rebuild_in_background("houses", "sticks", 1, tmp_path)
    nice = int((Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split())[16])
    assert process.wait(timeout=120) == 0
    assert nice == 19
    Table(table_path("houses", "sticks", tmp_path), "houses", "sticks").verify()
    assert [p.name for p in tmp_path.iterdir()] == ["houses-sticks.table"]


@pytest.mark.parametrize(("damage", "message"), DAMAGE, ids=["bit", "short", "ruleset", "version"])
def test_status_with_no_page_checks_the_files_as_the_board_reads_them(folder, damage, message):
    """With the service down, `status` opens each table file itself with the board's own checks
    (header, rule set, every block's checksum), and is not healthy while one would be refused."""
    from senet_pi.cli.status import render, table_checks

    [good] = table_checks("no page answers", lambda: folder)
    assert good.ok is True
    assert good.text.startswith("houses-sticks.table, secret-sticks.table in ")
    damage(table_path("houses", "sticks", folder))
    [check] = table_checks("no page answers", lambda: folder)
    assert check.ok is False
    assert check.text.startswith(f"houses-sticks.table would not be used ({message}")
    assert "secret-sticks.table" not in check.text
    assert render([check], False).endswith("NOT healthy: tables")


def test_status_with_no_page_and_no_tables_says_so_without_failing(tmp_path):
    from senet_pi.cli.status import table_checks

    [none] = table_checks("no page answers", lambda: tmp_path / "missing")
    assert none.ok is None
    assert "no endgame table in" in none.text
    (tmp_path / "a-file").write_text("not a folder")  # unreadable as a folder, even to root
    [unread] = table_checks("no page answers", lambda: tmp_path / "a-file")
    assert unread.ok is None
    assert unread.text.startswith(f"cannot read {tmp_path / 'a-file'} (Not a directory)")


def _systemctl(output):
    def run(argv, **kwargs):
        assert argv[:2] == ["systemctl", "show"]
        return subprocess.CompletedProcess(argv, 0, stdout=output, stderr="")

    return run


def test_status_finds_the_services_tables_folder_from_its_unit(tmp_path, monkeypatch):
    """The folder the service reads: SENET_PI_TABLES from its unit or an environment file, else
    XDG_CACHE_HOME, else its user's ~/.cache; this user's own where no unit is installed."""
    import pwd

    from senet_pi.cli.tables_status import tables_folder

    me = pwd.getpwuid(os.getuid())
    env_file = tmp_path / "senet-pi.env"
    env_file.write_text(f"# the exhibit's\nSENET_PI_TABLES={tmp_path / 'from-file'}\n")
    unit = f"LoadState=loaded\nUser={me.pw_name}\n"
    assert tables_folder(_systemctl(unit + "Environment=PYTHONOPTIMIZE=2\n"), booted=True) == Path(
        me.pw_dir, ".cache", "senet-pi", "tables"
    )
    cache = f'Environment=PYTHONOPTIMIZE=2 "SENET_PI_ARGS=--host 0.0.0.0" XDG_CACHE_HOME={tmp_path / "c"}\n'
    assert tables_folder(_systemctl(unit + cache), booted=True) == tmp_path / "c" / "senet-pi" / "tables"
    files = (
        f"EnvironmentFiles=/nowhere/senet-pi.env (ignore_errors=yes)\nEnvironmentFiles={env_file} (ignore_errors=yes)\n"
    )
    assert tables_folder(_systemctl(unit + files), booted=True) == tmp_path / "from-file"
    monkeypatch.setenv("SENET_PI_TABLES", str(tmp_path / "mine"))
    assert tables_folder(_systemctl("LoadState=not-found\n"), booted=True) == tmp_path / "mine"
    assert tables_folder(booted=False) == tmp_path / "mine"
