"""End to end in a real browser: Debian's chromium driven by Playwright plays on the simulated board
by clicking, and the tests check what the page shows. `.ci/run` installs chromium."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time

import pytest
from playwright.sync_api import expect
from werkzeug.security import generate_password_hash

from senet_pi.service import Service
from senet_pi.service.journal import Journal
from senet_pi.verdicts import Offer
from senet_pi_web import shared
from tests.browser_helpers import PIN, LiveBoard, click_move, contrast, locked, piece_on, square, until

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


def played(service: Service) -> int:
    """How many throws and moves the game holds (read under the service's lock, see `locked`)."""
    return locked(service, lambda: len(service.referee.game.actions))


def sign_in(page) -> None:
    """Sign in as the operator through the page's own panel."""
    page.locator("#operator summary").click()
    page.locator("#pin").fill(PIN)
    page.locator("#login > button").click()
    expect(page.locator("#op-state")).to_have_text("Signed in as operator.")


def settle(board: LiveBoard) -> None:
    """Let the settle time pass on the board's manual clock, and judge the settled board now."""
    assert board.clock is not None
    board.clock.now += board.service.settle
    board.service.tick()


def test_the_page_shows_the_board_in_its_s_shape(page):
    assert square(page, 10).bounding_box()["x"] == pytest.approx(square(page, 11).bounding_box()["x"], abs=1)
    assert square(page, 20).bounding_box()["x"] == pytest.approx(square(page, 21).bounding_box()["x"], abs=1)
    expect(piece_on(page, 10, "B")).to_have_count(1)
    expect(page.locator("#turn")).to_have_text("Green to throw")
    expect(page.locator("#message")).to_be_hidden()  # the banner says it: the card does not say it again
    expect(page.locator("#rules")).to_contain_text("dark sides")


def test_clicking_the_button_and_the_squares_plays_a_move(page, board):
    page.locator("#press").click()
    until(lambda: board.service.referee.game.pending is not None)
    value = board.service.referee.game.pending
    expect(page.locator("#throw-text")).to_have_text(f"= {value}")
    expect(page.locator("#sticks rect.lit")).to_have_count(0 if value == 6 else value)
    click_move(page, board, board.service.referee.game.move_sequences()[0])
    expect(page.locator("#history li").first).to_have_text(f"Green 10-{10 + value}")
    expect(piece_on(page, 10 + value, "B")).to_have_count(1)
    expect(piece_on(page, 10)).to_have_count(0)


def test_a_wrong_move_shows_the_warning_the_fix_and_both_boards(page, board):
    board.service.handle("throw", 3)
    square(page, 10).click()
    square(page, 14).click()
    expect(page.locator("#message")).to_have_text("a throw of 3 takes the piece on 10 to 13, not 14 why?")
    expect(page.locator("#message")).to_have_class("message warning")
    expect(page.locator("#fixes")).to_have_text("to put it right: put Green's piece on 14 back on 10")
    expect(page.locator("#compare")).to_be_visible()
    expect(page.locator('#board g[data-square="14"] rect.extra')).to_have_count(1)
    expect(page.locator('#board g[data-square="10"] rect.missing')).to_have_count(1)
    square(page, 14).click()
    square(page, 13).click()
    expect(page.locator("#history li").first).to_have_text("Green 10-13")
    expect(page.locator("#compare")).to_be_hidden()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_run(port: int, journal) -> subprocess.Popen:
    """`senet-pi run` as a person starts it, its standard input left open."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "senet_pi",
            "run",
            "--backend",
            "sim",
            "--page-port",
            str(port),
            "--journal",
            str(journal),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_the_page_recovers_by_itself_after_the_server_restarts(browser, tmp_path):
    port, journal = free_port(), tmp_path / "journal.sqlite"
    server = start_run(port, journal)
    page = browser.new_page()
    try:
        until(lambda: _answers(port), 20)
        page.goto(f"http://127.0.0.1:{port}/")
        expect(page.locator("#link")).to_have_text("live")
        page.locator("#press").click()
        expect(page.locator("#throw-text")).to_contain_text("= ")
        thrown = page.locator("#throw-text").text_content()
        server.kill()
        server.wait()
        server.stdin.close()
        expect(page.locator("#link")).to_have_text("reconnecting...", timeout=10_000)
        server = start_run(port, journal)
        expect(page.locator("#link")).to_have_text("live", timeout=20_000)
        expect(page.locator("#throw-text")).to_have_text(thrown)  # the journal brought the game back
    finally:
        page.close()
        server.kill()
        server.wait()
        server.stdin.close()


def _answers(port: int) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=1) as response:
            return response.status == 200
    except OSError:
        return False


def test_the_operator_signs_in_with_the_pin_and_undoes_a_move(page, board):
    page.locator("#operator summary").click()
    page.locator("#pin").fill("0000")
    page.locator("#login > button").click()
    expect(page.locator("#op-error")).to_contain_text("wrong PIN")
    page.locator("#pin").fill(PIN)
    page.locator("#login > button").click()
    expect(page.locator("#op-state")).to_have_text("Signed in as operator.")
    page.locator("#op-throw input").fill("3")
    page.locator("#op-throw button").click()
    expect(page.locator("#throw-text")).to_have_text("= 3")
    square(page, 10).click()
    square(page, 13).click()
    expect(page.locator("#history li").first).to_have_text("Green 10-13")
    page.locator('[data-op="undo"]').click()
    expect(page.locator("#message")).to_have_text("put Green's piece on 13 back on 10")
    square(page, 13).click()
    square(page, 10).click()
    expect(page.locator("#message")).to_have_text("Green: move a piece by 3")


def test_the_hardware_page_shows_the_switches_and_leds(browser, board):
    page = browser.new_page()
    page.goto(board.url + "hardware")
    expect(page.locator("#switches circle.switch-on")).to_have_count(10)
    board.backend.sim.place(20)
    board.service.handle("throw", 1)  # any verdict pushes a fresh state to the page
    expect(page.locator("#switches circle.switch-on")).to_have_count(11)
    page.close()


@pytest.fixture
def timed_board():
    """A live board whose referee's clock the test moves (see ManualClock)."""
    live = LiveBoard(manual_clock=True)
    yield live
    live.close()


@pytest.mark.slow
def test_a_whole_game_is_played_with_the_mouse(browser, timed_board):
    """The newcomer's game: press the throw button, click the squares, to the end."""
    board = timed_board
    page = browser.new_page(viewport={"width": 1280, "height": 820})
    page.goto(board.url)
    expect(page.locator("#link")).to_have_text("live")
    service = board.service
    chooser = random.Random(2)
    for _ in range(1500):
        with service.lock:  # see locked()
            game = service.referee.game
            if game.is_over:
                break
            before = len(game.actions)
        page.locator("#press").click()
        until(lambda before=before: played(service) > before)
        with service.lock:
            if game.pending is None:
                continue  # forfeited
            moves = chooser.choice(game.move_sequences())
        click_move(page, board, moves)
        settle(board)
        with service.lock:
            assert game.pending is None
            assert not service.referee.steps_left
            assert service.referee.warning is None
            assert service.referee.question is None
    assert service.referee.game.is_over
    expect(page.locator("#message")).to_have_class("message win")
    expect(page.locator("#turn")).to_contain_text("has won")
    page.close()


def test_a_card_played_from_a_players_page_shows_its_prompt_on_the_main_page(browser):
    from senet_pi.rules.cards import default_deck

    deck = default_deck()
    random.Random(9).shuffle(deck)
    live = LiveBoard(variant="secret")
    live.service.new_game("cards", options={"deck_order": deck, "shuffle_seed": 9})
    live.backend.sim.set_occupied(live.service.referee.expected)
    main = browser.new_page()
    phone = browser.new_page(viewport={"width": 390, "height": 800})
    try:
        main.goto(live.url)
        expect(main.locator("#turn")).to_have_text("Green to play")
        expect(main.locator("#message")).to_be_hidden()
        phone.goto(live.url + "hands")
        link = phone.locator("a", has_text="/hand/B/").get_attribute("href")
        phone.goto(link)
        game = live.service.referee.game
        card = next(c for c in game.hand("B") if c in "12345" and game.playable(c))
        phone.locator("#cards button", has_text=card).first.click()
        phone.locator("#play").click()
        expect(main.locator("#message")).to_have_text(f"Green: move a piece by {card}")
        expect(phone.locator("#hand-turn")).to_have_text("now move your pawn on the board")
    finally:
        main.close()
        phone.close()
        live.close()


# Counts a hand page's own reads of its hand (GET /api/hand/...): asked, answered, and answers
# whose JSON is still being read. When all are done, the page has drawn (or dropped) every answer.
COUNT_HAND_READS = """
window.handAsks = 0; window.handAnswers = 0; window.handReading = 0; window.handFailures = [];
const realFetch = window.fetch;
window.fetch = (url, init) => {
  const read = String(url).includes("/api/hand/") && !(init && init.method && init.method !== "GET");
  if (!read) return realFetch(url, init);
  window.handAsks++;
  return realFetch(url, init).then((response) => {
    window.handAnswers++;
    const json = response.json.bind(response);
    response.json = () => { window.handReading++; return json().finally(() => { window.handReading--; }); };
    return response;
  }, (error) => { window.handFailures.push(String(error)); throw error; });
};
"""
# Every read of the hand has been answered (or has failed) and read: polled on a timer, not on
# animation frames, which a browser may hold back for a page it does not show.
HAND_QUIET = "() => window.handAsks === window.handAnswers + window.handFailures.length && window.handReading === 0"


def wait_for_quiet_hand(page) -> None:
    """Wait until no read of the hand is in flight; on a timeout say what the page counted."""
    try:
        page.wait_for_function(HAND_QUIET, polling=50, timeout=30_000)
    except Exception as error:  # the counters make a hang on a loaded machine readable
        counts = page.evaluate("() => [window.handAsks, window.handAnswers, window.handReading, window.handFailures]")
        raise AssertionError(f"hand reads still in flight (asked, answered, reading, failed): {counts}") from error


def test_a_hand_page_never_draws_an_older_answer_over_a_newer_one(browser):
    """A phone's hand is read again on every live event and every click, so reads overlap; an older
    answer arriving last drew a stale hand (no playable card on the player's turn, the flaky
    whole-game test) that nothing redrew until the next event."""
    from senet_pi.rules.cards import default_deck

    deck = default_deck()
    random.Random(9).shuffle(deck)
    live = LiveBoard(variant="secret")
    live.service.new_game("cards", options={"deck_order": deck, "shuffle_seed": 9})
    phone = browser.new_page(viewport={"width": 390, "height": 800})
    phone.add_init_script(COUNT_HAND_READS)
    held: list = []

    def hold_the_first_answer(route) -> None:  # the answer as the server gives it now, delivered later
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))

    try:
        phone.goto(live.url + "hands")
        phone.goto(phone.locator("a", has_text="/hand/B/").get_attribute("href"))
        expect(phone.locator("#hand-turn")).to_have_text("your turn: play a card or exchange")
        wait_for_quiet_hand(phone)
        phone.route("**/api/hand/B/*", hold_the_first_answer)
        live.service.note(Offer("a live event: the page reads its hand"))
        while not held:
            phone.wait_for_timeout(10)  # lets Playwright dispatch the route handler
        game = live.service.referee.game
        card = next(c for c in game.hand("B") if game.playable(c))
        live.service.handle("card", card)  # B played: another live event, another read
        expect(phone.locator("#hand-turn")).to_have_text("now move your pawn on the board")
        route, stale = held[0]
        route.fulfill(response=stale)  # the older answer (B to play a card) arrives last
        wait_for_quiet_hand(phone)
        expect(phone.locator("#hand-turn")).to_have_text("now move your pawn on the board")
        expect(phone.locator("#cards button.playable")).to_have_count(0)
    finally:
        phone.close()
        live.close()


@pytest.mark.slow
def test_a_whole_card_game_with_two_phones_as_hands(browser):
    """Two people, their phones as hands (K10), the pieces moved by clicking the simulated board."""
    from senet_pi.rules.cards import default_deck

    deck = default_deck()
    random.Random(12).shuffle(deck)
    live = LiveBoard(variant="secret", manual_clock=True)
    live.service.new_game("cards", options={"deck_order": deck, "shuffle_seed": 12})
    live.backend.sim.set_occupied(live.service.referee.expected)
    board = browser.new_page(viewport={"width": 1280, "height": 820})
    phones = {}
    chooser = random.Random(4)
    service = live.service
    try:
        board.goto(live.url)
        hands = browser.new_page()
        hands.goto(live.url + "hands")
        for pid in ("A", "B"):
            phones[pid] = browser.new_page(viewport={"width": 390, "height": 800})
            phones[pid].goto(hands.locator("a", has_text=f"/hand/{pid}/").get_attribute("href"))
        hands.close()
        for _ in range(600):
            with service.lock:  # see locked()
                game = service.referee.game
                if game.is_over:
                    break
                pid = game.to_move_id
                before = len(game.actions)
                playable = [c for c in game.hand(pid) if game.playable(c)]
            phone = phones[pid]
            if playable:
                card = chooser.choice(playable)
                phone.locator(f'#cards button.playable[data-card="{card}"]').first.click()  # its words, not its code
                phone.locator("#play").click()
            else:
                phone.locator("#cards button").first.click()
                phone.locator("#exchange").click()
            until(lambda before=before: played(service) > before)
            while True:
                with service.lock:
                    if game.is_over or (game.pending is None and game.phase == "play"):
                        break
                    passing = game.phase == "residue" and chooser.random() < 0.3
                    before = len(game.actions)
                    moves = None if passing else chooser.choice(game.move_sequences())
                if passing:
                    phones[pid].locator("#pass").click()
                    until(lambda g=game: locked(service, lambda: g.phase) != "residue")
                    continue
                click_move(board, live, moves)
                settle(live)
                with service.lock:
                    assert len(game.actions) > before
                    assert not service.referee.steps_left
                    assert service.referee.warning is None
                    assert service.referee.question is None
        assert service.referee.game.is_over
        expect(board.locator("#message")).to_have_class("message win")
        expect(phones["A"].locator("#hand-turn")).to_contain_text("has won")
    finally:
        for page in [board, *phones.values()]:
            page.close()
        live.close()


def test_the_page_works_live_under_its_csp_with_no_console_errors(browser, board):
    """The Content-Security-Policy forbids inline script and style: the page must not need them."""
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type in ("error", "warning") else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    try:
        response = page.goto(board.url)
        assert "script-src 'self'" in response.headers["content-security-policy"]
        expect(page.locator("#link")).to_have_text("live")
        page.locator("#press").click()
        until(lambda: board.service.referee.game.pending is not None)
        expect(page.locator("#throw-text")).to_contain_text("= ")
        sign_in(page)
        page.goto(board.url + "hardware")
        expect(page.locator("#switches circle.switch-on")).to_have_count(10)
        page.goto(board.url + "hands")
        expect(page.locator(".hands-links")).to_contain_text("not the card game")
        assert problems == []
    finally:
        page.close()


def test_the_page_cannot_be_framed_by_another_page(browser, board):
    page = browser.new_page()
    blocked: list[str] = []
    page.on("console", lambda msg: blocked.append(msg.text))
    try:
        page.set_content(f'<iframe id="f" src="{board.url}"></iframe>')
        frame = page.locator("#f")
        expect(frame).to_have_count(1)
        until(lambda: any("frame-ancestors" in m or "Refused to display" in m for m in blocked), 10)
        assert page.frames[1].locator("#board").count() == 0
    finally:
        page.close()


def test_a_second_click_on_a_square_before_the_first_is_answered_does_the_opposite(page, board):
    """A slow answer (a loaded Pi, two quick clicks): lift the piece on 10, and click 10 again while
    the lift's answer is still on its way: that puts it back, never tries to lift it twice (refused),
    and it reaches the board after the lift (clicks are sent in order, each after the last answer)."""
    sim = board.backend.sim
    held: list = []

    def hold_the_first_answer(route) -> None:  # the server acts at once; the page hears of it later
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))

    page.route("**/api/sim/*", hold_the_first_answer)
    square(page, 10).click()
    while not held:
        page.wait_for_timeout(10)  # lets Playwright dispatch the route handler
    assert not sim.magnets >> 10 & 1  # lifted on the board; the page has no answer yet
    square(page, 10).click()  # decided now, from the board as the first click left it: put back
    page.wait_for_timeout(50)
    assert not sim.magnets >> 10 & 1  # sent in the order clicked: it waits for the first answer
    route, answer = held[0]
    route.fulfill(response=answer)
    until(lambda: page.wait_for_timeout(10) or bool(sim.magnets >> 10 & 1))  # put back (Playwright routes it meanwhile)
    until(lambda: bool(board.service.referee.sensed >> 10 & 1))
    expect(page.locator("#op-error")).to_have_text("")
    square(page, 10).click()  # and the page knows the piece is there: the next click lifts it
    until(lambda: not sim.magnets >> 10 & 1)


def test_a_state_sent_before_a_clicks_answer_but_arriving_after_it_does_not_undo_what_the_page_knows(page, board):
    """The race that failed the test above under load: a click's answer and the live states come on
    different connections, so a state made when the piece on 10 was lifted can reach the page after
    the answer to putting it back, and once no click was on its way the page took that state's
    switches as the board (the next click "placed" on 10: refused). A state made between the scanner's
    reading and the referee's judging of it says no move is in progress. The page now keeps the newer
    reading, by the simulated board's count of moves: the next click lifts again."""
    sim = board.backend.sim
    square(page, 10).click()
    until(lambda: not board.service.referee.sensed >> 10 & 1)  # lifted, and sensed so
    lifted = page.evaluate("() => fetch('/api/state').then((r) => r.json())")  # the board without 10
    assert 10 not in lifted["backend"]["switches"]
    assert lifted["backend"]["moves"] == sim.moves
    lifted["in_progress"] = False  # made as the scanner saw the lift, before the referee judged it
    answered = "() => simAnswered === simAsked"
    page.wait_for_function(answered)
    square(page, 10).click()  # put back
    page.wait_for_function(answered)
    assert sim.magnets >> 10 & 1
    page.evaluate("(late) => render(late)", lifted)  # the older state, as the live stream delivers it late
    square(page, 10).click()
    page.wait_for_function(answered)
    expect(page.locator("#op-error")).to_have_text("")  # not "square 10 already holds a piece"
    assert not sim.magnets >> 10 & 1  # lifted again


def test_a_stuck_switch_is_named_on_the_page(page, board):
    """The square whose switch is judged stuck is said where the visitor looks."""
    board.backend.sim.stick(1, "open")  # a dead switch under A's piece on 1
    deadline = time.monotonic() + 10
    while board.service.referee.sensed >> 1 & 1 and time.monotonic() < deadline:
        time.sleep(0.02)  # the scanner sees the switch open
    board.service.handle("resync")  # the board wins, but a piece is never taken off the game
    expect(page.locator("#message")).to_contain_text("the switch under 1 seems stuck open")
    assert board.service.referee.game.board()[1] == "A"


# ------------------------------------------------------- the page for a visitor who has never seen Senet


def shot(locator, tmp_path, name: str) -> None:
    """Screenshot one element in the test and check the picture is of that element (its size), not its pixels."""
    path = tmp_path / f"{name}.png"
    box = locator.bounding_box()
    locator.screenshot(path=str(path))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert box is not None
    assert abs(width - box["width"]) <= 2
    assert abs(height - box["height"]) <= 2


def test_a_refused_throw_is_said_where_the_visitor_looks(page, board, tmp_path):
    board.service.handle("throw", 3)
    expect(page.locator("#throw-text")).to_have_text("= 3")
    expect(page.locator("#refusal")).to_be_hidden()
    page.locator("#press").click()  # B must play the 3 first: the thrower refuses, and the page says so
    refusal = page.locator("#refusal")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("not taken: the thrower is not taking a throw")
    # said once to a screen reader, by the page's one live region, not re-read at every update
    expect(page.locator("#announce")).to_contain_text("the thrower is not taking a throw")
    shot(refusal, tmp_path, "refusal")
    square(page, 10).click()
    square(page, 13).click()
    expect(page.locator("#history li").first).to_have_text("Green 10-13")
    expect(refusal).to_be_hidden()  # the game went on: the refusal is old news


def test_a_lifted_piece_is_in_the_hand_and_its_squares_are_shown(page, board, tmp_path):
    board.service.handle("throw", 3)
    square(page, 10).focus()  # lift B's piece (S2: the only one that may move), by keyboard
    page.keyboard.press("Enter")
    expect(piece_on(page, 10, "B")).to_have_class(re.compile(r"\blifted\b"))
    expect(page.locator("#in-hand")).to_have_text("Green's piece from 10 is in the hand — it may go to 13")
    expect(page.locator("#board rect.target")).to_have_count(1)
    expect(page.locator('#board g[data-square="13"] rect.target')).to_have_count(1)
    expect(page.locator("#compare")).to_be_hidden()  # a piece in the hand is no disagreement to show
    shot(page.locator("#board"), tmp_path, "in-hand")
    square(page, 13).click()
    expect(page.locator("#history li").first).to_have_text("Green 10-13")
    expect(page.locator("#in-hand")).to_have_text("")
    expect(page.locator("#board .piece.lifted")).to_have_count(0)


def test_the_pieces_that_may_move_are_hinted_and_the_rules_moves_drawn(page, board, tmp_path):
    board.service.handle("throw", 1)
    expect(page.locator("#board rect.movable")).to_have_count(1)  # S2: only the piece on 10
    expect(page.locator('#board g[data-square="10"] rect.movable')).to_have_count(1)
    shot(page.locator("#board"), tmp_path, "hints")
    page.locator("#hints").click()  # an experienced player hides the hints, and the choice is kept
    expect(page.locator("#board rect.movable")).to_have_count(0)
    expect(page.locator("#hints")).to_have_attribute("aria-pressed", "true")
    page.reload()
    expect(page.locator("#link")).to_have_text("live")
    expect(page.locator("#throw-text")).to_have_text("= 1")
    expect(page.locator("#board rect.movable")).to_have_count(0)
    page.locator("#hints").click()
    expect(page.locator("#board rect.movable")).to_have_count(1)
    # B 10-11, B 11-13 (throw 2), then A's 4 takes 9 to 13: the exchange (P4) is the rules' own move
    click_move(page, board, board.service.referee.game.move_sequences()[0])
    expect(page.locator('#board path.arrow.move[data-from="10"][data-to="11"]')).to_have_count(1)
    board.service.handle("throw", 2)
    click_move(page, board, [m for (m,) in board.service.referee.game.move_sequences() if m.from_sq == 11])
    board.service.handle("throw", 4)
    exchange = [m for (m,) in board.service.referee.game.move_sequences() if m.from_sq == 9]
    click_move(page, board, exchange)
    expect(page.locator('#board path.arrow.move[data-from="9"][data-to="13"]')).to_have_count(1)
    expect(page.locator('#board path.arrow.rule[data-from="13"][data-to="9"]')).to_have_count(1)
    expect(page.locator("#history li").last).to_have_text("White 9-13 (exchange)")
    shot(page.locator("#board"), tmp_path, "arrows")


def test_ruling_ids_explain_themselves_and_how_to_play_is_the_rule_sets_own(page, board, tmp_path):
    from senet_pi.rules.plain import PLAIN

    game = board.service.referee.game
    expect(page.locator("#how-list li")).to_have_count(len(game.how_to_play))
    expect(page.locator("#how-list li").first).to_have_text(game.how_to_play[0])
    board.service.handle("throw", 3)
    square(page, 10).click()
    square(page, 14).click()
    message = page.locator("#message")
    expect(message).to_have_text("a throw of 3 takes the piece on 10 to 13, not 14 why?")
    ruling = message.locator("button.ruling-id")
    expect(ruling).to_have_text("why?")  # the id waits behind a "why?"
    expect(ruling).to_have_attribute("data-ruling", "P3")
    expect(ruling).to_have_attribute("aria-describedby", "ruling-P3")
    expect(page.locator("#ruling-P3")).to_have_text(PLAIN["P3"])
    tip = page.locator("#tip")
    expect(tip).to_be_hidden()
    ruling.hover()
    expect(tip).to_be_visible()
    expect(tip).to_have_text(f"P3: {PLAIN['P3']}")
    shot(tip, tmp_path, "tip")
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()
    ruling.focus()  # by keyboard too
    expect(tip).to_be_visible()


@pytest.mark.parametrize(
    ("variant", "value", "dark", "pale"),
    [("secret", 3, 3, 1), ("secret", 6, 0, 4), ("houses", 3, 1, 3), ("houses", 5, 4, 0)],
)
def test_the_sticks_show_the_faces_the_rule_set_counts(page, board, tmp_path, variant, value, dark, pale):
    """S1 counts dark sides (none = 6), H1 white ones (none = 5)."""
    if variant != "secret":
        board.service.new_game(variant)
    board.service.handle("throw", value)
    expect(page.locator("#throw-text")).to_have_text(f"= {value}")
    expect(page.locator("#sticks rect.dark")).to_have_count(dark)
    expect(page.locator("#sticks rect.pale")).to_have_count(pale)
    counted = "dark" if variant == "secret" else "white"
    expect(page.locator("#sticks")).to_have_attribute("aria-label", re.compile(f"{value} .*{counted} side"))
    shot(page.locator("#sticks"), tmp_path, f"sticks-{variant}-{value}")


def test_hands_and_the_operator_panel_say_what_to_do(browser, tmp_path):
    live = LiveBoard(pin=False)  # a fresh install: no PIN set
    try:
        page = browser.new_page()
        page.goto(live.url)
        expect(page.locator("#link")).to_have_text("live")
        page.locator("#operator summary").click()
        help_ = page.locator("#op-help")
        expect(help_).to_be_visible()
        expect(help_.locator("code")).to_have_text("senet-pi set-pin")
        expect(page.locator("#login")).to_be_hidden()
        shot(help_, tmp_path, "op-help")
        page.goto(live.url + "hands")
        links = page.locator(".hands-links")
        expect(links).to_contain_text("not the card game")
        expect(links.locator("code")).to_have_text("senet-pi run --ruleset cards")
        expect(links).not_to_contain_text("scans their own code: the page")  # no codes: no talk of them
        shot(links, tmp_path, "hands-help")
        page.close()
    finally:
        live.close()


def test_a_pin_set_while_the_page_is_open_is_taken_without_a_reload(browser):
    """The help says "this page takes it at once": `senet-pi set-pin` while the page is open."""
    live = LiveBoard(pin=False)
    try:
        page = browser.new_page()
        page.goto(live.url)
        expect(page.locator("#link")).to_have_text("live")
        page.locator("#operator summary").click()
        expect(page.locator("#op-help")).to_be_visible()
        guard = shared(live.server.app).pin_guard
        guard._hash = generate_password_hash(PIN)  # what set-pin leaves in force
        expect(page.locator("#op-help")).to_be_hidden(timeout=15_000)
        expect(page.locator("#login")).to_be_visible()
        page.close()
    finally:
        live.close()


def test_with_a_pin_the_operator_panel_asks_for_it(page):
    page.locator("#operator summary").click()
    expect(page.locator("#op-help")).to_be_hidden()
    expect(page.locator("#login")).to_be_visible()


def test_on_a_phone_the_board_stands_with_a_fingers_squares_and_comparisons_show_only_when_they_differ(
    browser, board, tmp_path
):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(board.url)
    expect(page.locator("#link")).to_have_text("live")
    drawn = page.locator("#board").bounding_box()
    assert drawn["height"] > 2 * drawn["width"]  # upright: three columns of ten, not ten squares of 35 px across
    cell = square(page, 1).locator("rect").bounding_box()
    assert cell["width"] >= 44
    assert cell["height"] >= 44
    assert square(page, 11).bounding_box()["y"] == pytest.approx(square(page, 10).bounding_box()["y"], abs=1)  # P1
    number = page.locator('#board text.num:text-is("23")').bounding_box()
    assert number["height"] >= 10  # was 7 px: the numbers are readable on a phone
    expect(page.locator("#compare")).to_be_hidden()
    board.service.handle("throw", 3)
    square(page, 10).click()
    square(page, 14).click()
    expect(page.locator("#message")).to_have_class("message warning")
    expect(page.locator("#compare")).to_be_visible()
    for board_id in ("#sensed", "#expected"):  # one above the other, each the full width
        assert page.locator(board_id).bounding_box()["width"] >= 360
    shot(page.locator("#compare"), tmp_path, "phone-compare")
    square(page, 14).click()
    square(page, 13).click()
    expect(page.locator("#compare")).to_be_hidden()
    page.close()


def themes(page):
    """The page in the light theme, then in the dark one (switched with its own button)."""
    yield "light"
    page.locator("#theme").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    yield "dark"


def test_the_board_is_drawn_for_an_exhibit_in_both_themes(page, board, tmp_path):
    expect(page.locator('#board g[data-square="15"] .glyph')).not_to_have_count(0)  # the ankh
    expect(page.locator('#board g[data-square="27"] .glyph')).not_to_have_count(0)  # the water
    expect(page.locator("#board .piece.owner-A path.body")).to_have_count(5)  # cones
    expect(page.locator("#board .piece.owner-B path.body")).to_have_count(5)  # spools
    expect(page.locator("#board polyline.s-path")).to_have_count(1)
    colours = "([getComputedStyle(document.body).color, getComputedStyle(document.body).backgroundColor])"
    for theme in themes(page):
        ink, paper = page.evaluate(colours)
        assert contrast(ink, paper) >= 7, (theme, ink, paper)
        num = page.locator("#board text.num").first.evaluate("(e) => getComputedStyle(e).fill")
        cell = page.locator("#board rect.cell").first.evaluate("(e) => getComputedStyle(e).fill")
        assert contrast(num, cell) >= 4.5, (theme, num, cell)
        shot(page.locator("#board"), tmp_path, f"board-{theme}")
    page.reload()  # the choice is kept
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    board.service.handle("throw", 2)
    square(page, 10).click()
    square(page, 12).click()
    expect(page.locator("#board")).to_have_attribute("data-animated", "10-12")  # the piece glided 10 -> 12
    expect(piece_on(page, 12, "B")).to_have_count(1)
    expect(page.locator("#board .gliding")).to_have_count(0)  # and the glide ends


def test_the_staff_statistics_are_legible_in_the_dark_theme(browser, tmp_path):
    """The staff page's plots draw their words and axes in the theme's ink, not a fixed dark grey."""
    live = LiveBoard(journal=Journal(tmp_path / "journal.sqlite"))
    try:
        live.service.handle("throw", 2)
        live.service.new_game("secret", 2)  # one abandoned game and one open: the plots have a day
        page = browser.new_page()
        page.goto(live.url)
        sign_in(page)
        page.goto(live.url + "staff")
        expect(page.locator(".staff svg")).to_have_count(3)
        paper = "getComputedStyle(document.body).backgroundColor"
        for theme in themes(page):
            background = page.evaluate(paper)
            texts = page.locator(".staff svg text")
            assert texts.count() > 5
            for i in range(texts.count()):
                ink = texts.nth(i).evaluate("(e) => getComputedStyle(e).fill")
                assert contrast(ink, background) >= 4.5, (theme, i, ink, background)
            axis = page.locator(".staff svg line").last.evaluate("(e) => getComputedStyle(e).stroke")
            assert contrast(axis, background) >= 3, (theme, axis, background)
            shot(page.locator(".staff"), tmp_path, f"staff-{theme}")
        page.close()
    finally:
        live.close()


def test_no_glide_for_a_visitor_who_asks_for_less_motion(browser, board):
    page = browser.new_page(reduced_motion="reduce")
    page.goto(board.url)
    expect(page.locator("#link")).to_have_text("live")
    board.service.handle("throw", 2)
    square(page, 10).click()
    square(page, 12).click()
    expect(page.locator("#history li").first).to_have_text("Green 10-12")
    expect(piece_on(page, 12, "B")).to_have_count(1)
    assert page.locator("#board").get_attribute("data-animated") is None
    page.close()


@pytest.mark.slow
def test_the_readme_screenshots_are_made_by_their_script(tmp_path):
    """docs/*.png are reproducible: kiosk, phone, an illegal move, a win, the setup after an
    idle reset, each played to its moment by the script and photographed at its size."""
    script = os.path.join(os.path.dirname(__file__), "..", "scripts", "screenshot.py")
    done = subprocess.run([sys.executable, script, str(tmp_path)], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    kiosk = (1920, 1080)
    sizes = {"kiosk": kiosk, "phone": (390, 844), "illegal": (1280, 800), "win": kiosk, "setup": kiosk}
    for name, size in sizes.items():
        data = (tmp_path / f"{name}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == size, name


# ------------------------------------------------------- languages


def test_the_page_in_german_and_arabic_with_the_switch(browser, board, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 820})
    page.goto(board.url + "?lang=de")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("#link")).to_have_text("live")
    expect(page.locator("#turn")).to_contain_text("Grün ist am Wurf")  # the page's own words, through _()
    board.service.new_game("secret", 2)
    expect(page.locator("#history li").first).to_have_text("neues Spiel")  # the history's words too
    board.service.handle("throw", 3)
    expect(page.locator("#throw-text")).to_have_text("= 3")
    page.locator("#press").click()  # B must play the 3 first: refused, in German, where the visitor looks
    expect(page.locator("#refusal")).to_contain_text("nicht angenommen: der Wurfknopf nimmt keinen Wurf an: ")
    square(page, 10).click()  # the piece on 10 to 12: a throw of 3 takes it to 13
    square(page, 12).click()
    message = page.locator("#message")
    expect(message).to_have_text("ein Wurf von 3 bringt den Stein auf 10 nach 13, nicht nach 12 warum?")
    expect(page.locator("#fixes")).to_have_text("so wird es richtig: Stein von Grün auf 12 zurück auf 10 stellen")
    page.locator("#languages a", has_text="العربية").click()  # the switch, in the header
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("#how summary")).to_have_text("طريقة اللعب")
    expect(message).to_have_text("الرمية 3 تنقل القطعة من 10 إلى 13، لا إلى 12 لماذا؟")
    one, ten, eleven = (square(page, sq).bounding_box() for sq in (1, 10, 11))
    assert one["x"] < ten["x"]
    assert abs(eleven["x"] - ten["x"]) < 2  # still the wooden board's S, not mirrored
    shot(page.locator(".board-area"), tmp_path, "board-rtl")
    page.goto(board.url)  # the cookie keeps the choice
    expect(page.locator("html")).to_have_attribute("lang", "ar")
    page.close()
