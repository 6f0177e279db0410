"""Random play: a player who throws and picks uniformly among the legal moves.

Used by the property tests and the benchmark; handy for trying the referee on made-up games.
Random play knows only what a `Game` offers (its card hooks included): no rule set is imported
here, so a rule set depends on nothing generic about random play, never the reverse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from .board import OFF
from .core import Game
from .sources import BACKWARD
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
    """`play_random_game` on the fast path: the k-th legal move is the k-th bit of the source mask.

    One call a throw, to the rule set's generator (`sources.py`), on the two boards held in local
    names; a move that takes more than its piece along (an exchange, the water) asks the generator's
    `landing`, as `fast_move` does. The turn passes unless the throw or the move's squares earn a
    bonus (the tables `fast_move` reads). The last action is left as a fast-path record, so its
    effects are `fast_effects()`'s."""
    if game.winner is not None:
        return 0
    cls = type(game)
    value = cast(Callable[[RandomSource], int], game.throw_kind.value)  # the core's throws are counts
    bits, table = game.throw_kind.count_table() or (0, ())  # sticks: a lookup of random bits, no call
    random, getrandbits = rng.random, rng.getrandbits
    sources, landing = cls._generator.sources, cls._generator.landing
    forward, backward, bonus_throws, landing_bonus = (
        cls._forward_dest,
        cls._backward_dest,
        cls.bonus_throws,
        cls._landing_bonus,
    )
    water = cls.water_square
    p, off, pieces, opening = game.to_move, game.off, cls.pieces, game.opening
    me, op = game.occ[p], game.occ[1 - p]
    throws = f = to = dme = dop = 0
    mover, t, opened, passed = p, 0, opening, False
    for throws in range(1, max_throws + 1):  # noqa: B007  # `throws` is read after the loop
        t = table[getrandbits(bits)] if bits else value(rng)
        mover, opened = p, opening
        srcs = sources(me, op, t, opening)
        if not srcs:  # P7: forfeited, the turn passes unless the throw is a bonus
            f = to = dme = dop = 0
            passed = t not in bonus_throws
            if passed:
                me, op, p = op, me, 1 - p
            continue
        dest = backward[t] if srcs & BACKWARD else forward[t]
        srcs ^= srcs & BACKWARD
        k = random() * srcs.bit_count()  # the int(k)-th source: as many steps as k is past 1.0
        while k >= 1.0:
            srcs &= srcs - 1
            k -= 1.0
        f = (srcs & -srcs).bit_length() - 1
        to = dest[f]
        opening = False
        if to == OFF:
            off[p] += 1
            if off[p] == pieces:  # P8
                dme, dop, passed = 1 << f, 0, False
                me ^= dme
                break
        dme = 1 << f | 1 << to if to != OFF else 1 << f
        if op & dme or to == water:  # a rule moves more than the piece (P4, S7/H6): `landing` says what
            after_me, after_op = landing(me, op, f, to)
            dme, dop, me, op = me ^ after_me, op ^ after_op, after_me, after_op
        else:  # the piece alone goes from f to `to` (or off)
            dop = 0
            me ^= dme
        passed = not (t in bonus_throws or landing_bonus[f << 5 | to])  # P6
        if passed:
            me, op, p = op, me, 1 - p
    game.occ[p], game.occ[1 - p] = me, op
    game.to_move, game.opening = p, opening
    game._version += 1
    if throws:
        game.winner = mover if off[mover] == pieces else None
        game._fast.append((mover, t, f, to, dme, dop, opened, passed))
        game.effects = game.fast_effects()
        del game._fast[:]
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
