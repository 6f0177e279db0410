"""The board the page draws while the rules' own steps are owed (an exchange, a piece sent back or
taken off, a throw's moves played in parts) is the wooden board: whose piece stands on each closed
switch as the hands really put it, not the game's board, which already stands as after the steps.

Hands are simulated as `senet_pi.referee.hands.switch_events` carries a move out (a piece in the
way into the hand first, in either order), while this file follows every piece by hand: that is the
truth each drawn board is held to."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from senet_pi.referee.physical import play_out
from senet_pi.service import Service
from senet_pi_web.state import wooden_board
from tests.browser_helpers import ManualClock
from tests.referee_helpers import walk


def prompted(variant: str, seeds: range, turns: int = 40) -> Iterator[tuple[Service, dict, dict[int, str]]]:
    """Random games of `variant` played by hand, one switch change at a time: every moment the
    referee prompts for a step the rules owe, with the service and the wooden board's truth."""
    for seed in seeds:
        clock = ManualClock()
        service = Service(None, variant=variant, settle=0.2, clock=clock)
        service.new_game(variant)
        game, rng = service.referee.game, random.Random(seed)
        for _turn in range(turns):
            if game.winner_id is not None:
                break
            if game.pending is None:
                thrown = game.random_throw(rng)
                value = getattr(thrown, "value", thrown)
                service.handle("throw", list(value) if isinstance(value, tuple) else value)
            sequences = game.move_sequences()
            if not sequences:
                continue
            steps, _, _ = play_out(game, list(rng.choice(sequences)))
            for kind, sq, truth in walk(game, steps, victim_first=seed % 2 == 1):  # both orders of hands
                service.handle(kind, sq)
                clock.now += service.settle
                service.tick()
                snapshot = service.snapshot().to_json()
                if snapshot["owed"]:
                    yield service, snapshot, truth
            if service.snapshot().to_json()["question"] or service.snapshot().to_json()["warning"]:
                break  # the hands here never make a wrong board: a game that asks is left


def standing(wood: dict) -> dict[int, str]:
    """The pieces the page draws solid (not lifted) on the wooden board, by square."""
    return {int(sq): p["owner"] for sq, p in wood["pieces"].items() if not p["lifted"]}


@pytest.mark.parametrize("variant", ["houses", "modern", "secret"])
def test_every_prompt_draws_whose_piece_really_stands_on_each_closed_switch(variant):
    kinds: set[str] = set()
    checked = 0
    for _service, snapshot, truth in prompted(variant, range(6)):
        wood = wooden_board(snapshot)
        assert wood is not None
        assert standing(wood) == truth, snapshot["prompt"]
        assert {int(sq) for sq in standing(wood)} == set(snapshot["sensed"])
        # a ghost only where the game puts a piece the wood lacks, never over a standing piece
        assert not set(wood["ghosts"]) & {str(sq) for sq in truth}
        kinds.add(re.sub(r"\d+|[A-D]'s", "", str(snapshot["prompt"]["text"])))
        checked += 1
    assert checked >= 10  # the games did reach the rules' own steps
    if variant == "houses":
        assert any("exchange" in k for k in kinds), kinds
    if variant == "modern":
        assert any("from the game" in k for k in kinds) and any("back to" in k for k in kinds), kinds


def test_plain_play_has_no_wooden_board_of_its_own():
    """Between the rules' steps, fixes and setup the game's board is the wood's: nothing extra is sent."""
    service = Service(None, variant="secret", settle=0.2, clock=ManualClock())
    service.new_game("secret")
    assert wooden_board(service.snapshot().to_json()) is None
