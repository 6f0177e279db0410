"""Every ruling id in plain words, for visitors who have never seen Senet.

`rulings.md` decides cases for programmers; these sentences tell a museum visitor what a
ruling id such as "(P3)" on the page means. One sentence each, no jargon; exhibit mode will
translate them, so they live here and nowhere else.
"""

from __future__ import annotations

from .text import Text

PLAIN: dict[str, Text] = {
    # common to every rule set
    "P1": Text(
        "The pieces run along the board in an S: left to right, then back right to left, then left to right again."
    ),
    "P2": (
        Text(
            "Two players each start with five pieces on the first ten squares, alternating; "
            "the player on square 10 starts."
        )
    ),
    "P3": Text("Move one of your own pieces forward by exactly the number thrown; it may not land on your own piece."),
    "P4": Text("Landing on a lone opposing piece swaps the two: the other piece goes back to where yours came from."),
    "P5": Text(
        "A piece is safe from attack on a safe square, or when it stands next to another piece of the same player."
    ),
    "P6": Text("A move earns at most one extra throw, however many reasons it has for one."),
    "P7": Text("If no piece can move with the throw, the throw is lost."),
    "P8": Text("The first player to take all five pieces off the board wins."),
    # secret
    "S1": Text("Throw four sticks and count the dark sides; no dark side counts 6. A 1, 4 or 6 earns another throw."),
    "S2": Text("The game opens with the piece on square 10."),
    "S3": Text("In the top row, only your piece furthest along may move."),
    "S4": Text(
        "Three pieces of one player in a row, in the same row of the board, cannot be jumped by the other player."
    ),
    "S5": Text("Square 15, the ankh, is safe: a piece there cannot be attacked."),
    "S6": Text("Every piece must stop on square 26, the soul bird; no move may jump over it. It is safe there."),
    "S7": (
        Text(
            "A piece that steps from 26 into the river on 27 is reborn on square 15, "
            "or the nearest free square before it."
        )
    ),
    "S8": Text(
        "Square 28 is safe; reaching it from 26 earns another throw. From there a piece moves only with 1, 2 or 3."
    ),
    "S9": Text("Square 29 is safe and landing there earns another throw. From there a piece moves only with 1 or 2."),
    "S10": Text("Landing on square 30 earns another throw; a piece leaves it only with a throw of 1."),
    "S11": (
        Text(
            "A piece leaves the board only with the exact throw, and "
            "only when its player has no piece left in the top row."
        )
    ),
    "S12": Text("If no piece can move forward, one must move backward instead, never onto or from squares 26 to 30."),
    # houses
    "H1": Text("Throw four sticks and count the white sides; no white side counts 5. A 1, 4 or 5 earns another throw."),
    "H2": Text("The game opens with the piece on square 10."),
    "H3": Text("Three pieces of one player in a row cannot be jumped by the other player."),
    "H4": Text("Square 15, the house of rebirth, is safe, and landing there earns another throw."),
    "H5": (
        Text(
            "Every piece must stop on square 26, the house of happiness; while "
            "a piece is there, no other may land on or pass it."
        )
    ),
    "H6": Text("A piece landing on square 27, the water, drowns and goes back to square 15."),
    "H7": Text(
        "Squares 28, 29 and 30 are safe and earn another throw; a piece leaves them only with exactly 3, 2 or 1."
    ),
    "H8": Text(
        "From square 26 a throw of 1 goes into the water, 2 to 28, 3 to 29, 4 to 30, and 5 takes the piece off."
    ),
    "H9": Text("There are no backward moves: a player who cannot move loses the throw."),
    # cards
    "K1": Text("The card game moves pieces as in the house rules."),
    "K2": Text("The deck holds stick cards worth 1 to 5 and a few special cards."),
    "K3": Text("Each player holds five cards; green starts."),
    "K4": Text("On your turn, play one card, or swap up to two cards for new ones."),
    "K5": Text("A stick card moves one of your pieces by its value; a 1, 4 or 5 lets you draw and play again."),
    "K6": (
        Text(
            "A picture card sends one of your pieces straight to square 26, "
            "28 or 29, if the way is clear and the square free."
        )
    ),
    "K7": Text("A Nile card makes the player it names send one of their pieces on squares 16 to 30 into the water."),
    "K8": Text("The hand card makes the players swap their hands of cards."),
    "K9": (
        Text(
            "A piece may leave the board with more than it needs, and "
            "the rest may move another piece; the last piece needs the exact value."
        )
    ),
    "K10": Text("Each player sees their own cards on their own phone."),
    # modern
    "M1": Text("Up to four players, five pieces each, marked with one to five dots."),
    "M2": Text("The player on square 1, the sun, moves first."),
    "M3": Text("Throw two dice: move one piece by their sum, or two different pieces by one die each."),
    "M4": Text("Landing on another player's piece sends it back to the sun on square 1."),
    "M5": Text("A piece leaves the board only with the exact count; too much and it bounces back."),
    "M6": Text("A piece that stops on square 26, the moon, goes back to the sun."),
    "M7": Text("A piece that stops on square 27, the bird, goes back to square 15."),
    "M8": (
        Text(
            "Squares 28 to 30 are safe tiles: only a piece already on them "
            "may land on a piece there, and a piece there must move on."
        )
    ),
    "M9": Text("A player who cannot move leaves the game."),
    "M10": Text(
        "The game ends when three pieces have left the board; the dots of your pieces that left are your score."
    ),
}


def explain(ruling: str) -> str | None:
    """The plain sentence for `ruling` ("P3"), or None for an id that has none."""
    return PLAIN.get(ruling)
