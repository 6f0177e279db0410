"""Home Assistant's "last verdict" (the fleet summary's `last`) is a sentence for every verdict kind the
summary reports, in the board's language, never a list of fields nor a hint meant for the terminal."""

from __future__ import annotations

import typing
from dataclasses import MISSING, fields

import pytest

from senet_pi import verdicts
from senet_pi.fleet.published import verdict_words
from senet_pi.fleet.summary import NOTABLE, Summary
from senet_pi.verdicts import KINDS

SAMPLES: dict[str, object] = {
    "player": "B",
    "to_move": "B",
    "from_sq": 10,
    "to": 13,
    "by": 3,
    "effects": [{"kind": "exchange", "player": "A", "from": 13, "to": 10}],
    "reason": "that square is taken",
    "ruling": "P3",
    "fix": ["put the piece back on 12"],
    "scores": {"A": 5, "B": 3},
    "throw": 2,
    "value": 2,
    "card": "3",
    "count": 2,
    "move": "10-13",
    "variant": "secret",
    "text": "the switch on 7 is stuck",
    "game": 4,
    "minutes": 5.0,
    "assumed": ["10-13"],
    "board": {"10": "A"},
    "was": ["10-13"],
    "now": ["10-12"],
    "id": 1,
    "kind": "swap",
    "options": ["put back", "swapped"],
    "answer": "swapped",
    "connected": True,
    "square": 7,
    "fault": "stuck closed",
}


def _sample(kind: type) -> verdicts.Verdict:
    hints = typing.get_type_hints(kind, vars(verdicts))
    values = {}
    for f in fields(kind):
        if f.name in SAMPLES:
            values[f.name] = SAMPLES[f.name]
        elif f.default is not MISSING:  # an optional field (None, or a flag such as Fix.swap) as its default
            values[f.name] = f.default
        else:
            raise AssertionError(f"no sample for {kind.__name__}.{f.name} ({hints.get(f.name)})")
    return kind(**values)


@pytest.mark.parametrize("v", sorted(KINDS))
def test_every_verdict_kind_the_summary_reports_is_a_sentence(v):
    verdict = _sample(KINDS[v])
    words = verdict_words("en")(verdict)
    if v not in NOTABLE:
        return  # said to nobody: the summary never takes it as the last thing
    assert words, v
    assert "=" not in words, words  # never `new game: variant=secret, to_move=B`
    assert "type: answer" not in words, words  # the terminal's typing hint is not for a dashboard
    assert " B " not in f" {words} " and "B's" not in words, words  # players by name, not their ids
    summary = Summary(verdict_words("en"))
    summary.heard([verdict], 0.0)
    assert summary.last == words


def test_a_new_game_in_home_assistants_words_in_each_language():
    new_game = _sample(KINDS["new_game"])
    assert verdict_words("en")(new_game) == "a new game of secret: Green to move"
    said = verdict_words("de")(new_game)
    assert said
    assert "Grün" in said
    assert "new game" not in said
    assert verdict_words("ar")(new_game) != verdict_words("en")(new_game)
