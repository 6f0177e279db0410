"""The shared core of the rule sets: game state, turn flow, push/pop and the common rulings P1-P8.

A rule set is a subclass that states only its differences, as class attributes (safe
squares, bonus throws, blockades...) and a few hook methods (`destination`, `_extra_bonus`,
`_check_bear_off`...). Which moves are legal is `legality.py`'s job, mixed into `Game`: the fast
generator `legal_moves()` (made from the data, `sources.py`) and the readable validator
`check_move()` (through the hooks).
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, cast

from ..errors import IllegalMoveError, InvalidOptionError, InvalidThrowError
from .board import (
    FIRST,
    LAST,
    OFF,
    bit,
    free_square_from,
    mask,
    squares_in,
)
from .effects import Bonus, Effect, Effects, Exchanged, Forfeit, Relocated, Turn, Win
from .fast import FastPath, Record
from .legality import Legality
from .move import Move, cached_move, parse_square
from .reasons import Reason
from .sources import generator
from .text import Text, joined
from .throws import RandomSource, Throw, ThrowKind, default_random

if TYPE_CHECKING:
    from .cards import Cards

PLAYER_IDS = ("A", "B", "C", "D")
#: What a rule set must leave as the core has them for the fast path to play it (fast.py).
_FLOW = ("push", "push_throw", "_relocate", "_forfeit", "_snapshot", "random_throw")
_MAX_THROW = 12

# What push/pop saves: opaque to the stack; each rule set's `_restore` reads back what its `_snapshot` made.
Snapshot = tuple[object, ...]
# The core's own snapshot: occ, off, to_move, pending, opening, winner, effects.
CoreSnapshot = tuple[tuple[int, ...], tuple[int, ...], int, object, bool, int | None, Effects]


@dataclass(frozen=True)
class Special:
    """A square with a meaning of its own in a rule set: a symbol the page draws, and its meaning in words."""

    symbol: str  # a short key the page knows how to draw: "ankh", "water", "eye", "sun"...
    text: str


class Game(Legality, FastPath):
    """A game of Senet under one rule set: the position, whose turn it is, the throw to play."""

    #: Name used in config files, replay files and on the page.
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    #: The rules in a few plain sentences, for a visitor's "how to play" and `--help`.
    how_to_play: ClassVar[tuple[str, ...]] = ()
    #: The same sentences as one paragraph (filled in from `how_to_play`).
    summary: ClassVar[str] = ""
    #: What a turn starts with: "throw" (sticks or dice) or "card" (K4).
    turn_starts_with: ClassVar[str] = "throw"
    #: Squares with a meaning of their own, for the board's symbols and their explanations.
    special_squares: ClassVar[Mapping[int, Special]] = {}
    #: Where the player to move is in a turn: "play" everywhere but the card game, which also has
    #: "nile" (K7: a named player drowns a pawn) and "residue" (K9: an optional move).
    phase: str = "play"
    player_counts: ClassVar[tuple[int, ...]] = (2,)
    pieces: ClassVar[int] = 5
    #: Option "throws": name -> kind; the first entry is the default.
    throw_kinds: ClassVar[dict[str, ThrowKind]] = {}
    #: P2: player B (index 1), the side with the piece on 10, moves first.
    first_player: ClassVar[int] = 1
    bonus_throws: ClassVar[frozenset[int]] = frozenset()
    #: Squares whose landing grants a bonus throw -> ruling id.
    bonus_landings: ClassVar[dict[int, str]] = {}
    #: Squares whose piece cannot be attacked -> ruling id (P5).
    safe_squares: ClassVar[dict[int, str]] = {}
    #: Where a run of three may start to form a blockade (a board mask; 0 = no blockades).
    blockade_starts: ClassVar[int] = 0
    blockade_ruling: ClassVar[str] = ""
    #: S2/H2: the square the first move of the game must start from.
    opening_square: ClassVar[int | None] = 10
    opening_ruling: ClassVar[str] = ""
    #: S12: moving backward when no forward move exists.
    backward_moves: ClassVar[bool] = False
    #: S7/H6: landing on this square sends the piece to `rebirth_square` or the first empty square behind.
    water_square: ClassVar[int | None] = None
    water_kind: ClassVar[str] = ""
    water_ruling: ClassVar[str] = ""
    rebirth_square: ClassVar[int] = 15
    #: The same differences as data, for code that plays many positions at once (the endgame
    #: solver in senet_pi/opponent): S3+S11 (only the front piece of row 1 moves; no bearing off
    #: while row 1 holds a piece) and H5 (while this square is occupied nobody lands on or passes it).
    top_row_gate: ClassVar[bool] = False
    stop_square: ClassVar[int | None] = None
    #: Whether solved endgame tables exist for this rule set (two players, one throw a move).
    solved_endgames: ClassVar[bool] = False

    # Filled in by __init_subclass__ from the attributes above.
    _safe_mask: ClassVar[int] = 0
    _plain_sources: ClassVar[tuple[int, ...]] = ()
    _bent_sources: ClassVar[tuple[int, ...]] = ()
    _forward_table: ClassVar[tuple[tuple[Move | None, ...], ...]] = ()
    _backward_table: ClassVar[tuple[tuple[Move | None, ...], ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.summary = joined(cls.how_to_play, " ")
        cls._safe_mask = mask(cls.safe_squares)
        plain, bent, forward, backward = [], [], [], []
        cls._core_flow = cls.turn_starts_with == "throw" and all(getattr(cls, n) is getattr(Game, n) for n in _FLOW)
        for throw in range(_MAX_THROW + 1):
            p = b = 0
            row: list[Move | None] = [None] * (OFF + 1)
            for sq in range(FIRST, LAST + 1):
                try:
                    dest = cls.destination(sq, throw) if throw else None
                except IllegalMoveError:
                    continue
                if dest == sq + throw:
                    p |= bit(sq)
                elif dest is not None:
                    b |= bit(sq)
                if dest is not None:
                    row[sq] = cached_move(sq, dest, throw)
            plain.append(p)
            bent.append(b)
            forward.append(tuple(row))
            back = (cached_move(sq, sq - throw, throw) if throw and sq > throw else None for sq in range(OFF + 1))
            backward.append(tuple(back))
        cls._plain_sources, cls._bent_sources = tuple(plain), tuple(bent)
        cls._forward_table, cls._backward_table = tuple(forward), tuple(backward)
        cls._move_lists = {}
        cls._fast_tables()

    @classmethod
    def _fast_tables(cls) -> None:
        """The fast path's tables (`fast.py`): destinations by throw, the bonus a move earns by its
        squares, and the generator made from the tables above (`sources.py`)."""
        cls._forward_dest = tuple(tuple(m.to_sq if m else 0 for m in row) for row in cls._forward_table)
        cls._backward_dest = tuple(tuple(m.to_sq if m else 0 for m in row) for row in cls._backward_table)
        squares, landings = range(OFF + 1), cls.bonus_landings
        cls._landing_bonus = tuple(to in landings or cls._extra_bonus(f, to) for f in squares for to in squares)
        cls._generator = generator(cls)

    def __init__(
        self,
        players: int = 2,
        options: Mapping[str, object] | None = None,
        position: Mapping[str, object] | None = None,
    ) -> None:
        self.check_players(players)
        self.players = players
        self.player_ids = PLAYER_IDS[:players]
        self.options = self._read_options(options or {})
        self.throw_kind: ThrowKind = next(iter(self.throw_kinds.values()))
        if "throws" in self.options:
            self.throw_kind = self.throw_kinds[str(self.options["throws"])]
        self.occ = [0] * players
        self.off = [0] * players
        self.to_move = self.first_player
        self.pending: object = None
        self.opening = self.opening_square is not None
        self.winner: int | None = None
        self.effects: Effects = ()
        self._stack: list[tuple[tuple[str, object], Snapshot]] = []
        self._fast: list[Record] = []  # the fast path's undo records (fast.py)
        self._version = 0
        self._cache: tuple[int, list[Move]] = (-1, [])
        self._turn = tuple(Turn(pid) for pid in self.player_ids)
        self._bonus = tuple(Bonus(pid) for pid in self.player_ids)
        if position is None:
            self._setup()
        else:
            self._load_position(position)

    # ------------------------------------------------------------------ options and setup

    @classmethod
    def check_players(cls, players: object) -> None:
        """InvalidOptionError unless `players` is a count this rule set is for: checked before
        anything is built per player, so a count like 10**12 is refused at once."""
        if isinstance(players, bool) or not isinstance(players, int) or players not in cls.player_counts:
            counts = " or ".join(map(str, cls.player_counts))
            raise InvalidOptionError(f"rule set {cls.name!r} is for {counts} players, not {players!r}")

    @classmethod
    def seeded_options(cls, seed: int) -> dict[str, object]:
        """Options that fix, from `seed`, what the rule set leaves to chance when a game is set up, so
        a made-up game can be replayed exactly (the card game's deck; nothing for the others)."""
        return {}

    @classmethod
    def option_defaults(cls) -> dict[str, object]:
        """Every option this rule set takes, with its default (rulings marked *option*)."""
        return {"throws": next(iter(cls.throw_kinds))} if len(cls.throw_kinds) > 1 else {}

    def _read_options(self, options: Mapping[str, object]) -> dict[str, object]:
        known = self.option_defaults()
        out = dict(known)
        for key, value in options.items():
            if key not in known:
                names = ", ".join(known) or "none"
                raise InvalidOptionError(f"rule set {self.name!r} has no option {key!r} (options: {names})")
            if key == "throws" and (not isinstance(value, str) or value not in self.throw_kinds):
                raise InvalidOptionError(f"option throws={value!r}: use one of {', '.join(self.throw_kinds)}")
            out[key] = value
        return out

    def _setup(self) -> None:
        """P2: A on the odd squares 1-9, B on the even squares 2-10."""
        self.occ[0] = mask(range(1, 10, 2))
        self.occ[1] = mask(range(2, 11, 2))

    def _load_position(self, position: Mapping[str, object]) -> None:
        """Start from a replay-file position: squares of each player, optional `off`, `to_move` (replay.md)."""
        seen: set[int] = set()
        off = position.get("off", {})
        if not isinstance(off, Mapping):
            raise InvalidOptionError("position: 'off' must map players to counts")
        for i, pid in enumerate(self.player_ids):
            squares = position.get(pid, [])
            if not isinstance(squares, list):
                raise InvalidOptionError(f"position: {pid!r} must be a list of squares")
            for raw in squares:
                try:
                    sq = parse_square(raw)
                except ValueError as exc:
                    raise InvalidOptionError(f"position: {pid}: {exc}") from None
                if sq == OFF:
                    raise InvalidOptionError(f"position: {pid}: list pieces borne off under 'off'")
                if sq in seen:
                    raise InvalidOptionError(f"position: square {sq} is given twice")
                seen.add(sq)
                self.occ[i] |= bit(sq)
            count = off.get(pid, self.pieces - len(squares))
            if isinstance(count, bool) or not isinstance(count, int) or count + len(squares) != self.pieces:
                raise InvalidOptionError(
                    f"position: {pid} has {len(squares)} pieces on the board and {count!r} off; "
                    f"the two must add up to {self.pieces}"
                )
            self.off[i] = count
        extra = set(off) - set(self.player_ids)
        unknown = set(position) - {"off", "to_move", *self.player_ids}
        if extra or unknown:
            raise InvalidOptionError(f"position: unknown players or fields {sorted(extra | unknown)}")
        self.to_move = self._player_index(position.get("to_move", self.player_ids[self.first_player]))
        self.opening = False  # replay.md: a game from a position is past its opening
        for i in range(self.players):
            if self.off[i] == self.pieces:
                self.winner = i

    def _player_index(self, pid: object) -> int:
        if pid not in self.player_ids:
            raise InvalidOptionError(f"unknown player {pid!r}: players are {', '.join(self.player_ids)}")
        return self.player_ids.index(pid)

    def position(self) -> dict[str, object]:
        """The position in the replay-file format; `type(game)(position=game.position())` rebuilds it."""
        out: dict[str, object] = {pid: squares_in(self.occ[i]) for i, pid in enumerate(self.player_ids)}
        out["off"] = dict(zip(self.player_ids, self.off, strict=True))
        out["to_move"] = self.player_ids[self.to_move]
        return out

    # ------------------------------------------------------------------ reading the board

    @property
    def to_move_id(self) -> str:
        """Id of the player to move ("A"-"D")."""
        return self.player_ids[self.to_move]

    @property
    def mover_id(self) -> str:
        """Id of the player whose piece the waiting move moves (the card game's Nile card can name
        the other player, K7)."""
        return self.to_move_id

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (P8, M10)."""
        return self.winner is not None

    @property
    def winner_id(self) -> str | None:
        """Id of the winner, or None while the game goes on."""
        return None if self.winner is None else self.player_ids[self.winner]

    def owner(self, square: int) -> str | None:
        """Id of the player whose piece stands on `square`, or None."""
        b = bit(square)
        for i, occ in enumerate(self.occ):
            if occ & b:
                return self.player_ids[i]
        return None

    def board(self) -> dict[int, str]:
        """Every occupied square -> the id of its owner."""
        return {sq: pid for i, pid in enumerate(self.player_ids) for sq in squares_in(self.occ[i])}

    def occupied(self) -> int:
        """All occupied squares as a mask: what the reed switches should sense."""
        m = 0
        for occ in self.occ:
            m |= occ
        return m

    def scores(self) -> dict[str, int] | None:
        """Points per player, for rule sets that score (M10); None elsewhere."""
        return None

    def piece_at(self, square: int) -> tuple[str, object] | None:
        """The piece on `square` as far as identity goes: its owner, and what else tells pieces apart
        (`modern`'s dots; None elsewhere). None for an empty square."""
        owner = self.owner(square)
        return None if owner is None else (owner, None)

    # ------------------------------------------------------------------ cards (K4-K10)
    # Rule sets played with a throw hold no cards: these say so, the card game overrides them.

    def cards(self) -> Cards | None:
        """Where every card is (stack, discard, dead, hands), or None in a game without cards."""
        return None

    def card_names(self) -> list[str]:
        """Every card name the deck holds (none in a game without cards)."""
        return []

    def hand(self, pid: str) -> list[str]:
        """The cards in a player's hand (none in a game without cards)."""
        return []

    def playable(self, card: str) -> bool:
        """Whether playing `card` now would be accepted."""
        return False

    def can_exchange(self) -> bool:
        """Whether the player to move may exchange cards now."""
        return False

    def push_card(self, card: str) -> Effects:
        """Play a card for the player to move (K4); in a game without cards, IllegalMoveError."""
        raise IllegalMoveError(Reason.NOT_A_CARD_GAME, game=self.name)

    def push_exchange(self, cards: Sequence[str]) -> Effects:
        """Exchange one or two cards (K4); in a game without cards, IllegalMoveError."""
        raise IllegalMoveError(Reason.NOT_A_CARD_GAME, game=self.name)

    def push_pass(self) -> Effects:
        """Decline an optional move (K9); in a game without cards, IllegalMoveError."""
        raise IllegalMoveError(Reason.NOT_A_CARD_GAME, game=self.name)

    def redeal_unseen(self, viewer: str | None, rng: RandomSource) -> None:
        """Deal anew, at random, every card `viewer` cannot see (K10), keeping each pile's size: what a
        computer player looks ahead on instead of the real hands; `viewer` None: someone who sees no
        hand at all (a hint on the shared screen). Nothing in a game without cards."""

    # ------------------------------------------------------------------ throws

    def roll(self, rng: RandomSource | None = None) -> Throw:
        """Throw the sticks or dice of this rule set (does not play the throw)."""
        return self.throw_kind.throw(rng or default_random())

    def random_throw(self, rng: RandomSource) -> object:
        """A random throw value for the player to move, as random play and simulations need."""
        return self.throw_kind.value(rng)

    def throw_from_numbers(self, values: list[int]) -> object:
        """A throw typed as numbers (the terminal's `throw 3`) in the form `parse_throw` takes."""
        return values[0] if len(values) == 1 else list(values)

    def parse_throw(self, raw: object) -> object:
        """A throw value as this rule set counts it, or InvalidThrowError."""
        if not self.throw_kind.is_valid(raw) or isinstance(raw, bool):
            allowed = self.throw_kind.describe()
            raise InvalidThrowError(
                Text("{ruleset} cannot throw {value}: {allowed}", ruleset=self.name, value=repr(raw), allowed=allowed)
            )
        return raw

    def push_throw(self, value: object) -> Effects:
        """Play a throw for the player to move; returns the effects (a forfeit, P7, if nothing can move)."""
        if self.winner is not None:
            raise IllegalMoveError(Reason.GAME_OVER)
        if self.pending is not None:
            raise IllegalMoveError(Reason.THROW_PENDING, player=self.to_move_id, throw=self.throw_text(self.pending))
        self._save(("throw", value))
        self.pending = value
        # pending/value: a throw value, typed object as rule sets differ (an int here; modern: dice, cards: cards)
        moves = self._generate(self.to_move, value)
        self._cache = (self._version, moves)
        if moves:
            self.effects = ()
        else:
            self._forfeit(value)
            self._version += 1
        return self.effects

    def _forfeit(self, value: object) -> None:
        """P7: nobody can move; a bonus value still lets the same player throw again."""
        p = self.to_move
        self.pending = None
        passed = value not in self.bonus_throws
        if passed:
            self.to_move = (p + 1) % self.players
        self.effects = self._forfeit_effects(p, value, passed)

    def _forfeit_effects(self, p: int, value: object, passed: bool) -> Effects:
        """P7's effects: the forfeit, then the same player's bonus throw or the next player's turn."""
        reason = Text(
            "{player} has no legal move with {throw} (P7)", player=self.player_ids[p], throw=self.throw_text(value)
        )
        after = self._turn[(p + 1) % self.players] if passed else self._bonus[p]
        return (Forfeit(self.player_ids[p], value, reason), after)

    @staticmethod
    def throw_text(value: object) -> str:
        """A throw in words: "a throw of 3", or "the dice [3, 5]"."""
        return f"a throw of {value}"

    # ------------------------------------------------------------------ push / pop

    def _snapshot(self) -> Snapshot:
        return (tuple(self.occ), tuple(self.off), self.to_move, self.pending, self.opening, self.winner, self.effects)

    def _restore(self, snap: Snapshot) -> None:
        occ, off, self.to_move, self.pending, self.opening, self.winner, self.effects = cast(CoreSnapshot, snap)
        self.occ, self.off = list(occ), list(off)

    def _save(self, action: tuple[str, object]) -> None:
        self._stack.append((action, self._snapshot()))
        self._version += 1

    @property
    def actions(self) -> list[tuple[str, object]]:
        """Everything played so far, in order: ("throw", value) and ("move", Move)."""
        return [action for action, _ in self._stack]

    def pop(self) -> tuple[str, object]:
        """Undo the last throw or move; returns it as ("throw", value) or ("move", Move)."""
        if not self._stack:
            raise IndexError("pop from a game with nothing played")
        action, snap = self._stack.pop()
        self._restore(snap)
        self._version += 1
        return action

    def push(self, move: Move) -> Effects:
        """Apply a legal move with all its consequences; returns the effects. Trusts its input:
        `play()` checks first."""
        self._save(("move", move))
        p, f, to = self.to_move, move.from_sq, move.to_sq
        occ = self.occ
        me = occ[p] ^ (1 << f)
        effects: list[Effect] = []
        if to == OFF:
            self.off[p] += 1
        else:
            tb = 1 << to
            q = 1 - p
            if occ[q] & tb:  # P4: attack = exchange
                occ[q] ^= tb | (1 << f)
                effects.append(Exchanged(self.player_ids[q], to, f))
            me |= tb
        occ[p] = me
        bonus = move.by in self.bonus_throws or to in self.bonus_landings or self._extra_bonus(f, to)
        if to == self.water_square:
            self._relocate(p, to, effects)
        self.pending = None
        self.opening = False
        if self.off[p] == self.pieces:  # P8
            self.winner = p
            effects.append(Win(self.player_ids[p]))
        elif bonus:  # P6: one bonus at most, however many reasons
            effects.append(self._bonus[p])
        else:
            self.to_move = q = (p + 1) % self.players
            effects.append(self._turn[q])
        self.effects = tuple(effects)
        return self.effects

    @classmethod
    def _extra_bonus(cls, from_sq: int, to_sq: int) -> bool:
        """A bonus throw granted by how a square was reached (S8); none by default. A rule of the
        squares alone: the fast path reads it from a table made once (`_landing_bonus`)."""
        return False

    def _relocate(self, p: int, square: int, effects: list[Effect]) -> None:
        """S7/H6: the piece goes to 15, or if 15 is occupied to the first empty square behind it."""
        dest = self._free_square_from(self.rebirth_square)
        assert dest is not None  # ten pieces never fill 1-15 while one of them is on 27
        self.occ[p] ^= bit(square) | bit(dest)
        effects.append(Relocated(self.player_ids[p], square, dest, self.water_kind, self.water_ruling))

    def _free_square_from(self, square: int) -> int | None:
        """`square` if it is empty, else the first empty square behind it (S7, H6, M7); None if none is."""
        return free_square_from(self.occupied(), square)

    def play(self, move: Move | str) -> Effects:
        """Check a move (a `Move` or text like "10-13") and push it; IllegalMoveError says why not."""
        if isinstance(move, str):
            move = Move.parse(move)
        return self.push(self.check_move(move.from_sq, move.to_sq, move.by))

    # ------------------------------------------------------------------ operator edits

    def spare_pieces(self) -> dict[str, int]:
        """Pieces of each player that are not on the board and could be put back by an edit."""
        return dict(zip(self.player_ids, self.off, strict=True))

    def edit(self, moved: Mapping[int, int], gone: list[int], added: list[tuple[int, str]]) -> None:
        """An operator's correction of the position: pieces carried between squares, taken off the
        board, or put back (owner given). Keeps the turn and the throw waiting; forgets the history."""
        board = self.board()
        for a in moved:
            self.occ[self.player_ids.index(board[a])] ^= bit(a)
        for a, b in moved.items():
            self.occ[self.player_ids.index(board[a])] |= bit(b)
        for sq in gone:
            p = self.player_ids.index(board[sq])
            self.occ[p] ^= bit(sq)
            self.off[p] += 1
        for sq, pid in added:
            p = self.player_ids.index(pid)
            if self.off[p] < 1:
                raise InvalidOptionError(f"{pid} has no piece off the board to put on {sq}")
            self.occ[p] |= bit(sq)
            self.off[p] -= 1
        self._after_edit()

    def _after_edit(self) -> None:
        self._stack.clear()
        self._version += 1
        self.opening = False
        self.winner = next((p for p in range(self.players) if self.off[p] == self.pieces), None)
        if self.pending is not None and self.winner is None and not self.legal_moves():
            self.pending = None

    # ------------------------------------------------------------------ misc

    def checkpoint(self) -> tuple[Snapshot, list[tuple[tuple[str, object], Snapshot]], int]:
        """The whole state, history included, cheaply (snapshots are tuples): for `rollback`."""
        return self._snapshot(), list(self._stack), self._version

    def rollback(self, point: tuple[Snapshot, list[tuple[tuple[str, object], Snapshot]], int]) -> None:
        """Back to a `checkpoint`, whatever was pushed, popped or edited since."""
        snap, stack, version = point
        self._restore(snap)
        self._stack = list(stack)
        self._version = max(self._version, version) + 1  # caches keyed by version see a new position

    def copy(self, history: bool = True) -> Game:
        """An independent copy of the game, history included unless `history` is False (a copy to look
        ahead on: it cannot `pop()` what was played before it, and costs the same however long the game)."""
        if history:
            return _copy.deepcopy(self)
        stack, self._stack = self._stack, []
        try:
            return _copy.deepcopy(self)
        finally:
            self._stack = stack

    def __repr__(self) -> str:
        pieces = " ".join(
            f"{pid}:{','.join(map(str, squares_in(occ)))}" for pid, occ in zip(self.player_ids, self.occ, strict=True)
        )
        throw = "" if self.pending is None else f", throw {self.pending}"
        return f"<{type(self).__name__} {pieces}; {self.to_move_id} to move{throw}>"
