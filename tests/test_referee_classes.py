"""The four classes of handling issue 50 names, each as a class of generated cases (every rule set,
orders, timings, hands), not one example each: evidence that starts where the board's reporting
(re)started, a deliberate carry told from a knock, `modern` fixes that respect the dots, and pieces
held in the hand that are never flagged."""

from __future__ import annotations

import pytest

from senet_pi.events import timed_inputs
from senet_pi.referee import Referee
from senet_pi.referee.hands import scripted_game
from senet_pi.rules import new_game
from tests.referee_helpers import Hands, kinds, moves_in

#: Every rule set, `modern` with two and three players.
RULE_SETS = [("secret", 2), ("houses", 2), ("cards", 2), ("modern", 2), ("modern", 3)]


def judged_after_reports_start(variant: str, players: int, seed: int, entered: int, late: bool) -> list[dict]:
    """The verdicts of a scripted game whose first `entered` throws were entered on the page, from
    the board's first switch report on (`late`: the report starts with a snapshot)."""
    script = scripted_game(variant, seed, players, max_throws=entered + 12, entered=entered, late=late)
    options = script.get("options")
    referee = Referee(new_game(variant, players=players, options=options if isinstance(options, dict) else None))
    out: list[dict] = []
    reporting = False
    for ms, kind, value in timed_inputs(script["events"]):
        reporting = reporting or kind in ("lift", "place", "sense")
        verdicts = [v.json() for v in referee.apply(kind, value, ms / 1000)]
        if reporting:
            out += verdicts
    return out


# ---------------------------------------------------------------------- class 1: where the evidence starts


@pytest.mark.parametrize(("variant", "players"), RULE_SETS)
@pytest.mark.parametrize("entered", [1, 2, 5, 9])
@pytest.mark.parametrize("late", [False, True], ids=["first-switch", "snapshot"])
def test_moves_by_hand_after_moves_entered_on_the_page_are_judged_from_where_the_board_stood(
    variant, players, entered, late
):
    """Class 1: the hands' evidence starts from the position when the board's reporting started,
    not from the setup: no question about who stands where, no warning, for ordinary moves by hand."""
    for seed in (entered, entered + 100):
        said = judged_after_reports_start(variant, players, seed, entered, late)
        odd = [v for v in said if v["v"] in ("illegal", "fix") or (v["v"] == "question" and v["kind"] != "which")]
        assert not odd, (variant, players, seed, odd)
        assert moves_in(said), "the board's moves by hand were judged at all"


@pytest.mark.parametrize("variant", ["secret", "houses"])
@pytest.mark.parametrize(
    "order",
    [
        ("lift 9", "lift 12", "place 12", "place 9"),  # attacker first
        ("lift 12", "lift 9", "place 12", "place 9"),  # victim first
        ("lift 12", "lift 9", "place 9", "place 12"),  # victim first, victim down first
        ("lift 9", "lift 12", "place 9", "place 12"),
    ],
)
@pytest.mark.parametrize("pause", [0, 250])
@pytest.mark.parametrize("sensed_before", [False, True], ids=["no-sensors-before", "sensing-before"])
def test_an_exchange_after_a_move_entered_on_the_page_is_accepted_in_every_order(variant, order, pause, sensed_before):
    """Class 1, the case seen at the table: B's move entered on the page, then A's ordinary exchange
    (P4) by hand, in every order and timing: accepted, nothing asked, and B's throw is taken."""
    hands = Hands(new_game(variant))
    if sensed_before:
        hands.do("lift 1", "place 1", wait=600)  # a knock: the board reports, then the page is used
    hands.call("throw", 2)
    hands.call("enter_move", 10, 12)
    if sensed_before:
        hands.do("lift 10", "place 12", wait=600)  # the prompt carried out
    hands.call("throw", 3)
    said = []
    for event in order:
        said += hands.do(event, wait=pause)
    said += hands.wait(600)
    assert moves_in(said) == ["9-12"]
    assert not [v for v in said if v["v"] in ("question", "illegal", "fix")]
    assert kinds(hands.call("throw", 2)) == ["throw"]
