"""Judges propose, the core disposes: the judging parts read the state and the game and return a
typed outcome (`senet_pi.referee.outcome`); only `Core.dispose` changes anything."""

from __future__ import annotations

import pytest

from senet_pi.referee.outcome import Accept, Afresh, Ask, Clearing, Good, Repaired, SwapWarn, Wait, Warn, Wrong
from senet_pi.referee.state import SwapBack, SwapQuestion, WhichQuestion
from senet_pi.rules import new_game
from tests.referee_helpers import Hands, scripted_walks
from tests.referee_replay_helpers import RULE_SETS
from tests.rules_helpers import at


def proposal(hands: Hands) -> object:
    """What the judges propose for the board as it stands, asked without judging it."""
    return hands.referee.core.judging.settled(hands.referee.sensed)


def test_a_legal_move_shown_is_proposed_for_acceptance_and_nothing_changes():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    hands.do("lift 10", "place 13")
    before = hands.referee.state.copy()
    proposed = proposal(hands)
    assert isinstance(proposed, Accept)
    assert [str(m) for m in proposed.cand.moves] == ["10-13"]
    assert hands.referee.state == before  # proposed, not applied: the move waits for the core
    assert hands.game.pending == 3
    assert hands.game.board()[10] == "B"


def test_two_ways_that_fit_are_proposed_as_a_which_question():
    game = new_game("modern", position={"A": {"5": 28, "4": 10}, "B": {"5": 2}, "to_move": "A"})
    game.push_throw((1, 5))
    hands = Hands(game)
    hands.do("lift 28", "place 29")
    proposed = proposal(hands)
    assert isinstance(proposed, Ask)
    assert isinstance(proposed.question, WhichQuestion)
    assert len(proposed.question.fits) == 2
    assert proposed.question.id == 0  # numbered only when it is put
    assert hands.referee.question is None


def test_a_piece_in_the_hand_is_proposed_as_wait():
    hands = Hands(new_game("secret"))
    hands.throw(3)
    hands.do("lift 10")
    assert proposal(hands) == Wait()


def test_a_wrong_move_is_proposed_as_a_wrong_board_to_warn_about():
    hands = Hands(new_game("secret"))
    hands.throw(2)
    hands.do("lift 10", "place 13")
    expected = hands.referee.expected
    assert proposal(hands) == Wrong(expected, Warn(hands.referee.sensed))
    assert hands.referee.warning is None


def test_the_board_as_expected_is_proposed_as_good():
    hands = Hands(new_game("secret"))
    assert proposal(hands) == Good()


@pytest.mark.parametrize("rule_set", RULE_SETS, ids=[f"{v}-{p}" for v, p in RULE_SETS])
def test_judging_a_board_changes_neither_the_state_nor_the_game(rule_set):
    """Over whole scripted games, the judges are asked about every unsettled board before the
    referee judges it: the state and the game are as they were."""
    for referee, inputs in scripted_walks(rule_set):
        asked = 0
        for ms, kind, value in inputs:
            if not referee.state.judged:
                referee.core.cands()  # the ways to play are worked out once per position, and kept
                before, version, actions = referee.state.copy(), referee.game.version, list(referee.game.actions)
                referee.core.judging.settled(referee.sensed)
                assert referee.state == before
                assert (referee.game.version, list(referee.game.actions)) == (version, actions)
                asked += 1
            referee.apply(kind, value, ms / 1000)
        assert asked > 10


def test_an_attack_done_as_a_swap_is_proposed_as_a_swap_to_warn_and_undo():
    hands = Hands(at("secret", A=[9], B=[12, 14], throw=2))  # 9 + 2 = 11: 12 is out of reach
    hands.do("lift 9", "lift 12", "place 12", "place 9")
    assert proposal(hands) == Afresh(SwapWarn(9, 12, {}))
    hands.wait(600)
    assert hands.referee.state.repair == SwapBack(9, 12, {})  # the repair under way, one value
    hands.do("lift 9", "lift 12", "place 9", "place 12")
    assert proposal(hands) == Repaired(Good(force=True))  # swapped back: the repair is done


def test_two_pieces_lifted_together_and_put_back_are_proposed_as_a_swap_question():
    hands = Hands(at("secret", A=[9], B=[12, 14]))  # no throw: no attack, nothing crossed for sure
    hands.do("lift 9", "lift 12", "place 12", "place 9")
    proposed = proposal(hands)
    assert isinstance(proposed, Clearing)
    assert isinstance(proposed.then, Ask)
    assert isinstance(proposed.then.question, SwapQuestion)
    assert proposed.then.question.about() == [9, 12]
