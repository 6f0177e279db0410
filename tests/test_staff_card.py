"""The staff card (/staff/card): one A5 page the board prints for itself, behind the operator PIN,
with this board's address and its QR code, what the screen's colours mean, what to do, and whom to
call (STAFF_CONTACT); and the keypad a kiosk's staff sign in with."""

from __future__ import annotations

import re

import pytest
from werkzeug.security import generate_password_hash

from senet_pi.i18n import gettext
from senet_pi.settings import problems
from senet_pi_web import create_app, hands
from tests.web_helpers import sign_in

PIN = "1357"
CONTACT = "Technik: Ana Weber, 0171 234 5678"


def card_app(sim_service, **config):
    service, backend = sim_service
    settings = {"TESTING": True, "SECRET_KEY": "t", "PIN_DELAY": 0.01, "OPERATOR_PIN_HASH": generate_password_hash(PIN)}
    return create_app({**settings, **config}, service=service, backend=backend)


def test_the_card_is_for_staff_signed_in(sim_service):
    client = card_app(sim_service, STAFF_CONTACT=CONTACT).test_client()
    refused = client.get("/staff/card")
    assert refused.status_code == 401
    assert CONTACT not in refused.get_data(as_text=True)


def test_the_card_carries_the_address_its_qr_code_and_the_contact(sim_service):
    client = card_app(sim_service, STAFF_CONTACT=CONTACT, QUESTION_SECONDS=30).test_client()
    sign_in(client, PIN)
    page = client.get("/staff/card")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert 'href="http://localhost/"' in html  # the address the page was reached by
    assert html.count('class="segno"') == 1
    assert CONTACT in html
    assert "after 30 seconds" in html  # the table's own QUESTION_SECONDS
    assert "card.css" in html
    assert "<script" not in html  # printed as it is: nothing runs


def test_a_kiosk_at_127_0_0_1_prints_the_boards_lan_address(sim_service, monkeypatch):
    """The kiosk opens the page at 127.0.0.1: a phone scanning the card must get the board's address."""
    monkeypatch.setattr(hands, "lan_address", lambda: "192.168.1.40")
    client, kiosk = card_app(sim_service, LISTEN_HOST="0.0.0.0").test_client(), "http://127.0.0.1:8080"
    csrf = client.get("/api/op/csrf", base_url=kiosk).json["csrf"]
    client.post("/api/op/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}, base_url=kiosk)
    html = client.get("/staff/card", base_url=kiosk).get_data(as_text=True)
    assert "http://192.168.1.40:8080/" in html
    assert "127.0.0.1" not in html


def test_without_a_contact_the_card_says_how_to_set_one(sim_service):
    client = card_app(sim_service).test_client()
    sign_in(client, PIN)
    assert "STAFF_CONTACT" in client.get("/staff/card").get_data(as_text=True)


def test_the_card_in_arabic_runs_right_to_left_and_keeps_the_address_left_to_right(sim_service):
    client = card_app(sim_service, STAFF_CONTACT=CONTACT).test_client()
    sign_in(client, PIN)
    html = client.get("/staff/card?lang=ar").get_data(as_text=True)
    assert '<html lang="ar" dir="rtl">' in html
    assert gettext("Whom to call", "ar") in html
    assert re.search(r'<p class="address" dir="ltr"><a href="http://localhost/', html)


def test_the_card_is_one_a5_page_in_print():
    from importlib import resources

    css = (resources.files("senet_pi_web") / "static" / "card.css").read_text(encoding="utf-8")
    assert re.search(r"@page\s*\{\s*size:\s*A5;", css)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("", "STAFF_CONTACT must be one line"),
        ("Ana\nWeber", "STAFF_CONTACT must be one line"),
        ("x" * 201, "STAFF_CONTACT must be one line"),
        (5, "STAFF_CONTACT must be one line of up to 200 characters"),
    ],
)
def test_a_contact_that_cannot_be_printed_is_refused_with_its_reason(value, said):
    (problem,) = problems({"STAFF_CONTACT": value})
    assert problem.startswith(said)


def test_the_panel_links_the_card_and_has_a_keypad_for_the_pin(sim_service):
    html = card_app(sim_service).test_client().get("/").get_data(as_text=True)
    assert 'href="/staff/card"' in html
    assert re.findall(r'data-digit="(\d?)"', html) == [*"1234567890", ""]
