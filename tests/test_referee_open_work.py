"""The referee's open work is one value (`RefereeState.open`) with a case per kind: nothing, steps
owed, a board or who stands where being put right (toward any owed steps), or a question over the
work it interrupts; the old names (`owed`, `warning`, `question`...) only read it."""

from __future__ import annotations

import pytest

from senet_pi.referee import Mode
from senet_pi.referee.state import (
    Asking,
    Nothing,
    Owing,
    Repairing,
    SwapBack,
    UndoQuestion,
    Warning,
    work,
)
from tests.referee_helpers import Hands, kinds, scripted_walks, well_formed
from tests.referee_replay_helpers import RULE_SETS
from tests.rules_helpers import at


def half_exchange() -> Hands:
    """An exchange half done (secret, B throws 2 from 14 onto A's 12): a step is owed."""
    hands = Hands(at("secret", A=[12], B=[14, 20], throw=2))
    assert kinds(hands.do("lift 14", "lift 12", "place 14", wait=500))[-1] == "prompt"
    return hands


def a_warning() -> Warning:
    return Warning("the board differs from the game", "P3", [12], [13], [], since=0.0)


def undo_question() -> UndoQuestion:
    return UndoQuestion(text="Undo that move?", options=["undo", "keep"], id=1)


def test_open_work_is_built_as_the_smallest_case_that_holds_it():
    owed = half_exchange().referee.state.owed
    assert owed is not None
    warning, swap = a_warning(), SwapBack(9, 12)
    assert work(None, None, False, None) == Nothing()
    assert work(owed, None, False, None) == Owing(owed)
    assert work(owed, warning, False, None) == Repairing(warning, None, False, owed)
    assert work(None, None, False, swap) == Repairing(None, swap, False, None)  # a swap outlives its warning
    assert work(None, None, True, None) == Repairing(None, None, True, None)  # guided once the fixes can be named


def test_a_question_carries_the_work_it_interrupts_and_gives_it_back_once_answered():
    state = half_exchange().referee.state
    owed = state.owed
    assert owed is not None
    assert state.open == Owing(owed)
    state.ask(undo_question())
    assert state.open == Asking(undo_question(), Owing(owed))
    assert (state.question, state.owed) == (undo_question(), owed)  # both stand: the question first
    state.warned(a_warning())  # work changed under the question stays under it
    assert state.open == Asking(undo_question(), Repairing(a_warning(), None, False, owed))
    state.ask(undo_question())  # a question never interrupts a question: it replaces it
    assert state.open == Asking(undo_question(), Repairing(a_warning(), None, False, owed))
    state.unask()
    assert state.open == Repairing(a_warning(), None, False, owed)
    state.clear_warning()
    assert state.open == Owing(owed)
    state.forget_owed()
    assert state.open == Nothing()


def test_clearing_a_warning_keeps_a_swap_to_undo_and_drops_a_piece_to_replace():
    state = half_exchange().referee.state
    state.forget_owed()
    state.repair_warned(a_warning(), SwapBack(9, 12))
    state.clear_warning()
    assert state.open == Repairing(None, SwapBack(9, 12), False, None)  # the switches cannot see a swap
    state.repaired()
    assert state.open == Nothing()


@pytest.mark.parametrize("name", ["owed", "warning", "guiding", "repair", "question"])
def test_the_old_names_only_read_the_one_value(name):
    state = half_exchange().referee.state
    with pytest.raises(AttributeError):
        setattr(state, name, None)


def test_a_wrong_board_while_steps_are_owed_is_warned_toward_their_end_and_guided_later():
    hands = half_exchange()
    owed = hands.referee.state.owed
    assert owed is not None
    hands.do("lift 20", "place 22", wait=500)
    state = hands.referee.state
    assert isinstance(state.open, Repairing)
    assert state.open.warning is not None
    assert state.open.toward == owed  # the owed steps stay, under the warning
    assert not state.open.guiding
    assert hands.referee.mode is Mode.PROMPTS  # the owed steps first, the warning says so
    hands.wait(4000)
    later = hands.referee.state.open
    assert isinstance(later, Repairing)
    assert later.guiding
    hands.do("lift 22", "place 20", "place 12", wait=500)
    assert hands.referee.state.open == Nothing()  # put right and the owed step done: no work left


def test_a_swap_warned_is_a_repair_under_way_in_the_one_value():
    hands = Hands(at("secret", A=[9], B=[12, 14], throw=2))
    hands.do("lift 9", "lift 12", "place 12", "place 9", wait=600)
    open_work = hands.referee.state.open
    assert isinstance(open_work, Repairing)
    assert open_work.repair == SwapBack(9, 12, {})
    assert open_work.warning is not None
    assert open_work.warning.swap == (9, 12)


def test_a_repair_with_nothing_to_put_right_cannot_be_made():
    with pytest.raises(ValueError, match="nothing to put right"):
        Repairing()
    with pytest.raises(ValueError, match="nothing to put right"):
        Repairing(toward=half_exchange().referee.state.owed)  # that is Owing(owed)


def test_open_work_no_case_holds_is_told_from_open_work_one_does():
    state = half_exchange().referee.state
    assert well_formed(state)
    state.open = Asking(undo_question(), Asking(undo_question()))  # a question over a question: `ask` replaces
    assert not well_formed(state)


@pytest.mark.parametrize("rule_set", RULE_SETS, ids=[f"{v}-{p}" for v, p in RULE_SETS])
def test_the_open_work_is_well_formed_after_every_input_of_whole_games(rule_set):
    """Scripted games in every rule set (the fuzz sessions check it too, `check_judged`)."""
    for referee, inputs in scripted_walks(rule_set):
        owing = 0
        for ms, kind, value in inputs:
            referee.apply(kind, value, ms / 1000)
            assert well_formed(referee.state), referee.state.open
            owing += isinstance(referee.state.open, Owing)
        assert owing > 0  # the games prompt steps: the cases are reached, not only Nothing
