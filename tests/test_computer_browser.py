"""The computer and the hints in a real browser: the computer's move drawn as an arrow
with its words, carried out by clicking the simulated board; the hint button's arrow and chance;
axe-core finds no serious violation in these states."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from senet_pi.opponent.tables import Tables
from senet_pi.service.seat import start_computer
from tests.browser_helpers import LiveBoard, axe_violations, click_move, until

pytestmark = pytest.mark.browser


class ComputerBoard(LiveBoard):
    """The simulated board served as `senet-pi run --computer B --level 2` serves it."""

    def __init__(self, tables: Tables) -> None:
        super().__init__(variant="secret", seed=4)
        self.at = start_computer(self.service, self.backend, {"B": 2}, tables=tables, pause=0.2)
        self.at.attach(self.server.app)

    def close(self) -> None:
        self.at.close()
        super().close()


@pytest.fixture
def board(tmp_path):
    live = ComputerBoard(Tables(tmp_path / "no-tables", build=False))
    yield live
    live.close()


def shown_move(board: ComputerBoard):
    """The legal move the computer shows, or None."""
    shown = board.at.player.view()["move"]
    if shown is None:
        return None
    game = board.service.referee.game
    return next(m for m in game.legal_moves() if m.from_sq == shown["from"] and str(m).endswith(f"-{shown['to']}"))


def test_the_computers_move_and_a_hint_are_drawn_on_the_board(browser, board, axe_js):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # axe is injected
    page.goto(board.url)
    expect(page.locator("#link")).to_have_text("live")
    game = lambda: board.service.referee.game  # noqa: E731
    # Green (the computer) begins: it throws on the board's own thrower and shows its move
    words = page.locator("#computer-move")
    expect(words).to_have_text(re.compile(r"^The computer plays \d+ → \d+: move its piece$"), timeout=15_000)
    expect(page.locator("#board .arrow.computer")).to_have_count(1)
    move = shown_move(board)
    arrow = page.locator("#board .arrow.computer")
    assert (arrow.get_attribute("data-from"), arrow.get_attribute("data-to")) == (str(move.from_sq), str(move.to_sq))
    assert axe_violations(page, axe_js) == []
    # a hand carries it out; then White throws until there is a choice, and asks for a hint
    for _ in range(60):
        g = game()
        if g.to_move_id == "A" and g.pending is not None and len(g.legal_moves()) > 1:
            break
        before = len(g.actions)
        move = shown_move(board)
        if move is not None:
            click_move(page, board, [move])
        elif g.to_move_id == "A" and g.pending is None and board.service.throw_blocked() is None:
            page.locator("#press").click()
        elif g.to_move_id == "A" and g.pending is not None:
            click_move(page, board, [g.legal_moves()[0]])
        else:
            page.wait_for_timeout(100)
            continue
        until(lambda before=before: len(game().actions) > before, timeout=15)
    else:
        pytest.fail("White never had a choice to make")
    expect(page.locator("#computer-move")).to_be_hidden()
    expect(page.locator("#board .arrow.computer")).to_have_count(0)
    page.locator("#hint-button").click()
    expect(page.locator("#hint-text")).to_have_text(re.compile(r"^best: \d+ → (\d+|off), your chance to win \d+ %"))
    expect(page.locator("#board .arrow.hint")).to_have_count(1)
    best = str(board.at.coach.hint(0)["moves"][0]["move"])
    hinted = page.locator("#board .arrow.hint")
    assert f"{hinted.get_attribute('data-from')}-{hinted.get_attribute('data-to')}" == best
    assert axe_violations(page, axe_js) == []
    page.close()
