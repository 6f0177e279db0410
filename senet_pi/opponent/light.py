"""A lighter copy of a two-player game to look ahead on: the same rules, on the rules' fast path.

A search pushes and pops tens of thousands of throws and moves a decision; `Game.push` builds
the effects (exchanges, bonus, turn) and a snapshot of the whole state that a look-ahead never
reads. `light_copy` gives the position as an instance of a subclass of its own rule set whose
push, push_throw and pop are the rules' fast path (`senet_pi/rules/fast.py`: the legal moves from
one mask of source squares, undo by XOR records, no effects), so the rules stay in one place; tests
check it against the engine on random games. Rule sets without a fast path (`modern`'s dice,
`cards`) get an ordinary copy. What push and push_throw return here is not effects: a search
reads the position, never the effects.
"""

from __future__ import annotations

from ..rules import Game, Move
from ..rules.fast import FastPath

_LIGHT: dict[type[Game], type[Game]] = {}


def _light_class(cls: type[Game]) -> type[Game]:
    light = _LIGHT.get(cls)
    if light is not None:
        return light

    class Light(cls):  # type: ignore[valid-type,misc]  # a subclass made per rule set
        """`cls`'s rules with push and pop on the fast path (no effects, no history of actions)."""

        # The fast path's own methods, not wrappers: a search calls them some 100,000 times a decision.
        push = FastPath.fast_push
        push_throw = FastPath.fast_throw
        pop = FastPath.fast_pop

        def legal_moves(self) -> list[Move]:
            moves: list[Move] = self.fast_moves(self.last_sources())
            return moves

    Light.__name__ = Light.__qualname__ = f"Light{cls.__name__}"
    Light._core_flow = cls._core_flow  # its push and pop are the fast path's: the turn is still the core's
    _LIGHT[cls] = Light
    return Light


def light_copy(game: Game) -> Game:
    """A copy of `game` (no history) to look ahead on: the light kind where the rule set allows it."""
    if not game.has_fast_path:
        return game.copy(history=False)
    light = _light_class(type(game))
    out = light.__new__(light)
    out.__dict__.update(game.__dict__)
    out.occ, out.off = list(game.occ), list(game.off)
    out._stack = []
    out._fast = []
    out.effects = ()
    return out
