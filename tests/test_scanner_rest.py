"""When the switch scanner may rest: only while the game waits for a press of the button (a throw, or
a won game) with nothing open and nothing lifted, after a still minute; while a hand is expected (a
move, the rules' own moves, a fix, a question) only after HAND_REST_AFTER, the backstop for a board
left mid-move. Derived from the referee's state (`idle.hand_expected`), told to the board by the
service after every batch (`ReedSwitchBoard.expect_hand`); a mock clock, no timed assertions."""

from __future__ import annotations

import random

import pytest
from gpiozero.pins.mock import MockFactory

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.board import HAND_REST_AFTER, REST_AFTER, REST_RATE, SCAN_RATE, ReedSwitchBoard
from senet_pi.hardware.sim import SimBoard
from senet_pi.referee.state import Mode
from senet_pi.service.core import Service
from senet_pi.service.idle import hand_expected
from tests.journal_helpers import ScriptClock
from tests.referee_replay_helpers import GUIDE_MS, SETTLE_MS, Session

FULL, REST = 1 / SCAN_RATE, 1 / REST_RATE
SEED = 1  # the sticks' randomness: A's first throw by the button has a move to play


def period(board: ReedSwitchBoard, clock: ScriptClock) -> float:
    """The time from a scan due now to the next: 1/SCAN_RATE at full rate, 1/REST_RATE at rest."""
    return board.next_scan(clock.t, clock.t) - clock.t


@pytest.fixture
def board(pinmap):
    sim = SimBoard(pinmap, MockFactory())
    clock = ScriptClock()
    board = ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=sim.factory, clock=clock)
    yield board, clock
    board.close()


# ---------------------------------------------------------------------- the board's rule


def test_a_hand_expected_keeps_the_scanner_at_full_rate_until_the_backstop(board):
    board, clock = board
    board.expect_hand(True)
    clock.t += REST_AFTER + 1
    assert period(board, clock) == pytest.approx(FULL), "a player thinking past a minute: still full rate"
    clock.t += HAND_REST_AFTER - REST_AFTER - 2
    assert period(board, clock) == pytest.approx(FULL)
    clock.t += 2
    assert period(board, clock) == pytest.approx(REST), "left mid-move past the backstop: resting"
    board.expect_hand(True)  # the next batch of verdicts says the same: an abandoned board stays at rest
    assert period(board, clock) == pytest.approx(REST)


def test_waiting_for_the_button_the_scanner_rests_after_a_still_minute_and_a_hand_expected_wakes_it(board):
    board, clock = board
    board.expect_hand(False)
    clock.t += REST_AFTER - 1
    assert period(board, clock) == pytest.approx(FULL)
    clock.t += 2
    assert period(board, clock) == pytest.approx(REST), "an idle board waiting for a throw rests as before"
    board.expect_hand(True)  # a throw from the page, a question, a board put wrong: a hand comes next
    assert period(board, clock) == pytest.approx(FULL)
    board.expect_hand(False)
    assert period(board, clock) == pytest.approx(FULL), "the still minute counts from the wake"
    clock.t += REST_AFTER
    assert period(board, clock) == pytest.approx(REST)


def test_a_board_told_nothing_rests_as_before(board):
    """A board no service tells anything (a test, a tool) rests after the still minute, as it always did."""
    board, clock = board
    clock.t += REST_AFTER
    assert period(board, clock) == pytest.approx(REST)
    board.wake()
    assert period(board, clock) == pytest.approx(FULL)


# ---------------------------------------------------------------------- what the referee's state says


def test_a_hand_is_expected_for_a_move_owed_not_for_a_throw():
    s = Session("secret")
    assert s.referee.mode is Mode.THROW and not hand_expected(s.referee), "a new game waits for the button"
    s.throw(2)
    assert s.referee.mode is Mode.MOVE and hand_expected(s.referee), "a throw waits to be played by hand"
    s.do("lift 10")
    assert hand_expected(s.referee)
    s.do("place 12")
    assert s.referee.mode is Mode.THROW and not hand_expected(s.referee), "moved: the next player throws"


def test_a_hand_is_expected_for_the_rules_own_moves_and_a_question():
    s = Session("secret")
    s.throw(2)
    s.do("lift 10", "place 12")
    s.throw(3)
    s.do("lift 9", "lift 12", "place 12 from 9")  # A's piece onto B's: B's is owed on 9 (an exchange)
    assert s.referee.mode is Mode.PROMPTS
    assert hand_expected(s.referee)
    s.wait(GUIDE_MS)
    assert hand_expected(s.referee), "however long the prompt stands"
    s.do("place 9 from 12")
    assert s.referee.mode is Mode.THROW
    assert not hand_expected(s.referee)

    asked = Session("secret")
    asked.throw(2)
    asked.do("lift 10", "place 12")
    assert not hand_expected(asked.referee)
    asked.do("lift 12", "place 10")  # the last move taken back by hand: undo it?
    assert asked.referee.mode is Mode.ANSWER
    assert hand_expected(asked.referee)
    asked.answer("keep")
    assert hand_expected(asked.referee), "kept: the board is wrong now, to be put right by hand"


def test_a_piece_lifted_before_the_throw_expects_a_hand_and_a_won_game_does_not():
    s = Session("secret")
    s.feed({"lift": 10})
    assert s.referee.mode is Mode.THROW and hand_expected(s.referee), "something lifted: not at rest"
    s.wait(SETTLE_MS + GUIDE_MS)
    assert s.referee.mode is Mode.FIX
    assert hand_expected(s.referee)
    s.do("place 10")
    assert not hand_expected(s.referee), "put back: waiting for the button again"

    won = Session("secret", position={"A": [30], "B": [20], "off": {"A": 4, "B": 4}, "to_move": "A"})
    won.throw(1)
    assert hand_expected(won.referee)
    won.do("lift 30")
    assert won.referee.mode is Mode.OVER
    assert not hand_expected(won.referee)
    won.do("lift 20")  # the board cleared after the win: nothing the game waits for
    assert not hand_expected(won.referee)


# ---------------------------------------------------------------------- the service tells the board


def test_the_service_tells_the_simulated_board_and_a_move_owed_is_never_seen_late(pinmap):
    """A throw from the page (no button pressed) wakes the resting scanner; however long the player
    thinks, the scanner stays at full rate until the move is made; then it rests after a still minute;
    a board left mid-move rests after the backstop."""
    clock = ScriptClock()
    service = Service(None, clock=clock)
    backend = SimBackend(pinmap, spin=0, clock=clock, rng=random.Random(SEED))
    backend.start(service, scan=False)
    try:
        board = backend.board
        assert board is not None
        assert not service.hand_expected
        clock.t += REST_AFTER + 1
        assert period(board, clock) == pytest.approx(REST), "a new game waiting for a throw rests"
        service.handle("throw", 2)
        assert service.hand_expected
        assert period(board, clock) == pytest.approx(FULL), "a throw from the page wakes the scanner"
        clock.t += 5 * REST_AFTER  # a long think
        assert period(board, clock) == pytest.approx(FULL)
        backend.sim.lift(10)
        for _ in range(2):
            clock.t += 0.005
            board.scan_once()
        backend.sim.place(12)
        for _ in range(2):
            clock.t += 0.005
            board.scan_once()
        clock.t += 1
        service.tick()
        assert service.to_move == "A" and not service.hand_expected, "moved: A throws next"
        clock.t += REST_AFTER - 2
        assert period(board, clock) == pytest.approx(FULL)
        clock.t += 2
        assert period(board, clock) == pytest.approx(REST)
        backend.press()  # the button: a throw with a move to play, and the scanner at full rate at once
        assert service.hand_expected
        assert service.snapshot().to_json()["legal"]
        assert period(board, clock) == pytest.approx(FULL)
        clock.t += HAND_REST_AFTER - 1
        assert period(board, clock) == pytest.approx(FULL)
        clock.t += 2  # the board left with the move owed: the backstop
        assert period(board, clock) == pytest.approx(REST)
    finally:
        backend.close()
