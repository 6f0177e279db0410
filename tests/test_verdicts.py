"""Verdicts are typed values with one JSON form; the replay files guard the lines."""

from __future__ import annotations

import json
import re

import pytest

from senet_pi.events import timed_inputs
from senet_pi.referee import Referee
from senet_pi.referee.hands import scripted_game
from senet_pi.rules import Reason, new_game
from senet_pi.verdicts import KINDS, Fix, Illegal, Moved, Prompt, parse_verdict

RULING = re.compile(r"[PSHMK]\d+$")


def test_each_kind_has_its_own_name_and_a_line_starts_with_it():
    assert len(KINDS) == len({cls.v for cls in KINDS.values()}) >= 30
    line = Moved("B", 10, 13, 3).json()
    assert list(line) == ["v", "player", "from", "to", "by"]  # the replay contract's order, no empty effects
    assert line == {"v": "move", "player": "B", "from": 10, "to": 13, "by": 3}


def test_optional_fields_are_left_out_and_names_that_are_keywords_are_spelled_as_in_json():
    assert Illegal("x", "P3").json() == {"v": "illegal", "reason": "x", "ruling": "P3"}
    assert Prompt("move 27 to 15", "A", 27, 15).json()["from"] == 27


def test_a_fix_tells_a_swap_from_a_carry_in_a_field_and_old_lines_read_back_as_carries():
    swap = Fix("swap the pieces on 9 and 12 back", 9, 12, swap=True)
    assert swap.json() == {"v": "fix", "text": "swap the pieces on 9 and 12 back", "from": 9, "to": 12, "swap": True}
    carry = Fix("put B's piece on 14 back on 10", 14, 10)
    assert "swap" not in carry.json()  # a journal's fix lines from before the field read back equal
    assert parse_verdict(carry.json()) == carry
    assert parse_verdict(swap.json()) == swap


def test_a_reasons_refusal_carries_its_ruling_in_a_field_not_in_the_sentence():
    line = Illegal.because(Reason.ANSWER_FIRST, question="which move?").json()
    assert line == {"v": "illegal", "reason": "answer the question first: which move?", "ruling": "P3"}


@pytest.mark.parametrize("data", [{"v": "nonsense"}, {"v": "move", "player": "A"}, {"v": "turn", "who": "A"}])
def test_a_line_that_is_no_verdict_is_refused_with_a_reason(data):
    with pytest.raises(ValueError, match="verdict"):
        parse_verdict(data)


@pytest.mark.parametrize(("ruleset", "seed"), [("secret", 1), ("houses", 2), ("modern", 3), ("cards", 4)])
def test_every_verdict_of_a_whole_game_is_a_known_kind_and_round_trips(ruleset, seed):
    """Whatever the referee says over a game played by hand is one of the typed kinds, its JSON form
    reads back as the same value, and its ruling ids come from the rulings (no free-form "P3" strings)."""
    script = scripted_game(ruleset, seed)
    referee = Referee(new_game(ruleset, options=script["options"]))
    seen = set()
    for ms, kind, value in timed_inputs(script["events"]):
        for typed in referee.apply(kind, value, ms / 1000):
            verdict = json.loads(json.dumps(typed.json()))  # as the journal and replay write it
            assert parse_verdict(verdict).json() == verdict
            seen.add(verdict["v"])
            if verdict["v"] == "illegal":
                assert RULING.match(verdict["ruling"]), verdict
    assert {"throw", "move"} <= seen or {"card", "move"} <= seen
