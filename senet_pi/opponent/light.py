"""A lighter copy of a two-player game to look ahead on: the same rules, a cheaper push and pop.

A search pushes and pops tens of thousands of throws and moves a decision; `Game.push` builds
the effects (exchanges, bonus, turn) and a snapshot with them that a look-ahead never reads,
and profiling put about 40 % of a decision there. `light_copy` gives the position as an
instance of a subclass of its own rule set that keeps the move generator and every rule hook
(destinations, S2-S12, H5-H7 as the class states them) and pushes and pops only the state, so
the rules stay in one place; tests check it against the engine on random games. Rule sets
whose turn flow is not the core's (`modern`'s dice, `cards`) get an ordinary copy.
"""

from __future__ import annotations

from typing import Any

from ..rules import Game, Move
from ..rules.board import OFF

_LIGHT: dict[type[Game], type[Game]] = {}


def _flows_like_the_core(cls: type[Game]) -> bool:
    """Whether a rule set pushes, throws and relocates exactly as the core does (the light copy's premise)."""
    return all(getattr(cls, name) is getattr(Game, name) for name in ("push", "push_throw", "_relocate", "_forfeit"))


def _light_class(cls: type[Game]) -> type[Game]:
    light = _LIGHT.get(cls)
    if light is not None:
        return light

    class Light(cls):  # type: ignore[valid-type,misc]  # a subclass made per rule set
        """`cls`'s rules with a push and pop of the bare state (no effects, no history of actions)."""

        _moves: list[Move] | None

        def _mark(self) -> None:
            occ, off = self.occ, self.off
            self._stack.append((occ[0], occ[1], off[0], off[1], self.to_move, self.pending, self.opening, self.winner))

        def pop(self) -> tuple[str, object]:
            o0, o1, f0, f1, self.to_move, self.pending, self.opening, self.winner = self._stack.pop()
            self.occ, self.off = [o0, o1], [f0, f1]
            self._moves = None
            return ("", None)

        def legal_moves(self) -> list[Move]:
            if self._moves is None:
                waiting = self.pending is not None and self.winner is None
                self._moves = self._generate(self.to_move, self.pending) if waiting else []
            return self._moves

        def push_throw(self, value: object) -> Any:
            self._mark()
            p = self.to_move
            moves = self._generate(p, value)
            if moves:
                self.pending = value
                self._moves = moves
            else:  # P7: forfeited; a bonus value throws again
                self._moves = None
                if value not in self.bonus_throws:
                    self.to_move = 1 - p
            return ()

        def push(self, move: Move) -> Any:
            self._mark()
            p, f, to = self.to_move, move.from_sq, move.to_sq
            occ = self.occ
            me = occ[p] ^ (1 << f)
            if to == OFF:
                self.off[p] += 1
            else:
                tb = 1 << to
                if occ[1 - p] & tb:  # P4: attack = exchange
                    occ[1 - p] ^= tb | (1 << f)
                me |= tb
            occ[p] = me
            bonus = move.by in self.bonus_throws or to in self.bonus_landings or self._extra_bonus(f, to)
            if to == self.water_square:  # S7/H6
                dest = self._free_square_from(self.rebirth_square)
                occ[p] ^= (1 << to) | (1 << dest)
            self.pending = None
            self.opening = False
            self._moves = None
            if self.off[p] == self.pieces:  # P8
                self.winner = p
            elif not bonus:  # P6
                self.to_move = 1 - p
            return ()

    Light.__name__ = Light.__qualname__ = f"Light{cls.__name__}"
    _LIGHT[cls] = Light
    return Light


def light_copy(game: Game) -> Game:
    """A copy of `game` (no history) to look ahead on: the light kind where the rule set allows it."""
    cls = type(game)
    if game.players != 2 or game.turn_starts_with != "throw" or not _flows_like_the_core(cls):
        return game.copy(history=False)
    light = _light_class(cls)
    out = light.__new__(light)
    out.__dict__.update(game.__dict__, _moves=None)  # the light kind's own move cache starts empty
    out.occ, out.off = list(game.occ), list(game.off)
    out._stack = []
    out.effects = ()
    return out
