"""Every terminal command and every journaled value is checked for range before it is journaled:
one "error:" line, the service goes on, and nothing a referee could not judge again enters the journal."""

from __future__ import annotations

import io
import types
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from senet_pi.cli import run as run_module
from senet_pi.cli.run import Runner
from senet_pi.errors import UnjournalableError
from senet_pi.hardware.backend import SimBackend
from senet_pi.referee import Referee
from senet_pi.rules import find_ruleset
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal, check_value
from senet_pi.service.resume import rejudge


@pytest.fixture
def no_sleep(monkeypatch):
    """The runner's sleeps are counted, not slept: `wait 600000` in a generated line costs nothing."""
    slept: list[float] = []
    fake = types.SimpleNamespace(sleep=slept.append, monotonic=__import__("time").monotonic)
    monkeypatch.setattr(run_module, "time", fake)
    # The board is never started, so no scanner would see a new game's pieces: set them, do not wait.
    monkeypatch.setattr(Runner, "_set_up_pieces", lambda self, sim: sim.set_occupied(self.service.expected))
    return slept


def make_runner(journal: Journal) -> tuple[Runner, io.StringIO]:
    out = io.StringIO()
    backend = SimBackend()  # never started: the commands work its mock pins, no scanner thread
    return Runner(Service(journal), backend, out=out), out


def journaled(journal: Journal) -> list:
    game = journal.game_in_progress()
    assert game is not None
    return journal.events(game.id)


def judges_again(journal: Journal) -> None:
    """Every journaled input of the game in progress can be judged again, as a resume would."""
    record = journal.game_in_progress()
    assert record is not None
    events = journal.events(record.id)
    for event in events:
        check_value(event.value)
    again = rejudge(lambda: Referee(find_ruleset(record.variant)(record.players, record.options)), events)
    assert again.failure is None, again.failure


ISSUE_LINES = [
    "throw inf",
    "throw -inf",
    "throw nan",
    "enter 10 11 inf",
    "enter 10 11 99999999999999999999",
    "new secret inf",
    "new secret 1e30",
    "wait inf",
    "wait nan",
    "wait 1e30",
    "wait -5",
    "hold 1e400",
    "hold inf",
    "throw 1e30",
    "throw -5",
    "throw 99999999999999999999",
    "throw 7",
    "throw 3.5",
    "answer 99999999999999999999",
]


@pytest.mark.parametrize("line", ISSUE_LINES)
def test_ranges_each_bad_line_is_one_error_and_nothing_journaled(tmp_path, no_sleep, line):
    with Journal(tmp_path / "j.sqlite") as journal:
        runner, out = make_runner(journal)
        before = journaled(journal)
        assert runner.feed([line, "throw 3"]) is False
        lines = out.getvalue().splitlines()
        errors = [text for text in lines if text.startswith("error:")]
        assert len(errors) == 1, lines
        assert "Traceback" not in out.getvalue()
        after = journaled(journal)
        assert [(e.kind, e.value) for e in after[len(before) :]] == [("throw", 3)]  # the next line still works
        assert not [s for s in no_sleep if s > run_module.MAX_WAIT_MS / 1000]
        judges_again(journal)


def test_ranges_the_limits_themselves_are_accepted(tmp_path, no_sleep):
    with Journal(tmp_path / "j.sqlite") as journal:
        runner, out = make_runner(journal)
        runner.feed([f"wait {run_module.MAX_WAIT_MS}", f"hold {run_module.MAX_HOLD:g}", "throw 3"])
        assert "error:" not in out.getvalue()
        assert no_sleep[0] == run_module.MAX_WAIT_MS / 1000
        assert run_module.MAX_HOLD in no_sleep


NUMBERS = st.one_of(
    st.sampled_from(["inf", "-inf", "nan", "Infinity", "1e30", "1e400", "-1e400", "-5", "-0", "0", "0x10", "1_0"]),
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(0, 40).map(str),
)
VERBS = ["throw", "enter", "new secret", "new", "wait", "hold", "answer", "lift", "place", "slide", "press"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.tuples(st.sampled_from(VERBS), st.lists(NUMBERS, max_size=3)), min_size=1, max_size=4))
def test_ranges_generated_command_lines_never_stop_the_service_nor_enter_the_journal(no_sleep, lines):
    import tempfile

    with tempfile.TemporaryDirectory() as folder, Journal(Path(folder) / "j.sqlite") as journal:
        runner, out = make_runner(journal)
        text = [" ".join([verb, *numbers]) for verb, numbers in lines]
        assert runner.feed(text) is False  # never raises, never quits
        assert "Traceback" not in out.getvalue()
        assert all(s <= run_module.MAX_WAIT_MS / 1000 for s in no_sleep)
        judges_again(journal)


@pytest.mark.parametrize(
    "value",
    [float("inf"), float("-inf"), float("nan"), 1e30, 10**20, -(10**40), [1, float("inf")], {"a": float("nan")},
     [[[[[[[[[[1]]]]]]]]]], "x" * 5000, {1: 2}, object()],
)  # fmt: skip
def test_ranges_the_journal_refuses_what_no_referee_could_judge(tmp_path, value):
    """Whatever the input's way in (page, serial bridge, terminal), the journal is the last check."""
    with Journal(tmp_path / "j.sqlite") as journal:
        service = Service(journal)
        before = journaled(journal)
        with pytest.raises(UnjournalableError):
            service.handle("throw", value)
        assert journaled(journal) == before
        service.handle("throw", 3)  # the service goes on
        assert journaled(journal)[-1].value == 3


def test_ranges_run_says_when_its_journal_is_in_ram(tmp_path, monkeypatch):
    monkeypatch.setattr(run_module, "in_ram", lambda path: "tmpfs" if path == tmp_path else None)
    with Journal(tmp_path / "j.sqlite") as journal:
        runner, out = make_runner(journal)
        runner.start()
        runner.close()
    said = [line for line in out.getvalue().splitlines() if "in RAM" in line]
    assert said == [line for line in said if line.startswith("note: ")]
    assert len(said) == 1
    assert str(tmp_path / "j.sqlite") in said[0]
    assert "tmpfs" in said[0]


def test_ranges_a_ram_file_system_is_known_as_one():
    from senet_pi.cli.status import in_ram

    assert in_ram(Path("/dev/shm")) == "tmpfs"  # Linux keeps /dev/shm in RAM
    assert in_ram(Path("/proc")) is None


@pytest.mark.parametrize(
    ("action", "body"),
    [
        ("throw", '{"value": 1e400}'),
        ("throw", '{"value": -Infinity}'),
        ("throw", '{"value": NaN}'),
        ("throw", '{"value": 99999999999999999999}'),
        ("throw", '{"value": -5}'),
        ("move", '{"from": 10, "to": 13, "by": 1e400}'),
        ("move", '{"from": 10, "to": 1e30, "by": 1}'),
        ("move", '{"from": 10, "to": 13, "by": 99999999999999999999}'),
        ("new_game", '{"variant": "secret", "players": Infinity}'),
    ],
)
def test_ranges_the_pages_api_refuses_them_too_and_journals_nothing(tmp_path, action, body):
    from werkzeug.security import generate_password_hash

    from senet_pi_web import create_app

    pin = "482913"
    with Journal(tmp_path / "j.sqlite") as journal:
        service = Service(journal)
        config = {"TESTING": True, "SECRET_KEY": "t", "PIN_DELAY": 0.0}
        config["OPERATOR_PIN_HASH"] = generate_password_hash(pin, method="pbkdf2:sha256:1000")
        client = create_app(config, service=service).test_client()
        csrf = client.get("/api/op/csrf").json["csrf"]
        assert client.post("/api/op/login", json={"pin": pin}, headers={"X-CSRF-Token": csrf}).status_code == 200
        before = journaled(journal)
        answer = client.post(
            f"/api/op/{action}", data=body, headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"}
        )
        assert 400 <= answer.status_code < 500
        assert "error" in answer.json
        assert journaled(journal) == before
        judges_again(journal)


@pytest.mark.parametrize("value", ["1e+30", "99999999999999999999", "Infinity", "-5"])
def test_ranges_an_old_journal_with_such_an_input_resumes_up_to_it(tmp_path, value):
    """A value journaled before the ranges were checked: the resume stops before it, never crashes."""
    import sqlite3

    with Journal(tmp_path / "j.sqlite") as journal:
        service = Service(journal)
        service.handle("throw", 3)
        game = service.game_id
    db = sqlite3.connect(tmp_path / "j.sqlite")
    db.execute("INSERT INTO events (game, seq, ms, kind, value) VALUES (?, 1, 900, 'throw', ?)", (game, value))
    db.commit()
    db.close()
    with Journal(tmp_path / "j.sqlite") as journal:
        service = Service(journal)  # resumes; a throw of -5 is judged (refused), the rest stop the resume
        judges_again(journal)
        service.handle("throw", 3)
        assert journaled(journal)[-1].value == 3
