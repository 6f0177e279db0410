"""The fast path: throws and moves over plain integers, for playouts and the search.

`Game.push`/`pop` build a `Move` for every legal move, an effects tuple for every action and a
snapshot of the whole state for every undo: what the referee, the page and people need, and most
of the time of a random playout (about 32 Python calls a ply). The fast path plays the same rules
with less: a throw gives the legal moves as a mask of source squares (`fast_throw`; the k-th
legal move is the k-th bit of the mask, in `legal_moves()` order), a move is a source and a
destination (`fast_move`), undo is a record of what changed, XOR masks of the two boards and the
few scalars before it (`fast_pop`), and effects are built only when asked (`fast_effects`).

It is not a second copy of the rules: the sources come from the same bit-parallel generator as
`legal_moves()` (`sources.py`, made from the rule set's data), a move's effect on the two boards
is the generator's `landing`, and whether it keeps the turn comes from the same class attributes
as `Game.push` (bonus throws, and a table of `bonus_landings` and `_extra_bonus`). It serves the
rule sets whose turn is the core's (`secret` and `houses`, two players, a throw a turn); `modern`
(two dice, up to four players) and `cards` (a hand of cards, hidden from the other player) keep
`Game`'s path (`has_fast_path` says which). The property tests play the same seeded games through
both paths and compare every position, move list and effect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from .board import OFF, bit, squares_in
from .effects import Bonus, Effect, Effects, Exchanged, Relocated, Turn, Win
from .move import Move
from .sources import BACKWARD, Generator

#: One action's undo record: (mover, the throw (waiting before a move; made, for a throw), from,
#: to, XOR of the mover's board, XOR of the other board, opening before, whether the turn passed).
#: A throw's record has from = to = 0 and, in place of the first XOR, the throw's source mask.
Record = tuple[int, object, int, int, int, int, bool, bool]

#: How many lists of moves a rule set keeps (a few thousand meet in practice; each is a few pointers).
_MOVE_LISTS = 50_000


class FastPath:
    """The fast path over the state a `Game` holds (mixed into `Game`)."""

    # What the fast path reads of the game (set by `Game`).
    occ: list[int]
    off: list[int]
    to_move: int
    pending: object
    opening: bool
    winner: int | None
    players: int
    pieces: ClassVar[int]
    player_ids: tuple[str, ...]
    effects: Effects
    bonus_throws: ClassVar[frozenset[int]]
    bonus_landings: ClassVar[dict[int, str]]
    backward_moves: ClassVar[bool]
    water_square: ClassVar[int | None]
    water_kind: ClassVar[str]
    water_ruling: ClassVar[str]
    rebirth_square: ClassVar[int]
    _version: int
    _fast: list[Record]
    _turn: tuple[Turn, ...]
    _bonus: tuple[Bonus, ...]
    #: Whether the rule set's turn flow is the core's (set by `Game.__init_subclass__`).
    _core_flow: ClassVar[bool] = False
    #: The destination of a move by t from each square (0: none), forward and backward (S12).
    _forward_dest: ClassVar[tuple[tuple[int, ...], ...]] = ()
    _backward_dest: ClassVar[tuple[tuple[int, ...], ...]] = ()
    _forward_table: ClassVar[tuple[tuple[Move | None, ...], ...]]
    #: Lists of moves by sources and throw, per rule set (set by `Game.__init_subclass__`).
    _move_lists: ClassVar[dict[int, list[Move]]] = {}
    _backward_table: ClassVar[tuple[tuple[Move | None, ...], ...]]
    #: The rule set's generator (`sources.py`) and whether a move from f to `to` earns a bonus by its
    #: squares (`bonus_landings`, `_extra_bonus`), at index f << 5 | to (set by `Game.__init_subclass__`).
    _generator: ClassVar[Generator]
    _landing_bonus: ClassVar[tuple[bool, ...]] = ()

    if TYPE_CHECKING:  # Game's, read here

        def _forfeit_effects(self, p: int, value: object, passed: bool) -> Effects: ...

    @property
    def has_fast_path(self) -> bool:
        """Whether this game can be played on the fast path (two players, the core's turn flow)."""
        return self._core_flow and self.players == 2

    def destinations(self, t: int, backward: bool = False) -> tuple[int, ...]:
        """Where a move by `t` from each square ends (index = square; 0 where none can), as the
        rule set's `destination` says (forward) or S12 (backward)."""
        return (self._backward_dest if backward else self._forward_dest)[t]

    def fast_rules(self) -> tuple[Generator, tuple[bool, ...]]:
        """What `fast_throw` and `fast_move` ask, for a search that reads positions without playing
        them: the rule set's generator (its `sources` and a move's `landing`, `sources.py`) and whether
        a move's squares earn a bonus throw (at index f << 5 | to)."""
        return self._generator, self._landing_bonus

    def fast_moves(self, srcs: int) -> list[Move]:
        """The moves a source mask of `fast_throw` stands for, in `legal_moves()` order: the shared
        `Move` objects of the rule set's tables, in a list kept for the next time the same sources
        and throw come (do not change it)."""
        if not srcs:
            return []
        t = cast(int, self.pending)  # a mask from fast_throw: its throw waits
        key = srcs | t << 32
        cache = self._move_lists
        moves = cache.get(key)
        if moves is None:
            if len(cache) > _MOVE_LISTS:
                cache.clear()
            table = (self._backward_table if srcs & BACKWARD else self._forward_table)[t]
            moves = cache[key] = [cast(Move, table[sq]) for sq in squares_in(srcs & ~BACKWARD)]
        return moves

    def fast_sources(self, t: int) -> int:
        """The squares of the player to move whose piece may move by `t`, as a mask, with `BACKWARD`
        set when they must move backward (S12): the moves of `legal_moves()`, in the same order."""
        p, occ = self.to_move, self.occ
        return self._generator.sources(occ[p], occ[1 - p], t, self.opening)

    def fast_throw(self, t: int, known: int = -1) -> int:
        """Play throw `t` for the player to move, like `push_throw`: returns `fast_sources(t)`; with
        no legal move the throw is forfeited (P7) and 0 is returned. `known` is what this throw
        returned in this same position before (a search trying a throw twice), taken as it is."""
        p, occ = self.to_move, self.occ
        srcs = known if known >= 0 else self._generator.sources(occ[p], occ[1 - p], t, self.opening)
        passed = False
        if srcs:
            self.pending = t
        elif t not in self.bonus_throws:
            self.to_move = 1 - p
            passed = True
        self._fast.append((p, t, 0, 0, srcs, 0, self.opening, passed))
        self._version += 1
        return srcs

    def last_sources(self) -> int:
        """The source mask of the throw waiting (as `fast_throw` gave it), from its record if the
        throw was the last action, else found afresh; 0 when no throw waits."""
        if self.pending is None or self.winner is not None:
            return 0
        if self._fast:
            _, t, f, _, srcs, _, _, _ = self._fast[-1]
            if not f and t == self.pending:
                return srcs
        return self.fast_sources(cast(int, self.pending))

    def fast_push(self, move: Move) -> None:
        """Play `move` (a legal move of the throw waiting, e.g. from `fast_moves`), like `push`."""
        self.fast_move(move.from_sq, move.to_sq)

    def fast_move(self, f: int, to: int) -> None:
        """Move the piece on `f` to `to` (a legal move of the throw waiting: a source of `fast_throw`'s
        mask and its entry in `destinations`), like `push`; no `Move` is made (the search's tree)."""
        p, t, occ = self.to_move, self.pending, self.occ
        q = 1 - p
        me, op = occ[p], occ[q]
        occ[p], occ[q] = self._generator.landing(me, op, f, to)
        dme, dop = me ^ occ[p], op ^ occ[q]
        if to == OFF:
            self.off[p] += 1
        opening = self.opening
        self.pending = None
        self.opening = False
        passed = False
        if to == OFF and self.off[p] == self.pieces:  # P8
            self.winner = p
        elif not (t in self.bonus_throws or self._landing_bonus[f << 5 | to]):  # P6
            self.to_move = q
            passed = True
        self._fast.append((p, t, f, to, dme, dop, opening, passed))
        self._version += 1

    def fast_pop(self) -> None:
        """Undo the last `fast_throw` or `fast_move`."""
        p, t, f, to, dme, dop, self.opening, _ = self._fast.pop()
        if f:
            occ = self.occ
            occ[p] ^= dme
            occ[1 - p] ^= dop
            if to == OFF:
                self.off[p] -= 1
        self.to_move = p
        self.pending = t if f else None
        self.winner = None
        self._version += 1

    @property
    def fast_records(self) -> int:
        """How many fast actions can be undone now (for `fast_unwind`)."""
        return len(self._fast)

    def fast_unwind(self, records: int) -> None:
        """Undo every fast action after the first `records` (a search cut short unwinds at once)."""
        while len(self._fast) > records:
            self.fast_pop()

    def fast_effects(self) -> Effects:
        """The effects of the last fast action, as `push`/`push_throw` return them (built only now)."""
        p, t, f, to, dme, dop, _, passed = self._fast[-1]
        if not f:
            if self.pending is not None:
                return ()
            return self._forfeit_effects(p, t, passed)
        return self._move_effects(p, f, to, dme, dop, passed)

    def _move_effects(self, p: int, f: int, to: int, dme: int, dop: int, passed: bool) -> Effects:
        effects: list[Effect] = []
        ids = self.player_ids
        if dop:
            effects.append(Exchanged(ids[1 - p], to, f))
        if to == self.water_square:
            dest = (dme ^ bit(f)).bit_length() - 1
            effects.append(Relocated(ids[p], to, dest, self.water_kind, self.water_ruling))
        if self.winner == p:
            effects.append(Win(ids[p]))
        elif passed:
            effects.append(self._turn[1 - p])
        else:
            effects.append(self._bonus[p])
        return tuple(effects)
