"""The page's board glows what the wooden board's lights show, in a real browser (Debian's
chromium): a lifted piece's destinations, a wrong move's fix (from dashed and blinking, to
steady), the sticks and the button when a bonus throw is owed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser_helpers import LiveBoard, locked, piece_on, square, until

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


def glowing_squares(page, *kinds: str) -> list[int]:
    """The squares the page's board glows with one of `kinds`, read from the page alone."""
    found = page.locator("#board rect.glow").evaluate_all("(rs) => rs.map((r) => [r.dataset.square, r.dataset.light])")
    return [int(sq) for sq, kind in found if kind in kinds]


def test_a_family_plays_by_the_glow_alone(page, board):
    """Twelve throws played as a family would, reading nothing: lift one of your pieces; if squares
    glow, put it on one; if none does, put it back and try another; carry out the rules' own moves
    where the board glows purple (lift the blinking one, put it on the steady one)."""
    service = board.service
    for _ in range(12):
        if locked(service, lambda: service.referee.game.is_over):
            break
        mover, before = locked(service, lambda: (service.to_move, len(service.referee.game.actions)))
        page.locator("#press").click()
        until(lambda before=before: locked(service, lambda: len(service.referee.game.actions)) > before)
        if locked(service, lambda: service.referee.game.pending is None):
            continue  # no move for that throw (P7): the turn passed
        mine = locked(service, lambda mover=mover: [sq for sq, o in service.referee.game.board().items() if o == mover])
        for sq in mine:  # the family's own pieces, as they see them on the board
            square(page, sq).click()  # lifted: the page draws it faded, and the glow comes with it
            expect(page.locator(f'#board .piece.lifted[data-on="{sq}"]')).to_have_count(1)
            targets = glowing_squares(page, "move")
            if targets:
                if piece_on(page, targets[0]).count():  # another's piece there: lift it first (an exchange)
                    square(page, targets[0]).click()
                    expect(page.locator(f'#board .piece.lifted[data-on="{targets[0]}"]')).to_have_count(1)
                square(page, targets[0]).click()
                break
            square(page, sq).click()  # no glow: put it back
            expect(page.locator(f'#board .piece.lifted[data-on="{sq}"]')).to_have_count(0)
            expect(page.locator("#board rect.glow")).to_have_count(0)  # a piece that may not move: its fix glowed
            until(lambda: locked(service, lambda: service.referee.mode.value) != "fix")  # a breath: the board judged
        until(lambda: locked(service, lambda: service.referee.mode.value) in ("throw", "prompts"), timeout=10)
        while locked(service, lambda: service.referee.mode.value) == "prompts":
            expect(page.locator('#board rect.glow[data-light="rules_to"]')).to_have_count(1)
            (source,) = glowing_squares(page, "rules_from") or [0]
            (target,) = glowing_squares(page, "rules_to")
            if source:
                square(page, source).click()
            square(page, target).click()
            until(lambda: locked(service, lambda: service.referee.mode.value) != "prompts", timeout=10)
        expect(page.locator("#board rect.glow")).to_have_count(0)
    moves = locked(service, lambda: [a for a in service.referee.game.actions if a[0] == "move"])
    assert len(moves) >= 6, f"the glow led to {len(moves)} moves in twelve throws"
