"""The evidence of one attempt: what the hands did since the board was last known good.

Occupancy alone cannot tell a touch from an exchange, nor which piece went where when two
went wrong. The order of lifts and places can, as cause and effect: two squares empty at
the same moment, a piece put down after it was picked up.

The hand model follows the pieces themselves. Every piece on the board when the attempt began
is known (its square then, its owner, in `modern` its dots); a lift puts the piece on that
square into the hand, a place puts one of the pieces in the hand down. With one piece in the
hand that is sure; with two or more it is not, so the model keeps every story the switch
changes allow (`worlds`): which piece is where, and which are still in the hand. Whose piece
stands on a square is known when every story agrees; the referee asks when they do not and
it matters.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from ..rules.board import bit

NEVER = 1 << 30  # the order number of something that did not happen
#: Stories kept at most; past that (pieces juggled for a long time) identity is judged unknown.
MAX_WORLDS = 64
#: Piece numbers from here on are pieces that came from nowhere the referee knows (an extra piece).
UNKNOWN_PIECE = 100
#: The number of "no piece" put down while pieces were in the hand (a switch welding shut): a story
#: that only explains moves, never whose piece stands where (at most one in a story; when the
#: switch lets go it stays in the hand as a mark, never put down).
NO_PIECE = 200
#: Boards kept in the order the hands made them (a game's turn takes a few dozen changes).
MAX_HISTORY = 400
#: Seconds: a piece off its switch for less than this, and back, was bumped, never carried (hands take
#: hundreds of milliseconds to pick a piece up and put one down; a jolt opens reeds for tens).
BUMP_TIME = 0.15
#: Seconds: three or more pieces leaving their switches within this of each other were knocked (a
#: sleeve, the board jolted), never picked up by hand, one piece at a time; so were two that left
#: within JOLT_PAIR of each other and came back within BUMP_TIME.
JOLT_TIME = 0.05
JOLT_PAIR = 0.03
#: Seconds: the least time a switch change can take to be timing evidence at all. A board is
#: scanned every 20 ms; changes closer than this are a script's (no time between its events) or one
#: scan's, and say nothing about speed.
SCAN_TIME = 0.01

#: A piece of the game: its owner and, in `modern`, its dots (None in the other rule sets), as
#: `Game.piece_at` gives it.
Piece = tuple[str, object]
#: Which piece one is: a piece of the game, or None for one that is not the game's (a spare, a
#: switch closing with no piece).
Identity = Piece | None

#: One story: the piece on each square (0 = empty; a piece is numbered by its square at the start),
#: and the pieces in the hand, sorted.
World = tuple[tuple[int, ...], tuple[int, ...]]


@dataclass
class Attempt:
    """Switch changes since `start` (the occupancy the referee trusted), summed up as evidence."""

    start: int
    owners: dict[int, str] = field(default_factory=dict)  # whose piece stood on each square at the start
    pieces: dict[int, Identity] = field(default_factory=dict)  # each start square's piece: (owner, dots)
    lifted: int = 0  # squares whose switch opened
    placed: int = 0  # squares whose switch closed
    count: int = 0  # switch changes so far: the order numbers below
    lifts: dict[int, int] = field(default_factory=dict)  # per square, how many times its switch opened
    first_lift: dict[int, int] = field(default_factory=dict)
    last_place: dict[int, int] = field(default_factory=dict)
    together: set[tuple[int, int]] = field(default_factory=set)  # start squares empty at the same moment
    knocked: int = 0  # squares lifted and put straight back, the next change, the hand holding nothing else:
    # a touch as likely as a move (with another piece in the hand, the one put down may be that one)
    gap: bool = False  # changes went unseen (a snapshot after the link was down): the order is not known
    worlds: set[World] = field(default_factory=set)  # every story of which piece is where (see above)
    lost: bool = False  # too many stories: which piece is where is not known
    history: list[int] = field(default_factory=list)  # the board after each change, in order
    _open: int = 0  # start squares that are empty now
    _last_lift: int = 0  # the square of the last change, when it was a lift
    _strangers: int = 0  # pieces come from nowhere so far
    surprise: dict[World, int] = field(default_factory=dict)  # each story's count of unlikely turns
    _lifted: dict[World, int] = field(default_factory=dict)  # per story, the piece the last lift took
    said_foreign: set[int] = field(default_factory=set)  # squares someone said hold a piece not in the game
    lifted_at: dict[int, float] = field(default_factory=dict)  # per square, when its switch last opened
    placed_at: dict[int, float] = field(default_factory=dict)  # per square, when its switch last closed
    together_at: dict[tuple[int, int], float] = field(default_factory=dict)  # when each pair was first empty together
    bumped: int = 0  # squares whose piece was off its switch for less than BUMP_TIME and back: never carried
    jolted: int = 0  # squares last emptied by a knock (JOLT_TIME), not by a hand: no lift a move needs
    _jolt: list[tuple[float, int]] = field(default_factory=list)  # the lifts of a knock under way: (time, square)

    def copy(self) -> Attempt:
        """An independent copy (the stories are immutable tuples: only the containers are new), made
        before every input so a failed judgement can be put back."""
        twin = copy.copy(self)
        for name in (
            "owners",
            "pieces",
            "lifts",
            "first_lift",
            "last_place",
            "surprise",
            "_lifted",
            "lifted_at",
            "placed_at",
        ):
            setattr(twin, name, dict(getattr(self, name)))
        twin.together, twin.worlds, twin.history = set(self.together), set(self.worlds), list(self.history)
        twin.said_foreign = set(self.said_foreign)
        twin.together_at = dict(self.together_at)
        twin._jolt = list(self._jolt)
        return twin

    def __post_init__(self) -> None:
        if not self.worlds:
            self.worlds = {(tuple(sq if self.start & bit(sq) else 0 for sq in range(32)), ())}
        if not self.surprise:
            self.surprise = dict.fromkeys(self.worlds, 0)
        if not self.pieces:
            self.pieces = {sq: (owner, None) for sq, owner in self.owners.items()}

    def record(self, square: int, closed: bool, at: float | None = None) -> None:
        """One switch change, in the order it happened (at `at` seconds, when the time is known)."""
        self.count += 1
        b = bit(square)
        held = min((len(hand) for _, hand in self.likely()), default=0) if not self.lost else 0  # in the hand now
        self._follow(square, closed)
        if len(self.history) < MAX_HISTORY:
            self.history.append((self.history[-1] if self.history else self.start) ^ b)
        if closed:
            if self._last_lift == square and held <= 1:  # with another piece in the hand it may be that one landing
                self.knocked |= b
            self._last_lift = 0
            self.placed |= b
            self.last_place[square] = self.count
            self._open &= ~b
            self._bump(square, at)
            self._jolt = []
            return
        self._last_lift = square
        if at is not None:
            self.lifted_at[square] = at
            self._knock(square, at)
        self.lifts[square] = self.lifts.get(square, 0) + 1
        self.lifted |= b
        self.first_lift.setdefault(square, self.count)
        if self.start & b:
            for other in range(1, 31):
                if self._open & bit(other):
                    pair = (min(square, other), max(square, other))
                    self.together.add(pair)
                    if at is not None:
                        self.together_at.setdefault(pair, at)
            self._open |= b

    def _knock(self, square: int, at: float) -> None:
        """A lift: with two others within JOLT_TIME (SCAN_TIME having passed), the pieces were knocked.
        A square lifted again later, on its own, is a hand's lift again."""
        self.jolted &= ~bit(square)
        self._jolt = [(t, sq) for t, sq in self._jolt if at - t <= JOLT_TIME] + [(at, square)]
        if len(self._jolt) >= 3 and self._jolt[-1][0] - self._jolt[0][0] >= SCAN_TIME:
            for _, sq in self._jolt:
                self.jolted |= bit(sq)

    def _bump(self, square: int, at: float | None) -> None:
        """A switch closed again less than BUMP_TIME after it opened (SCAN_TIME having passed). When
        every piece that left its switch within JOLT_PAIR of it is back the same way, they were
        jolted, not carried: the squares were never empty together for an exchange, and a piece
        that stood there from the start, lifted once, is back on it."""
        if at is None:
            return
        self.placed_at[square] = at
        since = self.lifted_at.get(square)
        if since is None or not SCAN_TIME <= at - since < BUMP_TIME:
            return
        group = [sq for sq, t in self.lifted_at.items() if abs(t - since) < JOLT_PAIR]
        if len(group) < 2:
            return  # one piece lifted and put back: a touch, judged by the order of the hands (`knocked`)
        for sq in group:
            back = self.placed_at.get(sq)
            if back is None or not SCAN_TIME <= back - self.lifted_at[sq] < BUMP_TIME:
                return  # a piece of the group is still off, or was off as long as a hand takes
        for sq in group:
            self._jolted_back(sq)

    def _jolted_back(self, square: int) -> None:
        b = bit(square)
        self.bumped |= b
        since = self.lifted_at[square]
        for pair in [p for p, t in self.together_at.items() if square in p and t >= since - JOLT_PAIR]:
            self.together.discard(pair)
            del self.together_at[pair]
        if self.start & b and self.lifts.get(square) == 1 and not self.lost:
            home = {w for w in self.worlds if w[0][square] == square}
            if home:
                self.worlds = home
                self.surprise = {w: n for w, n in self.surprise.items() if w in home}

    def _follow(self, square: int, closed: bool) -> None:
        """Every story, carried on by one switch change. A story in which a piece lifted and put
        straight back (the very next change) was swapped for another one in the hand is possible but
        surprising: `likely()` leaves such stories out while a plainer one remains. So is a switch
        closing with no piece (a weld, a foreign piece) while pieces are in the hand: at most once
        in a story; a piece put down straight after it lets go ends that story (it was a piece)."""
        if self.lost:
            return
        stranger = UNKNOWN_PIECE + self._strangers
        after: dict[World, int] = {}
        least = min(self.surprise.values(), default=0)
        carried = self._weld_let_go(closed)
        for (on, hand), surprise in self.surprise.items():
            if (on, hand) in carried:
                continue
            if closed:
                self._put_down(after, (on, hand), surprise, square, stranger, surprise == least)
            else:
                self._picked_up(after, (on, hand), surprise, square, stranger)
        if not closed:
            self._lifted = {w: p for w, p in self._lifted.items() if w in after}
        if any(stranger in on or stranger in hand for on, hand in after):
            self._strangers += 1
        if len(after) > MAX_WORLDS:  # the unlikely weld stories go first
            after = {w: n for w, n in after.items() if NO_PIECE not in w[0] and NO_PIECE not in w[1]}
        if len(after) > MAX_WORLDS:
            self.lost = True
        self.surprise = after
        self.worlds = set(after)

    def _weld_let_go(self, closed: bool) -> set[World]:
        """The stories a piece put down straight after a weld let go ends: it was a piece carried from
        there (unless no other story is left)."""
        if not (closed and self._last_lift):
            return set()
        carried = {w for w, p in self._lifted.items() if p == NO_PIECE and w in self.surprise}
        return set() if carried == set(self.surprise) else carried

    def _put_down(
        self, after: dict[World, int], world: World, surprise: int, square: int, stranger: int, least: bool
    ) -> None:
        """A switch closed, in one story: each piece in the hand may be the one put down (one swapped
        for the piece lifted the change before is a surprise), or, once in a story, no piece at all."""
        on, hand = world
        board = list(on)
        knock = self._last_lift == square
        if board[square]:  # a switch that was open under a piece in this story: it goes to the hand
            hand = tuple(sorted((*hand, board[square])))
        for piece in set(hand) - {NO_PIECE} or {stranger}:
            board[square] = piece
            rest = list(hand)
            if piece in rest:
                rest.remove(piece)
            swapped = knock and self._lifted.get((on, hand), piece) != piece
            _add(after, (tuple(board), tuple(rest)), surprise + swapped)
        welded = NO_PIECE in on or NO_PIECE in hand
        if hand and not knock and least and not welded:
            board[square] = NO_PIECE
            _add(after, (tuple(board), hand), surprise + 1)

    def _picked_up(self, after: dict[World, int], world: World, surprise: int, square: int, stranger: int) -> None:
        """A switch opened, in one story: its piece (or one from nowhere) goes into the hand."""
        on, hand = world
        board = list(on)
        piece = board[square] or stranger
        board[square] = 0
        lifted = (tuple(board), tuple(sorted((*hand, piece))))
        _add(after, lifted, surprise)
        self._lifted[lifted] = piece

    def likely(self) -> set[World]:
        """The stories with the fewest surprises (see `_follow`)."""
        least = min(self.surprise.values(), default=0)
        return {w for w, n in self.surprise.items() if n == least}

    # ------------------------------------------------------------------ which piece is where

    def piece(self, number: int) -> Identity:
        """A piece's identity by its number: (owner, dots) for a start piece, None for a stranger."""
        return self.pieces.get(number)

    def board(self) -> int:
        """The occupancy the switch changes have left (every story agrees on it)."""
        on, _ = next(iter(self.worlds))
        return sum(bit(sq) for sq in range(1, 31) if on[sq])

    def plain(self) -> set[World]:
        """The stories that say whose piece is where: every one but those where a switch closed with
        no piece while pieces were in the hand (kept only to explain moves), unless none is left."""
        plain = {w for w in self.worlds if NO_PIECE not in w[0] and NO_PIECE not in w[1]}
        return plain or self.worlds

    def on(self, square: int, likely: bool = False) -> set[int]:
        """The pieces (by number) that may stand on `square` now, over the stories that say whose
        piece is where (or the likely ones)."""
        return {on[square] for on, _ in (self.likely() if likely else self.plain())}

    def identities(self, square: int) -> list[Identity]:
        """The pieces (owner, dots) that may stand on `square`, over every story, in a stable order."""
        return sorted({self.piece(p) for p in self.on(square, likely=True)}, key=repr)

    def may_stand(self, square: int) -> list[Identity]:
        """The pieces (owner, dots) that stand on `square` in any story of the hands, in a stable order;
        None for a piece that is not one of the game's, when one of the game's may stand there too."""
        pieces = {self.piece(n) for n in self.on(square)}
        known = {p for p in pieces if p is not None}
        return sorted(pieces if known else known, key=repr)

    def unsure_of(self, squares: Iterable[int], unknown: int) -> list[int]:
        """Those of `squares` (faulty switches' `unknown` squares left out) whose piece the hands left
        unsure: stories put different pieces there."""
        if self.lost:
            return []
        return [sq for sq in sorted(squares) if not unknown & bit(sq) and len(self.may_stand(sq)) > 1]

    def narrow(self, square: int, piece: Identity) -> None:
        """Someone who can see the pieces said which one stands on `square`: keep the stories that agree."""
        self.keep([(square, piece)])
        if piece is None:
            self.said_foreign.add(square)

    def foreign(self, square: int) -> bool:
        """Whether someone said the piece on `square` is not in the game, and every story agrees."""
        return square in self.said_foreign and self.stranger(square)

    def keep(self, placing: Iterable[tuple[int, Identity]]) -> None:
        """Keep only the stories with a piece of each given identity on each given square (a move
        accepted, an answer given), unless none has them."""
        self._narrow(placing, True)

    def set_aside(self, numbers: Iterable[int]) -> None:
        """A move took these pieces (by number) off the board, borne off or out of the game: keep the
        stories in which none of them stands on the board, unless none is left."""
        gone = set(numbers)
        kept = {w for w in self.worlds if not gone.intersection(w[0])}
        if kept and gone:
            self.worlds = kept
            self.surprise = {w: self.surprise.get(w, 0) for w in kept}

    def drop(self, placing: Iterable[tuple[int, Identity]]) -> None:
        """Leave out the stories with a piece of each given identity on each given square (someone
        who can see the pieces said it is not so), unless that would leave none."""
        self._narrow(placing, False)

    def _narrow(self, placing: Iterable[tuple[int, Identity]], holds: bool) -> None:
        """Keep the stories in which the placing holds (or does not), unless none is left."""
        wanted = list(placing)
        kept = {w for w in self.worlds if all(self.piece(w[0][sq]) == ident for sq, ident in wanted) == holds}
        if kept:
            self.worlds = kept
            self.surprise = {w: self.surprise.get(w, 0) for w in kept}

    def stranger(self, square: int) -> bool:
        """Whether the piece on `square` came from nowhere the referee knows in every story (a piece
        put down with none in the hand: an extra piece, or a switch closing with no piece)."""
        return not self.lost and all(on[square] >= UNKNOWN_PIECE for on, _ in self.plain())

    def origin(self, square: int) -> int | None:
        """Where the piece now on `square` stood when the attempt began (None when not known)."""
        if self.lost:
            return None
        pieces = self.on(square)
        if len(pieces) != 1:
            return None
        (piece,) = pieces
        return piece if 0 < piece < UNKNOWN_PIECE else None

    def holder(self, square: int) -> str | None:
        """Whose piece stands on `square` when every story agrees (None when not known)."""
        if self.lost:
            return None
        owners = {self.owners.get(p) for p in self.on(square)}
        return owners.pop() if len(owners) == 1 else None

    def could_be(self, placing: Iterable[tuple[int, Identity]], strangers: Collection[Identity] = ()) -> bool:
        """Whether some story has a piece of each given identity on each given square (a piece from
        nowhere may be any of the identities in `strangers`: pieces the referee took as gone)."""
        wanted = list(placing)
        if self.lost or not wanted:
            return True

        def fits(number: int, ident: Identity) -> bool:
            return self.piece(number) == ident or (ident in strangers and UNKNOWN_PIECE <= number < NO_PIECE)

        return any(all(fits(on[sq], ident) for sq, ident in wanted) for on, _ in self.worlds)

    def stories(self, placing: Iterable[tuple[int, Identity]]) -> set[World]:
        """The stories with a piece of each given identity on each given square (none when the
        pieces are not followed)."""
        wanted = list(placing)
        if self.lost:
            return set()
        return {w for w in self.worlds if all(self.piece(w[0][sq]) == ident for sq, ident in wanted)}

    def must_be(self, placing: Iterable[tuple[int, Identity]]) -> bool:
        """Whether every story has a piece of each given identity on each given square."""
        wanted = list(placing)
        if self.lost:
            return False
        return all(all(self.piece(on[sq]) == ident for sq, ident in wanted) for on, _ in self.likely())

    def in_hand(self) -> int:
        """The squares whose piece (from the start) may be in the hand now, in some story."""
        if self.lost:
            return 0
        held = {p for _, hand in self.plain() for p in hand}
        return sum(bit(p) for p in held if 0 < p < UNKNOWN_PIECE)

    def at_home(self, square: int) -> bool:
        """Whether the piece that stood on `square` is back on it in every story."""
        return not self.lost and all(on[square] == square for on, _ in self.worlds)

    # ------------------------------------------------------------------ the order of events

    def passed_through(self, boards: list[int], unknown: int = 0) -> bool:
        """Whether the hands made these boards, in this order (others may come between)."""
        if self.gap or len(self.history) >= MAX_HISTORY:
            return False
        wanted = iter(boards)
        board = next(wanted, None)
        for seen in self.history:
            if board is not None and not (seen ^ board) & ~unknown:
                board = next(wanted, None)
        return board is None

    def lifted_since(self, seen: int) -> int:
        """The squares whose piece was picked up after the first `seen` changes, standing there then."""
        if self.gap or len(self.history) >= MAX_HISTORY:
            return self.lifted
        boards = [self.start, *self.history]
        out = 0
        for before, after in zip(boards[seen:], boards[seen + 1 :], strict=False):
            out |= before & ~after
        return out & boards[min(seen, len(boards) - 1)]

    def carried(self, origin: int, square: int) -> bool | None:
        """Whether the piece from `origin` was carried to `square` on purpose: lifted with an empty
        hand, put down the very next change and held for BUMP_TIME or longer (a hand takes hundreds of
        milliseconds). False for a knock: quicker than that, or beside another piece in the hand (a
        neighbour brushed while the mover was lifted). None when the switch times cannot tell (a
        script's events, or no times given)."""
        boards = [self.start, *self.history]
        full = self.start.bit_count()
        for before, held, after in zip(boards, boards[1:], boards[2:], strict=False):
            if before ^ held == bit(origin) and held ^ after == bit(square) and after & bit(square):
                if before.bit_count() != full or self.gap:
                    return False  # another piece was in the hand: brushed beside a lift
                lifted, placed = self.lifted_at.get(origin), self.placed_at.get(square)
                if lifted is None or placed is None or placed - lifted < SCAN_TIME:
                    return None
                return placed - lifted >= BUMP_TIME
        return False

    def empty_together(self, a: int, b: int) -> bool:
        """Whether squares `a` and `b` (both occupied at the start) were empty at the same moment."""
        return (min(a, b), max(a, b)) in self.together

    def put_down_after(self, square: int, lifted_from: int) -> bool:
        """Whether a piece was put on `square` after `lifted_from` first opened."""
        return self.last_place.get(square, -1) > self.first_lift.get(lifted_from, NEVER)


def _add(after: dict[World, int], world: World, surprise: int) -> None:
    """A story kept with the fewest surprises any way to it took."""
    after[world] = min(surprise, after.get(world, surprise))
