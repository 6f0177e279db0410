"""Every string translated, on every page a visitor or a staff member opens.

The check is by page, not by key: each page is fetched in English and again in German and Arabic,
and every text a person reads or hears (text between tags, and the aria-label, placeholder, title
and alt attributes) that is the same English in the translated page fails, whatever template or
module it came from. Words the same in every language (Senet, CSV, PIN, commands) are allowed."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from werkzeug.security import generate_password_hash

from senet_pi.i18n import gettext
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from senet_pi_web import create_app, shared
from tests.web_helpers import sign_in

PIN = "1357"

#: Texts that are the same in every language: names, commands, numbers, dates, units of the file, addresses.
SAME_EVERYWHERE = re.compile(
    r"^(senet(-pi)?|senet-pi set-pin|senet-pi run --ruleset cards|csv|pin|[\d\s.:,/+=·|()-]*|\d{4}-\d\d-\d\d"
    r"|english|deutsch|العربية|secret|houses|cards|modern|[a-d]|https?://\S+)$",
    re.IGNORECASE,
)
READ_ATTRIBUTES = ("aria-label", "placeholder", "title", "alt")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """The page with a journal of a few games (an abandoned one, one open) and an operator PIN."""
    journal = Journal(tmp_path_factory.mktemp("journal") / "journal.sqlite")
    service = Service(journal, variant="secret")
    service.handle("throw", 2)  # a move owed: the next throw is refused, a warning
    service.handle("throw", 3)
    service.new_game("houses")
    config = {"TESTING": True, "SECRET_KEY": "t", "PIN_DELAY": 0.01}
    config["OPERATOR_PIN_HASH"] = generate_password_hash(PIN, method="pbkdf2:sha256:1000")
    yield create_app(config, service=service)
    journal.close()


@pytest.fixture
def staff_client(app):
    return app.test_client()


class Texts(HTMLParser):
    """The texts of an HTML page a person reads or hears: not scripts, styles or JSON data, nor a
    name the page marks `translate="no"` (the board's name, which is the museum's, not a text)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._skip = 0
        self._names: list[str] = []  # the open elements marked translate="no"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if ("translate", "no") in attrs:
            self._names.append(tag)
            self._skip += 1
        if tag in ("script", "style"):
            self._skip += 1
        for key, value in attrs:
            if key in READ_ATTRIBUTES and value:
                self.found.append(value.strip())

    def handle_endtag(self, tag: str) -> None:
        if self._names and self._names[-1] == tag:
            self._names.pop()
            self._skip -= 1
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.found.append(" ".join(data.split()))


def texts(html: str) -> list[str]:
    parser = Texts()
    parser.feed(html)
    return [t for t in parser.found if not SAME_EVERYWHERE.match(t) and re.search(r"[A-Za-z]{2}", t)]


def still_english(client, path: str, lang: str) -> list[str]:
    english = set(texts(client.get(path + ("&" if "?" in path else "?") + "lang=en").get_data(as_text=True)))
    client.get("/?lang=en")  # the cookie back to English for the next page
    translated = client.get(path + ("&" if "?" in path else "?") + f"lang={lang}").get_data(as_text=True)
    client.get("/?lang=en")
    return [t for t in texts(translated) if t in english]


@pytest.mark.parametrize("lang", ["de", "ar"])
@pytest.mark.parametrize("path", ["/", "/hardware", "/hands", "/staff"])
def test_no_english_left_on_a_page_signed_out(staff_client, path, lang):
    assert still_english(staff_client, path, lang) == []


@pytest.mark.parametrize("lang", ["de", "ar"])
@pytest.mark.parametrize("path", ["/", "/staff", "/staff/card"])
def test_no_english_left_on_a_page_signed_in(staff_client, path, lang):
    sign_in(staff_client, PIN)
    assert still_english(staff_client, path, lang) == []


def test_the_staff_statistics_in_german_and_arabic_plots_and_table(staff_client):
    sign_in(staff_client, PIN)
    for lang in ("de", "ar"):
        html = staff_client.get(f"/staff?lang={lang}").get_data(as_text=True)
        for english in ("Games per day", "Median length of a finished game", "switch faults", "still open"):
            assert gettext(english, lang) != english
            assert gettext(english, lang) in html
        assert re.search(rf": 1 {re.escape(gettext('abandoned', lang))}<", html)  # a bar's tooltip in the plot


def test_the_staff_tables_durations_in_the_pages_language(app):
    from senet_pi_web.staff import minutes

    for lang, said in (("en", "15.0 min"), ("de", "15.0 Min."), ("ar", "15.0 دقيقة")):
        with app.test_request_context(f"/staff?lang={lang}"):
            assert minutes(900) == said
            assert minutes(None) == "-"


def test_the_staff_page_refusal_is_in_the_visitors_language(app):
    client = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=shared(app).board.service).test_client()
    page = client.get("/staff?lang=de")
    assert page.status_code == 401
    said = gettext("The statistics are for staff, and no operator PIN is set: set one with `senet-pi set-pin`.", "de")
    assert said.split("`")[0] in page.get_data(as_text=True)


@pytest.mark.parametrize("gestures", [False, True])
def test_what_the_thrower_says_on_a_long_press_is_translated(gestures, monkeypatch):
    """The button's own sentences (a long press refused, an undo offered) reach the page as any verdict:
    said in the visitor's language."""
    import random

    from senet_pi.hardware.backend import SimBackend
    from senet_pi.i18n import translate

    service = Service(None)
    backend = SimBackend(rng=random.Random(1), spin=0)
    backend.gestures = gestures
    backend.start(service, scan=False)
    said: list[dict] = []
    monkeypatch.setattr(service, "note", lambda verdict: said.append(verdict.json()))
    try:
        backend.held(2.0)
    finally:
        backend.close()
    (verdict,) = said
    german = translate(verdict, "de")["text"]
    assert german != verdict["text"]
    assert german == gettext(str(verdict["text"].msgid), "de")


@pytest.mark.parametrize("lang", ["de", "ar"])
@pytest.mark.parametrize("pin", [True, False])
def test_the_fleet_dashboard_has_no_english_left(lang, pin):
    """The fleet's dashboard (staff) is a page like the others: in the staff's language."""
    from senet_pi_web.fleet import create_fleet_app

    class NoBoards:  # the page itself asks the watcher nothing
        def subscribe(self, _listener):
            return lambda: None

    config = {"TESTING": True, "SECRET_KEY": "t", "OPERATOR_PIN_HASH": "pbkdf2:sha256:1000$x$y" if pin else None}
    client = create_fleet_app(config, watcher=NoBoards()).test_client()
    assert still_english(client, "/", lang) == []
    assert f'lang="{lang}"' in client.get(f"/?lang={lang}").get_data(as_text=True)


def test_the_fleets_alert_line_comes_live_in_the_dashboards_language():
    from senet_pi.i18n import Text
    from senet_pi_web.fleet import _event, create_fleet_app

    class NoBoards:
        def subscribe(self, _listener):
            return lambda: None

    app = create_fleet_app({"TESTING": True, "SECRET_KEY": "t"}, watcher=NoBoards())
    alert = Text("board {board} went down at {time}", board="hall-1", time="10:04")
    with app.test_request_context("/fleet/api/events?lang=de"):
        german = _event("board", {"name": "hall-1", "alert": alert})
    assert gettext("board {board} went down at {time}", "de", board="hall-1", time="10:04") in german
    assert "went down" not in german
    with app.test_request_context("/fleet/api/events"):
        assert "board hall-1 went down at 10:04" in _event("board", {"alert": alert})


def test_the_staff_panels_errors_come_in_the_pages_language(app):
    """What the operator panel shows under a refused sign-in is the server's error: translated too."""
    client = app.test_client()
    csrf = client.get("/api/op/csrf").get_json()["csrf"]
    wrong = client.post("/api/op/login?lang=de", json={"pin": "000000"}, headers={"X-CSRF-Token": csrf})
    assert wrong.status_code in (401, 429)
    said = wrong.get_json()["error"]
    assert said.startswith(("falsche PIN", "eine andere PIN", "zu viele falsche PINs")), said
    undo = client.post("/api/op/undo?lang=ar", headers={"X-CSRF-Token": csrf})
    assert undo.get_json()["error"] == gettext("sign in with the operator PIN first", "ar")
