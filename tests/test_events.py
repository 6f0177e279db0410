"""The one event vocabulary: replay events, referee inputs and journal rows."""

from __future__ import annotations

from senet_pi.events import EVENT_KINDS, INPUT_KINDS, events_of, timed_inputs
from senet_pi.referee import Referee
from senet_pi.referee.hands import scripted_game


def test_every_event_kind_is_a_referee_input_and_a_wait_is_a_tick():
    assert set(INPUT_KINDS) == set(EVENT_KINDS) - {"wait"} | {"tick"}
    assert Referee.INPUTS == INPUT_KINDS


def test_timed_inputs_move_the_clock_only_with_waits_and_carry_a_moves_die():
    inputs = list(timed_inputs([{"throw": [3, 4]}, {"lift": 9}, {"wait": 600}, {"move": [9, 16], "by": 7}]))
    assert inputs == [(0, "throw", [3, 4]), (0, "lift", 9), (600, "tick", True), (600, "move", [9, 16, 7])]
    spaced = list(timed_inputs([{"lift": 9}, {"place": 12}], spacing_ms=1))
    assert [ms for ms, _, _ in spaced] == [1, 2]


def test_journaled_inputs_become_the_same_events_again():
    script = scripted_game("modern", 3)  # has entered moves with their dice, waits and switch events
    events = list(script["events"])
    back = events_of(timed_inputs(events))
    assert back == [e for e in events if e != {"wait": 0}]  # a wait of no time says nothing
