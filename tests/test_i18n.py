"""Issue 15 item 3: every visitor-facing text goes through a catalogue (English, German, Arabic).

`Text` is English wherever it is stored (journal, replays, JSON); `translate` says it again in a
language; the catalogues and the sources must agree key for key."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from senet_pi import i18n
from senet_pi.i18n import Text, translate
from senet_pi.rules import Reason
from senet_pi.verdicts import Illegal


@pytest.fixture
def fake_de(monkeypatch):
    """A small German catalogue of our own, to test the mechanism apart from the real translations."""
    table = {
        "{player} must throw before moving": "{player} muss erst werfen",
        "put the board right first: {warning}": "erst das Brett richten: {warning}",
        "square {square} is empty": "Feld {square} ist leer {nonsense}",  # a placeholder the msgid lacks
    }
    monkeypatch.setattr(i18n, "catalogue", lambda language: table if language == "de" else {})
    return table


def test_a_text_is_its_english_sentence_everywhere_it_is_stored():
    text = Reason.NO_THROW.sentence(player="A")
    assert text == "A must throw before moving" and isinstance(text, Text)
    assert (text.msgid, text.params) == ("{player} must throw before moving", {"player": "A"})
    line = Illegal.because(Reason.NO_THROW, player="A").json()
    assert json.dumps(line) == '{"v": "illegal", "reason": "A must throw before moving", "ruling": "P3"}'
    assert copy.deepcopy(text).msgid == pickle.loads(pickle.dumps(text)).msgid == text.msgid


def test_translate_fills_in_translated_params_and_leaves_plain_strings(fake_de):
    nested = Reason.BOARD_FIRST.sentence(warning=Reason.NO_THROW.sentence(player="A"))
    assert nested == "put the board right first: A must throw before moving"
    said = translate({"v": "illegal", "reason": nested, "fix": [Text("plain text stays")], "n": 3}, "de")
    assert said == {
        "v": "illegal",
        "reason": "erst das Brett richten: A muss erst werfen",
        "fix": ["plain text stays"],
        "n": 3,
    }


def test_a_missing_translation_or_a_wrong_placeholder_falls_back_to_english(fake_de):
    assert translate(Reason.EMPTY_SQUARE.sentence(square=7), "de") == "square 7 is empty"
    assert translate(Reason.GAME_OVER.sentence(), "de") == "the game is over"


def test_english_and_unknown_languages_return_the_value_as_it_is(fake_de):
    value = {"reason": Reason.NO_THROW.sentence(player="B")}
    assert translate(value, "en") is value
    assert translate(value, "xx") is value


def test_the_switch_names_each_language_in_itself_and_arabic_runs_right_to_left():
    assert [i18n.name(lang) for lang in i18n.LANGUAGES] == ["English", "Deutsch", "العربية"]
    assert [i18n.direction(lang) for lang in i18n.LANGUAGES] == ["ltr", "ltr", "rtl"]
    with pytest.raises(ValueError, match="unknown language 'fr': use one of en, de, ar"):
        i18n.check("fr")
