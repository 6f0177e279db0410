"""The journal: resume after a restart or a kill -9, damaged files set aside, export replays identically."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from senet_pi.cli.command import main
from senet_pi.cli.export import export_game, export_text
from senet_pi.referee import Referee
from senet_pi.referee.hands import scripted_game
from senet_pi.rules import new_game
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from senet_pi.service.replay import load_replay, parse_replay, run_replay
from tests.journal_helpers import ScriptClock, feed, timed

ROOT = Path(__file__).resolve().parents[1]


def played(tmp_path: Path, variant: str, seed: int, players: int = 2) -> tuple[Journal, Service]:
    journal = Journal(tmp_path / "journal.sqlite")
    clock = ScriptClock()
    script = scripted_game(variant, seed, players)
    service = Service(journal, variant=variant, players=players, options=script["options"], clock=clock)
    feed(service, clock, timed(script["events"]))
    return journal, service


def without_event_index(verdicts: list[dict]) -> list[dict]:
    return [{k: v for k, v in verdict.items() if k != "event"} for verdict in verdicts]


@pytest.mark.parametrize(
    ("variant", "players"), [("secret", 2), ("houses", 2), ("cards", 2), ("modern", 2), ("modern", 3)]
)
def test_a_physical_game_plays_to_its_end_and_its_export_replays_verdict_for_verdict(tmp_path, variant, players):
    journal, service = played(tmp_path, variant, seed=1, players=players)
    stored = [v.json() for v in journal.verdicts(service.game_id)]
    kinds = [v["v"] for v in stored]
    assert "win" in kinds
    assert "illegal" not in kinds
    assert any(v["v"] == "move" and v.get("effects") for v in stored)  # exchanges / captures happened
    assert "prompt" in kinds  # and the rules' own moves were prompted and checked
    replayed = list(run_replay(parse_replay(export_text(journal, service.game_id))))
    assert without_event_index(replayed) == stored


def test_a_knocked_piece_in_a_scripted_game_raises_nothing(tmp_path):
    script = scripted_game("secret", 3)
    knocks = sum(
        1
        for a, b in zip(script["events"], script["events"][1:], strict=False)
        if "lift" in a and b == {"place": a["lift"]}
    )
    assert knocks > 0
    verdicts = list(run_replay(load_replay(script)))
    assert not [v for v in verdicts if v["v"] == "illegal"]


@pytest.mark.slow
def test_the_service_resumes_the_game_in_progress(tmp_path):
    inputs = timed(scripted_game("houses", 4)["events"])
    half = inputs[len(inputs) // 2][0]
    journal = Journal(tmp_path / "j.sqlite")
    clock = ScriptClock()
    service = Service(journal, variant="houses", clock=clock)
    feed(service, clock, [i for i in inputs if i[0] <= half])
    before = service.snapshot().to_json()
    journal.close()

    clock = ScriptClock(half / 1000)
    resumed = Service(Journal(tmp_path / "j.sqlite"), clock=clock)
    assert resumed.snapshot().to_json() == before
    assert any("resumed game" in note for note in resumed.notes)
    feed(resumed, clock, inputs, after_ms=half)

    _, straight = played(tmp_path / "straight", "houses", 4)
    assert json.loads(json.dumps([v.json() for v in resumed.history])) == json.loads(
        json.dumps([v.json() for v in straight.history])
    )
    assert resumed.snapshot().to_json() == straight.snapshot().to_json() | {"game": resumed.game_id}


@pytest.mark.slow
def test_kill_9_at_random_moments_loses_no_accepted_move(tmp_path):
    path = tmp_path / "journal.sqlite"
    rng = random.Random(20261123)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    kills = 0
    for _ in range(12):
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.kill_child", str(path), "secret", "2"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        target = rng.randrange(1, 150)  # kill after this many inputs: the same moments on any machine
        line = child.stdout.readline().strip()
        while line.startswith("fed ") and int(line.split()[1]) < target:
            line = child.stdout.readline().strip()
        if line.startswith("fed "):
            child.send_signal(signal.SIGKILL)
            kills += 1
        child.wait(timeout=60)
        child.stdout.close()
        if child.returncode == 0:
            break
    else:
        child = subprocess.run(
            [sys.executable, "-m", "tests.kill_child", str(path), "secret", "2"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    assert kills >= 2
    journal = Journal(path)
    assert len(journal.games()) == 1  # every restart resumed the same game
    game = journal.games()[0].id
    referee = Referee(new_game("secret"))
    replayed = list(run_replay(load_replay(export_game(journal, game)), referee))
    _, straight = played(tmp_path / "straight", "secret", 2)
    assert referee.game.position() == straight.referee.game.position()
    assert referee.game.winner_id == straight.referee.game.winner_id is not None
    expected = json.loads(json.dumps([v.json() for v in straight.history]))
    assert [v.json() for v in journal.verdicts(game)] == expected  # nothing lost, nothing twice
    assert without_event_index(replayed) == expected


def test_a_damaged_journal_is_kept_aside_and_a_new_one_started(tmp_path):
    path = tmp_path / "journal.sqlite"
    path.write_bytes(b"this is not a database, it is a shopping list" * 100)
    journal = Journal(path)
    assert journal.damaged
    assert "is damaged" in journal.damaged
    aside = list(tmp_path.glob("journal.sqlite.damaged-*"))
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is not a database")
    game = journal.start_game("secret", 2, {})
    journal.record_event(game, 0, 0, "throw", 3)
    assert journal.events(game)[0].value == 3
    service = Service(Journal(path))
    assert service.notes
    assert "resumed game" in service.notes[0]


def test_export_and_games_commands(tmp_path, capsys):
    journal, _ = played(tmp_path, "secret", seed=5)
    journal.close()
    assert main(["games", "--journal", str(tmp_path / "journal.sqlite")]) == 0
    out = capsys.readouterr().out
    assert "secret" in out
    assert "won by" in out
    target = tmp_path / "game.json"
    assert main(["export", "last", "--journal", str(tmp_path / "journal.sqlite"), "-o", str(target)]) == 0
    replay = json.loads(target.read_text())
    assert replay["variant"] == "secret"
    assert any("lift" in e for e in replay["events"])
    assert main(["replay", str(target)]) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["export", "7"], "there is no game 7"),
        (["games", "--journal", "/nonexistent/j.sqlite"], "there is no journal"),
    ],
)
def test_export_errors_are_one_line(tmp_path, capsys, args, message):
    Journal(tmp_path / "j.sqlite").close()
    if "--journal" not in args:
        args = [*args, "--journal", str(tmp_path / "j.sqlite")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_export_needs_a_game_number(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["export", "seven"])
    assert exit_.value.code == 2
    assert "'seven' is not a game number" in capsys.readouterr().err


def test_export_of_a_game_started_from_a_position_keeps_it(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    position = {"A": [24], "B": [20], "off": {"A": 4, "B": 4}, "to_move": "A"}
    game = journal.start_game("secret", 2, {"throws": "sticks"}, position)
    journal.record_event(game, 0, 0, "throw", 2)
    journal.record_event(game, 1, 5, "move", [24, 26, 0])
    replay = export_game(journal, game)
    assert replay["position"] == position
    assert replay["events"] == [{"throw": 2}, {"wait": 5}, {"move": [24, 26]}]
