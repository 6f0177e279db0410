"""Random play: a player who throws and picks uniformly among the legal moves.

Used by the property tests and the benchmark; handy for trying the referee on made-up games.
Random play knows only what a `Game` offers (its card hooks included): no rule set is imported
here, so a rule set depends on nothing generic about random play, never the reverse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from .core import Game
from .fast import BACKWARD
from .throws import RandomSource


def play_random_game(game: Game, rng: RandomSource, max_throws: int = 100_000) -> int:
    """Play `game` to its end (or `max_throws`) with random throws and moves; returns the throws made
    (in the card game, the turns: a card played or exchanged).

    Rule sets with a fast path (`Game.has_fast_path`) are played on it: the same throws and moves
    for the same `rng` as turn by turn, but no history is kept (`pop()` cannot undo them)."""
    if game.has_fast_path:
        return _play_fast(game, rng, max_throws)
    throws = 0
    while game.winner is None and throws < max_throws:
        throws += 1
        play_random_turn(game, rng)
    return throws


def _play_fast(game: Game, rng: RandomSource, max_throws: int) -> int:
    """`play_random_game` on the fast path: the k-th legal move is the k-th bit of the source mask."""
    value = cast(Callable[[RandomSource], int], game.throw_kind.value)  # the core's throws are counts
    bits, table = game.throw_kind.count_table() or (0, ())  # sticks: a lookup of random bits, no call
    random, getrandbits = rng.random, rng.getrandbits
    throw, move = game.fast_throw, game.fast_move
    forward, backward = game._forward_dest, game._backward_dest
    records = game._fast  # the undo records: not kept, as no history is
    throws = 0
    while game.winner is None and throws < max_throws:
        throws += 1
        t = table[getrandbits(bits)] if bits else value(rng)
        srcs = throw(t)
        if not srcs:
            continue
        dest = backward[t] if srcs & BACKWARD else forward[t]
        srcs &= ~BACKWARD
        k = int(random() * srcs.bit_count())
        while k:
            srcs &= srcs - 1
            k -= 1
        f = (srcs & -srcs).bit_length() - 1
        move(f, dest[f])
        if not throws & 63:
            del records[:-1]
    if records:
        game.effects = game.fast_effects()
        del records[:]
    return throws


def play_random_turn(game: Game, rng: RandomSource) -> None:
    """One turn by a random player: a throw and every move it gives (modern's two dice), or in the
    card game a card and its moves."""
    if game.turn_starts_with == "card":
        play_random_card_turn(game, rng)
        return
    game.push_throw(game.random_throw(rng))
    while moves := game.legal_moves():
        game.push(moves[int(rng.random() * len(moves))])


def play_random_card_turn(game: Game, rng: RandomSource) -> None:
    """One turn of the card game by a random player: a playable card (an exchange when none is, or
    one time in twenty), then random moves, sometimes declining a residue (K9)."""
    p, hand = game.to_move, game.hand(game.to_move_id)
    playable = [card for card in hand if game.playable(card)]
    can_exchange = game.can_exchange()
    if playable and (not can_exchange or rng.random() > 0.05):
        game.push_card(playable[int(rng.random() * len(playable))])
    elif can_exchange:
        count = 1 + int(rng.random() * min(2, len(hand)))
        game.push_exchange(hand[:count])
    else:
        game.push_pass()
    while (game.winner is None and game.to_move == p) or game.phase == "nile":
        moves = game.legal_moves()
        if game.phase == "residue" and (not moves or rng.random() < 0.3):
            game.push_pass()
        elif moves:
            game.push(moves[int(rng.random() * len(moves))])
        else:
            break
        if game.phase == "play" and game.pending is None:
            break
