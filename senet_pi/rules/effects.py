"""What happened after a throw or a move: the rules' own moves, bonus throws, turns, the end.

The referee turns the relocations into prompts for the people at the board
(ruling "What the sensors can and cannot see").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .text import N_, Text

#: How the kind of a rules' own move reads inside a sentence ("(exchange)"), marked for translation.
KIND_WORDS = {
    "exchange": N_("exchange"),
    "removed": N_("removed"),
    "drowned": N_("drowned"),
    "reincarnated": N_("reincarnated"),
    "to_15": N_("to 15"),
    "to_sun": N_("to sun"),
}


def kind_word(kind: str) -> Text:
    """The kind's word as a `Text` (a kind without one reads as its name, underscores as spaces)."""
    return Text(KIND_WORDS.get(kind, kind.replace("_", " ")))


@dataclass(frozen=True)
class Exchanged:
    """P4: the attacked piece of `player` went from `from_sq` to the attacker's square `to_sq`."""

    player: str
    from_sq: int
    to_sq: int
    kind: str = "exchange"


@dataclass(frozen=True)
class Relocated:
    """A piece the rules moved by themselves: drowned, reincarnated, sent to the sun or to 15."""

    player: str
    from_sq: int
    to_sq: int
    kind: str
    ruling: str


@dataclass(frozen=True)
class Removed:
    """M4: a piece on the sun left the game for good."""

    player: str
    from_sq: int
    ruling: str = "M4"
    kind: str = "removed"


@dataclass(frozen=True)
class Forfeit:
    """P7/M9: the throw could not be played."""

    player: str
    throw: object
    reason: str
    kind: str = "forfeit"


@dataclass(frozen=True)
class Bonus:
    """That player throws again (P6, P7)."""

    player: str
    kind: str = "bonus"


@dataclass(frozen=True)
class Turn:
    """The turn passed to that player."""

    player: str
    kind: str = "turn"


@dataclass(frozen=True)
class Eliminated:
    """M9: the player could not move and left the game."""

    player: str
    kind: str = "out"


@dataclass(frozen=True)
class Win:
    """The game is over; `scores` only in `modern` (M10)."""

    player: str
    scores: dict[str, int] | None = field(default=None, hash=False)
    kind: str = "win"


# Everything `push`, `push_throw` and the card actions return, one of these each.
Effect = Exchanged | Relocated | Removed | Forfeit | Bonus | Turn | Eliminated | Win
Effects = tuple[Effect, ...]
