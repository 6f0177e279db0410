"""`Move`: one piece from one square to another, and the text form `10-13` / `26-off`."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidMoveError
from .board import FIRST, LAST, OFF


def parse_square(raw: object) -> int:
    """A board square 1-30, or "off" (31), from an int or its text; anything else is an error."""
    if isinstance(raw, str):
        text = raw.strip().lower()
        if text == "off":
            return OFF
        if not text.isdigit():
            raise InvalidMoveError(f'not a square: {raw!r} (use 1-30 or "off")')
        raw = int(text)
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise InvalidMoveError(f'not a square: {raw!r} (use 1-30 or "off")')
    if not FIRST <= raw <= LAST:
        raise InvalidMoveError(f"square {raw} is outside 1-30")
    return raw


@dataclass(frozen=True, slots=True)
class Move:
    """A piece moved from `from_sq` to `to_sq` (31 = borne off) using the throw or die `by`.

    `by` tells moves apart where the squares alone do not (two dice in `modern`);
    `0` means "not said yet", as in a move typed by hand before it is matched.
    """

    from_sq: int
    to_sq: int
    by: int = 0

    @property
    def backward(self) -> bool:
        """Whether the piece went back along the path (S12)."""
        return self.to_sq < self.from_sq

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read `"10-13"`, `"26-off"` or `"10 13"`."""
        parts = text.replace("-", " ").split()
        if len(parts) != 2:
            raise InvalidMoveError(f"not a move: {text!r} (write it as FROM-TO, e.g. 10-13)")
        from_sq = parse_square(parts[0])
        if from_sq == OFF:
            raise InvalidMoveError(f"not a move: {text!r} (a move cannot start off the board)")
        return cls(from_sq, parse_square(parts[1]))

    def __str__(self) -> str:
        return f"{self.from_sq}-{'off' if self.to_sq == OFF else self.to_sq}"

    def __repr__(self) -> str:
        by = f", by={self.by}" if self.by else ""
        return f"Move({self.from_sq}, {self.to_sq}{by})"


_CACHE: dict[tuple[int, int, int], Move] = {}


def cached_move(from_sq: int, to_sq: int, by: int) -> Move:
    """The shared `Move` for these fields; moves are immutable, so the generator reuses them."""
    key = (from_sq, to_sq, by)
    move = _CACHE.get(key)
    if move is None:
        move = _CACHE[key] = Move(from_sq, to_sq, by)
    return move
