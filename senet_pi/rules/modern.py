"""`modern`: Senet-modern (seed 004), rulings M1-M10: two dice, captures to the sun, scores.

Pieces carry dots (5-1), so this set follows each piece by its dots as well as its owner.
A turn is one piece moved by the sum of the dice, or two different pieces each by one
die (M3); `pending` holds the dice still to play and a `Move`'s `by` says which was used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar, cast

from ..errors import IllegalMoveError, InvalidOptionError
from .board import OFF, bit, squares_in
from .core import Game, Snapshot, Special
from .effects import Effect, Effects, Eliminated, Forfeit, Relocated, Removed, Win
from .modern_board import BIRD, MOON, SAFE_TILES, SUN, Pieces, Way, dice_of, landing_square, moved, ways
from .move import Move, cached_move, parse_square
from .reasons import Reason
from .text import Text
from .throws import RandomSource, TwoDice

# What `modern` adds to the core's snapshot: dots, up, up_order, removed, out, locked.
ModernExtra = tuple[
    tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, ...], tuple[tuple[int, ...], ...], tuple[bool, ...], int
]


class ModernGame(Game):
    """2-4 players, pieces with dots, two dice, landing sends the enemy to the sun, 3 pieces up ends it."""

    name = "modern"
    aliases = ("senet-modern",)
    how_to_play = (
        Text("Two dice: move one piece by the sum or two different pieces by one die each."),
        Text("Landing on an enemy sends it back to the sun (square 1); a piece already on the sun leaves the game."),
        Text("Stop on 26 and go back to the sun; stop on 27 and go back to 15."),
        Text("Pieces on 28-30 cannot be landed on from outside, and must move on when they can."),
        Text("Go up with an exact count; overshoot bounces back."),
        Text("A player who cannot move loses."),
        Text("When 3 pieces are up, the most dots wins."),
    )
    special_squares = {
        1: Special("sun", Text("the sun")),
        15: Special("ankh", Text("bird's birth")),
        26: Special("moon", Text("moon: back to the sun")),
        27: Special("bird", Text("bird: back to 15")),
        28: Special("safe", Text("safe tile")),
        29: Special("safe", Text("safe tile")),
        30: Special("safe", Text("safe tile")),
    }
    player_counts = (2, 3, 4)
    throw_kinds = {"2d6": TwoDice()}
    first_player = 0  # M2: A, on the sun, moves first
    opening_square = None
    pieces_up_default: ClassVar[int] = 3

    def __init__(
        self,
        players: int = 2,
        options: Mapping[str, object] | None = None,
        position: Mapping[str, object] | None = None,
    ) -> None:
        self.check_players(players)  # before the per-player lists below
        self.dots = [0] * (OFF + 1)
        self.up: list[list[int]] = [[] for _ in range(players)]
        self.up_order: list[int] = []
        self.removed: list[list[int]] = [[] for _ in range(players)]
        self.out: list[bool] = [False] * players
        self.locked = 0  # dots of the piece the first die moved (M3: the second die moves another)
        super().__init__(players, options, position)

    @property
    def pieces_to_end(self) -> int:
        """M10: how many pieces gone up, in total, end the game (option `pieces_up_to_end`)."""
        ends = self.options["pieces_up_to_end"]
        if not isinstance(ends, int):  # _read_options checked it is one
            raise TypeError(f"pieces_up_to_end is not a whole number: {ends!r}")
        return ends

    @classmethod
    def option_defaults(cls) -> dict[str, object]:
        return {"pieces_up_to_end": cls.pieces_up_default}

    def _read_options(self, options: Mapping[str, object]) -> dict[str, object]:
        out = super()._read_options(options)
        value = out["pieces_up_to_end"]
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= self.pieces * self.players:
            raise InvalidOptionError(f"option pieces_up_to_end={value!r}: use a whole number from 1 to 10")
        return out

    # ------------------------------------------------------------------ setup and position

    def _setup(self) -> None:
        """M1: from the sun along the path, dots 5 down to 1, each player in turn."""
        sq = SUN
        for dots in range(self.pieces, 0, -1):
            for p in range(self.players):
                self._put(p, sq, dots)
                sq += 1

    def _put(self, p: int, sq: int, dots: int) -> None:
        self.occ[p] |= bit(sq)
        self.dots[sq] = dots

    def _load_position(self, position: Mapping[str, object]) -> None:
        """`{"A": {"5": 24, "3": 7}, "up": {"A": [1]}, "to_move": "A"}`: pieces by dots -> square.

        A piece neither on the board nor up has left the game (M4)."""
        up = position.get("up", {})
        if not isinstance(up, Mapping):
            raise InvalidOptionError("position: 'up' must map players to lists of dots")
        unknown = set(position) - {"up", "to_move", *self.player_ids}
        if unknown:
            raise InvalidOptionError(f"position: unknown fields {sorted(unknown)}")
        for p, pid in enumerate(self.player_ids):
            pieces = position.get(pid, {})
            if not isinstance(pieces, Mapping):
                raise InvalidOptionError(f'position: {pid} must map dots to squares, e.g. {{"5": 12}}')
            gone_up = up.get(pid, [])
            placed: set[int] = set()
            for raw_dots, raw_sq in pieces.items():
                dots = self._read_dots(pid, raw_dots)
                try:
                    sq = parse_square(raw_sq)
                except ValueError as exc:
                    raise InvalidOptionError(f"position: {pid}: {exc}") from None
                if sq == OFF or self.occupied() & bit(sq):
                    raise InvalidOptionError(f"position: square {sq} is off the board or given twice")
                self._put(p, sq, dots)
                placed.add(dots)
            if not isinstance(gone_up, list):
                raise InvalidOptionError(f"position: up.{pid} must be a list of dots")
            for raw in gone_up:
                dots = self._read_dots(pid, raw)
                if dots in placed:
                    raise InvalidOptionError(f"position: {pid}'s {dots}-dot piece is both on the board and up")
                placed.add(dots)
                self.up[p].append(dots)
                self.up_order.append(p)
            self.removed[p] = [d for d in range(self.pieces, 0, -1) if d not in placed]
        self.to_move = self._player_index(position.get("to_move", self.player_ids[self.first_player]))
        self.opening = False
        self._check_end()

    def _read_dots(self, pid: str, raw: object) -> int:
        try:
            dots = int(raw) if isinstance(raw, int | float | str) else 0  # raw is any JSON value
        except ValueError:
            dots = 0
        if not 1 <= dots <= self.pieces:
            raise InvalidOptionError(f"position: {pid}: {raw!r} is not a piece (dots 1-{self.pieces})")
        return dots

    def position(self) -> dict[str, object]:
        out: dict[str, object] = {
            pid: {str(self.dots[sq]): sq for sq in squares_in(self.occ[p])} for p, pid in enumerate(self.player_ids)
        }
        out["up"] = {pid: list(self.up[p]) for p, pid in enumerate(self.player_ids)}
        out["to_move"] = self.to_move_id
        return out

    def piece_at(self, square: int) -> tuple[str, int] | None:
        """(owner, dots) of the piece on `square`, or None."""
        owner = self.owner(square)
        return None if owner is None else (owner, self.dots[square])

    def scores(self) -> dict[str, int]:
        """M10: the dots of each player's pieces that went up."""
        return {pid: sum(self.up[p]) for p, pid in enumerate(self.player_ids)}

    # ------------------------------------------------------------------ throws

    def throw_from_numbers(self, values: list[int]) -> object:
        """Typed numbers are dice: `throw 3 5`, or one die for a last piece (M3)."""
        return list(values)

    def parse_throw(self, raw: object) -> tuple[int, ...]:
        value = tuple(raw) if isinstance(raw, list) else raw
        return dice_of(super().parse_throw(value))  # TwoDice.is_valid passed: a dice tuple

    @staticmethod
    def throw_text(value: object) -> str:
        """A throw in words: "a throw of 3", or "the dice [3, 5]"."""
        return f"the dice {list(value) if isinstance(value, list | tuple) else value}"

    def random_throw(self, rng: RandomSource) -> tuple[int, ...]:
        """Two dice; a player with one piece left takes one die half the time (M3 lets them choose)."""
        if self.occ[self.to_move].bit_count() == 1 and rng.getrandbits(1):
            return (rng.randrange(6) + 1,)
        return dice_of(self.throw_kind.value(rng))  # TwoDice: a tuple of two ints

    def push_throw(self, value: object) -> Effects:
        """M3: two dice, or one die for a player with exactly one piece left; M9 if nothing can move."""
        dice = tuple(cast(Iterable[int], value))  # a throw here is dice, as parse_throw and random_throw make it
        if len(dice) == 1 and self.winner is None and bin(self.occ[self.to_move]).count("1") != 1:
            raise IllegalMoveError(Reason.ONE_DIE_NEEDS_ONE_PIECE)
        return super().push_throw(dice)

    def _forfeit(self, value: object) -> None:
        """M9: a player with no legal move loses and leaves the game."""
        p = self.to_move
        reason = Text(
            "{player} cannot move with {throw} and leaves the game (M9)",
            player=self.player_ids[p],
            throw=self.throw_text(value),
        )
        effects: list[Effect] = [Forfeit(self.player_ids[p], value, reason), Eliminated(self.player_ids[p])]
        self.pending = None
        self.out[p] = True
        for sq in squares_in(self.occ[p]):
            effects.append(Removed(self.player_ids[p], sq, "M9"))
            self.removed[p].append(self.dots[sq])
            self.dots[sq] = 0
        self.occ[p] = 0
        alive = [i for i in range(self.players) if not self.out[i]]
        if len(alive) == 1:
            self.winner = alive[0]
            effects.append(Win(self.player_ids[alive[0]], self.scores()))
        else:
            self._pass_turn(p, effects)
        self.effects = tuple(effects)

    def _pass_turn(self, p: int, effects: list[Effect]) -> None:
        q = (p + 1) % self.players
        while self.out[q]:
            q = (q + 1) % self.players
        self.to_move = q
        self.pending = None
        self.locked = 0
        effects.append(self._turn[q])

    # ------------------------------------------------------------------ push / pop

    def _snapshot(self) -> tuple[Snapshot, ModernExtra]:
        extra = (
            tuple(self.dots),
            tuple(map(tuple, self.up)),
            tuple(self.up_order),
            tuple(map(tuple, self.removed)),
            tuple(self.out),
            self.locked,
        )
        return (super()._snapshot(), extra)

    def _restore(self, snap: Snapshot) -> None:
        base, (dots, up, order, removed, out, self.locked) = cast(tuple[Snapshot, ModernExtra], snap)
        super()._restore(base)
        self.dots = list(dots)
        self.up = [list(u) for u in up]
        self.up_order = list(order)
        self.removed = [list(r) for r in removed]
        self.out = list(out)

    def push(self, move: Move) -> Effects:
        self._save(("move", move))
        p = self.to_move
        dots = self.dots[move.from_sq]
        effects = self._apply_step(p, move)
        dice = dice_of(self.pending)  # the dice left
        if len(dice) == 2 and move.by == dice[0] + dice[1]:
            dice = ()
        else:
            rest = list(dice)
            rest.remove(move.by)
            dice = tuple(rest)
        self.pending = dice
        self.locked = dots
        self._version += 1
        if self._check_end():
            assert self.winner is not None  # _check_end() set it
            effects.append(Win(self.player_ids[self.winner], self.scores()))
        elif not dice or not self.legal_moves():
            self._pass_turn(p, effects)
        self._version += 1
        self.effects = tuple(effects)
        return self.effects

    def _apply_step(self, p: int, move: Move) -> list[Effect]:
        """Move one piece and carry out M4-M7; returns what the rules moved by themselves."""
        f, to = move.from_sq, move.to_sq
        dots = self.dots[f]
        self.occ[p] ^= bit(f)
        self.dots[f] = 0
        effects: list[Effect] = []
        if to == OFF:
            self.up[p].append(dots)
            self.up_order.append(p)
            return effects
        victim = self._player_on(to)
        if victim is not None:  # M4 (M8 between safe tiles)
            victim_dots = self.dots[to]
            self.occ[victim] ^= bit(to)
            self._send_to_sun(victim, to, victim_dots, "M4", effects)
        self._put(p, to, dots)
        if to == MOON:
            self.occ[p] ^= bit(to)
            self.dots[to] = 0
            self._send_to_sun(p, to, dots, "M6", effects)
        elif to == BIRD:
            dest = self._free_square_from(15)
            self.occ[p] ^= bit(to)
            self.dots[to] = 0
            if dest is None:  # nowhere behind 15 is free: the sun's rule decides
                self._send_to_sun(p, to, dots, "M7", effects)
            else:
                self._put(p, dest, dots)
                effects.append(Relocated(self.player_ids[p], to, dest, "to_15", "M7"))
        return effects

    def _send_to_sun(self, p: int, from_sq: int, dots: int, ruling: str, effects: list[Effect]) -> None:
        """M4: to square 1; a piece already there leaves the game for good."""
        resident = self._player_on(SUN)
        if resident is not None:
            self.occ[resident] ^= bit(SUN)
            self.removed[resident].append(self.dots[SUN])
            effects.append(Removed(self.player_ids[resident], SUN))
        self._put(p, SUN, dots)
        effects.append(Relocated(self.player_ids[p], from_sq, SUN, "to_sun", ruling))

    def _player_on(self, sq: int) -> int | None:
        b = bit(sq)
        for i, occ in enumerate(self.occ):
            if occ & b:
                return i
        return None

    def _check_end(self) -> bool:
        """M10: enough pieces up ends the game; most dots, then most pieces, then first up wins."""
        if len(self.up_order) < self.pieces_to_end:
            return False
        alive = [p for p in range(self.players) if not self.out[p]]

        def rank(p: int) -> tuple[int, int, int]:
            first = self.up_order.index(p) if p in self.up_order else len(self.up_order)
            return (sum(self.up[p]), len(self.up[p]), -first)

        self.winner = max(alive, key=rank)
        return True

    # ------------------------------------------------------------------ legal moves

    @classmethod
    def destination(cls, from_sq: int, throw: int) -> int:
        """M5: exact count goes up (31); an overshoot by k bounces back to 31 - k."""
        dest = from_sq + throw
        return dest if dest <= OFF else 2 * OFF - dest

    def _step(self, p: int, f: int, by: int) -> Move | None:
        """One piece by one value under M4/M5/M8, or None where it may not go (the generator's: asked
        for every piece of every way to play the dice, so it says no without an exception; the
        validator, `modern_board`, says why)."""
        to = self.destination(f, by)
        if to != OFF:
            b = 1 << to
            if self.occ[p] & b and to != f:  # M4: never onto an own piece
                return None
            if to in SAFE_TILES and f not in SAFE_TILES and self.occupied() & b:  # M8
                return None
        return cached_move(f, to, by)

    def _steps(self, p: int, by: int, skip_dots: int = 0) -> list[Move]:
        out = []
        dots = self.dots
        for f in squares_in(self.occ[p]):
            if dots[f] != skip_dots:
                step = self._step(p, f, by)
                if step is not None:
                    out.append(step)
        return out

    def _options(self, p: int, dice: tuple[int, ...]) -> list[tuple[Move, ...]]:
        """Every way to play the dice left (M3), kept to those that move most pieces from 28-30 (M8)."""
        if len(dice) == 1:
            options: list[tuple[Move, ...]] = [(m,) for m in self._steps(p, dice[0], self.locked)]
        else:
            a, b = dice
            options = [(m,) for m in self._steps(p, a + b)]
            for first, second in {(a, b), (b, a)}:
                for m1 in self._steps(p, first):
                    snap = self._snapshot()
                    moved = self.dots[m1.from_sq]
                    self._apply_step(p, m1)
                    if len(self.up_order) >= self.pieces_to_end:
                        options.append((m1,))  # that piece going up ends the game (M10)
                    else:
                        options.extend((m1, m2) for m2 in self._steps(p, second, moved))
                    self._restore(snap)
            if not options:
                # M3: no complete way (the sum, two pieces, or a first die that ends the game): a
                # single die still moves (a player who can move is not out, M9).
                options = [(m,) for d in {a, b} for m in self._steps(p, d)]
        must = [sq for sq in SAFE_TILES if self.occ[p] & bit(sq) and self.dots[sq] != self.locked]
        if must and options:
            counts = [_safe_tile_moves(o, must) for o in options]
            best = max(counts)
            options = [o for o, n in zip(options, counts, strict=True) if n == best]
        return options

    def move_sequences(self) -> list[tuple[Move, ...]]:
        """Every allowed way to play the dice left: one piece by the sum, or two pieces in order (M3)."""
        if self.pending is None or self.winner is not None:
            return []
        return self._options(self.to_move, dice_of(self.pending))

    def must_move_squares(self) -> frozenset[int]:
        """M8: the mover's pieces on 28-30 that every allowed way to play the dice moves."""
        sequences = self.move_sequences()
        if not sequences:
            return frozenset()
        every = set.intersection(*({m.from_sq for m in seq} for seq in sequences))
        return frozenset(sq for sq in every if 28 <= sq <= 30 and self.owner(sq) == self.mover_id)

    def spare_pieces(self) -> dict[str, int]:
        return {pid: len(self.removed[p]) for p, pid in enumerate(self.player_ids)}

    def edit(self, moved: Mapping[int, int], gone: list[int], added: list[tuple[int, str]]) -> None:
        """As in the core; a piece taken off leaves the game (M4), a piece put back is a removed one."""
        board = self.board()
        pieces = {a: (self.player_ids.index(board[a]), self.dots[a]) for a in moved}
        for a in moved:
            self.occ[pieces[a][0]] ^= bit(a)
            self.dots[a] = 0
        for a, b in moved.items():
            self._put(pieces[a][0], b, pieces[a][1])
        for sq in gone:
            p = self.player_ids.index(board[sq])
            self.occ[p] ^= bit(sq)
            self.removed[p].append(self.dots[sq])
            self.dots[sq] = 0
        for sq, pid in added:
            p = self.player_ids.index(pid)
            if not self.removed[p]:
                raise InvalidOptionError(f"{pid} has no piece out of the game to put on {sq}")
            self._put(p, sq, self.removed[p].pop(0))
        self.locked = 0
        self._stack.clear()
        self._version += 1
        if self.pending is not None and not self.legal_moves():
            self.pending = None

    def _generate(self, p: int, t: object) -> list[Move]:
        seen: dict[Move, None] = {}
        for option in self._options(p, dice_of(t)):
            seen.setdefault(option[0])
        return list(seen)

    # ------------------------------------------------------------------ the readable validator
    #
    # Decides from the rulings alone, on a plain {square: (player, dots)} board: it shares no
    # code with the generator above (`_step`, `_apply_step`, `_options`), so the property tests
    # comparing the two paths test something.

    def check_move(self, from_sq: int, to_sq: int, by: int = 0) -> Move:
        """A legal step from `from_sq` to `to_sq` (with die or sum `by` when the squares are ambiguous)."""
        p, pending = self._require_pending()
        dice = dice_of(pending)  # the dice left
        self._check_piece(p, from_sq)
        if self.locked and self.dots[from_sq] == self.locked:
            raise IllegalMoveError(Reason.SAME_PIECE_TWICE)
        allowed = values_allowed(dice)
        values = [by] if by else sorted(allowed)
        if by and by not in allowed:
            raise IllegalMoveError(Reason.WRONG_DIE, by=by, left=list(dice))
        pieces = self._pieces()
        last_error: IllegalMoveError | None = None
        for value in values:
            try:
                moved(pieces, p, from_sq, value)
            except IllegalMoveError as exc:
                last_error = exc
                continue
            if landing_square(from_sq, value) != to_sq:
                continue
            why = self._why_not_allowed(pieces, p, from_sq, value, dice)
            if why is None:
                return cached_move(from_sq, to_sq, value)
            last_error = why
        if last_error is None:
            reach = ", ".join(f"{Move(from_sq, landing_square(from_sq, v))} (by {v})" for v in values)
            last_error = IllegalMoveError(
                Reason.WRONG_DISTANCE,
                throw=self.throw_text(dice),
                square=from_sq,
                expected=reach,
                target="off" if to_sq == OFF else to_sq,
            )
        raise last_error

    def _pieces(self) -> Pieces:
        """The board as {square: (player, dots)}."""
        return {sq: (p, self.dots[sq]) for p in range(self.players) for sq in squares_in(self.occ[p])}

    def _ways(self, pieces: Pieces, p: int, dice: tuple[int, ...]) -> list[Way]:
        """Every complete way for player p to play the dice left (M3, M10): see `modern_board.ways`."""
        ends = len(self.up_order) + 1 >= self.pieces_to_end  # one more piece up ends the game (M10)
        return ways(pieces, p, dice, self.locked, ends)

    def _why_not_allowed(
        self, pieces: Pieces, p: int, from_sq: int, value: int, dice: tuple[int, ...]
    ) -> IllegalMoveError | None:
        """None if a step (legal on its own) begins an allowed way to play the dice; else why not
        (M3: no complete way begins with it; M8: another way moves more pieces off 28-30)."""
        ways = self._ways(pieces, p, dice)
        mine = [w for w in ways if w[0] == (from_sq, value)]
        if not mine:
            return IllegalMoveError(Reason.NO_COMPLETION)
        must = [sq for sq in SAFE_TILES if sq in pieces and pieces[sq][0] == p and pieces[sq][1] != self.locked]

        def leaves(way: tuple[tuple[int, int], ...]) -> list[int]:
            """M8 with M5: the pieces on 28-30 the way moves (a bounce back onto its square is no move)."""
            return [sq for sq, v in way if sq in must and landing_square(sq, v) != sq]

        best = max(ways, key=lambda w: len(leaves(w)))
        if max(len(leaves(w)) for w in mine) < len(leaves(best)):
            return IllegalMoveError(Reason.MUST_LEAVE_SAFE_TILE, square=leaves(best)[0])
        return None


def _safe_tile_moves(option: tuple[Move, ...], must: list[int]) -> int:
    """M8 with M5: how many pieces standing on 28-30 a way really moves (a bounce back onto the
    square it left does not move the piece)."""
    return sum(1 for m in option if m.from_sq in must and m.to_sq != m.from_sq)


def values_allowed(dice: tuple[int, ...]) -> set[int]:
    """The values a step may use with these dice left: each die, and their sum while both are left."""
    return {*dice, *([dice[0] + dice[1]] if len(dice) == 2 else [])}
