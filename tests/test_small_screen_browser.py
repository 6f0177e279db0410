"""At the table: the 800x480 touch screen a board's Pi drives shows the whole board in every
language the page offers, even while the rules' own step of an exchange is owed (its prompt, the
longest text the banner says, pushed row 3 off the screen in German)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from senet_pi.i18n import LANGUAGES, gettext
from senet_pi.referee.hands import switch_events
from senet_pi.referee.physical import play_out
from senet_pi.rules import Move
from tests.browser_helpers import LiveBoard, square, until

pytestmark = pytest.mark.browser

SCREEN = {"width": 800, "height": 480}


@pytest.fixture
def owed_exchange():
    """A board where A's 9-12 landed on B's piece (P4) and the exchange's own step is owed: B's move
    10-12 and A's 9-12 carried out on the simulated switches, the attacked piece still in the hand."""
    live = LiveBoard()
    service, referee = live.service, live.service.referee
    service.handle("throw", 2)
    for event in switch_events(referee.game.occupied(), play_out(referee.game, [Move(10, 12)])[0]):
        ((kind, sq),) = event.items()
        getattr(live.backend.sim, kind)(sq)
        until(lambda sq=sq, closed=kind == "place": bool(referee.sensed >> sq & 1) == closed)
    until(lambda: len(referee.game.actions) == 2)
    service.handle("throw", 3)
    steps = play_out(referee.game, [Move(9, 12)])[0]  # A's piece onto 12, B's piece owed back to 9
    for event in switch_events(referee.game.occupied(), steps[:1]):
        ((kind, sq),) = event.items()
        getattr(live.backend.sim, kind)(sq)
        until(lambda sq=sq, closed=kind == "place": bool(referee.sensed >> sq & 1) == closed)
    until(lambda: referee.steps_left != [])
    yield live
    live.close()


def on_screen(page, lang: str) -> None:
    """Every square of the board lies wholly within the screen, the page not scrolled."""
    for sq in range(1, 31):
        box = square(page, sq).bounding_box()
        assert box is not None, (lang, sq)
        inside = box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= SCREEN["width"]
        assert inside and box["y"] + box["height"] <= SCREEN["height"], (lang, sq, box)
    assert page.evaluate("() => document.scrollingElement.scrollTop") == 0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_whole_board_stays_on_an_800x480_screen_while_an_exchange_is_owed(browser, owed_exchange, lang):
    """The exchange's prompt in each language, and the same prompt two lines longer (a longer name, a
    longer wording): the board shrinks to the height left, never off the screen."""
    page = browser.new_page(viewport=SCREEN)
    page.goto(owed_exchange.url + f"?lang={lang}")
    expect(page.locator("#link")).to_have_text(gettext("live", lang))
    message = page.locator("#message")
    expect(message).to_contain_text("12")  # the exchange's step: the piece that stood on 12 goes to 9
    on_screen(page, lang)
    message.evaluate("m => { m.textContent += ' ' + m.textContent; }")
    page.wait_for_timeout(100)  # the resize observed, the board drawn again
    on_screen(page, lang)
    page.close()
