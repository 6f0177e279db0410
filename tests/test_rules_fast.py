"""The fast path (rules/fast.py) and `Game`'s push/pop are one set of rules: the same seeded games
played through both give the same position, the same legal moves in the same order and the same
effects after every throw and move, and the fast path's undo restores every position."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from senet_pi.rules import Game, new_game
from senet_pi.rules.board import squares_in
from senet_pi.rules.random_play import play_random_game, play_random_turn
from senet_pi.rules.sources import BACKWARD

FAST = [("secret", {}), ("secret", {"throws": "d6"}), ("houses", {})]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def state(game: Game) -> tuple[object, ...]:
    return (tuple(game.occ), tuple(game.off), game.to_move, game.pending, game.opening, game.winner)


def fast_moves(game: Game, srcs: int) -> list[tuple[int, int]]:
    """The moves a source mask from `fast_throw` stands for, in the order of its bits."""
    if not srcs:
        return []
    dests = game.destinations(game.pending, backward=bool(srcs & BACKWARD))  # type: ignore[arg-type]
    return [(f, dests[f]) for f in squares_in(srcs & ~BACKWARD)]


def play_both(name: str, options: dict, seed: int) -> int:
    """One seeded random game through `Game.push` and the fast path side by side; returns the plies."""
    rng = random.Random(seed)
    slow, fast = new_game(name, options=options), new_game(name, options=options)
    plies = 0
    while not slow.is_over:
        plies += 1
        assert plies < 5_000, "the game did not end"
        t = slow.random_throw(rng)
        for other in slow.throw_kind.odds():  # every throw here, then undone, not only the one played
            before = state(fast)
            slow.push_throw(other)
            fast.fast_throw(other)
            assert state(fast) == state(slow)
            fast.fast_pop()
            slow.pop()
            assert state(fast) == before
        effects = slow.push_throw(t)
        srcs = fast.fast_throw(t)
        assert fast.fast_effects() == effects
        assert state(fast) == state(slow)
        moves = slow.legal_moves()
        assert fast_moves(fast, srcs) == [(m.from_sq, m.to_sq) for m in moves]
        if not moves:
            continue
        for m in moves:  # every move, then undone
            before = state(fast)
            assert slow.push(m) == (fast.fast_move(m.from_sq, m.to_sq), fast.fast_effects())[1]
            assert state(fast) == state(slow)
            fast.fast_pop()
            slow.pop()
            assert state(fast) == before
        m = moves[rng.randrange(len(moves))]
        effects = slow.push(m)
        fast.fast_move(m.from_sq, m.to_sq)
        assert fast.fast_effects() == effects
        assert state(fast) == state(slow)
        assert fast.position() == slow.position()
    return plies


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(FAST), SEEDS)
def test_the_fast_path_plays_every_throw_and_move_as_push_does(spec, seed):
    name, options = spec
    assert play_both(name, options, seed) > 0


@pytest.mark.parametrize(("name", "options"), FAST, ids=["secret", "d6", "houses"])
def test_the_fast_path_meets_exchanges_water_backward_moves_and_forfeits(name, options):
    """Over a few fixed seeds the rare rules are met, so the comparison above covers them."""
    kinds: set[str] = set()
    rng = random.Random(4)
    for _ in range(6):
        game = new_game(name, options=options)
        for _ in range(5_000):
            if game.is_over:
                break
            srcs = game.fast_throw(game.random_throw(rng))
            kinds.update(e.kind for e in game.fast_effects())
            if srcs:
                if srcs & BACKWARD:
                    kinds.add("backward")
                f, to = fast_moves(game, srcs)[0]
                game.fast_move(f, to)
                kinds.update(e.kind for e in game.fast_effects())
    expected = {"exchange", "forfeit", "bonus", "turn", "win", game.water_kind}
    if game.backward_moves:
        expected.add("backward")
    assert expected <= kinds


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(FAST), SEEDS)
def test_play_random_game_on_the_fast_path_plays_the_same_game_as_turn_by_turn(spec, seed):
    """The same random stream, the same throws and moves: the same end and the same count of throws."""
    name, options = spec
    fast, slow = new_game(name, options=options), new_game(name, options=options)
    assert fast.has_fast_path
    throws = play_random_game(fast, random.Random(seed))
    rng = random.Random(seed)
    turns = 0
    while not slow.is_over:
        turns += 1
        play_random_turn(slow, rng)
    assert throws == turns
    assert fast.position() == slow.position()
    assert fast.winner == slow.winner
    assert fast.effects == slow.effects


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(FAST), SEEDS)
def test_play_random_game_cut_after_any_throw_stands_where_turn_by_turn_stands(spec, seed):
    """Every prefix of a seeded playout (`max_throws` = 1, 2, ...) leaves the position, the player to
    move, the opening, the winner and the last effects that as many random turns through `push` leave."""
    name, options = spec
    slow = new_game(name, options=options)
    rng = random.Random(seed)
    throws = 0
    while not slow.is_over:
        throws += 1
        play_random_turn(slow, rng)
        fast = new_game(name, options=options)
        assert play_random_game(fast, random.Random(seed), max_throws=throws) == throws
        assert state(fast) == state(slow)
        assert fast.effects == slow.effects
        assert fast.legal_moves() == slow.legal_moves() == []
    assert play_random_game(slow, random.Random(seed)) == 0  # a game that is over plays no more


def test_a_fast_pop_after_a_whole_game_unwinds_it():
    game = new_game("secret")
    start = state(game)
    rng = random.Random(11)
    for _ in range(5_000):
        if game.is_over:
            break
        srcs = game.fast_throw(game.random_throw(rng))
        if srcs:
            f, to = fast_moves(game, srcs)[-1]
            game.fast_move(f, to)
    assert game.winner is not None
    while game._fast:
        game.fast_pop()
    assert state(game) == start


@pytest.mark.parametrize(("name", "players"), [("modern", 2), ("modern", 4), ("cards", 2)])
def test_modern_and_cards_stay_on_push_and_still_play_random_games(name, players):
    """Two dice with up to four players, and hidden hands of cards, are not the core's turn."""
    game = new_game(name, players=players)
    assert not game.has_fast_path
    assert play_random_game(game, random.Random(3), max_throws=3_000) > 0
    assert game.actions  # played through push: the history is there
