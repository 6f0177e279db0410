"""`senet-pi replay` (replay.md): hand-made games give the verdicts the rulings imply, and bad files
get one clear line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from senet_pi.cli.command import main
from senet_pi.service.replay import parse_replay, replay_lines

REPLAYS = Path(__file__).parent / "replays"
SCENARIOS = sorted(REPLAYS.glob("*.json"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_hand_made_games_give_the_verdicts_the_rulings_imply(path):
    """Each `.expected.jsonl` was checked line by line against rulings.md (see the README's table)."""
    expected = path.with_suffix(".expected.jsonl").read_text().splitlines()
    got = list(replay_lines(parse_replay(path.read_text())))
    assert got == expected


def test_every_verdict_has_the_fields_outside_tests_read():
    required = {
        "move": {"player", "from", "to"},
        "illegal": {"reason"},
        "bonus": {"player"},
        "turn": {"player"},
        "win": {"player"},
    }
    kinds = set()
    for path in SCENARIOS:
        for line in path.with_suffix(".expected.jsonl").read_text().splitlines():
            verdict = json.loads(line)
            kinds.add(verdict["v"])
            assert required.get(verdict["v"], set()) <= set(verdict)
    assert set(required) <= kinds


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_replays_a_file(capsys):
    code, out, err = run_cli(capsys, "replay", str(REPLAYS / "secret-opening.json"))
    assert code == 0
    assert err == ""
    assert out.splitlines() == (REPLAYS / "secret-opening.expected.jsonl").read_text().splitlines()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        ("[]", "one JSON object"),
        ('{"variant": "chess", "events": []}', "unknown variant 'chess'"),
        ('{"variant": "cards", "events": [{"throw": 3}]}', "event 0: in the card game a turn is a card"),
        ('{"variant": "cards", "events": [{"card": "9"}]}', "event 0: '9' is not a card of this deck"),
        ('{"variant": "cards", "events": [{"exchange": ["1", "2", "3"]}]}', "event 0: exchange names one or two"),
        ('{"variant": "cards", "options": {"deck_order": ["1"]}, "events": []}', "deck_order must list every card"),
        ('{"variant": "secret"}', "'events' must be a list"),
        ('{"variant": "secret", "events": [{"throw": 5}]}', "event 0: secret cannot throw 5"),
        ('{"variant": "houses", "events": [{"throw": 1}, {"throw": 6}]}', "event 1: houses cannot throw 6"),
        ('{"variant": "secret", "events": [{"throw": "3"}]}', "event 0: secret cannot throw '3'"),
        ('{"variant": "modern", "events": [{"throw": [7, 1]}]}', "event 0: modern cannot throw"),
        ('{"variant": "secret", "events": [{"throw": 1}, {"move": [10, 31]}]}', "event 1: square 31 is outside 1-30"),
        ('{"variant": "secret", "events": [{"move": [0, 3]}]}', "event 0: square 0 is outside 1-30"),
        ('{"variant": "secret", "events": [{"move": ["off", 3]}]}', "event 0: a move cannot start from 'off'"),
        ('{"variant": "secret", "events": [{"move": [3]}]}', "event 0: a move is [FROM, TO]"),
        ('{"variant": "secret", "events": [{"jump": 3}]}', "event 0: name exactly one of"),
        ('{"variant": "secret", "events": [{"throw": 1, "move": [1, 2]}]}', "event 0: name exactly one of"),
        ('{"variant": "secret", "events": [{"lift": 31}]}', "event 0: square 31 is outside 1-30"),
        ('{"variant": "secret", "events": [{"place": "off"}]}', "event 0: a switch sits under a square 1-30"),
        ('{"variant": "secret", "events": [{"wait": -5}]}', "event 0: wait takes milliseconds"),
        ('{"variant": "secret", "events": [{"undo": 1}]}', 'event 0: write {"undo": true}'),
        ('{"variant": "secret", "events": [{"answer": [1]}]}', "event 0: answer with an option"),
        ('{"variant": "secret", "options": {"throws": "d20"}, "events": []}', "option throws='d20'"),
        ('{"variant": "secret", "options": {"colour": 1}, "events": []}', "has no option 'colour'"),
        ('{"variant": "secret", "players": 3, "events": []}', "is for 2 players"),
        ('{"variant": "secret", "position": {"A": [1, 1], "B": []}, "events": []}', "square 1 is given twice"),
        ('{"variant": "secret", "position": {"A": [1, 2], "B": [3], "off": {"A": 1}}, "events": []}', "add up to 5"),
        ('{"variant": "secret", "position": {"A": [40], "B": []}, "events": []}', "square 40 is outside 1-30"),
        ('{"variant": "secret", "extra": 1, "events": []}', "unknown field(s) extra"),
    ],
)
def test_invalid_files_exit_non_zero_with_one_clear_line(tmp_path, capsys, content, message):
    path = tmp_path / "game.json"
    path.write_text(content)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert code != 0
    assert out == ""
    assert err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err


def test_a_missing_file_is_one_clear_line(tmp_path, capsys):
    code, _, err = run_cli(capsys, "replay", str(tmp_path / "nope.json"))
    assert code == 1
    assert "cannot read" in err
    assert "No such file" in err


def test_python_dash_m_and_standard_input_work():
    game = (REPLAYS / "houses-opening.json").read_text()
    result = subprocess.run(
        [sys.executable, "-m", "senet_pi", "replay", "-"], input=game, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout.splitlines() == (REPLAYS / "houses-opening.expected.jsonl").read_text().splitlines()


def test_a_binary_file_is_refused_cleanly(tmp_path, capsys):
    path = tmp_path / "game.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = run_cli(capsys, "replay", str(path))
    assert code == 1
    assert "not a UTF-8 text file" in err


def test_rules_command_lists_every_rule_set(capsys):
    code, out, _ = run_cli(capsys, "rules")
    assert code == 0
    for name in ("secret", "houses", "modern"):
        assert out.count(f"{name} (") == 1
