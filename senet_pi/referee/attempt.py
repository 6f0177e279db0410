"""The evidence of one attempt: what the hands did since the board was last known good.

Occupancy alone cannot tell a touch from an exchange, nor which piece went where when two
went wrong. The order of lifts and places can, as cause and effect: two squares empty at
the same moment, a piece put down after it was picked up, and, while only one piece is in
the hand, where the piece put down came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..rules.board import bit

NEVER = 1 << 30  # the order number of something that did not happen


@dataclass
class Attempt:
    """Switch changes since `start` (the occupancy the referee trusted), summed up as evidence."""

    start: int
    owners: dict[int, str] = field(default_factory=dict)  # whose piece stood on each square at the start
    lifted: int = 0  # squares whose switch opened
    placed: int = 0  # squares whose switch closed
    count: int = 0  # switch changes so far: the order numbers below
    first_lift: dict[int, int] = field(default_factory=dict)
    last_place: dict[int, int] = field(default_factory=dict)
    together: set[tuple[int, int]] = field(default_factory=set)  # start squares empty at the same moment
    hand: list[int | None] = field(default_factory=list)  # where each held piece stood at the start
    came_from: dict[int, int | None] = field(default_factory=dict)  # square -> start square of its piece
    knocked: int = 0  # squares lifted and put straight back, the next change: a touch as likely as a move
    gap: bool = False  # changes went unseen (a snapshot after the link was down): the order is not known
    _open: int = 0  # start squares that are empty now
    _last_lift: int = 0  # the square of the last change, when it was a lift

    def record(self, square: int, closed: bool) -> None:
        """One switch change, in the order it happened."""
        self.count += 1
        b = bit(square)
        if closed:
            if self._last_lift == square:
                self.knocked |= b
            self._last_lift = 0
            self.placed |= b
            self.last_place[square] = self.count
            self._open &= ~b
            # Only while a single piece is in the hand is it sure which piece this is.
            origin = self.hand.pop() if len(self.hand) == 1 else None
            if len(self.hand) > 1:
                self.hand.pop(0)
                self.hand = [None] * len(self.hand)  # which one is still held is no longer known
            self.came_from[square] = origin
            return
        self._last_lift = square
        self.lifted |= b
        self.first_lift.setdefault(square, self.count)
        self.hand.append(self.came_from.pop(square) if square in self.came_from else self.origin(square))
        if self.start & b:
            for other in range(1, 31):
                if self._open & bit(other):
                    self.together.add((min(square, other), max(square, other)))
            self._open |= b

    def origin(self, square: int) -> int | None:
        """Where the piece now on `square` stood when the attempt began (None when not known)."""
        if square in self.came_from:
            return self.came_from[square]
        return square if self.start & bit(square) else None

    def empty_together(self, a: int, b: int) -> bool:
        """Whether squares `a` and `b` (both occupied at the start) were empty at the same moment."""
        return (min(a, b), max(a, b)) in self.together

    def put_down_after(self, square: int, lifted_from: int) -> bool:
        """Whether a piece was put on `square` after `lifted_from` first opened."""
        return self.last_place.get(square, -1) > self.first_lift.get(lifted_from, NEVER)
