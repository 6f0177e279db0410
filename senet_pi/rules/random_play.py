"""Random play: a player who throws and picks uniformly among the legal moves.

Used by the property tests and the benchmark; handy for trying the referee on made-up games.
"""

from __future__ import annotations

from .core import Game
from .throws import RandomSource


def play_random_game(game: Game, rng: RandomSource, max_throws: int = 100_000) -> int:
    """Play `game` to its end (or `max_throws`) with random throws and moves; returns the throws made."""
    throws = 0
    random = rng.random
    while game.winner is None and throws < max_throws:
        throws += 1
        game.push_throw(game.random_throw(rng))
        moves = game.legal_moves()
        while moves:
            game.push(moves[int(random() * len(moves))])
            moves = game.legal_moves()
    return throws
