"""In a browser: the exhibit's own screen shows the table's join code; a phone on the network that
taps an answer is told to join, types the code, and then its answer counts."""

from __future__ import annotations

import re
import socket

import pytest
from browser_helpers import ManualClock
from playwright.sync_api import expect

from senet_pi.server.serve import start_server, stop_server
from senet_pi.service import Service
from senet_pi_web import create_app

pytestmark = pytest.mark.browser


def _lan_address() -> str | None:
    """This machine's address on its network (no packet is sent: a UDP socket only picks a route)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address = s.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address


@pytest.fixture
def served():
    lan = _lan_address()
    assert lan is not None, "the test needs a network address besides loopback"
    clock = ManualClock()
    service = Service(None, variant="secret", settle=0.2, clock=clock)
    app = create_app({"SECRET_KEY": "e2e", "LISTEN_HOST": "0.0.0.0"}, service=service)
    server = start_server(app, "0.0.0.0", 0)
    yield service, clock, f"http://127.0.0.1:{server.effective_port}/", f"http://{lan}:{server.effective_port}/"
    stop_server(server)
    service.close()


def _ask(service, clock) -> None:
    """Two pieces lifted together and put back: "Were they swapped?"."""
    for kind, sq in (("lift", 9), ("lift", 10), ("place", 9), ("place", 10)):
        service.handle(kind, sq)
    clock.now += 0.3
    service.tick()
    assert service.question() is not None


def test_the_screen_shows_the_code_and_a_phone_joins_with_it_to_answer(browser, served):
    service, clock, screen_url, phone_url = served
    screen, phone = browser.new_page(), browser.new_page()
    try:
        screen.goto(screen_url)
        phone.goto(phone_url)
        expect(screen.locator("#table-code")).to_have_count(0)  # no question: nothing to join for
        _ask(service, clock)
        code_line = screen.locator("#table-code")  # shown with the question's answers
        expect(code_line).to_have_text(re.compile(r"Phones join this table with the code \d{6}"))
        code = re.search(r"\d{6}", code_line.text_content() or "").group(0)  # type: ignore[union-attr]
        expect(phone.locator("#question button.answer")).to_have_count(2)
        expect(phone.locator("#table-code")).to_have_count(0)  # a phone never sees the code
        phone.locator("#question button.answer").first.click()
        expect(phone.locator("#refusal")).to_contain_text("join with the code shown on the table's screen")
        expect(phone.locator("#join")).to_be_visible()
        assert service.question() is not None
        phone.locator("#join-code").fill(code)
        phone.locator("#join button").click()
        expect(phone.locator("#join")).to_be_hidden()
        phone.locator("#question button.answer").first.click()
        expect(phone.locator("#question button.answer")).to_have_count(0)  # answered: the question is gone
        expect(screen.locator("#question button.answer")).to_have_count(0)
        assert service.question() is None  # answered by the phone that joined
    finally:
        screen.close()
        phone.close()
