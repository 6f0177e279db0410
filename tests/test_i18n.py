"""Every visitor-facing text goes through a catalogue (English, German, Arabic).

`Text` is English wherever it is stored (journal, replays, JSON); `translate` says it again in a
language; the catalogues and the sources must agree key for key."""

from __future__ import annotations

import copy
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from senet_pi import i18n
from senet_pi.cli.terminal import describe
from senet_pi.errors import ConfigError
from senet_pi.i18n import Text, translate
from senet_pi.referee import Referee
from senet_pi.rules import Reason, new_game
from senet_pi.service.core import Service
from senet_pi.verdicts import Fix, Illegal, Moved
from senet_pi_web import create_app, load_instance_config, shared
from senet_pi_web.state import NAMES

ROOT = Path(__file__).resolve().parents[1]
SENET_PI = shutil.which("senet-pi", path=str(Path(sys.executable).parent)) or "senet-pi"


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
    assert text == "A must throw before moving"
    assert isinstance(text, Text)
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


# ---------------------------------------------------------------------- the catalogues against the sources


def _translations_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("translations", ROOT / "scripts" / "translations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def extracted():
    script = _translations_script()
    return script, script.extract()


def test_the_sources_have_texts_in_every_layer(extracted):
    _, template = extracted
    ids = {m.id for m in template if m.id}
    assert "{player} must throw before moving" in ids  # the rules' reasons
    assert "put the piece on {from_sq} back on {to}" in ids  # the referee's fixes
    assert "{player} to throw" in ids  # the terminal and app.js
    assert "how to play" in ids
    assert "white" in ids  # a template, the page's player names
    assert "{sentence} ({ruling})" not in ids  # form(): punctuation only, no key


@pytest.mark.parametrize("language", [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT])
def test_every_key_is_translated_and_no_catalogue_key_is_unused(extracted, language):
    script, template = extracted
    assert script.problems(template, language) == []


@pytest.mark.parametrize("language", [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT])
def test_every_translation_keeps_the_placeholders_of_its_key(language):
    wrong = {
        msgid: text
        for msgid, text in i18n.catalogue(language).items()
        if sorted(re.findall(r"\{(\w*)\}", msgid)) != sorted(re.findall(r"\{(\w*)\}", text))
    }
    assert wrong == {}


def test_the_catalogues_ship_in_the_package():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"locale/*/LC_MESSAGES/*.po"' in pyproject
    assert "babel" in pyproject
    assert len(i18n.catalogue("de")) == len(i18n.catalogue("ar")) > 200


# ---------------------------------------------------------------------- real verdicts


def _wrong_board():
    """B throws 1 and puts the piece from 10 on 12: a wrong board, with a fix."""
    referee = Referee(new_game("secret"))
    out = referee.apply("throw", 1, 0.0) + referee.apply("lift", 10, 0.1) + referee.apply("place", 12, 0.2)
    return referee, out + referee.apply("tick", None, 5.0)


def test_a_referees_illegal_move_and_its_fix_in_german():
    referee, verdicts = _wrong_board()
    illegal = next(v.json() for v in verdicts if isinstance(v, Illegal))
    assert illegal["reason"] == "a throw of 1 takes the piece on 10 to 11, not 12 (P3)"  # English as stored
    said = translate(illegal, "de")
    assert said["reason"] == "ein Wurf von 1 bringt den Stein auf 10 nach 11, nicht nach 12 (P3)"
    assert said["fix"] == ["Stein von B auf 12 zurück auf 10 stellen"]
    assert json.loads(json.dumps(illegal)) == illegal  # nothing but plain JSON for the journal
    blocked = referee.throw_blocked()  # BOARD_FIRST, with the warning nested inside
    assert translate(blocked, "de") == (
        "erst das Brett richtig stellen: ein Wurf von 1 bringt den Stein auf 10 nach 11, nicht nach 12 (P3)"
    )
    assert translate(blocked, "ar").startswith("صحّح اللوحة أولًا: الرمية 1 تنقل القطعة من 10 إلى 11")
    assert translate(blocked, "fr") == blocked == "put the board right first: " + illegal["reason"]


def test_the_terminal_words_in_german_and_english_unchanged():
    _, verdicts = _wrong_board()
    assert describe(verdicts[0]) == "B throws 1"
    assert describe(verdicts[0], "de") == "B wirft 1"
    fix = next(v for v in verdicts if isinstance(v, Fix))
    assert describe(fix, "de") == "-> Stein von B auf 12 zurück auf 10 stellen"
    move = Moved("A", 9, 13, 4, [{"kind": "exchange", "player": "B", "from": 13, "to": 9}])
    assert describe(move) == "A moves 9 -> 13; B's piece 13 -> 9 (exchange)"  # the README demo's line
    assert describe(move, "de") == "A zieht 9 -> 13; Stein von B 13 -> 9 (Tausch)"
    move = replace(move, effects=[{"kind": "to_sun", "player": "B", "from": 13}])
    assert describe(move, "ar") == "A يتحرك 9 -> 13؛ قطعة B 13 -> خارج اللعبة (إلى الشمس)"


# ---------------------------------------------------------------------- the page


@pytest.fixture
def page_app():
    def make(**config):
        return create_app({"TESTING": True, "SECRET_KEY": "t", **config}, service=Service(None, variant="secret"))

    return make


def test_the_page_in_german_by_query_or_cookie(page_app):
    client = page_app().test_client()
    page = client.get("/?lang=de")
    html = page.get_data(as_text=True)
    assert '<html lang="de" dir="ltr">' in html
    assert "<summary>So wird gespielt</summary>" in html
    assert "senet-lang=de" in page.headers["Set-Cookie"]
    assert '"{player} to throw": "{player} ist am Wurf"' in html  # app.js's catalogue, embedded
    again = client.get("/").get_data(as_text=True)  # the cookie keeps it
    assert '<html lang="de"' in again
    assert 'aria-current="true">Deutsch<' in again
    state = client.get("/api/state").json
    assert state["names"]["A"] == "Weiß"
    assert state["rules"]["how_to_play"][1] == "Grün beginnt mit dem Stein auf 10."
    assert client.get("/api/rulings").json["P7"] == "Kann kein Stein mit dem Wurf ziehen, verfällt der Wurf."


def test_arabic_runs_right_to_left_and_english_is_the_default(page_app):
    client = page_app().test_client()
    assert '<html lang="en" dir="ltr">' in client.get("/").get_data(as_text=True)
    html = client.get("/?lang=ar").get_data(as_text=True)
    assert '<html lang="ar" dir="rtl">' in html
    assert "طريقة اللعب" in html
    assert all(name in html for name in ("English", "Deutsch", "العربية"))  # the switch, each in its own name
    fresh = page_app().test_client()
    assert '<html lang="en"' in fresh.get("/?lang=xx", headers={"Cookie": "senet-lang=zz"}).get_data(as_text=True)


def test_the_configs_language_is_the_default_and_a_visitor_may_change_it(page_app):
    client = page_app(LANGUAGE="de").test_client()
    assert '<html lang="de"' in client.get("/").get_data(as_text=True)
    assert '<html lang="en"' in client.get("/?lang=en").get_data(as_text=True)


def test_an_unknown_language_in_the_config_is_a_clear_error(tmp_path, page_app):
    (tmp_path / "config.toml").write_text('LANGUAGE = "fr"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"LANGUAGE must be one of en, de, ar .*not 'fr'"):
        load_instance_config(tmp_path)
    with pytest.raises(ConfigError, match="LANGUAGE must be one of en, de, ar, not 'fr'"):
        page_app(LANGUAGE="fr")


def test_the_live_stream_says_verdicts_in_each_pages_language(page_app):
    app = page_app()
    broker = shared(app).broker
    service = shared(app).board.service
    with app.app_context():
        stream = broker.stream(lambda: {"names": {"A": NAMES["A"]}}, keepalive=5, language="de")
        assert next(stream) == "retry: 1000\n\n"
        assert '"Wei\\u00df"' in next(stream)
        service.handle("move", [10, 12, 2])  # no throw yet: refused
        verdicts = next(stream)
    assert "Grün muss vor dem Ziehen werfen" in json.loads(verdicts.split("data: ", 1)[1])[0]["reason"]
    stream.close()


# ---------------------------------------------------------------------- the terminal


def test_senet_pi_run_prints_german_with_language_de(tmp_path):
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "SENET_PI_INSTANCE": str(tmp_path / "instance")}
    env.pop("SENET_PI_JOURNAL", None)
    demo = str(ROOT / "examples" / "sim-demo.txt")
    run = [SENET_PI, "run", "--script", demo, "--page-port", "0"]
    result = subprocess.run([*run, "--language", "de"], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert "B wirft 1" in result.stdout
    assert "A zieht 9 -> 13" in result.stdout
    (tmp_path / "instance").mkdir()
    (tmp_path / "instance" / "config.toml").write_text('LANGUAGE = "ar"\n', encoding="utf-8")
    result = subprocess.run(run, capture_output=True, text=True, env=env, timeout=60)
    assert "B يرمي 1" in result.stdout, result.stdout
    bad = subprocess.run([*run, "--language", "fr"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2
    assert "invalid choice: 'fr'" in bad.stderr
    assert "Traceback" not in bad.stderr
