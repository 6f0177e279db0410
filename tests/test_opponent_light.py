"""The search's light copy of a game plays by exactly the engine's rules: the same legal
moves, the same position after every throw and move (exchanges P4, bonus throws P6, forfeits P7,
reincarnation and drowning S7/H6, backward moves S12, the opening S2/H2), and pop undoes each."""

from __future__ import annotations

import random

import pytest

from senet_pi.opponent.light import light_copy
from senet_pi.rules import new_game


def _state(game):
    return (tuple(game.occ), tuple(game.off), game.to_move, game.pending, game.opening, game.winner)


@pytest.mark.parametrize(
    ("name", "options"), [("secret", {}), ("secret", {"throws": "d6"}), ("houses", {})], ids=["secret", "d6", "houses"]
)
def test_the_light_copy_agrees_with_the_engine_on_random_games(name, options):
    rng = random.Random(9)
    seen = set()
    for _ in range(12):
        game = new_game(name, options=options)
        while not game.is_over:
            light = light_copy(game)
            assert type(light) is not type(game)
            assert _state(light) == _state(game)
            throw = game.random_throw(rng)
            for t in game.throw_kind.odds():  # every throw from here, not only the one played
                before = _state(light)
                game.push_throw(t)
                light.push_throw(t)
                assert _state(light) == _state(game)
                assert light.legal_moves() == game.legal_moves()
                for m in game.legal_moves():
                    effects = game.push(m)
                    light.push(m)
                    seen.update(type(e).__name__ for e in effects)
                    assert _state(light) == _state(game)
                    game.pop()
                    light.pop()
                    assert _state(light) == _state(game)
                if game.pending is None:
                    seen.add("forfeit")
                game.pop()
                light.pop()
                assert _state(light) == before
            game.push_throw(throw)
            while game.pending is not None and not game.is_over:
                moves = game.legal_moves()
                game.push(moves[rng.randrange(len(moves))])
    assert {"Exchanged", "Bonus", "Relocated", "Win", "forfeit"} <= seen


def test_rule_sets_with_their_own_turn_flow_get_an_ordinary_copy():
    for game in (new_game("modern", 3), new_game("cards", 2, new_game("cards").seeded_options(1))):
        assert type(light_copy(game)) is type(game)
