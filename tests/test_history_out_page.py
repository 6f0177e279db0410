"""A damaged journal set aside, its games not back yet, said in the game page's staff section to a
signed-in operator, in the page's language; a visitor's page keeps it out of the
staff section (the game's warning says it to everyone)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from senet_pi.fleet.published import Board, state_json
from senet_pi.service import Service
from senet_pi.service.journal import Journal
from senet_pi.service.journal import aside as asides
from tests.browser_helpers import PIN, LiveBoard

ASIDE = "journal.sqlite.damaged-20261206T040000"


def set_aside_journal(tmp_path) -> Journal:
    """A journal beside which a damaged one is recorded as set aside and not recovered (its file is
    gone, so the recovery cannot finish and the record stays)."""
    path = tmp_path / "journal.sqlite"
    asides.write(path, [{"aside": ASIDE, "why": "a test", "when": 0, "first": 100}])
    return Journal(path)


def test_the_state_names_the_journals_set_aside(tmp_path):
    journal = set_aside_journal(tmp_path)
    try:
        state = json.loads(state_json(Board(Service(journal))))
        assert state["set_aside"] == [ASIDE]
    finally:
        journal.close()
    clean = Journal(tmp_path / "other.sqlite")
    try:
        assert json.loads(state_json(Board(Service(clean))))["set_aside"] == []
    finally:
        clean.close()


@pytest.mark.browser
@pytest.mark.parametrize(
    ("lang", "said"),
    [("en", "History out of service"), ("de", "Verlauf außer Betrieb"), ("ar", "السجل خارج الخدمة")],
)
def test_the_staff_section_says_history_is_out_of_service(browser, tmp_path, lang, said):
    live = LiveBoard(journal=set_aside_journal(tmp_path))
    try:
        page = browser.new_page()
        page.goto(f"{live.url}?lang={lang}")
        expect(page.locator("#link")).not_to_have_text("")
        page.locator("#operator summary").click()
        note = page.locator("#op-history")
        expect(note).to_be_hidden()  # not signed in: the staff section shows only the sign-in
        page.locator("#pin").fill(PIN)
        page.locator("#login > button").click()
        expect(note).to_be_visible()
        expect(note).to_contain_text(said)
        expect(note).to_contain_text(ASIDE)
        page.close()
    finally:
        live.close()
        live.service.journal.close()
