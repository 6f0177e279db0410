"""The fleet dashboard in a real browser (Debian's chromium through Playwright) against a real
Mosquitto: signing in with the PIN, the boards' rows kept live, the silent alert line
for a board that went down, and a staff action on a board that allows it, under the strict CSP."""

from __future__ import annotations

import os
import random
import re

import pytest
from mqtt_helpers import wait_until
from playwright.sync_api import expect, sync_playwright
from werkzeug.security import generate_password_hash

from senet_pi.fleet import FleetSettings, parse_broker_url
from senet_pi.fleet.on_run import start_board
from senet_pi.fleet.watcher import FleetWatcher
from senet_pi.server.serve import start_server, stop_server
from senet_pi.service.core import Service
from senet_pi_web import create_app
from senet_pi_web.fleet import create_fleet_app
from tests.browser_helpers import axe_violations

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("SENET_PI_CHROMIUM", "/usr/bin/chromium")
PIN = "8642"
SECRET = "browser-fleet-secret-0123456"


def test_the_dashboard_in_a_browser_follows_the_boards_and_sends_a_staff_action(mosquitto):
    publishers = []

    def board(name: str, **settings):
        service = Service(None)
        app = create_app({"TESTING": True}, service=service)
        publisher = start_board(service, None, FleetSettings(parse_broker_url(mosquitto.url), name, **settings), app)
        publishers.append(publisher)
        return service, publisher

    watcher = FleetWatcher(parse_broker_url(mosquitto.url), secret=SECRET)
    watcher.start()
    config = {"SECRET_KEY": "e2e", "OPERATOR_PIN_HASH": generate_password_hash(PIN, method="pbkdf2:sha256:1000")}
    server = start_server(create_fleet_app({**config, "PIN_DELAY": 0.01}, watcher=watcher))
    errors: list[str] = []
    try:
        room, _ = board("room-1", commands=True, command_secret=SECRET)
        _, hall = board("hall-1")
        wait_until(lambda: all((watcher.view(n) or {}).get("variant") for n in ("room-1", "hall-1")))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(f"http://127.0.0.1:{server.effective_port}/")
            page.fill("#pin", PIN)
            page.click("#signin button[type=submit]")
            expect(page.locator("#boards tr")).to_have_count(2)
            expect(page.locator("#link")).to_contain_text("connected")
            expect(page.locator("#board-room-1")).to_contain_text("waiting for players")

            room.press(random.Random(4))  # live: the turn and the last verdict appear without a reload
            expect(page.locator("#board-room-1")).to_contain_text(re.compile(r"Green threw \d"))  # in words

            hall.close()  # a board goes down: the alert line, silent, names it
            expect(page.locator("#alerts")).to_contain_text("board hall-1 went down at")
            expect(page.locator("#board-hall-1")).to_contain_text("offline")
            assert page.locator("audio").count() == 0
            expect(page.locator("#board-hall-1 button")).to_have_count(0)  # no commands there

            page.click("#board-room-1 button[data-action=new_game]")
            expect(page.locator("#action-result")).to_contain_text("New game sent to room-1")
            expect(page.locator("#board-room-1")).to_contain_text("done")
            browser.close()
    finally:
        for publisher in publishers:
            publisher.close()
        stop_server(server)
        watcher.close()
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors


def test_the_dashboard_is_axe_clean_in_both_themes_and_says_players_and_verdicts_in_words(axe_js):
    """No broker needed: the watcher is fed the boards' messages as paho would hand them over. Each
    theme: the players named by their pieces, the last verdict in words (no `new_game`, no A or B),
    and no serious or critical axe-core violation, signed out and signed in, buttons a finger's size."""
    import json

    watcher = FleetWatcher(parse_broker_url("mqtt://127.0.0.1:1"), secret=SECRET)  # never started
    state = {"variant": "secret", "game": 3, "to_move": "B", "winner": None, "touched": True}
    for name, verdict in (
        ("room-1", {"v": "new_game", "variant": "secret", "to_move": "B"}),
        ("hall-1", {"v": "move", "player": "A", "from": 9, "to": 13, "by": 4}),
    ):
        watcher._heard(name, "status", b"online", False)
        watcher._heard(name, "state", json.dumps(state).encode(), False)
        watcher._heard(name, "verdicts", json.dumps(verdict).encode(), False)
    config = {"SECRET_KEY": "e2e", "OPERATOR_PIN_HASH": generate_password_hash(PIN, method="pbkdf2:sha256:1000")}
    server = start_server(create_fleet_app({**config, "PIN_DELAY": 0.01}, watcher=watcher))
    found: dict[str, list[str]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            for theme in ("light", "dark"):
                page = browser.new_page(color_scheme=theme, bypass_csp=True)
                page.goto(f"http://127.0.0.1:{server.effective_port}/")
                expect(page.locator("#signin")).to_be_visible()
                found[f"sign in, {theme}"] = axe_violations(page, axe_js)
                page.fill("#pin", PIN)
                page.click("#signin button[type=submit]")
                expect(page.locator("#boards tr")).to_have_count(2)
                room, hall = page.locator("#board-room-1"), page.locator("#board-hall-1")
                expect(room).to_contain_text("Green (the green spools)")
                expect(room).to_contain_text("a new game")
                expect(hall).to_contain_text("White moved 9 to 13")
                for row in (room, hall):
                    assert "new_game" not in row.inner_text()
                    assert " B" not in row.inner_text()
                found[f"the boards, {theme}"] = axe_violations(page, axe_js)
                for button in page.locator("button:visible, .languages a").all():
                    box = button.bounding_box()
                    assert box["width"] >= 44 and box["height"] >= 44, (theme, button.inner_text(), box)
                page.close()
            browser.close()
    finally:
        stop_server(server)
    assert {where: v for where, v in found.items() if v} == {}
