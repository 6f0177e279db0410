"""Random play: a player who throws and picks uniformly among the legal moves.

Used by the property tests and the benchmark; handy for trying the referee on made-up games.
Random play knows only what a game offers (`Game`, and `CardPlay` for a card game): no rule set
is imported here, so a rule set depends on nothing generic about random play, never the reverse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .core import Game
from .move import Move
from .throws import RandomSource


class CardPlay(Protocol):
    """What a card game offers a random player (the card game, `cards.CardsGame`, has it all)."""

    hands: list[list[str]]
    phase: str
    to_move: int
    pending: object
    winner: object

    def playable(self, card: str) -> bool: ...

    def can_exchange(self) -> bool: ...

    def push_card(self, card: str) -> object: ...

    def push_exchange(self, cards: Sequence[str]) -> object: ...

    def push_pass(self) -> object: ...

    def push(self, move: object) -> object: ...

    def legal_moves(self) -> list[Move]: ...


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


def play_random_card_turn(game: CardPlay, rng: RandomSource) -> None:
    """One turn of the card game by a random player: a playable card (an exchange when none is, or
    one time in twenty), then random moves, sometimes declining a residue (K9)."""
    p = game.to_move
    playable = [card for card in game.hands[p] if game.playable(card)]
    can_exchange = game.can_exchange()
    if playable and (not can_exchange or rng.random() > 0.05):
        game.push_card(playable[int(rng.random() * len(playable))])
    elif can_exchange:
        count = 1 + int(rng.random() * min(2, len(game.hands[p])))
        game.push_exchange(game.hands[p][:count])
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
