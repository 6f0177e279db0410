"""Board geometry shared by every rule set (ruling P1): the S-shaped path of 30 squares.

Squares are numbered 1-30 in playing order; "off" (borne off) is square 31 internally.
Sets of squares are kept as bit masks (bit N = square N) so the move generator can test
a whole board with a few integer operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

FIRST = 1
LAST = 30
OFF = 31
SQUARES = range(FIRST, LAST + 1)
ROWS: tuple[range, range, range] = (range(1, 11), range(11, 21), range(21, 31))
CORNERS: tuple[tuple[int, int], ...] = ((10, 11), (20, 21))


def bit(square: int) -> int:
    """The mask holding just `square`."""
    return 1 << square


def mask(squares: Iterable[int]) -> int:
    """The mask holding every square in `squares`."""
    m = 0
    for sq in squares:
        m |= 1 << sq
    return m


def squares_in(m: int) -> list[int]:
    """The squares of mask `m`, in playing order."""
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def iter_squares(m: int) -> Iterator[int]:
    """The squares of mask `m`, in playing order, lazily."""
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


def highest(m: int) -> int:
    """The most advanced square of a non-empty mask."""
    return m.bit_length() - 1


def row_of(square: int) -> int:
    """Row 1, 2 or 3 of a board square (P1)."""
    if not FIRST <= square <= LAST:
        raise ValueError(f"square {square!r} is not on the board (1-30)")
    return (square - 1) // 10 + 1


def cell_of(square: int) -> tuple[int, int]:
    """(row, column) as the board is drawn, both from 0 at the top left; row 2 runs right to left."""
    row = row_of(square) - 1
    col = (square - 1) % 10
    return row, (9 - col if row == 1 else col)


def square_name(square: int) -> str | int:
    """How a square is printed: its number, or "off" for a piece borne off."""
    return "off" if square == OFF else square


ROW1 = mask(ROWS[0])
ALL_SQUARES = mask(SQUARES)
#: Squares where a run of three can start and stay inside one row (S4).
RUN3_STARTS_IN_ROW = mask(sq for row in ROWS for sq in row if sq + 2 in row)
#: Squares where a run of three can start anywhere on the path, corners included (H3).
RUN3_STARTS_ANYWHERE = mask(range(FIRST, LAST - 1))


def runs_of_two(occupied: int) -> int:
    """Squares that belong to a run of two or more consecutive pieces along the path (P5)."""
    return occupied & ((occupied << 1) | (occupied >> 1))


def runs_of_three(occupied: int, starts: int) -> int:
    """Squares that belong to a run of three or more whose start is allowed by `starts`."""
    r = occupied & (occupied >> 1) & (occupied >> 2) & starts
    return r | (r << 1) | (r << 2)


def free_square_from(occupied: int, square: int) -> int | None:
    """`square` if it is not in `occupied`, else the first square behind it that is not (S7, H6,
    M7); None if none down to square 1 is."""
    while square >= FIRST:
        if not occupied & (1 << square):
            return square
        square -= 1
    return None


def between(a: int, b: int) -> int:
    """The squares strictly between `a` and `b` along the path (either order)."""
    lo, hi = (a, b) if a < b else (b, a)
    return ((1 << hi) - 1) & ~((1 << (lo + 1)) - 1)
