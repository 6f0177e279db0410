"""Nothing lost, nothing destroyed. The journal under a referee that fails, a record
changed in place, reading commands, two runs on one journal, and the command line's mistakes."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from senet_pi.cli.command import main
from senet_pi.cli.status import journal_checks
from senet_pi.events import written
from senet_pi.referee import Referee
from senet_pi.service import Service
from senet_pi.service.journal import Journal
from senet_pi.service.stats import day_stats
from tests.journal_helpers import INPUTS, Boom, ScriptClock, feed, restart_failing_at


def files(folder: Path) -> dict[str, bytes]:
    """Every file in `folder` with its bytes: what a reading command must leave alone."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# ------------------------------------------------------------------ reading commands never write


@pytest.mark.parametrize("command", [["games"], ["export", "last"], ["export", "1"]])
def test_a_file_that_is_not_a_journal_is_one_line_and_left_exactly_as_it_was(tmp_path, capsys, command):
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping: papyrus, reeds\n", encoding="utf-8")
    before = files(tmp_path)
    assert main([*command, "--journal", str(notes)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "not a senet-pi journal" in err
    assert "left as it was" in err
    assert files(tmp_path) == before  # not renamed, not replaced, no -wal, -shm or -mark beside it


def test_reading_a_journal_changes_no_byte_of_it(two_games, tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    two_games(path)
    before = files(tmp_path)
    assert main(["games", "--journal", str(path)]) == 0
    assert main(["export", "last", "--journal", str(path)]) == 0
    assert main(["stats", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    assert "abandoned" in out
    assert '"events"' in out
    assert files(tmp_path) == before


def test_a_journal_being_written_is_read_as_it_stands(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    clock = ScriptClock()
    service = Service(Journal(path), clock=clock)
    feed(service, clock, INPUTS[:60])
    assert main(["games", "--journal", str(path)]) == 0
    assert f"{service.seq:>5} inputs  in progress" in capsys.readouterr().out
    service.close()


# ------------------------------------------------------------------ a game that cannot be resumed


@pytest.mark.parametrize("error", [Boom, KeyError, AssertionError, ZeroDivisionError, RuntimeError, RecursionError])
def test_a_referee_failing_on_a_journaled_input_costs_only_that_game_from_that_input(
    two_games, tmp_path, monkeypatch, error
):
    path = tmp_path / "j.sqlite"
    first, second = two_games(path)
    stats_before = day_stats(path)
    fail_at = second - 5  # the referee fails on this input of the game in progress (counting from 1)
    service = restart_failing_at(path, monkeypatch, fail_at, error)

    assert not list(tmp_path.glob("*.damaged-*"))  # the journal is not set aside
    journal = service.journal
    games = journal.games()
    assert [g.events for g in games] == [first, second, fail_at - 1]  # every record kept as it was
    assert games[1].ended is not None
    assert games[2].ended is None
    assert service.game_id == 3
    assert service.seq == fail_at - 1
    said = [n for n in service.notes if "could not be resumed" in n]
    assert len(said) == 1
    assert f"past input {fail_at - 1} of {second}" in said[0]
    assert error.__name__ in said[0]
    page = service.snapshot().to_json()["journal_notes"]
    assert len(page) == 1
    assert "game 2 could not be resumed" in page[0]
    assert "as game 3" in page[0]
    stats = day_stats(path)[0]  # one game carried on, not one abandoned and another begun
    assert (stats.started, stats.abandoned, stats.open) == (stats_before[0].started, stats_before[0].abandoned, 1)
    assert stats.resumed == 1
    assert stats_before[0].resumed == 0

    # the game goes on from there, and a restart resumes it as it was, with no alarm
    history = json.loads(json.dumps([v.json() for v in service.history]))
    service.close()
    again = Service(Journal(path))
    assert again.game_id == 3
    assert json.loads(json.dumps([v.json() for v in again.history])) == history
    assert not [n for n in again.notes if "could not be resumed" in n]
    assert again.snapshot().to_json()["journal_notes"] == []
    again.close()

    checks, _ = journal_checks(path)
    resume = [c for c in checks if c.name == "resume"]
    assert resume
    assert "game 2 could not be resumed" in resume[0].text


def test_an_input_the_referee_fails_on_while_playing_costs_only_itself(tmp_path, monkeypatch):
    """A dice game handed one number made the referee raise TypeError (the fuzz below found it): the
    input was journaled but its number never used up, and every later write of the session failed
    (UNIQUE constraint). Simulated here, so it holds for any referee that fails on an input."""
    real = Referee.take

    def failing(self, entry, at):
        if written(entry) == ("throw", 1):
            raise TypeError("'int' object is not iterable")
        return real(self, entry, at)

    monkeypatch.setattr(Referee, "take", failing)
    path = tmp_path / "j.sqlite"
    service = Service(Journal(path), variant="modern")
    said = [v.json() for v in service.handle("throw", 1)]
    assert [v["v"] for v in said] == ["journal"]
    assert "input 1 (throw) could not be judged" in said[0]["text"]
    assert "TypeError" in said[0]["text"]
    assert "goes on as it was before it" in said[0]["text"]
    assert service.handle("throw", [3, 4])[0].json()["v"] == "throw"
    assert service.journal.pending == 0
    assert service.journal_trouble is None
    history = json.loads(json.dumps([v.json() for v in service.history]))
    service.close()
    again = Service(Journal(path))
    assert not list(tmp_path.glob("*.damaged-*"))
    assert again.game_id == 1
    assert again.seq == 2
    assert json.loads(json.dumps([v.json() for v in again.history])) == history
    assert not [n for n in again.notes if "could not be resumed" in n or "differs" in n]
    again.close()


@pytest.mark.parametrize("error", [Boom, IndexError])
def test_a_failed_input_leaves_the_game_as_if_it_never_came(tmp_path, monkeypatch, error):
    inputs = [i for i in INPUTS[:100] if i[1] != "tick"]
    fail_at = 31  # the referee fails on this input (counting from 1)
    clock = ScriptClock()
    plain = Service(None, clock=clock)
    feed(plain, clock, [i for n, i in enumerate(inputs, 1) if n != fail_at])
    real = Referee.take

    def failing(self, entry, at):
        if entry.kind != "tick" and failing.inputs == fail_at - 1 and not failing.done:
            failing.done = True
            raise error("the referee fails here")
        failing.inputs += entry.kind != "tick"
        return real(self, entry, at)

    failing.inputs, failing.done = 0, False

    path = tmp_path / "j.sqlite"
    clock = ScriptClock()
    service = Service(Journal(path), clock=clock)
    monkeypatch.setattr(Referee, "take", failing)
    feed(service, clock, inputs[:fail_at])
    monkeypatch.setattr(Referee, "take", real)
    feed(service, clock, inputs[fail_at:])
    assert failing.done
    assert service.journal.pending == 0
    assert service.snapshot().to_json()["squares"] == plain.snapshot().to_json()["squares"]
    service.close()
    again = Service(Journal(path))
    assert again.snapshot().to_json()["squares"] == plain.snapshot().to_json()["squares"]
    assert again.game_id == 1
    again.close()


def test_status_names_the_game_cut_short(two_games, tmp_path, monkeypatch, capsys):
    path = tmp_path / "j.sqlite"
    two_games(path)
    real = Referee.take
    calls = {"n": 0}

    def failing(self, entry, at):
        calls["n"] += 1
        if calls["n"] == 3:
            raise TypeError("odd input")
        return real(self, entry, at)

    monkeypatch.setattr(Referee, "take", failing)
    Service(Journal(path)).close()
    main(["status", "--journal", str(path), "--page-port", "1"])
    out = capsys.readouterr().out
    assert "resume" in out
    assert "game 2 could not be resumed past input 2" in out
    assert "TypeError" in out


def test_a_game_whose_start_cannot_be_set_up_keeps_the_others(two_games, tmp_path):
    path = tmp_path / "j.sqlite"
    first, second = two_games(path)
    db = sqlite3.connect(path)
    db.execute('UPDATE games SET options = \'{"throws": "coins"}\', sum = NULL WHERE id = 2')  # no checksum: unchecked
    db.commit()
    db.close()
    service = Service(Journal(path))
    assert not list(tmp_path.glob("*.damaged-*"))
    assert [g.events for g in service.journal.games()][:2] == [first, second]
    assert service.game_id == 3
    assert service.seq == 0
    assert any("game 2 could not be resumed" in n for n in service.notes)
    service.close()


# ------------------------------------------------------------------ a changed record is noticed


def test_one_digit_changed_in_a_journaled_input_is_reported_and_the_game_kept(two_games, tmp_path):
    path = tmp_path / "j.sqlite"
    _, second = two_games(path)
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, value FROM events WHERE game = 2 AND kind = 'throw' ORDER BY seq").fetchall()
    seq, value = rows[1]
    # changed with its checksum cleared (a row of a journal older than checksums): the re-judging notices
    changed = str(5 if value != "5" else 4)
    db.execute("UPDATE events SET value = ?, sum = NULL WHERE game = 2 AND seq = ?", (changed, seq))
    db.commit()
    db.close()
    service = Service(Journal(path))
    said = [n for n in service.notes if "differs from what the referee decides now" in n]
    assert len(said) == 1
    assert f"from input {seq + 1} on" in said[0]
    assert service.game_id == 2
    assert service.seq == second  # the game goes on, as judged now
    assert any("differs" in t for t in service.snapshot().to_json()["journal_notes"])
    service.close()
    checks, _ = journal_checks(path)
    assert any(c.name == "resume" and "differs" in c.text for c in checks)


def test_an_untouched_journal_raises_no_alarm(two_games, tmp_path):
    path = tmp_path / "j.sqlite"
    two_games(path)
    service = Service(Journal(path))
    assert service.snapshot().to_json()["journal_notes"] == []
    assert not any("differs" in n for n in service.notes)
    service.close()
    assert not [c for c in journal_checks(path)[0] if c.name == "resume"]


def test_the_wal_and_the_mark_deleted_together_are_noticed(tmp_path):
    path = tmp_path / "j.sqlite"
    clock = ScriptClock()
    journal = Journal(path)
    journal._db.execute("PRAGMA wal_autocheckpoint=0")  # the last writes stay in the -wal, as after a kill
    service = Service(journal, clock=clock)
    feed(service, clock, INPUTS[:60])
    service.new_game("secret")
    copy = tmp_path / "copy" / "j.sqlite"
    copy.parent.mkdir()
    shutil.copy(path, copy)  # the main file only: its -wal and -mark are gone
    service.close()
    resumed = Service(Journal(copy))
    said = [n for n in resumed.notes if "-wal and -mark are both missing" in n]
    assert len(said) == 1
    assert resumed.snapshot().to_json()["journal_notes"]
    resumed.close()


def test_a_journal_closed_cleanly_without_its_mark_raises_no_alarm(two_games, tmp_path):
    path = tmp_path / "j.sqlite"
    two_games(path)
    Path(f"{path}-mark").unlink()
    service = Service(Journal(path))
    assert not any("missing" in n for n in service.notes)
    assert service.snapshot().to_json()["journal_notes"] == []
    service.close()


# ------------------------------------------------------------------ one run per journal


def run_cli(capsys, args: list[str]) -> tuple[int, str, str]:
    """The command line in-process: exit status, standard output and standard error."""
    capsys.readouterr()
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_second_run_on_the_same_journal_is_refused_naming_the_first(tmp_path):
    from tests.cli_helpers import SENET_PI, assert_one_line, senet_pi

    path = tmp_path / "j.sqlite"
    args = ["run", "--backend", "sim", "--page-port", "0", "--journal", str(path)]
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    first = subprocess.Popen([SENET_PI, *args], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
    try:
        lock = Path(f"{path}-lock")
        end = time.monotonic() + 30
        while not (lock.exists() and lock.read_text().strip() and path.exists()):
            assert time.monotonic() < end and first.poll() is None, "the first run did not start"
            time.sleep(0.05)
        second = senet_pi(*args, cwd=tmp_path, stdin="throw 3\n")
        assert_one_line(second, 1, "in use by another senet-pi run", f"(pid {first.pid})")
        assert second.stdout == ""  # refused before the board or the journal was touched
    finally:
        first.communicate(b"quit\n", timeout=30)
    assert first.returncode == 0
    with Journal(path, readonly=True) as journal:
        assert [g.events for g in journal.games()] == [journal.games()[0].events]
        assert len(journal.games()) == 1
    third = senet_pi(*args, cwd=tmp_path, stdin="quit\n")  # the lock went with the first run
    assert third.returncode == 0, third.stderr


def test_an_explicit_ruleset_unlike_the_game_in_progress_is_said(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    Service(Journal(path), variant="houses").close()
    script = tmp_path / "s.txt"
    script.write_text("status\n", encoding="utf-8")
    base = ["run", "--backend", "sim", "--page-port", "0", "--journal", str(path), "--script", str(script)]
    code, out, err = run_cli(capsys, [*base, "--ruleset", "secret"])
    assert code == 0, err
    assert "--ruleset secret not applied: game 1 (houses, 2 players) is in progress" in out
    assert "new secret 2" in out
    code, out, err = run_cli(capsys, [*base, "--ruleset", "houses"])  # what is on: nothing to say
    assert code == 0
    assert "not applied" not in out


# ------------------------------------------------------------------ mistakes on the command line


def test_status_with_a_relative_journal_path_is_no_internal_error(tmp_path):
    from tests.cli_helpers import senet_pi

    (tmp_path / "rel").mkdir()
    Service(Journal(tmp_path / "rel" / "x.sqlite")).close()
    result = senet_pi("status", "--journal", "rel/x.sqlite", "--page-port", "1", cwd=tmp_path)
    assert result.returncode in (0, 1) and "internal error" not in result.stderr, result.stderr
    assert "rel/x.sqlite" in result.stdout
    assert "not damaged" in result.stdout


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_a_page_port_out_of_range_is_a_usage_error(tmp_path, capsys, port):
    code, _, err = run_cli(capsys, ["run", "--backend", "sim", "--page-port", port, "--journal", str(tmp_path / "j")])
    assert code == 2
    assert "--page-port" in err
    assert "0 to 65535" in err
    assert "internal error" not in err
    assert not list(tmp_path.iterdir())


def test_set_pin_without_a_terminal_is_one_line(tmp_path):
    from tests.cli_helpers import assert_one_line, senet_pi

    result = senet_pi("set-pin", cwd=tmp_path, stdin="")
    assert_one_line(result, 1, "no terminal", "--pin")


def test_a_journal_in_a_folder_that_does_not_exist_is_one_line_and_makes_no_folder(tmp_path, capsys):
    code, out, err = run_cli(
        capsys, ["run", "--backend", "sim", "--page-port", "0", "--journal", str(tmp_path / "typo" / "j.sqlite")]
    )
    assert code == 1
    assert err.count("\n") == 1
    assert "does not exist" in err
    assert out == ""
    assert not (tmp_path / "typo").exists()


def test_place_on_an_occupied_square_and_lift_from_an_empty_one_are_said(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("place 1\nlift 20\nslide 10 9\n", encoding="utf-8")
    args = ["run", "--backend", "sim", "--page-port", "0", "--journal", str(tmp_path / "j.sqlite")]
    code, out, err = run_cli(capsys, [*args, "--script", str(script)])
    assert code == 0, err
    assert "error: square 1 already holds a piece" in out
    assert "error: square 20 holds no piece to lift" in out
    assert "error: square 9 already holds a piece" in out


# ------------------------------------------------------------------ the fuzz: any handling, then a restart

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SQUARE = st.integers(1, 30)
HANDLING = st.one_of(
    st.tuples(st.sampled_from(["lift", "place"]), SQUARE),
    st.tuples(st.just("throw"), st.integers(1, 5)),
    st.tuples(st.just("move"), st.lists(st.integers(1, 31), min_size=2, max_size=2)),
    st.tuples(st.sampled_from(["undo", "resync"]), st.just(True)),
    st.tuples(st.just("answer"), st.one_of(st.integers(0, 3), st.sampled_from(["yes", "no", "10-13"]))),
    st.tuples(st.just("sense"), st.lists(SQUARE, max_size=12, unique=True)),
    st.tuples(st.just("wait"), st.integers(0, 3000)),
    st.tuples(st.just("new"), st.sampled_from(["secret", "houses", "modern"])),
)


def journal_record(path: Path) -> dict[int, tuple[str, list[tuple[int, int, str, object]]]]:
    """Every game in the journal with its inputs, read without changing the file."""
    with Journal(path, readonly=True) as journal:
        games = journal.games()
        return {g.id: (g.variant, [(e.seq, e.ms, e.kind, e.value) for e in journal.events(g.id)]) for g in games}


def handle_all(service: Service, clock: ScriptClock, handlings: list[tuple[str, object]]) -> None:
    """Give the service each handling as the board, the page and the terminal would; a failure of the
    referee on one is what the run loop survives (said, and the game goes on), so it is caught here."""
    for kind, value in handlings:
        try:
            if kind == "wait":
                clock.t += int(value) / 1000  # type: ignore[call-overload]
                service.tick()
            elif kind == "new":
                service.new_game(str(value))
            else:
                service.handle(kind, value)
        except Exception:
            pass


@settings(max_examples=40, deadline=None)
@given(st.lists(HANDLING, max_size=40), st.lists(HANDLING, max_size=20))
def test_fuzz_any_board_handlings_then_a_restart_keep_every_earlier_game(before, after):
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as folder:
        path = Path(folder) / "j.sqlite"
        clock = ScriptClock()
        service = Service(Journal(path), clock=clock)
        handle_all(service, clock, before)
        service.close()
        kept = journal_record(path)

        clock = ScriptClock(clock.t)
        again = Service(Journal(path), clock=clock)  # the restart: never raises, never sets the journal aside
        assert not list(Path(folder).glob("*.damaged-*"))
        record = journal_record(path)
        assert {gid: record[gid] for gid in kept} == kept  # every earlier game, every input, as it was
        assert again.game_id >= max(kept)
        handle_all(again, clock, after)
        again.close()
        final = journal_record(path)
        for gid, (variant, inputs) in kept.items():  # the game in progress may have gone on: a prefix
            assert final[gid][0] == variant
            assert final[gid][1][: len(inputs)] == inputs
