"""The exhibit's attract loop in a real browser: shown over an untouched new game when
EXHIBIT is on, cycling the how-to-play, the demo game and the invitation; gone at once when a piece
is lifted; never shown when EXHIBIT is off. Frames are stepped with Playwright's clock, not waited."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from senet_pi.i18n import gettext, translate
from senet_pi.verdicts import Offer
from senet_pi_web.state import PIECES, PLAYERS, demo_game, named
from tests.browser_helpers import LiveBoard, axe_violations, until

pytestmark = pytest.mark.browser

FRAME_MS = 5000  # attract.js's frame time


def story(language: str = "en") -> list[str]:
    """The loop's first frames: what Senet is, then whose pieces are whose."""
    cast = " · ".join(
        gettext("{player} plays {pieces}", language, player=PLAYERS[p], pieces=PIECES[p]) for p in ("A", "B")
    )
    return [gettext("Senet, the game of passing: played in Egypt for some three thousand years.", language), cast]


def demo_words(step: dict, language: str = "en") -> str:
    """What the loop says over one move of its demo game: the throw, then the move, the player by name."""
    who = str(translate(PLAYERS[step["board"][str(step["to"])]], language))
    thrown = gettext("{player} throws {value}", language, player=who, value=step["throw"])
    moved = gettext(
        "a demo game: {player} moves from {from} to {to}", language, player=who, to=step["to"], **{"from": step["from"]}
    )
    return f"{thrown} · {moved}"


class ExhibitBoard(LiveBoard):
    """The browser tests' live board, served with EXHIBIT on (or off)."""

    def __init__(self, exhibit: bool = True) -> None:
        self.exhibit = exhibit
        super().__init__()

    def start_server(self) -> None:
        from senet_pi.server.serve import start_server
        from senet_pi_web import create_app

        app = create_app({"SECRET_KEY": "e2e", "EXHIBIT": self.exhibit}, service=self.service, backend=self.backend)
        self.server = start_server(app, "127.0.0.1", self.port)
        self.port = self.server.effective_port


def open_page(browser, board: ExhibitBoard):
    page = browser.new_page(viewport={"width": 1280, "height": 820})
    page.clock.install()
    page.goto(board.url)
    expect(page.locator("#link")).to_have_text("live")
    return page


@pytest.fixture
def exhibit_board():
    live = ExhibitBoard()
    yield live
    live.close()


def test_attract_loop_cycles_how_to_play_the_demo_and_the_invitation(browser, exhibit_board):
    page = open_page(browser, exhibit_board)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    overlay, text = page.locator("#attract"), page.locator("#attract-text")
    expect(overlay).to_be_visible()
    how = [str(named(s)) for s in exhibit_board.service.referee.game.how_to_play]  # "Green opens"
    assert how
    for sentence in story() + how:  # the story first
        expect(text).to_have_text(sentence)
        expect(page.locator("#attract-board")).to_be_hidden()
        page.clock.run_for(FRAME_MS)
    demo = demo_game("secret", 2)
    arrow = page.locator("#attract-board .arrow.move")
    for step in demo:  # each move of the demo game, drawn as an arrow on the board drawing
        expect(page.locator("#attract-board")).to_be_visible()
        expect(text).to_have_text(demo_words(step))
        expect(page.locator("#attract-sticks rect.stick")).to_have_count(4)  # its throw, as sticks
        expect(arrow).to_have_attribute("data-from", str(step["from"]))
        expect(arrow).to_have_attribute("data-to", str(step["to"]))
        page.clock.run_for(FRAME_MS)
    expect(text).to_have_text("touch a piece or press the button to play")
    page.clock.run_for(FRAME_MS)
    expect(text).to_have_text(story()[0])  # round again
    assert errors == []
    page.close()


def test_attract_loop_goes_when_a_piece_is_lifted(browser, exhibit_board):
    page = open_page(browser, exhibit_board)
    expect(page.locator("#attract")).to_be_visible()
    exhibit_board.backend.sim.lift(10)
    expect(page.locator("#attract")).to_be_hidden()
    exhibit_board.backend.sim.place(10)  # a touched game stays without the loop
    until(lambda: exhibit_board.service.referee.sensed >> 10 & 1 == 1)
    page.clock.run_for(FRAME_MS * 3)
    expect(page.locator("#attract")).to_be_hidden()
    page.close()


def test_attract_loop_shows_the_setup_fix_with_its_square_marked(browser, exhibit_board):
    service = exhibit_board.service
    service.handle("sense", [sq for sq in service.snapshot().expected if sq != 4] + [20])  # knocked, unseen
    page = open_page(browser, exhibit_board)
    setup = page.locator("#attract-setup")
    expect(setup).to_have_text("before playing: take the piece off square 20 (2 to fix)")
    expect(page.locator('#attract-board g[data-square="20"] rect.setup')).to_have_count(1)
    expect(page.locator("#setup")).to_have_text("take the piece off square 20 (2 to fix before playing)")
    service.handle("sense", [sq for sq in service.snapshot().expected if sq != 4])  # taken off, unseen as a touch
    expect(setup).to_have_text("before playing: put a piece on square 4 (1 to fix)")
    expect(page.locator('#attract-board g[data-square="4"] rect.setup')).to_have_count(1)
    service.handle("sense", list(service.snapshot().expected))
    expect(setup).to_be_hidden()
    expect(page.locator("#attract")).to_be_visible()  # set up, still untouched: the loop goes on
    page.close()


def test_attract_loop_is_not_shown_when_exhibit_is_off(browser):
    live = ExhibitBoard(exhibit=False)
    try:
        page = open_page(browser, live)
        expect(page.locator("#turn")).to_have_text("Green to throw")
        page.clock.run_for(FRAME_MS * 3)
        expect(page.locator("#attract")).to_be_hidden()
        assert "demo" not in page.evaluate("fetch('/api/state').then((r) => r.json())")
        page.close()
    finally:
        live.close()


@pytest.mark.parametrize("language", ["en", "de", "ar"])
def test_the_kiosk_page_in_each_language_attract_loop_and_setup_fix(browser, exhibit_board, language, tmp_path):
    """The exhibit screen as a museum sets it (EXHIBIT on, the language chosen): the welcome loop, the
    demo's words and the setup fix in that language; Arabic right to left, the board still as the
    wooden one (square 1 top left)."""
    service = exhibit_board.service
    service.handle("sense", [sq for sq in service.snapshot().expected if sq != 4])  # a piece missing
    page = browser.new_page(viewport={"width": 1280, "height": 820})
    page.clock.install()
    page.goto(exhibit_board.url + f"?lang={language}")
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("html")).to_have_attribute("dir", "rtl" if language == "ar" else "ltr")
    fix = gettext("put a piece on square {square}", language, square=4)
    expect(page.locator("#attract-setup")).to_have_text(
        gettext("before playing: {fix} ({left} to fix)", language, fix=fix, left=1)
    )
    expect(page.locator('#attract-board g[data-square="4"] rect.setup')).to_have_count(1)
    service.handle("sense", list(service.snapshot().expected))  # put right (a sense is no visitor's touch)
    expect(page.locator("#attract-setup")).to_be_hidden()
    text = page.locator("#attract-text")
    how = [str(translate(named(s), language)) for s in service.referee.game.how_to_play]
    expect(text).to_have_text(story(language)[0])
    page.clock.run_for(FRAME_MS * 2)
    expect(text).to_have_text(how[0])
    if language != "en":
        assert how[0] != str(service.referee.game.how_to_play[0])  # really translated
    page.clock.run_for(FRAME_MS * len(how))
    expect(text).to_have_text(demo_words(demo_game("secret", 2)[0], language))
    one, ten = (page.locator(f'#attract-board g[data-square="{sq}"]').bounding_box() for sq in (1, 10))
    assert one["x"] < ten["x"]  # the board drawing is never mirrored
    page.clock.run_for(FRAME_MS * len(demo_game("secret", 2)))
    expect(text).to_have_text(gettext("touch a piece or press the button to play", language))
    page.locator("#attract").screenshot(path=str(tmp_path / f"kiosk-{language}.png"))
    other = "de" if language != "de" else "ar"  # a visitor switches language on the welcome screen itself
    page.locator(f'.attract-languages a[lang="{other}"]').click()
    expect(page.locator("html")).to_have_attribute("lang", other)
    expect(page.locator("#attract")).to_be_visible()  # switching is no touch of the game
    assert (tmp_path / f"kiosk-{language}.png").stat().st_size > 10_000
    page.close()


# -------------------------------------------------------------- a tap dismisses the loop; staff controls stay reachable


def test_a_tap_dismisses_the_loop_and_staff_controls_stay_reachable(browser, exhibit_board):
    page = open_page(browser, exhibit_board)
    overlay = page.locator("#attract")
    expect(overlay).to_be_visible()
    summary = page.locator("#operator summary")  # the staff's panel is never under the overlay
    page.evaluate("() => document.querySelector('#operator summary').scrollIntoView({ block: 'center' })")
    box = summary.bounding_box()
    on_top = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('#operator') !== null",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert on_top
    pause = page.locator("#attract-pause")  # WCAG 2.2.2: the loop can be held still
    pause.click()
    expect(pause).to_have_attribute("aria-pressed", "true")
    shown = page.locator("#attract-text").inner_text()
    page.clock.run_for(FRAME_MS * 3)
    expect(page.locator("#attract-text")).to_have_text(shown)
    expect(page.locator("#attract [aria-live]")).to_have_count(0)  # not read out every 5 s for ever
    page.mouse.click(5, 5)  # a tap on the overlay, outside its card
    expect(overlay).to_be_hidden()
    exhibit_board.service.note(Offer("a live update"))
    page.clock.run_for(FRAME_MS * 2)
    expect(overlay).to_be_hidden()  # closed for this game
    page.close()


def test_axe_finds_no_serious_violation_on_the_attract_loop(browser, exhibit_board, axe_js):
    """The exhibit's welcome (its story, its demo with the sticks, its setup fix) in both themes and in Arabic."""
    service = exhibit_board.service
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
    page.clock.install()
    found: dict[str, list[str]] = {}
    try:
        page.goto(exhibit_board.url)
        expect(page.locator("#attract")).to_be_visible()
        found["story"] = axe_violations(page, axe_js)
        page.clock.run_for(FRAME_MS * (2 + len(service.referee.game.how_to_play)))
        expect(page.locator("#attract-sticks")).to_be_visible()
        found["demo"] = axe_violations(page, axe_js)
        page.locator("#theme").evaluate("(b) => b.click()")  # under the overlay: the staff's way
        found["demo, dark"] = axe_violations(page, axe_js)
        service.handle("sense", [sq for sq in service.snapshot().expected if sq != 4])
        expect(page.locator("#attract-setup")).to_be_visible()
        found["setup, dark"] = axe_violations(page, axe_js)
        page.goto(exhibit_board.url + "?lang=ar")
        expect(page.locator("#attract-setup")).to_be_visible()
        found["setup, ar"] = axe_violations(page, axe_js)
    finally:
        page.close()
    assert {state: v for state, v in found.items() if v} == {}


def test_the_setup_overlay_and_the_page_draw_the_same_wooden_board(browser, exhibit_board):
    """While a new game is set up, the overlay's board and the page's show the same pieces on the same
    squares, solid or faded alike: both draw the wooden board the state carries (a piece knocked off
    4 and one on 20 that should not be there, then only the missing one)."""
    service = exhibit_board.service
    drawn = """(svg) => [...document.querySelectorAll(`#${svg} .piece[data-on]:not(.ghost)`)]
        .map((p) => `${p.dataset.on}:${[...p.classList].filter((c) => c !== 'piece').sort().join('.')}`).sort()"""
    page = open_page(browser, exhibit_board)
    try:
        for sensed in (
            [sq for sq in service.snapshot().expected if sq != 4] + [20],
            [sq for sq in service.snapshot().expected if sq != 4],
        ):
            service.handle("sense", sensed)
            expect(page.locator("#attract-setup")).to_be_visible()
            until(lambda sensed=sensed: len(page.evaluate(drawn, "board")) >= len(sensed))
            wood = service.snapshot().to_json()
            on_page, on_overlay = page.evaluate(drawn, "board"), page.evaluate(drawn, "attract-board")
            assert on_page == on_overlay
            solid = sorted(int(p.split(":")[0]) for p in on_page if "lifted" not in p)
            assert solid == sorted(wood["sensed"])  # the switches closed, each with a piece drawn solid
            assert "4:lifted.owner-A" in on_page or "4:lifted.owner-B" in on_page  # the missing one, faded
    finally:
        page.close()
