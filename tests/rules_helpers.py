"""Positions written inline, as python-chess tests write FENs: a game from its squares, and its legal moves as text."""

from __future__ import annotations

from senet_pi.rules import Game, new_game


def at(ruleset: str, A: list[int], B: list[int], to_move: str = "A", throw: object = None, **off: int) -> Game:
    """A game of `ruleset` from a position: squares of A's and B's pieces, the rest borne off."""
    counts = {"A": off.get("A", 5 - len(A)), "B": off.get("B", 5 - len(B))}
    position = {"A": A, "B": B, "to_move": to_move, "off": counts}
    game = new_game(ruleset, position=position)
    if throw is not None:
        game.push_throw(throw)
    return game


def moves(game: Game) -> set[str]:
    """The legal moves as text, e.g. {"10-13", "26-off"}."""
    return {str(m) for m in game.legal_moves()}
