"""The referee on switch events: settle, two-stage alarms, exchanges, prompts, questions, recovery."""

from __future__ import annotations

import pytest

from senet_pi.errors import RefereeError
from senet_pi.referee import Referee
from senet_pi.rules import new_game
from senet_pi.verdicts import Sensor
from tests.referee_helpers import Hands, as_json, kinds, moves_in
from tests.rules_helpers import at


def test_a_move_is_judged_only_once_the_board_has_settled():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    assert kinds(hands.do("lift 10", "place 13")) == ["progress"]  # stage one, at once
    assert hands.wait(300) == []  # 0.3 s: still moving as far as the referee knows
    verdicts = hands.wait(100)
    assert moves_in(verdicts) == ["10-13"]
    assert verdicts[-1] == {"v": "turn", "player": "A"}


def test_the_squares_a_sliding_piece_passes_over_do_not_count():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    verdicts = hands.do("lift 10", "place 11", "lift 11", "place 12", "lift 12", "place 13", wait=500)
    assert moves_in(verdicts) == ["10-13"]
    assert "illegal" not in kinds(hands.seen)


def test_bouncing_into_place_is_one_move():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    verdicts = hands.do("lift 10", "place 13", "lift 13", "place 13", "lift 13", "place 13", wait=500)
    assert moves_in(verdicts) == ["10-13"]


def test_a_piece_knocked_and_put_back_never_raises_a_warning():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    hands.do("lift 5", "place 5", wait=5000)
    assert kinds(hands.seen) == ["throw", "progress", "settled"]
    assert moves_in(hands.do("lift 10", "place 13", wait=500)) == ["10-13"]


def test_a_piece_held_in_the_hand_is_not_flagged():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    hands.do("lift 10", wait=5000)  # B thinks, holding the piece it must move
    assert "illegal" not in kinds(hands.seen)


def test_a_wrong_move_is_flagged_after_the_settle_time_then_guided_then_cleared():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    first = hands.do("lift 10", "place 14", wait=500)
    assert kinds(first) == ["progress", "illegal"]
    warning = first[-1]
    assert warning["reason"] == "a throw of 3 takes the piece on 10 to 13, not 14 (P3)"
    assert warning["missing"] == [10]
    assert warning["extra"] == [14]
    assert warning["fix"] == ["put B's piece on 14 back on 10"]
    assert hands.wait(1000) == []  # guidance only after a few seconds more
    # a carry, not a swap: the `swap` field is left out (as every optional field that is not set)
    assert hands.wait(2000) == [{"v": "fix", "text": "put B's piece on 14 back on 10", "from": 14, "to": 10}]
    verdicts = hands.do("lift 14", "place 13", wait=500)
    assert kinds(verdicts) == ["cleared", "move", "turn"]


def test_a_restored_board_clears_the_warning():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    hands.do("lift 10", "place 14", wait=500)
    assert kinds(hands.do("lift 14", "place 10", wait=500)) == ["cleared"]


def test_pieces_moved_before_the_throw_are_flagged_not_taken():
    hands = Hands(new_game("secret"))
    verdicts = hands.do("lift 10", "place 13", wait=500)
    assert verdicts[-1]["v"] == "illegal"
    assert verdicts[-1]["reason"] == "B must throw before moving (P3)"
    assert hands.game.board()[10] == "B"
    refused = hands.throw(3)
    assert refused[0]["v"] == "illegal"
    assert "put the board right first" in refused[0]["reason"]
    hands.do("lift 13", "place 10", wait=500)
    assert hands.throw(3) == [{"v": "throw", "player": "B", "value": 3}]


def test_the_player_not_to_move_is_flagged():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    verdicts = hands.do("lift 9", "place 12", wait=500)
    assert verdicts[-1]["reason"] == "the piece on 9 belongs to A, and B is to move (P3)"


def test_an_exchange_is_recognised_from_the_lifts_of_both_squares():
    hands = Hands(at("secret", A=[12], B=[14, 20], throw=2))
    verdicts = hands.do("lift 14", "lift 12", "place 14", "place 12", wait=500)
    assert moves_in(verdicts) == ["12-14"]
    move = next(v for v in verdicts if v["v"] == "move")
    assert move["effects"] == [{"kind": "exchange", "player": "B", "from": 14, "to": 12}]
    assert "prompt" not in kinds(verdicts)
    assert hands.game.board() == {12: "B", 14: "A", 20: "B"}


def test_a_half_done_exchange_is_accepted_and_the_rest_prompted():
    hands = Hands(at("secret", A=[12], B=[14, 20], throw=2))
    verdicts = hands.do("lift 14", "lift 12", "place 14", wait=500)
    assert kinds(verdicts) == ["progress", "move", "turn", "prompt"]
    assert verdicts[-1]["text"] == "put B's piece that stood on 14 on 12 (exchange, P4)"
    assert hands.throw(3)[0]["reason"].startswith("finish on the board first")
    assert kinds(hands.do("place 12", wait=500)) == ["progress", "cleared"]


def test_an_unchanged_board_with_one_lift_is_a_touch_not_an_exchange():
    hands = Hands(at("secret", A=[12], B=[14, 20], throw=2))
    verdicts = hands.do("lift 14", "place 14", wait=500)
    assert kinds(verdicts) == ["progress", "settled"]  # P4 needs both squares empty at once
    assert hands.game.pending == 2


def test_the_rules_own_moves_become_prompts_that_are_checked():
    hands = Hands(at("houses", A=[26], B=[20], throw=1))
    verdicts = hands.do("lift 26", "place 27", wait=500)
    assert kinds(verdicts) == ["progress", "move", "bonus", "prompt"]
    assert verdicts[-1]["text"] == "move A's drowned piece from 27 to 15 (H6)"
    wrong = hands.do("lift 27", "place 16", wait=500)
    assert wrong[-1]["v"] == "illegal"
    assert "first" in wrong[-1]["reason"]
    assert kinds(hands.do("lift 16", "place 15", wait=500)) == ["cleared"]


def test_doing_the_rules_move_at_once_needs_no_prompt():
    hands = Hands(at("houses", A=[26], B=[20], throw=1))
    verdicts = hands.do("lift 26", "place 15", wait=500)
    assert kinds(verdicts) == ["progress", "move", "bonus"]


def test_modern_capture_prompts_the_sun_and_the_removal():
    game = new_game("modern", position={"A": {"5": 10, "4": 1}, "B": {"3": 13}, "to_move": "A"})
    game.push_throw((1, 2))
    hands = Hands(game)
    verdicts = hands.do("lift 13", "lift 10", "place 13", wait=500)
    prompts = [v["text"] for v in verdicts if v["v"] == "prompt"]
    assert prompts == ["remove A's piece on 1 from the game (M4)"]
    verdicts = hands.do("lift 1", wait=500)
    assert verdicts[-1]["text"] == "put B's piece from 13 on the sun, square 1 (M4)"
    assert kinds(hands.do("place 1", wait=500))[-1] == "cleared"


def test_two_moves_that_fit_the_same_board_are_asked_about():
    game = new_game("modern", position={"A": {"5": 28, "4": 10}, "B": {"5": 2}, "to_move": "A"})
    game.push_throw((1, 5))
    hands = Hands(game)
    verdicts = hands.do("lift 28", "place 29", wait=500)
    question = verdicts[-1]
    assert question["v"] == "question"
    assert len(question["options"]) == 2
    answered = hands.call("answer", 1)
    assert moves_in(answered) == ["28-29"]
    assert hands.game.pending in ((1,), (5,))


def test_the_board_before_the_last_move_offers_an_undo():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    hands.do("lift 10", "place 13", wait=500)
    verdicts = hands.do("lift 13", "place 10", wait=500)
    assert verdicts[-1]["v"] == "question"
    assert verdicts[-1]["kind"] == "undo"
    undone = hands.call("answer", "undo")
    assert kinds(undone) == ["answered", "undone"]
    assert hands.game.to_move_id == "B"
    assert hands.game.pending == 3


def test_keeping_the_move_turns_the_undo_question_into_guidance():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    hands.do("lift 10", "place 13", wait=500)
    hands.do("lift 13", "place 10", wait=500)
    verdicts = hands.call("answer", "keep")
    assert verdicts[-1]["v"] == "illegal"
    assert verdicts[-1]["fix"] == ["put B's piece on 10 back on 13"]


def test_the_starting_setup_offers_a_new_game():
    hands = Hands(at("secret", A=[12], B=[14, 20], throw=3))
    hands.do("lift 12", "place 15", wait=500)
    hands.throw(2)
    hands.do("lift 14", "place 16", wait=500)
    board = Hands(new_game("secret")).referee.sensed
    verdicts = hands.referee.sense(board, hands.clock)
    verdicts += hands.wait(500)
    assert verdicts[-1]["v"] == "question"
    assert verdicts[-1]["kind"] == "new_game"
    assert kinds(hands.call("answer", "new game"))[:2] == ["answered", "new_game"]
    assert hands.game.board() == new_game("secret").board()


def test_resync_takes_the_board_as_it_is_with_the_fewest_changes():
    hands = Hands(at("secret", A=[12, 3], B=[14, 20], throw=2))
    hands.do("lift 20", "place 21", wait=500)  # B's piece drifted by one square
    verdicts = hands.call("resync")
    resync = next(v for v in verdicts if v["v"] == "resync")
    assert resync["assumed"] == ["B's piece on 20 is now on 21"]
    assert hands.game.board() == {3: "A", 12: "A", 14: "B", 21: "B"}
    assert verdicts[-1]["v"] == "cleared"


def test_a_move_entered_by_hand_prompts_the_board_to_follow():
    hands = Hands(new_game("secret"))
    hands.do("lift 1", "place 1", wait=500)  # the board has sensors
    hands.throw(3)
    verdicts = hands.call("enter_move", 10, 13)
    assert verdicts[-1] == {"v": "prompt", "text": "move B's piece from 10 to 13", "player": "B", "from": 10, "to": 13}
    assert kinds(hands.do("lift 10", "place 13", wait=500)) == ["progress", "cleared"]


def test_without_sensors_a_move_entered_by_hand_is_all_there_is():
    referee = Referee(new_game("secret"))
    referee.throw(3)
    verdicts = as_json(referee.enter_move(10, 13))
    assert kinds(verdicts) == ["move", "turn"]


def test_answering_without_a_question_is_an_error():
    with pytest.raises(RefereeError, match="no question"):
        Referee(new_game("secret")).answer(0)


def test_undo_without_a_move_is_an_error():
    with pytest.raises(RefereeError, match="no move to undo"):
        Referee(new_game("secret")).undo()


def test_a_switch_reporting_twice_is_ignored_with_a_note():
    referee = Referee(new_game("secret"))
    assert isinstance(referee.place(10, 0.0)[0], Sensor)
    assert referee.sensed == new_game("secret").occupied()
