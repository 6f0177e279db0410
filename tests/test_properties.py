"""Property tests over random games of every rule set (hypothesis picks the seeds and options).

The fast move generator and the readable validator are two separate implementations of
the rulings; here they must agree on every square pair of every position met.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from senet_pi.errors import IllegalMoveError
from senet_pi.rules import Game, ModernGame, Move, new_game
from senet_pi.rules.board import OFF, squares_in
from senet_pi.rules.cards import CardsGame, default_deck
from senet_pi.rules.random_play import play_random_card_turn, play_random_turn
from senet_pi.service.replay import load_replay, run_replay

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
GAMES = st.one_of(
    st.tuples(st.just("secret"), st.just(2), st.sampled_from([{}, {"throws": "d6"}])),
    st.tuples(st.just("houses"), st.just(2), st.just({})),
    st.tuples(st.just("modern"), st.sampled_from([2, 3, 4]), st.just({})),
    st.tuples(st.just("cards"), st.just(2), st.sampled_from([{}, {"specials": False}])),
)
MAX_THROWS = 5_000


def seeded_game(name: str, players: int, options: dict, seed: int) -> Game:
    """A new game; the card game's deck order and reshuffles come from the seed too."""
    if name == "cards":
        deck = default_deck(specials=options.get("specials", True))
        random.Random(seed).shuffle(deck)
        options = {**options, "deck_order": deck, "shuffle_seed": seed}
    return new_game(name, players=players, options=options)


def play_to_the_end(game: Game, rng: random.Random) -> None:
    """Random play through `push` until the game is over (throws, or cards played and exchanged),
    so the history is kept (`play_random_game` plays `secret` and `houses` on the fast path, which
    keeps none)."""
    for _ in range(MAX_THROWS):
        if game.is_over:
            return
        if isinstance(game, CardsGame):
            play_random_card_turn(game, rng)
        else:
            play_random_turn(game, rng)


def check_invariants(game: Game) -> None:
    """Pieces are conserved and no two pieces share a square."""
    seen = 0
    for p, occ in enumerate(game.occ):
        assert occ & seen == 0, "two pieces share a square"
        assert occ & ~((1 << OFF) - 2) == 0, "a piece off the board squares"
        seen |= occ
        on_board = occ.bit_count()
        if isinstance(game, ModernGame):
            assert on_board + len(game.up[p]) + len(game.removed[p]) == game.pieces
            assert [*sorted(game.dots[sq] for sq in squares_in(occ))] == sorted(
                set(range(1, 6)) - set(game.up[p]) - set(game.removed[p])
            )
        else:
            assert on_board + game.off[p] == game.pieces


def check_generator_matches_validator(game: Game) -> None:
    """Every generated move is accepted by the validator; every other one is refused with a reason."""
    legal = set(game.legal_moves())
    p = game.player_ids.index(game.mover_id)  # the card game's Nile card moves the named player's pawn
    if isinstance(game, ModernGame):
        values = sorted({*game.pending, sum(game.pending)})
    elif isinstance(game.pending, int):
        values = [game.pending]
    else:
        values = [0]  # a hieroglyph or Nile move carries no count (K6, K7)
    accepted = set()
    for from_sq in range(1, 31):
        own = game.occ[p] >> from_sq & 1
        for to_sq in range(1, OFF + 1):
            for by in values:
                try:
                    move = game.check_move(from_sq, to_sq, by)
                except IllegalMoveError as exc:
                    assert str(exc).endswith(")") and exc.ruling, exc
                    continue
                assert own, f"validator accepted a move of a piece that is not {game.to_move_id}'s"
                assert move == Move(from_sq, to_sq, by)
                accepted.add(move)
            if not own:
                break  # one refusal per empty or foreign square is enough
    assert accepted == legal, f"{game!r}: validator {sorted(map(str, accepted))} vs generator {sorted(map(str, legal))}"


def random_card_game_with_checks(game: CardsGame, rng: random.Random) -> Game:
    """A random card game (as `play_random_card_turn` plays it), both paths compared at every move."""
    for _ in range(10 * MAX_THROWS):
        if game.is_over:
            return game
        moves = game.legal_moves()
        if moves:
            check_generator_matches_validator(game)
            if game.phase == "residue" and rng.random() < 0.3:
                game.push_pass()  # K9: the residue is optional
            else:
                game.push(moves[rng.randrange(len(moves))])
        else:
            p = game.to_move
            playable = [card for card in game.hands[p] if game.playable(card)]
            if playable and (not game.can_exchange() or rng.random() > 0.05):
                game.push_card(playable[rng.randrange(len(playable))])
            elif game.can_exchange():
                game.push_exchange(game.hands[p][: 1 + rng.randrange(min(2, len(game.hands[p])))])
            else:
                game.push_pass()
        check_invariants(game)
    raise AssertionError("the game did not end")


def random_game_with_checks(name: str, players: int, options: dict, seed: int, check_every: int) -> Game:
    rng = random.Random(seed)
    game = seeded_game(name, players, options, seed)
    if isinstance(game, CardsGame):
        return random_card_game_with_checks(game, rng)
    throws = 0
    while not game.is_over:
        throws += 1
        assert throws <= MAX_THROWS, "the game did not end"
        game.push_throw(game.random_throw(rng))
        check_invariants(game)
        while game.legal_moves():
            if throws % check_every == 0:
                check_generator_matches_validator(game)
            moves = game.legal_moves()
            game.push(moves[rng.randrange(len(moves))])
            check_invariants(game)
    return game


@settings(max_examples=25)
@given(GAMES, SEEDS)
def test_random_games_keep_the_rules_invariants_and_end(spec, seed):
    name, players, options = spec
    game = random_game_with_checks(name, players, options, seed, check_every=1)
    assert game.winner_id in game.player_ids


@settings(max_examples=15)
@given(GAMES, SEEDS)
def test_push_pop_unwinds_a_whole_game(spec, seed):
    name, players, options = spec
    game = seeded_game(name, players, options, seed)
    start = (game.board(), game.to_move, game.position())
    play_to_the_end(game, random.Random(seed))
    assert game.is_over
    while game.actions:
        game.pop()
    assert (game.board(), game.to_move, game.position()) == start


def log_as_replay(game: Game) -> dict:
    events = []
    for kind, value in game.actions:
        if kind == "throw":
            events.append({"throw": list(value) if isinstance(value, tuple) else value})
        elif kind == "move":
            events.append({"move": [value.from_sq, "off" if value.to_sq == OFF else value.to_sq], "by": value.by})
        else:  # the card game's "card", "exchange" and "pass"
            events.append({kind: value})
    return {"variant": game.name, "players": game.players, "options": game.options, "events": events}


@settings(max_examples=20)
@given(GAMES, SEEDS)
def test_a_random_game_replayed_from_its_own_log_gives_the_same_result(spec, seed):
    name, players, options = spec
    game = seeded_game(name, players, options, seed)
    play_to_the_end(game, random.Random(seed))
    verdicts = list(run_replay(load_replay(log_as_replay(game))))
    assert not [v for v in verdicts if v["v"] == "illegal"]
    played = [(v["from"], v["to"]) for v in verdicts if v["v"] == "move"]
    expected = [(m.from_sq, "off" if m.to_sq == OFF else m.to_sq) for k, m in game.actions if k == "move"]
    assert played == expected
    assert verdicts[-1]["v"] == "win"
    assert verdicts[-1]["player"] == game.winner_id


@pytest.mark.parametrize("name", ["secret", "houses", "modern"])
def test_the_opening_position_agrees_too(name):
    game = new_game(name)
    for value in game.throw_kind.values():
        game.push_throw(value)
        if game.legal_moves():
            check_generator_matches_validator(game)
        game.pop()
