"""The screen beside the board as a family at a museum meets it, in a real browser: the
story and the players named by their pieces, the throw you can see, the referee's one card, the
win, the keyboard, what a screen reader hears, and axe-core on every state of the page.

One browser and one served board for the whole module (each test starts from a new game on it):
these tests are CPU-heavy on a shared machine. axe-core comes from npm, installed once under
.ci/node like the MicroPython tests' package, and is injected with the page's CSP bypassed (only
here: the page itself never loads a script it does not serve)."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

from senet_pi.i18n import gettext
from tests.browser_helpers import (
    KIOSK,
    LiveBoard,
    axe_violations,
    click_move,
    contrast,
    locked,
    new_game,
    open_page,
    piece_on,
    settle,
    square,
    until,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def live():
    board = LiveBoard(manual_clock=True)
    yield board
    board.close()


@pytest.fixture
def board(plain):
    """The module's board with no backend, at the start of a new game."""
    new_game(plain)
    return plain


@pytest.fixture
def sim(live):
    """The module's simulated board (its squares clicked on the page), at the start of a new game."""
    new_game(live)
    return live


def play(board, moves) -> None:
    """Moves made as hands make them (lifts and places fed to the referee), then judged."""
    from senet_pi.referee.hands import switch_events
    from senet_pi.referee.physical import play_out

    referee = board.service.referee
    steps, _, _ = play_out(referee.game, moves)
    for event in switch_events(referee.game.occupied(), steps):
        ((kind, sq),) = event.items()
        board.service.handle(kind, sq)
    settle(board)


def moves_from(board, square: int):
    return [m for (m,) in board.service.referee.game.move_sequences() if m.from_sq == square]


def idle_reset(board) -> None:
    """A game left half played, then a new one (what the exhibit's idle reset starts): the board to set."""
    service = board.service
    service.handle("throw", 3)
    play(board, moves_from(board, 10))
    left = service.snapshot().to_json()["sensed"]
    service.new_game("secret")
    service.handle("sense", left)  # the switches still see the pieces where the last visitors left them


# ------------------------------------------------------------------ axe-core on every state


@pytest.mark.slow
def test_axe_finds_no_serious_or_critical_violation_in_any_state(browser, board, axe_js):
    """Every state a visitor meets, in both themes, three languages, kiosk and phone sizes."""
    page = browser.new_page(viewport=KIOSK, bypass_csp=True)
    found: dict[str, list[str]] = {}
    try:
        page.goto(board.url + "?lang=en")
        expect(page.locator("#board .piece")).to_have_count(10)
        found["start"] = axe_violations(page, axe_js)
        page.locator("#theme").click()
        found["start, dark"] = axe_violations(page, axe_js)
        board.service.handle("throw", 3)
        expect(page.locator("#board rect.movable")).to_have_count(1)
        found["a throw, hints, dark"] = axe_violations(page, axe_js)
        board.service.handle("lift", 10)
        expect(page.locator("#in-hand")).not_to_be_empty()
        found["in the hand"] = axe_violations(page, axe_js)
        board.service.handle("place", 14)
        settle(board)
        expect(page.locator("#compare")).to_be_visible()
        found["an illegal move"] = axe_violations(page, axe_js)
        page.locator("#theme").click()
        found["an illegal move, light"] = axe_violations(page, axe_js)
        page.locator("#operator summary").click()
        found["the staff panel"] = axe_violations(page, axe_js)
        new_game(board)
        idle_reset(board)
        expect(page.locator("#setup")).to_be_visible()
        found["set the board"] = axe_violations(page, axe_js)
        for lang in ("de", "ar"):
            page.goto(board.url + f"?lang={lang}")
            expect(page.locator("#setup")).to_be_visible()
            found[f"set the board, {lang}"] = axe_violations(page, axe_js)
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(board.url + "?lang=en")
        expect(page.locator("#board .piece").first).to_be_visible()
        found["phone"] = axe_violations(page, axe_js)
        for path in ("hardware", "hands"):
            page.goto(board.url + path)
            found[path] = axe_violations(page, axe_js)
    finally:
        page.close()
    assert {state: v for state, v in found.items() if v} == {}


# ------------------------------------------------------------------ the load time: the board before any request


def test_the_first_state_comes_in_the_page_so_the_board_needs_no_request(browser, board):
    """The board is drawn with its pieces before any request: /api/state, /api/rulings and the live
    stream held back, the page still shows the game: no two fetches one after the other before the first draw."""
    page = browser.new_page(viewport=KIOSK)
    try:
        page.route(re.compile(r".*/api/.*"), lambda route: route.abort())
        page.goto(board.url)
        expect(page.locator("#board .piece")).to_have_count(10)
        expect(page.locator("#turn")).to_have_text("Green to throw")
        expect(page.locator("#ruling-texts span")).not_to_have_count(0)  # the rulings' sentences too
    finally:
        page.close()


# ------------------------------------------------------------------ the story and the cast


@pytest.mark.parametrize("lang", ["en", "de", "ar"])
def test_the_story_and_the_players_named_by_their_pieces_in_every_language(browser, board, lang):
    page = open_page(browser, board, lang)
    try:
        story = gettext("Senet, the game of passing: played in Egypt for some three thousand years.", lang)
        expect(page.locator(".story")).to_have_text(story)
        green, white = gettext("Green", lang), gettext("White", lang)
        expect(page.locator("#turn")).to_have_text(gettext("{player} to throw", lang, player=green))
        cast = page.locator("#cast")
        expect(cast).to_contain_text(
            gettext("{player} plays {pieces}", lang, player=white, pieces=gettext("the white cones", lang))
        )
        expect(cast).to_contain_text(
            gettext("{player} plays {pieces}", lang, player=green, pieces=gettext("the green spools", lang))
        )
        board.service.handle("throw", 2)  # a wrong move: the referee's sentence names the player too
        board.service.handle("move", [10, 14, 4])
        expect(page.locator("#message")).not_to_be_empty()
        for where in ("#turn", "#cast", "#message", "#history", "#how-list"):  # A and B stay internal
            assert not re.search(r"(?<![\w])[AB](?![\w])", page.locator(where).inner_text()), where
    finally:
        page.close()


# ------------------------------------------------------------------ the board first, the banner


def test_at_kiosk_size_the_board_fills_the_screen_and_the_banner_is_the_movers_colour(browser, board):
    page = open_page(browser, board, viewport=KIOSK)
    try:
        turn = page.locator("#turn")
        assert float(turn.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")) >= 48
        expect(turn).to_have_class(re.compile(r"\bowner-B\b"))
        green = turn.evaluate("(e) => getComputedStyle(e).backgroundColor")
        spool = page.locator("#board .piece.owner-B path.body").first.evaluate("(e) => getComputedStyle(e).fill")
        assert contrast(green, spool) < 1.6  # the banner is the green of the spools
        box = page.locator("#board").bounding_box()
        assert box["width"] >= 1200
        assert box["y"] + box["height"] <= 1080  # most of the screen, all of it in view
        for beside in ("#sticks", "#history", "#how-list", "#operator summary"):  # at a glance: nothing below the fold
            other = page.locator(beside).bounding_box()
            assert other["x"] >= box["x"] + box["width"] and other["y"] + other["height"] <= 1080, beside
        assert page.evaluate("document.documentElement.scrollHeight") <= 1080
        shifted = page.evaluate(
            """() => new Promise((done) => {
                 let sum = 0;  // every shift since the page began (buffered), none at all is 0
                 const add = (list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) sum += e.value; };
                 new PerformanceObserver(add).observe({ type: "layout-shift", buffered: true });
                 setTimeout(() => done(sum), 500);
               })"""
        )
        assert shifted < 0.1  # the board does not jump as the page fills in (CLS)
        board.service.handle("throw", 1)  # White's turn after B's 1? B throws again on a 1: play it, then A throws
        play(board, board.service.referee.game.move_sequences()[0])
        board.service.handle("throw", 2)
        play(board, board.service.referee.game.move_sequences()[0])
        expect(turn).to_have_class(re.compile(r"\bowner-A\b"))
    finally:
        page.close()


def test_on_a_phone_no_blank_card_stands_between_the_banner_and_the_throw(browser, board):
    page = open_page(browser, board, viewport={"width": 390, "height": 844})
    try:

        def gap_above_the_throw(above: str) -> float:
            bottom = page.locator(above).bounding_box()
            top = page.locator(".throw-box").bounding_box()
            return top["y"] - (bottom["y"] + bottom["height"])

        expect(page.locator("#card")).to_be_hidden()  # a plain throw to make: the banner says it all
        assert gap_above_the_throw("#cast") <= 32
        board.service.handle("throw", 3)
        expect(page.locator("#message")).to_contain_text("3")
        expect(page.locator("#card")).to_be_visible()
        assert page.locator("#card").bounding_box()["y"] > page.locator("#cast").bounding_box()["y"]
        assert 0 <= gap_above_the_throw("#card") <= 32  # as tall as its words, no taller
    finally:
        page.close()


def test_pieces_borne_off_wait_beside_the_board(browser, board):
    page = open_page(browser, board, viewport=KIOSK)
    try:
        expect(page.locator("#off-A .piece")).to_have_count(0)
        board_box = page.locator("#board").bounding_box()
        a, b = page.locator("#off-A").bounding_box(), page.locator("#off-B").bounding_box()
        assert a["x"] + a["width"] <= board_box["x"]
        assert b["x"] >= board_box["x"] + board_box["width"]
        expect(page.locator("#off-A")).to_have_attribute("aria-label", "White: 0 off")
    finally:
        page.close()


# ------------------------------------------------------------------ sticks you can see


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_large_sticks_readable_in_both_themes_with_their_count(browser, board, theme):
    page = open_page(browser, board, viewport=KIOSK, color_scheme=theme, reduced_motion="reduce")
    try:
        board.service.handle("throw", 3)
        expect(page.locator("#throw-text")).to_have_text("= 3")
        sticks = page.locator("#sticks")
        assert sticks.bounding_box()["width"] >= 200
        panel = page.locator(".throw-box").evaluate("(e) => getComputedStyle(e).backgroundColor")
        for face in ("dark", "pale"):
            stick = page.locator(f"#sticks rect.{face}").first
            edge = stick.evaluate("(e) => getComputedStyle(e).stroke")
            assert contrast(edge, panel) >= 3, (theme, face, edge, panel)  # no stick is lost against the page
        assert sticks.locator("rect").first.evaluate("(e) => getComputedStyle(e).animationName") == "none"
        board.service.handle("move", [10, 13, 3])  # played by the operator's way: the next throw
        until(lambda: board.service.referee.game.pending is None)
        board.service.handle("throw", 6)
        expect(page.locator("#throw-text")).to_have_text("= 6")
        expect(page.locator("#throw-note")).to_have_text("no dark side up counts 6")
    finally:
        page.close()


def test_a_new_throw_makes_the_sticks_fall_unless_motion_is_reduced(browser, board):
    page = open_page(browser, board)
    try:
        board.service.handle("throw", 2)
        expect(page.locator("#sticks")).to_have_class(re.compile(r"\bfalling\b"))
        assert page.locator("#sticks rect").first.evaluate("(e) => getComputedStyle(e).animationName") == "fall"
    finally:
        page.close()


# ------------------------------------------------------------------ the referee's one card


def test_after_an_idle_reset_one_calm_set_the_board_card_and_the_board_as_it_is(browser, board):
    idle_reset(board)
    page = open_page(browser, board, viewport=KIOSK)
    try:
        extra = board.service.snapshot().to_json()["setup"]["square"]
        expect(page.locator("#turn")).to_have_text("set the board for the next game")
        expect(page.locator("#setup")).to_have_text(re.compile(rf"^take the piece off square {extra} \(\d to fix"))
        for quiet in ("#message", "#fixes", "#in-hand", "#question", "#refusal", "#compare"):
            assert page.locator(quiet).inner_text().strip() == "" or not page.locator(quiet).is_visible(), quiet
        expect(piece_on(page, extra)).to_have_count(1)  # the piece to take off is drawn where it is
        expect(page.locator(f'#board g[data-square="{extra}"] rect.setup')).to_have_count(1)
        expect(page.locator("#board rect.setup, #board rect.missing, #board rect.extra")).to_have_count(1)  # that one
    finally:
        page.close()


def test_a_ruling_id_waits_behind_a_why_and_the_real_square_is_drawn(browser, board):
    from senet_pi.rules.plain import PLAIN

    page = open_page(browser, board)
    try:
        board.service.handle("throw", 3)
        board.service.handle("lift", 10)
        ghost = page.locator("#board .piece.ghost.owner-B")
        expect(ghost).to_have_count(1)  # in the hand: a ghost where it may go, 13
        box, thirteen = ghost.bounding_box(), square(page, 13).bounding_box()
        assert thirteen["x"] <= box["x"]
        assert box["x"] + box["width"] <= thirteen["x"] + thirteen["width"] + 2
        board.service.handle("place", 14)
        settle(board)
        message = page.locator("#message")
        expect(message).to_have_text("a throw of 3 takes the piece on 10 to 13, not 14 why?")
        why = message.locator("button.ruling-id")
        expect(why).to_have_attribute("data-ruling", "P3")
        why.click()
        expect(page.locator("#tip")).to_have_text(f"P3: {PLAIN['P3']}")
        expect(piece_on(page, 14, "B")).to_have_count(1)  # the piece is drawn where it really stands
        expect(piece_on(page, 10, "B")).to_have_class(re.compile(r"\blifted\b"))  # faint where the fix puts it
        expect(ghost).to_have_count(0)  # nothing beside the fix to say where it goes
    finally:
        page.close()


# ------------------------------------------------------------------ a win


def test_a_win_has_its_moment_its_score_and_how_to_play_again(browser, board):
    import random

    service, rng = board.service, random.Random(3)
    game = service.referee.game
    for _ in range(3000):  # a whole game, entered as the operator enters moves
        if game.is_over:
            break
        service.handle("throw", game.random_throw(rng))
        if game.pending is not None and not game.is_over:
            for m in rng.choice(game.move_sequences()):
                service.handle("move", [m.from_sq, m.to_sq, m.by])
    assert game.is_over
    service.handle("sense", sorted(service.referee.game.board()))  # the pieces where the game ended
    settle(board)
    page = open_page(browser, board, viewport=KIOSK)
    try:
        winner = "White" if game.winner_id == "A" else "Green"
        expect(page.locator("#turn")).to_have_text(f"{winner} has won!")
        expect(page.locator("#turn")).to_have_class(re.compile(r"\bwon\b"))
        off = game.off  # the score: pieces off, and how to start again with what is really there
        expect(page.locator("#message")).to_have_text(
            f"Score: White: {off[0]} off · Green: {off[1]} off. To play again, set the pieces out as at the start."
        )
        expect(page.locator("#press")).to_be_hidden()  # the thrower takes no throw after a win
    finally:
        page.close()


# ------------------------------------------------------------------ keyboard and screen readers


def test_keyboard_a_skip_link_then_arrow_keys_around_the_board(browser, sim):
    page = open_page(browser, sim)
    try:
        sim.service.handle("throw", 3)
        expect(page.locator("#board rect.movable")).to_have_count(1)
        page.keyboard.press("Tab")
        skip = page.locator(".skip-link")
        expect(skip).to_be_focused()
        assert skip.bounding_box()["y"] >= 0  # shown when focused
        page.keyboard.press("Enter")
        expect(page.locator("main")).to_be_focused()
        tabs = 0
        while not page.evaluate("() => document.activeElement.closest('#board') !== null") and tabs < 10:
            page.keyboard.press("Tab")
            tabs += 1
        assert tabs <= 3  # the board comes first, not after 39 Tabs
        expect(square(page, 10)).to_be_focused()  # the piece that may move
        expect(page.locator('#board g.square[tabindex="0"]')).to_have_count(1)  # one stop in the Tab order
        page.keyboard.press("ArrowLeft")
        expect(square(page, 9)).to_be_focused()
        page.keyboard.press("ArrowDown")
        expect(square(page, 12)).to_be_focused()  # drawn under 9 (row 2 runs right to left, P1)
        page.keyboard.press("ArrowUp")
        page.keyboard.press("ArrowRight")
        expect(square(page, 10)).to_be_focused()
        page.keyboard.press("Enter")  # lift the piece by keyboard
        expect(page.locator("#in-hand")).to_contain_text("Green's piece from 10 is in the hand")
    finally:
        page.close()


def test_focus_is_unmistakable_and_unlike_the_hints(browser, sim):
    page = open_page(browser, sim)
    try:
        sim.service.handle("throw", 1)
        expect(page.locator("#board rect.movable")).to_have_count(1)
        cell = "(e) => { const s = getComputedStyle(e); return [s.stroke, s.strokeWidth, s.fill]; }"
        hint = page.locator('#board g[data-square="10"] rect').evaluate(cell)
        page.keyboard.press("Tab")  # the keyboard's way in: focus-visible
        square(page, 10).focus()
        page.keyboard.press("ArrowLeft")
        expect(square(page, 9)).to_be_focused()
        focused = page.locator('#board g[data-square="9"] rect').evaluate(cell)
        plain = page.locator('#board g[data-square="8"] rect').evaluate(cell)
        assert focused[0] != hint[0] and focused[2] != hint[2], (focused, hint)  # another colour, filled
        assert float(focused[1].rstrip("px")) > float(hint[1].rstrip("px"))
        assert focused != plain
    finally:
        page.close()


#: Records every text the live region is given, and where the page has live regions at all.
RECORD_ANNOUNCEMENTS = """
window.said = [];
document.addEventListener("DOMContentLoaded", () => {
  const box = document.getElementById("announce");
  new MutationObserver(() => { if (box.textContent) window.said.push(box.textContent); })
    .observe(box, { childList: true, characterData: true, subtree: true });
});
"""


def test_each_verdict_is_announced_once_and_the_fix_with_it(browser, sim):
    page = browser.new_page()
    page.add_init_script(RECORD_ANNOUNCEMENTS)
    try:
        page.goto(sim.url)
        expect(page.locator("#link")).to_have_text("live")
        live = page.locator("[aria-live], [role=status], [role=alert]")
        expect(live).to_have_count(1)  # one live region: the boxes redrawn at every update are not
        sim.service.handle("throw", 3)
        square(page, 10).click()
        square(page, 14).click()
        until(lambda: sim.service.referee.sensed >> 14 & 1 == 1)
        settle(sim)
        expect(page.locator("#compare")).to_be_visible()
        for _ in range(5):  # more state updates: the switches, time passing
            sim.service.handle("sense", sorted(sim.service.snapshot().to_json()["sensed"]))
            settle(sim)
        page.wait_for_timeout(200)
        said = page.evaluate("() => window.said")
        warning = [s for s in said if "a throw of 3 takes the piece on 10 to 13, not 14" in s]
        assert len(warning) == 1, said
        assert "to put it right: put Green's piece on 14 back on 10" in warning[0]
        assert "P3" not in warning[0]  # the id is for the eye's "why?"
        assert sum("Green throws 3" in s for s in said) == 1, said
    finally:
        page.close()


# ------------------------------------------------------------------ every string translated


def test_the_move_list_and_the_staff_panel_in_german(browser, board):
    page = open_page(browser, board, "de")
    try:
        board.service.handle("throw", 3)  # B 10-13, then A's 4 takes 9 to 13: the exchange (P4)
        play(board, moves_from(board, 10))
        board.service.handle("throw", 4)
        play(board, moves_from(board, 9))
        exchange = gettext("exchange", "de")
        expect(page.locator("#history li").last).to_have_text(f"{gettext('White', 'de')} 9-13 ({exchange})")
        expect(page.locator("#operator summary")).to_have_text(gettext("staff", "de"))
        page.locator("#operator summary").click()
        expect(page.locator("#login > button")).to_have_text(gettext("sign in", "de"))  # not the keypad's
        expect(page.locator("#pin")).to_have_attribute("aria-label", gettext("operator PIN", "de"))
    finally:
        page.close()


# ------------------------------------------------------------------ the card game


def test_the_card_game_looks_like_cards_and_each_phone_names_its_pieces(browser, board):
    new_game(board, "cards", options={"shuffle_seed": 9})
    main = open_page(browser, board, viewport=KIOSK)
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        expect(main.locator("#card-table .card-face")).not_to_have_count(0)
        expect(main.locator("#turn")).to_have_text("Green to play")  # not "to throw" and "play a card" at once
        expect(main.locator(".throw-box")).to_be_hidden()  # no sticks, no throw button: cards are played
        hand = main.locator("#card-table").bounding_box()  # the hands' counts at a glance, beside the board
        assert hand["y"] + hand["height"] <= KIOSK["height"]
        phone.goto(board.url + "hands")
        expect(phone.locator(".qr-card").first).to_contain_text("you play the white cones")
        phone.goto(phone.locator("a", has_text="/hand/B/").get_attribute("href"))
        expect(phone.locator(".cast")).to_have_text("you play the green spools")
        expect(phone.locator("h2")).to_have_text("Green's hand")
        cards = phone.locator("#cards button.card .card-face")
        expect(cards).to_have_count(5)
        expect(cards.first).to_be_visible()  # drawn, not only in the DOM: a loaded machine is slower to lay out
        # Measured in the page in one go: the live stream may draw the hand again between two reads
        # from here, and a card read after it was replaced has no box.
        heights = phone.evaluate(
            """() => [document.querySelector("#cards button.card .card-face").getBoundingClientRect().height,
                     document.querySelector("#play").getBoundingClientRect().height]"""
        )
        assert heights[0] >= 90
        assert heights[1] >= 44  # a finger's size
    finally:
        main.close()
        phone.close()


def test_the_hardware_page_in_arabic(browser, sim):
    page = browser.new_page()
    try:
        page.goto(sim.url + "hardware?lang=ar")
        expect(page.locator(".hardware h2").first).to_have_text(gettext("Switches", "ar"))
        expect(page.locator("#faults li")).to_have_text(gettext("none", "ar"))
        expect(page.locator("#backend")).to_have_text(gettext("backend: {name}", "ar", name="sim"))
    finally:
        page.close()


# ------------------------------------------------------------------ the table is never stranded


def test_the_table_answers_the_referee_itself_and_a_question_nobody_answers_never_stalls_the_game(browser, sim):
    """A museum family with no staff and no sign-in: two pieces lifted and put back, the question
    answered by a tap on the kiosk; then nobody answers: after the stated wait the referee takes the
    likelier answer and says so on the screen and in the live region; the throw and a move go on."""
    page = browser.new_page(viewport=KIOSK, has_touch=True)
    page.add_init_script(RECORD_ANNOUNCEMENTS)
    referee = sim.service.referee
    try:
        page.goto(sim.url + "?lang=en")
        expect(page.locator("#link")).to_have_text("live")

        def lift_two_and_put_them_back() -> None:
            for sq, closed in ((9, False), (10, False), (9, True), (10, True)):
                square(page, sq).tap()
                until(lambda sq=sq, closed=closed: bool(sim.service.referee.sensed >> sq & 1) == closed)
            settle(sim)

        lift_two_and_put_them_back()
        answers = page.locator("#question button.answer")
        expect(answers).to_have_text(["put back", "swapped"])
        expect(page.locator("#message")).to_have_text("The pieces on 9 and 10 were both lifted. Were they swapped?")
        expect(page.locator("#turn")).to_have_text("answer the question below")
        expect(page.locator(".question-note")).to_have_text("If nobody answers in 20 s, the referee takes “put back”.")
        for i in range(2):  # a finger's size
            box = answers.nth(i).bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44, box
        answers.first.tap()  # a visitor, not signed in
        expect(answers).to_have_count(0)
        expect(page.locator("#turn")).to_have_text("Green to throw")
        assert referee.question is None

        lift_two_and_put_them_back()  # the keyboard answers too: Tab to the answer, Enter
        expect(answers).to_have_count(2)
        answers.first.focus()
        page.keyboard.press("Tab")
        expect(answers.nth(1)).to_be_focused()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Enter")
        expect(answers).to_have_count(0)
        assert referee.question is None
        assert referee.warning is None  # "put back": nothing to put right

        lift_two_and_put_them_back()  # and now nobody answers
        expect(answers).to_have_count(2)
        sim.clock.now += 20  # the stated wait, on the referee's clock
        expect(page.locator("#message")).to_have_text("Nobody answered in 20 s, so the referee took “put back”.")
        expect(answers.first).to_have_attribute("aria-pressed", "true")
        expect(answers.nth(1)).to_have_attribute("aria-pressed", "false")
        expect(page.locator("#turn")).to_have_text("answer the question below")
        said = page.evaluate("() => window.said")
        assert sum("Were they swapped? Tap an answer: put back, swapped." in s for s in said) == 3, said
        assert any(s.startswith("Nobody answered in 20 s, so the referee took “put back”.") for s in said), said

        page.locator("#press").tap()  # play on: the throw the question no longer blocks
        until(lambda: locked(sim.service, lambda: referee.game.pending is not None))
        expect(answers).to_have_count(0)
        expect(page.locator("#turn")).to_have_text(re.compile(r"^Green to (move|throw)$"))
        moves = locked(sim.service, lambda: referee.game.move_sequences()[0])
        click_move(page, sim, moves)
        settle(sim)
        expect(page.locator("#history li").last).to_have_text(f"Green {moves[0].from_sq}-{moves[0].to_sq}")
    finally:
        page.close()


#: The largest font on the page among the visible elements that hold words of their own.
LARGEST_TEXT = """() => {
  let best = 0, who = "";
  for (const e of document.querySelectorAll("body *")) {
    if (!e.offsetParent || ![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size > best) { best = size; who = e.id || e.className; }
  }
  return [best, String(who)];
}"""


@pytest.mark.parametrize("lang", ["en", "de", "ar"])
def test_one_next_step_in_the_largest_type_a_bonus_throw_said_and_no_codes(browser, board, lang):
    """The banner names the step owed now; what to do is the largest text; a bonus throw is said on
    the screen and in the live region with its reason; no ruling id or player letter in any of it."""
    page = browser.new_page(viewport=KIOSK)
    page.add_init_script(RECORD_ANNOUNCEMENTS)
    green = gettext("Green", lang)
    try:
        page.goto(board.url + f"?lang={lang}")
        expect(page.locator("#link")).to_have_text(gettext("live", lang))
        board.service.handle("throw", 4)  # S: a 4 throws again
        play(board, moves_from(board, 10))
        turn, message = page.locator("#turn"), page.locator("#message")
        expect(turn).to_have_text(gettext("{player} throws again", lang, player=green))
        expect(turn).to_have_class(re.compile(r"\bowner-B\b"))
        expect(message).to_have_text(gettext("a {n} throws again", lang, n=4))
        said = page.evaluate("() => window.said")
        again = gettext("{player} throws again", lang, player=green) + ": " + gettext("a {n} throws again", lang, n=4)
        assert any(again in s for s in said), said
        board.service.handle("throw", 3)  # a wrong move: the fix is what to do, the largest words on the screen
        board.service.handle("lift", 14)
        board.service.handle("place", 16)
        settle(board)
        expect(turn).to_have_text(gettext("put the board right first", lang))
        fixes = page.locator("#fixes")
        expect(fixes).to_contain_text(gettext("to put it right: ", lang).strip())
        size = "(e) => parseFloat(getComputedStyle(e).fontSize)"
        largest, who = page.evaluate(LARGEST_TEXT)
        assert fixes.evaluate(size) == largest, who
        assert message.evaluate(size) < fixes.evaluate(size)
        assert turn.evaluate(size) < fixes.evaluate(size)
        for where in ("#turn", "#message", "#fixes", "#announce"):
            words = page.locator(where).inner_text()
            assert not re.search(r"\b[PSHKM]\d{1,2}\b|(?<![\w'])[AB](?![\w'])", words), (where, words)
        shown = page.evaluate(
            "() => { const d = document.createElement('div');"
            ' tipped(d, "put Green\'s piece that stood on 13 on 9 (exchange, P4)"); return d.textContent; }'
        )
        assert shown == "put Green's piece that stood on 13 on 9 (exchange) " + gettext("why?", lang)
    finally:
        page.close()


#: Every visible thing a finger can touch, with its box: links, buttons, the squares of the board...
TOUCH_TARGETS = """() => [...document.querySelectorAll(
    "a[href], button, summary, input, select, [role=button], [tabindex='0']")].flatMap((e) => {
  const r = e.getBoundingClientRect(), s = getComputedStyle(e);
  if (!r.width || !r.height || s.visibility === "hidden" || e.closest("[hidden]")) return [];
  if (e.classList.contains("skip-link") && r.bottom <= 0) return [];  // off the screen until focused
  const what = (e.id || e.className.baseVal || e.className || e.tagName) + " " + e.textContent.trim().slice(0, 20);
  return [{ what, width: r.width, height: r.height }];
})"""

SIZES = {
    "kiosk": KIOSK,
    "laptop": {"width": 1366, "height": 768},
    "7-inch": {"width": 800, "height": 480},
    "phone": {"width": 390, "height": 844},
}


def test_every_touch_target_is_a_fingers_size_and_the_7_inch_screen_shows_the_whole_board(browser, board):
    """At every size: nothing to touch under 44 x 44 px, the staff panel opened too. On the 7-inch
    touchscreen (800 x 480) and the kiosk, the whole board on the screen without scrolling, its squares
    44 px and more, the banner and the step above it; on a phone the board stands, squares as large."""
    board.service.handle("throw", 3)  # a move to make: the hints, the step in the card
    small: dict[str, list] = {}
    for label, size in SIZES.items():
        for lang in ("en", "de") if label == "7-inch" else ("en",):
            page = open_page(browser, board, lang, viewport=size)
            try:
                expect(page.locator("#board rect.movable")).to_have_count(1)
                page.locator("#operator summary").click()
                page.evaluate("() => window.scrollTo(0, 0)")
                small[f"{label} {lang}"] = [
                    t for t in page.evaluate(TOUCH_TARGETS) if t["width"] < 43.5 or t["height"] < 43.5
                ]
                cell = square(page, 1).locator("rect").bounding_box()
                assert cell["width"] >= 44 and cell["height"] >= 44, (label, lang, cell)
                if label in ("7-inch", "kiosk"):
                    whole = page.locator("#board").bounding_box()
                    assert whole["y"] >= 0 and whole["y"] + whole["height"] <= size["height"], (label, lang, whole)
                    for step in ("#turn", "#message"):
                        box = page.locator(step).bounding_box()
                        assert box["y"] >= 0 and box["y"] + box["height"] <= whole["y"], (label, lang, step, box)
            finally:
                page.close()
    assert {where: t for where, t in small.items() if t} == {}


def test_during_the_rules_own_steps_the_board_drawn_is_the_wooden_board(browser, board):
    """Modern rules (M4): Green lands on 1, White's piece there leaves the game. The game already has
    Green's piece on 1; the wooden board still has White's until someone lifts it: the page draws
    White's piece there, solid, while the banner and the card ask for its removal (a found game)."""
    import random

    from senet_pi.referee.hands import switch_events
    from senet_pi.referee.physical import play_out

    new_game(board, "modern")
    service, rng = board.service, random.Random(0)
    game = service.referee.game
    for turn in range(3):  # two turns played whole, then the third up to the rules' own step
        thrown = game.random_throw(rng)
        value = getattr(thrown, "value", thrown)
        service.handle("throw", list(value) if isinstance(value, tuple) else value)
        sequence = rng.choice(game.move_sequences())
        steps, _, _ = play_out(game, list(sequence))
        events = [next(iter(e.items())) for e in switch_events(game.occupied(), steps)]
        for kind, sq in events[: 3 if turn == 2 else None]:
            service.handle(kind, sq)
            settle(board)
    prompt = service.snapshot().to_json()["prompt"]
    assert prompt is not None
    assert (prompt["from"], prompt["to"], prompt["player"]) == (1, "off", "A")
    assert service.snapshot().to_json()["squares"]["1"]["owner"] == "B"  # the game's piece: not yet on the wood
    page = open_page(browser, board, viewport=KIOSK)
    try:
        expect(page.locator("#message")).to_contain_text("remove White's piece on 1 from the game")
        expect(page.locator("#turn")).to_have_text("White: finish the move the rules make")
        white = piece_on(page, 1, "A")
        expect(white).to_have_count(1)
        expect(white).not_to_have_class(re.compile(r"\blifted\b"))
        expect(piece_on(page, 1, "B")).to_have_count(0)
    finally:
        page.close()


def drawn_board(page) -> dict[int, str]:
    """The pieces drawn solid on the page's board (not lifted, not a ghost), by square: their owner."""
    return {
        int(sq): owner
        for sq, owner in page.evaluate(
            """() => [...document.querySelectorAll('#board .piece[data-on]:not(.lifted):not(.ghost):not(.gliding)')]
                .map((p) => [p.dataset.on, [...p.classList].find((c) => c.startsWith('owner-')).slice(6)])"""
        )
    }


@pytest.mark.parametrize(
    "variant,prompt",
    [
        ("houses", "(exchange"),  # the piece landed on goes where the mover stood (P4)
        ("houses", "drowned piece"),  # a piece the rules send back (H-rulings: the water)
        ("modern", "from the game"),  # a piece the rules take off (M4)
        ("modern", "on the sun"),  # the piece that takes its square... put on square 1 (M4)
        ("modern", "back to"),  # a piece the rules send back (M7)
    ],
)
def test_during_every_kind_of_prompt_the_board_drawn_is_the_wooden_board(browser, board, variant, prompt):
    """Hands carry the moves out one switch at a time; at the first prompt of its kind, and at every
    change after it while steps are owed (an exchange's first lift: both pieces in the hand), the
    pieces drawn solid are exactly those on the closed switches, each in the colour of the piece
    that really stands there (followed by hand in tests/test_wooden_board.py), and the squares the
    game fills that the wood does not yet are ghosts."""
    from senet_pi.referee.physical import play_out
    from tests.referee_helpers import walk

    found = False
    for seed in range(12):  # the first seeded game that reaches such a prompt
        new_game(board, variant)
        service, rng = board.service, random.Random(seed)
        game = service.referee.game
        for _turn in range(40):
            if game.winner_id is not None or found:
                break
            if game.pending is None:
                thrown = game.random_throw(rng)
                value = getattr(thrown, "value", thrown)
                service.handle("throw", list(value) if isinstance(value, tuple) else value)
            if not game.move_sequences():
                continue
            steps, _, _ = play_out(game, list(rng.choice(game.move_sequences())))
            changes = walk(game, steps)
            for n, (kind, sq, _truth) in enumerate(changes):
                service.handle(kind, sq)
                settle(board)
                snap = service.snapshot().to_json()
                if snap["owed"] and prompt in str(snap["prompt"]["text"]):
                    found = True
                    rest = changes[n + 1 :]
                    break
            if snap["question"] or snap["warning"]:
                break
        if found:
            break
    assert found, f"no seeded {variant} game reached a prompt with {prompt!r}"
    page = open_page(browser, board, viewport=KIOSK)
    try:
        seen = 0
        for kind, sq, truth in [(None, None, changes[n][2]), *rest]:
            if kind is not None:
                service.handle(kind, sq)
                settle(board)
            snap = service.snapshot().to_json()
            if not snap["owed"]:
                break  # the steps are done: the game's board is the wood's again
            until(lambda truth=truth: drawn_board(page) == truth, timeout=20)
            assert set(drawn_board(page)) == set(snap["sensed"])
            game_board = {int(s): p["owner"] for s, p in snap["squares"].items() if p["owner"]}
            for square_, owner in game_board.items():  # a square the game fills and the wood does not: a ghost
                if square_ not in truth:  # (or the piece lifted from it, drawn faded where it stood)
                    ghost = f'#board .piece.ghost.owner-{owner}[data-goes="{square_}"]'
                    marked = f'{ghost}, #board .piece.lifted[data-on="{square_}"]'
                    expect(page.locator(marked)).to_have_count(1)
            seen += 1
        assert seen >= 1
    finally:
        page.close()


#: Each piece drawn on the main board: where it is on the screen and its classes.
PIECES_DRAWN = """() => [...document.querySelectorAll('#board .piece')].map((p) => {
  const b = p.getBoundingClientRect(); return [Math.round(b.x), Math.round(b.y), p.getAttribute('class')]; })"""


def test_the_board_is_in_the_page_itself_painted_before_any_script_runs(browser, board):
    """With scripts off, the page still shows the board: its 30 squares and the pieces where they
    stand, in the theme chosen (a cookie the script keeps); once the script runs it draws the same
    pieces on the same squares again."""
    context = browser.new_context(viewport=KIOSK, java_script_enabled=False)
    try:
        host = board.url.split("/")[2].split(":")[0]
        context.add_cookies([{"name": "senet-theme", "value": "dark", "domain": host, "path": "/"}])
        page = context.new_page()
        page.goto(board.url)
        expect(page.locator("html")).to_have_attribute("data-theme", "dark")
        expect(page.locator("#board rect.cell")).to_have_count(30)
        served = page.evaluate(PIECES_DRAWN)
        assert len(served) == len(board.service.snapshot().to_json()["squares"])
    finally:
        context.close()
    page = open_page(browser, board, viewport=KIOSK)
    try:
        drawn = page.evaluate(PIECES_DRAWN)
        assert sorted(drawn) == sorted(served)  # the same pieces, the same places: nothing jumps
    finally:
        page.close()
