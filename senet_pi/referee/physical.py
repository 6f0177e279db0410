"""What a move means for the pieces on a real board, where the switches see occupancy only.

A move (or a `modern` pair of moves) becomes a list of physical `Step`s: the player's own
piece first, then what the rules move by themselves (exchange, drowning, to the sun...).
`walk()` follows each piece through the steps once and gives the occupancy after each
(what the referee compares a settled board with), where each piece came from, what the hands
must have done to get there and which pieces are still in a hand. `fixes()` pairs what is
missing with what is extra to say how to put a wrong board right: each piece back where it
came from when the hands showed it, else by shortest distance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import permutations

from ..rules import Game, Move
from ..rules.board import OFF, bit, squares_in
from ..rules.effects import Exchanged, Relocated, Removed, kind_word
from ..rules.text import Text
from ..verdicts import Fix as FixLine
from .attempt import Identity

HAND = 0  # where a piece is while someone holds it (or off the board)


class StepWhy(StrEnum):
    """Why a piece is carried: the player's own move, a rule's own move (the effects' kinds), an
    undo, or a fix of the board (a new game's setup)."""

    MOVE = "move"
    UNDO = "undo"
    FIX = "fix"
    EXCHANGE = "exchange"
    REMOVED = "removed"
    DROWNED = "drowned"
    REINCARNATED = "reincarnated"
    TO_15 = "to_15"
    TO_SUN = "to_sun"


@dataclass(frozen=True)
class Step:
    """One piece carried from `from_sq` to `to_sq` (OFF = off the board); `why` names the rule."""

    player: str
    from_sq: int
    to_sq: int
    why: StepWhy = StepWhy.MOVE
    ruling: str = ""

    def prompt(self) -> Text:
        """The instruction for the people at the board."""
        if self.from_sq == OFF:
            return Text("put {player}'s piece back on {to}", player=self.player, to=self.to_sq)
        if self.why is StepWhy.UNDO:
            if self.to_sq == OFF:
                return Text(
                    "take {player}'s piece on {from_sq} off the board", player=self.player, from_sq=self.from_sq
                )
            return Text(
                "put {player}'s piece on {from_sq} back on {to}",
                player=self.player,
                from_sq=self.from_sq,
                to=self.to_sq,
            )
        if self.why is StepWhy.FIX:
            return Fix(
                HAND if self.from_sq == OFF else self.from_sq,
                HAND if self.to_sq == OFF else self.to_sq,
                self.player or None,
            ).text()
        where = {"player": self.player, "from_sq": self.from_sq, "to": self.to_sq, "ruling": self.ruling}
        if self.to_sq == OFF:
            if self.why is StepWhy.MOVE:
                return Text("bear off {player}'s piece from {from_sq}", player=self.player, from_sq=self.from_sq)
            return Text("remove {player}'s piece on {from_sq} from the game ({ruling})", **where)
        if self.why is StepWhy.EXCHANGE:
            return Text("put {player}'s piece that stood on {from_sq} on {to} (exchange, {ruling})", **where)
        if self.why is StepWhy.MOVE:
            return Text("move {player}'s piece from {from_sq} to {to}", **where)
        if self.why is StepWhy.TO_SUN:
            return Text("put {player}'s piece from {from_sq} on the sun, square {to} ({ruling})", **where)
        if self.why is StepWhy.TO_15:
            return Text("move {player}'s piece from {from_sq} back to {to} ({ruling})", **where)
        return Text("move {player}'s {why} piece from {from_sq} to {to} ({ruling})", why=kind_word(self.why), **where)


def steps_of(moves: Sequence[Move], effects: Sequence[Sequence[object]], player: str) -> list[Step]:
    """The physical steps of moves played in order, each followed by the effects it caused."""
    out: list[Step] = []
    for move, move_effects in zip(moves, effects, strict=True):
        # A bounce back onto its own square (M5) is still a lift and a place of that piece.
        out.append(Step(player, move.from_sq, move.to_sq))
        out += effect_steps(move_effects)
    return out


def effect_steps(effects: Sequence[object]) -> list[Step]:
    """What the people must do for the rules' own moves (exchange, drowning, removal...)."""
    out: list[Step] = []
    for effect in effects:
        if isinstance(effect, Exchanged):
            out.append(Step(effect.player, effect.from_sq, effect.to_sq, StepWhy.EXCHANGE, "P4"))
        elif isinstance(effect, Relocated):
            out.append(Step(effect.player, effect.from_sq, effect.to_sq, StepWhy(effect.kind), effect.ruling))
        elif isinstance(effect, Removed):
            out.append(Step(effect.player, effect.from_sq, OFF, StepWhy.REMOVED, effect.ruling))
    return out


#: A position as a value that can be compared and used as a key: ways to play with the same outcome
#: are the same move. Nested tuples of the position's items, sorted.
Outcome = tuple[object, ...]


def frozen(value: object) -> Outcome:
    """`value` (dicts, lists and plain values nested) as nested tuples, dicts' items sorted by key."""

    def freeze(item: object) -> object:
        if isinstance(item, dict):
            return tuple(sorted(((str(k), freeze(v)) for k, v in item.items()), key=lambda kv: kv[0]))
        if isinstance(item, list | tuple):
            return tuple(freeze(v) for v in item)
        return item

    out = freeze(value)
    return out if isinstance(out, tuple) else (out,)


def play_out(game: Game, moves: Sequence[Move]) -> tuple[list[Step], int, Outcome]:
    """Steps, final occupancy and resulting position (as text) of playing `moves` now; the game is
    left as it was."""
    player = game.mover_id
    effects = [game.push(move) for move in moves]
    final = game.occupied()
    outcome = frozen((game.position(), game.to_move, game.pending))
    for _ in moves:
        game.pop()
    return steps_of(moves, effects, player), final, outcome


@dataclass(frozen=True)
class Walk:
    """A move's steps walked once from the board `start`, each real piece followed; the referee
    reads every stage from it. Per step: the occupancy after it (`boards`; a piece landing on an
    occupied square pushes the other into a hand), the square its piece stood on before the move
    began (`origins`, OFF for one brought in), the pieces standing on a new square (`landed`:
    square and origin; a square a piece only passed through is not among them), the switches that
    must have opened (`lifts`) and closed (`places`) to get there, and the pairs of squares that
    must have been empty at once (`swaps`). At the end: the squares whose pieces were pushed into a
    hand and not put down again (`held`), and every square a step starts or ends on (`touched`)."""

    boards: tuple[int, ...]
    origins: tuple[int, ...]
    landed: tuple[tuple[tuple[int, int], ...], ...]
    lifts: tuple[int, ...]
    places: tuple[int, ...]
    swaps: tuple[tuple[tuple[int, int], ...], ...]
    held: frozenset[int]
    touched: int


def walk(start: int, steps: Sequence[Step]) -> Walk:
    """Carry out `steps` from the board `start` once, following each piece and what the hands did."""
    walker = _Walker(start)
    boards, origins, landed, lifts, places, swaps = [], [], [], [], [], []
    for n, step in enumerate(steps):
        origins.append(_origin(walker.carry(n, step)))
        walker.lift_and_place(step)
        walker.exchange(step)
        boards.append(sum(bit(sq) for sq in walker.on))
        landed.append(tuple((sq, _origin(p)) for sq, p in sorted(walker.on.items()) if p != sq))
        lifts.append(walker.lifts)
        places.append(walker.filled)
        swaps.append(tuple(walker.swaps))
    return Walk(
        tuple(boards),
        tuple(origins),
        tuple(landed),
        tuple(lifts),
        tuple(places),
        tuple(swaps),
        frozenset(walker.in_hand),
        walker.touched,
    )


def _origin(piece: int) -> int:
    """Where a followed piece stood before the move began: its start square, or OFF if brought in."""
    return piece if piece <= OFF else OFF


class _Walker:
    """The state of one walk over a move's steps: each real piece followed (named by the square it
    started on, one brought back onto the board by its step's number past OFF), and what the
    hands must have done so far."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.on: dict[int, int] = {sq: sq for sq in squares_in(start)}  # square -> piece
        self.in_hand: dict[int, int] = {}  # the square a held piece was taken from -> piece
        self.lifts = 0  # the switches that must have opened
        self.filled = 0  # every square a piece was put on (closed on the way)
        self.touched = 0  # every square a step starts or ends on
        self.swaps: list[tuple[int, int]] = []  # square pairs that must have been empty at once
        self.displaced_by: dict[int, int] = {}  # square a piece was pushed off -> square its pusher came from
        self.occupied = start  # the occupancy the exchanges are found on

    def carry(self, n: int, step: Step) -> int:
        """Carry step `n`'s piece; the piece carried."""
        # A piece pushed into a hand by a landing (exchange, capture) is the one that leaves next.
        piece = self.in_hand.pop(step.from_sq, None)
        if step.from_sq == OFF:
            piece = OFF + 1 + n  # a piece brought back onto the board
        elif piece is None:
            piece = self.on.pop(step.from_sq)
        if step.to_sq != OFF:
            displaced = self.on.get(step.to_sq)
            if displaced is not None:
                self.in_hand[step.to_sq] = displaced
            self.on[step.to_sq] = piece
        return piece

    def lift_and_place(self, step: Step) -> None:
        """A piece cannot leave a square, nor make room on one, without lifting; squares the move
        itself filled on the way do not count. Every square a piece is put on closes."""
        for sq in (step.from_sq, step.to_sq):
            if sq != OFF:
                self.touched |= bit(sq)
                if self.start & bit(sq) and not self.filled & bit(sq):
                    self.lifts |= bit(sq)
        if step.to_sq != OFF:
            self.filled |= bit(step.to_sq)

    def exchange(self, step: Step) -> None:
        """A piece landing on another that then goes where the first stood (an exchange, P4) needs
        both squares lifted at once."""
        pusher = self.displaced_by.pop(step.from_sq, None)  # set when this piece was pushed into a hand
        if pusher is not None and pusher == step.to_sq:
            a, b = sorted((step.from_sq, step.to_sq))
            if self.start & bit(a) and self.start & bit(b):
                self.swaps.append((a, b))
        if pusher is None and step.from_sq != OFF:
            self.occupied &= ~bit(step.from_sq)
        if step.to_sq != OFF:
            if self.occupied & bit(step.to_sq) and step.from_sq not in (step.to_sq, OFF):
                self.displaced_by[step.to_sq] = step.from_sq
            self.occupied |= bit(step.to_sq)


def stages(start: int, steps: Sequence[Step]) -> list[int]:
    """Occupancy after each step (a piece landing on an occupied square pushes the other into a hand)."""
    return list(walk(start, steps).boards)


def reversed_steps(steps: Sequence[Step]) -> list[Step]:
    """The steps that take a move back: every piece it carried returns, the last one first."""
    return [Step(s.player, s.to_sq, s.from_sq, StepWhy.UNDO, s.ruling) for s in reversed(steps)]


def touched(steps: Sequence[Step]) -> int:
    """Every board square a step starts or ends on."""
    m = 0
    for step in steps:
        for sq in (step.from_sq, step.to_sq):
            if sq != OFF:
                m |= bit(sq)
    return m


def piece_name(piece: Identity) -> Text:
    """A piece as a person at the board tells it: whose, and in `modern` its dots (None: not one of
    the game's, a piece added from elsewhere)."""
    if piece is None:
        return Text("a piece that is not in the game")
    owner, dots = piece if isinstance(piece, tuple) else (piece, None)
    if dots is None:
        return Text("{player}'s piece", player=owner)
    if dots == 1:
        return Text("{player}'s piece with one dot", player=owner)
    return Text("{player}'s piece with {dots} dots", player=owner, dots=dots)


@dataclass(frozen=True)
class Fix:
    """One correction: carry a piece from `from_sq` to `to_sq`; HAND on either side = add or remove."""

    from_sq: int
    to_sq: int
    owner: str | None = None
    swap: bool = False  # the pieces on both squares change places
    dots: int | None = None  # `modern`: which of the owner's pieces goes back (they are told apart by their dots)

    def text(self) -> Text:
        """The correction in words for the people at the board."""
        if self.swap:
            return Text("swap the pieces on {a} and {b} back", a=self.from_sq, b=self.to_sq)
        if self.from_sq == HAND:
            if self.owner:
                return Text("put {piece} back on {to}", piece=piece_name((self.owner, self.dots)), to=self.to_sq)
            return Text("put a piece back on {to}", to=self.to_sq)
        if self.to_sq == HAND:
            if self.owner:
                return Text("remove {player}'s piece on {from_sq}", player=self.owner, from_sq=self.from_sq)
            return Text("remove the piece on {from_sq}", from_sq=self.from_sq)
        if self.owner:
            return Text(
                "put {player}'s piece on {from_sq} back on {to}", player=self.owner, from_sq=self.from_sq, to=self.to_sq
            )
        return Text("put the piece on {from_sq} back on {to}", from_sq=self.from_sq, to=self.to_sq)

    def line(self) -> FixLine:
        """The `fix` verdict that says this correction (a swap says so in its `swap` field)."""
        return FixLine(self.text(), self.from_sq or None, self.to_sq or None, swap=self.swap)


@dataclass(frozen=True)
class Evidence:
    """What the hands showed of the pieces standing on a board, square by square (a square left out:
    nothing known): where each was picked up (`came_from`), whose it is (`holders`), which piece
    it is when every story agrees (`pieces`: owner and, in `modern`, dots), the squares holding a
    piece from nowhere (`strangers`, a mask) and those whose own piece may still be in the hand
    (`in_hand`, a mask)."""

    came_from: Mapping[int, int | None] = field(default_factory=dict)
    holders: Mapping[int, str | None] = field(default_factory=dict)
    pieces: Mapping[int, Identity] = field(default_factory=dict)
    strangers: int = 0
    in_hand: int = 0

    def dots(self, square: int) -> int | None:
        """The dots of the piece known to stand on `square` (`modern`), else None."""
        piece = self.pieces.get(square)
        return piece[1] if piece is not None and isinstance(piece[1], int) else None


def fixes(
    sensed: int,
    expected: int,
    owners: Mapping[int, str],
    seen: Evidence | None = None,
    dots: Mapping[int, int | None] | None = None,
) -> list[Fix]:
    """Corrections that turn `sensed` into `expected`, following the pieces: `owners` names whose
    piece belongs on each expected square and `dots` (`modern`) which of the owner's pieces, `seen`
    what the hands showed of the pieces standing (`Evidence`). A square with the wrong owner's piece,
    or one known to carry other dots, needs it gone and the right one put there (class 3). A piece
    goes back where it came from, else to a square wanting that very piece, else to one its owner
    needs, else to the closest, a game's piece before a stranger (and a stranger never where the
    piece in the hand goes back); so owners and dots never end up swapped."""
    pairing = _Pairing(sensed, expected, owners, seen or Evidence(), dots or {})
    pairing.home()
    pairing.by_piece()
    pairing.by_owner()
    pairing.the_rest()
    return in_order(sorted(pairing.fixes(), key=lambda f: (f.from_sq or f.to_sq, f.to_sq)), sensed)


class _Pairing:
    """The pairs of `fixes` (square with a piece to go, square to fill), made one kind at a time."""

    def __init__(
        self, sensed: int, expected: int, owners: Mapping[int, str], seen: Evidence, dots: Mapping[int, int | None]
    ) -> None:
        self.owners, self.seen, self.dots = owners, seen, dots
        self.wrong = [sq for sq in squares_in(sensed & expected) if self._wrong_piece(sq)]
        self.missing = sorted(squares_in(expected & ~sensed) + self.wrong)
        self.extra = sorted(squares_in(sensed & ~expected) + self.wrong)
        self.pairs: list[tuple[int, int]] = []

    def _wrong_piece(self, sq: int) -> bool:
        """Whether the piece on `sq` is known not to be the one that belongs there: another owner's,
        one from nowhere, or (`modern`) one with other dots."""
        holder, owner = self.seen.holders.get(sq), self.owners.get(sq)
        if self.seen.strangers & bit(sq) or (holder and owner and holder != owner):
            return True
        return not self._fits(sq, sq)

    def _fits(self, a: int, b: int) -> bool:
        """Whether the piece on `a` may be the one that belongs on `b`, as far as its dots are known."""
        have, want = self.seen.dots(a), self.dots.get(b)
        return have is None or want is None or have == want

    def _free(self, a: int, b: int) -> bool:
        return a != b and a not in self.paired_extra() and b not in self.paired_missing()

    def paired_extra(self) -> set[int]:
        return {a for a, _ in self.pairs}

    def paired_missing(self) -> set[int]:
        return {b for _, b in self.pairs}

    def home(self) -> None:
        """Each piece back where it came from, when that square wants it (its owner, its dots)."""
        for a in self.extra:
            origin = self.seen.came_from.get(a)
            if (
                origin is not None
                and origin in self.missing
                and self._free(a, origin)
                and self.seen.holders.get(a) in (None, self.owners.get(origin))
                and self._fits(a, origin)
            ):
                self.pairs.append((a, origin))

    def by_piece(self) -> None:
        """`modern`: a piece whose dots are known to a square wanting that very piece."""
        for a in self.extra:
            if self.seen.dots(a) is None or a in self.paired_extra():
                continue
            owner = self.seen.holders.get(a)
            wanting = [b for b in self.missing if self.owners.get(b) == owner and self._fits(a, b)]
            target = next((b for b in wanting if self._free(a, b) and self.dots.get(b) is not None), None)
            if target is not None:
                self.pairs.append((a, target))

    def by_owner(self) -> None:
        """The rest of each owner's pieces to the closest squares that owner needs (dots permitting)."""
        for owner in sorted({o for o in self.seen.holders.values() if o}):
            mine = [a for a in self.extra if self.seen.holders.get(a) == owner and a not in self.paired_extra()]
            theirs = [b for b in self.missing if self.owners.get(b) == owner and b not in self.paired_missing()]
            if mine and theirs:
                self.pairs += [(a, b) for a, b in _closest_pairs(mine, theirs) if a != b and self._fits(a, b)]

    def the_rest(self) -> None:
        """Game's pieces, then strangers, to the closest squares still to fill."""
        rest_extra = [a for a in self.extra if a not in self.paired_extra() and a not in self.wrong]
        rest_missing = [b for b in self.missing if b not in self.paired_missing()]
        ours = [a for a in rest_extra if not self.seen.strangers & bit(a) and self.seen.dots(a) is None]
        if rest_missing and ours:
            self.pairs += _closest_pairs(ours, rest_missing)
            rest_missing = [b for b in rest_missing if b not in self.paired_missing()]
        strangers = [a for a in rest_extra if self.seen.strangers & bit(a)]
        rest_missing = [b for b in rest_missing if not self.seen.in_hand & bit(b)]
        if rest_missing and strangers:
            self.pairs += _closest_pairs(strangers, rest_missing)

    def fixes(self) -> list[Fix]:
        """The pairs as carries (named by owner only when the hands showed whose piece it is), the
        unpaired extras taken off, the unpaired squares filled from the hand (by dots in `modern`)."""
        holders, owners = self.seen.holders, self.owners
        out = [Fix(a, b, owners.get(b) if holders.get(a) == owners.get(b) else None) for a, b in self.pairs]
        out += [Fix(a, HAND, holders.get(a)) for a in self.extra if a not in self.paired_extra()]
        out += [
            Fix(HAND, b, owners.get(b), dots=self.dots.get(b)) for b in self.missing if b not in self.paired_missing()
        ]
        return out


def in_order(todo: list[Fix], board: int) -> list[Fix]:
    """The fixes in an order a person can follow from `board`: never a piece put on a square that is
    still occupied (the piece there goes first), and a ring of pieces that each wait for the next
    square is broken by taking one piece off first and putting it down last."""
    out: list[Fix] = []
    later: list[Fix] = []
    todo = list(todo)
    while todo:
        ready = next((f for f in todo if f.to_sq == HAND or not board & bit(f.to_sq)), None)
        if ready is None:  # every move waits for another: take the first piece off for now
            first = todo.pop(0)
            out.append(Fix(first.from_sq, HAND, first.owner))
            later.append(Fix(HAND, first.to_sq, first.owner))
            board &= ~bit(first.from_sq)
            continue
        todo.remove(ready)
        out.append(ready)
        if ready.from_sq != HAND:
            board &= ~bit(ready.from_sq)
        if ready.to_sq != HAND:
            board |= bit(ready.to_sq)
    return out + later


def _closest_pairs(extra: list[int], missing: list[int]) -> list[tuple[int, int]]:
    """Pairs with the least total distance: exact for the few squares a slip of the hand leaves."""
    small, large, swap = (extra, missing, False) if len(extra) <= len(missing) else (missing, extra, True)
    if len(large) <= 7:
        best: tuple[int, tuple[int, ...]] | None = None
        for chosen in permutations(large, len(small)):
            cost = sum(abs(a - b) for a, b in zip(small, chosen, strict=True))
            if best is None or cost < best[0]:
                best = (cost, chosen)
        assert best is not None
        pairs = list(zip(small, best[1], strict=True))
    else:  # a board swept clean or set up anew: closest first is good enough
        pairs = []
        free = list(large)
        for a in small:
            b = min(free, key=lambda x: abs(x - a))
            free.remove(b)
            pairs.append((a, b))
    return [(b, a) for a, b in pairs] if swap else pairs
