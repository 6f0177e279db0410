"""The referee's state as one value, its typed inputs and its typed status view."""

from __future__ import annotations

import pytest

from senet_pi.events import Answer, Lift, Place, Throw, Tick, read_input, written
from senet_pi.referee import Mode, Referee
from tests.referee_helpers import Hands, as_json, kinds
from tests.rules_helpers import at

# An exchange half done (secret, B throws 2 from 14 onto A's 12): the move is accepted and provisional,
# a step is owed, and the provisional move's evidence is the attempt itself.
HALF_EXCHANGE = ("lift 14", "lift 12", "place 14")


def half_exchange() -> Hands:
    hands = Hands(at("secret", A=[12], B=[14, 20], throw=2))
    assert kinds(hands.do(*HALF_EXCHANGE, wait=500))[-1] == "prompt"
    return hands


def test_a_snapshot_is_the_whole_state_and_restore_puts_it_back_in_one_step():
    hands = half_exchange()
    referee = hands.referee
    saved = referee.snapshot()
    board = referee.game.board()
    hands.do("place 12", wait=500)  # the owed step done: the state moves on
    assert referee.state != saved.state
    assert referee.state.owed is None
    referee.restore(saved)
    assert referee.state == saved.state
    assert referee.state is not saved.state
    assert referee.game.board() == board
    assert referee.state.owed is not None
    hands.do("place 12", wait=500)  # a snapshot stays usable: restored twice, it is the same state again
    referee.restore(saved)
    assert referee.state == saved.state
    assert referee.mode is Mode.PROMPTS


def test_restore_keeps_the_provisional_move_sharing_the_attempts_evidence():
    referee = half_exchange().referee
    prov = referee.state.provisional
    assert prov is not None
    assert prov.attempt is referee.state.attempt
    referee.restore(referee.snapshot())
    prov = referee.state.provisional
    assert prov is not None
    assert prov.attempt is referee.state.attempt  # one record, not two copies drifting apart


def test_the_snapshot_is_a_copy_the_referee_does_not_write_to():
    hands = half_exchange()
    saved = hands.referee.snapshot()
    before = saved.state.copy()
    hands.do("place 12", wait=500)
    hands.throw(3)
    assert saved.state == before


SCRIPT = [
    (0.0, "lift", 14),
    (0.1, "lift", 12),
    (0.2, "place", 14),
    (0.3, "place", 12),
    (1.0, "tick", True),
    (1.1, "throw", 3),
    (1.2, "lift", 12),
    (1.3, "place", 15),
    (2.0, "tick", True),
]


def test_a_typed_input_is_judged_as_the_same_input_by_name():
    by_name = Referee(at("secret", A=[12], B=[14, 20], throw=2))
    typed = Referee(at("secret", A=[12], B=[14, 20], throw=2))
    for t, kind, value in SCRIPT:
        assert as_json(by_name.apply(kind, value, t)) == as_json(typed.take(read_input(kind, value), t)), (kind, value)
    assert by_name.state == typed.state
    assert by_name.game.board() == typed.game.board()
    assert typed.game.board() == {14: "A", 15: "B", 20: "B"}


def test_typed_inputs_name_their_kind_as_the_journal_keeps_it():
    assert [read_input(k, v).kind for k, v in [("lift", 3), ("place", 3), ("tick", True), ("answer", 0)]] == [
        "lift",
        "place",
        "tick",
        "answer",
    ]
    assert (Lift(3), Place(4), Tick(), Answer("undo"), Throw(2)) == tuple(
        read_input(k, v) for k, v in [("lift", 3), ("place", 4), ("tick", True), ("answer", "undo"), ("throw", 2)]
    )


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("throw", 3),
        ("throw", [2, 5]),
        ("card", "H28"),
        ("exchange", ["2", "H28"]),
        ("pass", True),
        ("move", [9, 12, 3]),
        ("move", [27, 0, 0]),
        ("lift", 4),
        ("place", 30),
        ("sense", [1, 2, 3]),
        ("tick", True),
        ("answer", 0),
        ("answer", "undo"),
        ("undo", True),
        ("resync", True),
        ("new_game", True),
    ],
)
def test_a_typed_input_is_journaled_as_it_was_given_by_name(kind, value):
    assert written(read_input(kind, value)) == (kind, value)


@pytest.mark.parametrize(
    ("kind", "value", "says"),
    [
        ("jump", 3, "unknown input 'jump'"),
        ("lift", "ten", "could not judge this lift (TypeError)"),
        ("move", [3], "could not judge this move (TypeError)"),
        ("answer", True, "could not judge this answer (TypeError)"),
    ],
)
def test_an_input_that_does_not_read_is_refused_and_changes_nothing(kind, value, says):
    referee = half_exchange().referee
    saved = referee.snapshot()
    verdicts = as_json(referee.apply(kind, value, 9.0))
    assert [v["v"] for v in verdicts] == ["illegal"] and says in verdicts[0]["reason"], verdicts
    assert verdicts[0]["player"] == referee.game.to_move_id
    saved.state.now = referee.state.now  # only the clock moves on
    assert referee.state == saved.state


def test_an_input_the_referee_fails_on_costs_that_input_only(monkeypatch):
    hands = Hands(at("secret", A=[12], B=[14, 20], throw=2))
    referee = hands.referee

    def broken(board: int) -> list:
        raise RuntimeError("a bug")

    monkeypatch.setattr(referee.core.judging, "settled", broken)
    saved = referee.snapshot()
    verdicts = as_json(referee.take(Lift(14), 0.0) + referee.take(Tick(), 1.0))
    assert kinds(verdicts) == ["progress", "illegal"]
    assert "could not judge this tick (RuntimeError)" in verdicts[-1]["reason"]
    assert referee.game.board() == {12: "A", 14: "B", 20: "B"}
    assert referee.state.sensed != saved.state.sensed
    monkeypatch.undo()
    hands.clock = 1.0
    assert kinds(hands.do("place 14", wait=500)) == ["settled"]  # the piece put back: nothing lost, no warning
    assert referee.mode is Mode.MOVE
    assert referee.game.board() == {12: "A", 14: "B", 20: "B"}


def test_the_status_is_a_typed_view_its_callers_turn_into_json():
    hands = Hands(at("secret", A=[12], B=[14, 20], throw=2))
    hands.do("lift 20", "place 25", wait=500)  # 20-25 is no move for a throw of 2
    status = hands.referee.status()
    assert status.mode is Mode.FIX
    assert status.warning is not None
    assert status.question is None
    assert status.sensed == (12, 14, 25)
    assert status.expected == (12, 14, 20)
    assert status.faults == {}
    data = status.as_dict()
    assert data["mode"] == "fix"
    assert data["sensed"] == [12, 14, 25]
    assert data["warning"]["v"] == "illegal"
    assert set(data) == {"mode", "sensed", "expected", "in_progress", "prompt", "warning", "question", "faults"}
