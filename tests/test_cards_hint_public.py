"""In the card game the page's hint (and what a move cost) is shown on the shared screen to anyone, so
it is worked out from public information only: two games that differ only in the cards nobody at
the screen can see (the mover's own hand included) are analysed as the same game."""

from __future__ import annotations

import random

from senet_pi.rules import new_game
from senet_pi.service.coach import Coach, public_copy
from senet_pi.service.core import Service


def _dealt():
    return new_game("cards", 2, new_game("cards").seeded_options(11))


def _hidden_swapped(game):
    """The same game with one card of the mover's hand swapped for a different one from the stack."""
    other = game.copy()
    mine = other.hands[other.to_move]
    j = next(j for j, card in enumerate(other.stack) if card != mine[0])
    mine[0], other.stack[j] = other.stack[j], mine[0]
    assert sorted(other.hand(game.to_move_id)) != sorted(game.hand(game.to_move_id))
    return other


def _piles(game):
    return [list(h) for h in game.hands], list(game.stack), list(game.dead), list(game.discard)


def test_the_public_copy_depends_on_no_hidden_card_not_even_the_movers():
    game = _dealt()
    other = _hidden_swapped(game)
    assert _piles(public_copy(game, 7)) == _piles(public_copy(other, 7))
    copy = public_copy(game, 7)
    assert [len(h) for h in copy.hands] == [len(h) for h in game.hands]  # each pile keeps its size
    assert copy.discard == game.discard  # the cards played stay as they are: they are public
    assert copy.occ == game.occ


def test_the_public_copy_of_a_game_without_cards_is_the_game():
    game = new_game("houses")
    game.push_throw(game.random_throw(random.Random(1)))
    assert public_copy(game, 3).occ == game.occ
    assert public_copy(game, 3).pending == game.pending


def test_the_page_hint_is_analysed_on_public_information_only():
    """`/api/hint`'s analysis (the coach) gets the same game whatever the mover's real hand."""
    seen = []

    def analyser(game):
        seen.append(_piles(game))
        return {"player": game.mover_id, "win": 0.5, "exact": False, "moves": []}

    results = []
    for make in (_dealt, lambda: _hidden_swapped(_dealt())):
        service = Service(None, variant="cards", options=_dealt().options)
        dealt = make()
        with service.lock:
            service.referee.game.hands = [list(h) for h in dealt.hands]
            service.referee.game.stack = list(dealt.stack)
        coach = Coach(service, analyser)
        try:
            assert coach.hint(timeout=0) is None  # queued: asked again once analysed
            assert coach.step()
            results.append(coach.hint(timeout=0))
        finally:
            coach.close()
    assert seen[0] == seen[1]
    assert results[0] == results[1]
