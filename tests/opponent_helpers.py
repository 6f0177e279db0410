"""Exact values of small endgames by brute force through the engine: the tests' ground truth."""

from __future__ import annotations

import random

from senet_pi.opponent.tables import build_table
from senet_pi.rules import HousesGame, SecretGame, new_game
from senet_pi.rules.board import squares_in
from senet_pi.rules.random_play import play_random_turn


def small_tables(path, pieces):
    """`path` with the secret and houses stick tables of up to `pieces` pieces a side (1: a blink, 2: seconds)."""
    build_table(SecretGame, "sticks", max_pieces=pieces, folder=path)
    build_table(HousesGame, "sticks", max_pieces=pieces, folder=path)
    return path


def options_for(cls, throws):
    return {"throws": throws} if "throws" in cls.option_defaults() else {}


def game_at(cls, throws, me, op, to_move="A"):
    """A game with the mover's pieces `me` and the other side's `op` (the rest borne off)."""
    mover, other = ("A", "B") if to_move == "A" else ("B", "A")
    position = {mover: list(me), other: list(op), "off": {mover: 5 - len(me), other: 5 - len(op)}, "to_move": to_move}
    return cls(options=options_for(cls, throws), position=position)


def exact_values(cls, throws, starts, limit=20_000):
    """Every position reachable from `starts` ((mover squares, other squares) pairs) -> the mover's exact chance,
    by value iteration over the engine's own moves (to a residual of 1e-12)."""
    odds = [(t, float(p)) for t, p in cls(options=options_for(cls, throws)).throw_kind.odds().items()]
    links = {}
    todo = [(tuple(m), tuple(o)) for m, o in starts]
    while todo:
        state = todo.pop()
        if state in links:
            continue
        assert len(links) < limit, "too many positions for a brute force"
        per_throw = []
        for t, p in odds:
            game = game_at(cls, throws, *state)
            game.push_throw(t)
            options = []
            if game.pending is None:  # P7
                options.append(("same", state) if game.to_move == 0 else ("other", (state[1], state[0])))
            for move in game.legal_moves():
                game.push(move)
                if game.is_over:
                    options.append(("win", None))
                else:
                    a, b = tuple(squares_in(game.occ[0])), tuple(squares_in(game.occ[1]))
                    options.append(("same", (a, b)) if game.to_move == 0 else ("other", (b, a)))
                game.pop()
            per_throw.append((p, options))
            todo.extend(x for k, x in options if x is not None and x not in links)
        links[state] = per_throw
    v = dict.fromkeys(links, 0.5)
    for _ in range(20_000):
        change = 0.0
        for s, per_throw in links.items():
            new = sum(
                p * max(1.0 if k == "win" else v[x] if k == "same" else 1.0 - v[x] for k, x in options)
                for p, options in per_throw
            )
            change = max(change, abs(new - v[s]))
            v[s] = new
        if change < 1e-12:
            break
    return v


def move_values(cls, throws, me, op, throw, values):
    """Each legal move of the throw in this position -> the mover's exact chance after it."""
    game = game_at(cls, throws, me, op)
    game.push_throw(throw)
    out = {}
    for move in game.legal_moves():
        game.push(move)
        if game.is_over:
            out[str(move)] = 1.0
        else:
            a, b = tuple(squares_in(game.occ[0])), tuple(squares_in(game.occ[1]))
            out[str(move)] = values[(a, b)] if game.to_move == 0 else 1.0 - values[(b, a)]
        game.pop()
    return out


def random_positions(name, count, seed, options=None):
    """`count` positions met in random games of `name` (seeded), none of them over."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        game = new_game(name, options=options)
        while not game.is_over and len(out) < count:
            play_random_turn(game, rng)
            if not game.is_over:
                out.append(game.copy(history=False))
    return out
