"""The page's board glows what the wooden board's lights show, in a real browser (Debian's
chromium): a lifted piece's destinations, a wrong move's fix (from dashed and blinking, to
steady), the sticks and the button when a bonus throw is owed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser_helpers import LiveBoard, square

pytestmark = pytest.mark.browser


@pytest.fixture
def board():
    live = LiveBoard()
    yield live
    live.close()


@pytest.fixture
def page(browser, board):
    page = browser.new_page(viewport={"width": 1280, "height": 820})
    page.goto(board.url)
    expect(page.locator("#link")).to_have_text("live")
    yield page
    page.close()


def glowing(page, kind: str):
    return page.locator(f'#board rect.glow[data-light="{kind}"]')


def test_a_lifted_piece_glows_its_destinations_and_a_wrong_move_its_fix(page, board):
    board.service.handle("throw", 3)
    square(page, 10).click()  # lifted
    expect(glowing(page, "move")).to_have_count(1)
    expect(page.locator('#board rect.glow[data-square="13"]')).to_have_attribute("data-light", "move")
    expect(glowing(page, "move")).to_have_class("glow pattern-steady")
    square(page, 14).click()  # put down where no move goes
    expect(glowing(page, "fix_from")).to_have_count(1)
    expect(page.locator('#board rect.glow[data-square="14"]')).to_have_class("glow pattern-blink from")
    expect(page.locator('#board rect.glow[data-square="10"]')).to_have_attribute("data-light", "fix_to")
    square(page, 14).click()
    square(page, 13).click()
    expect(page.locator("#board rect.glow")).to_have_count(0)


def test_a_bonus_throw_lights_the_sticks_and_the_button(page, board):
    board.service.handle("throw", 1)
    square(page, 10).click()
    square(page, 11).click()
    expect(page.locator("#sticks")).to_have_attribute("data-light", "bonus")
    expect(page.locator("#press")).to_have_attribute("data-light", "bonus")


def test_a_phone_speaks_only_when_its_visitor_asks(browser, board):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.add_init_script(
        "window.__said = []; if (window.speechSynthesis) { speechSynthesis.speak = (u) => window.__said.push(u.text);"
        " speechSynthesis.cancel = () => {}; }"
    )
    page.goto(board.url)
    expect(page.locator("#link")).to_have_text("live")
    speak = page.locator("#speak")
    expect(speak).to_have_attribute("aria-pressed", "false")  # off by default
    board.service.handle("throw", 3)
    expect(page.locator("#throw-text")).to_have_text("= 3")
    assert page.evaluate("window.__said") == []
    speak.click()
    expect(speak).to_have_attribute("aria-pressed", "true")
    board.service.new_game("secret")
    board.service.handle("throw", 2)
    expect(page.locator("#throw-text")).to_have_text("= 2")
    page.wait_for_function("window.__said.length > 0")
    assert page.evaluate("window.__said") == ["Green throws 2"]
    page.close()
