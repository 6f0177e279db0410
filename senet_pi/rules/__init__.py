"""The rules of Senet as plain data and pure functions: no I/O, no hardware, no clock.

It may import `errors` only.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InvalidOptionError
from .cards import CardsGame
from .core import PLAYER_IDS, Game
from .houses import HousesGame
from .modern import ModernGame
from .move import Move
from .reasons import Reason
from .secret import SecretGame

#: Every rule set by name.
RULESETS: dict[str, type[Game]] = {cls.name: cls for cls in (SecretGame, HousesGame, CardsGame, ModernGame)}


def find_ruleset(name: str) -> type[Game]:
    """The rule set called `name` (or one of its aliases); InvalidOptionError if there is none."""
    key = name.strip().lower()
    for cls in RULESETS.values():
        if key == cls.name or key in cls.aliases:
            return cls
    raise InvalidOptionError(f"unknown rule set {name!r}: choose one of {', '.join(RULESETS)}")


def new_game(
    ruleset: str,
    players: int = 2,
    options: Mapping[str, object] | None = None,
    position: Mapping[str, object] | None = None,
) -> Game:
    """A game of the named rule set, from its standard setup or from `position`."""
    return find_ruleset(ruleset)(players=players, options=options, position=position)


__all__ = [
    "PLAYER_IDS",
    "RULESETS",
    "CardsGame",
    "Game",
    "HousesGame",
    "ModernGame",
    "Move",
    "Reason",
    "SecretGame",
    "find_ruleset",
    "new_game",
]
