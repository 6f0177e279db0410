"""What a family at the exhibit screen should not meet: the referee's card saying again what the
banner says. One sentence once: the banner says whose turn it is, the card only what it adds."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser_helpers import KIOSK, new_game, open_page

pytestmark = pytest.mark.browser

#: Every sentence the visitor sees in the turn's box (the banner, the cast, the card), as shown.
SHOWN_SENTENCES = """() => [...document.querySelectorAll('#now :is(h2, p, div)')]
  .filter((n) => n.checkVisibility({ visibilityProperty: true }) && !n.querySelector('div, p'))
  .map((n) => n.innerText.trim()).filter(Boolean)"""


@pytest.fixture
def board(plain):
    """The module's board with no backend (tests/conftest.py), at the start of a new game."""
    new_game(plain)
    return plain


def test_a_plain_throw_is_said_by_the_banner_and_not_again_by_the_card(browser, board):
    page = open_page(browser, board, viewport=KIOSK)
    try:
        expect(page.locator("#turn")).to_have_text("Green to throw")
        expect(page.locator("#card")).to_be_hidden()  # nothing to add: no card, its place kept
        box = page.locator("#card").bounding_box()
        assert box
        assert box["height"] > 40  # the board below does not jump when the card comes back
        shown = page.evaluate(SHOWN_SENTENCES)
        assert "Green to throw" in shown and len(shown) == len(set(shown)), shown
        assert not any("throw" in s.lower() for s in shown if s != "Green to throw"), shown  # said once
        board.service.handle("throw", 3)
        expect(page.locator("#message")).to_have_text("Green: move a piece by 3")  # what the card adds
        expect(page.locator("#card")).to_be_visible()
    finally:
        page.close()


def test_the_card_game_says_to_play_once(browser, board):
    new_game(board, "cards", options={"shuffle_seed": 9})
    page = open_page(browser, board, viewport=KIOSK)
    try:
        expect(page.locator("#turn")).to_have_text("Green to play")
        expect(page.locator("#card")).to_be_hidden()
        assert not any("play a card" in s for s in page.evaluate(SHOWN_SENTENCES))
    finally:
        page.close()
