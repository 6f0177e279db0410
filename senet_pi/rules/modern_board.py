"""`modern`'s board as data: {square: (player, dots)}, how one step changes it (M4-M8), and every
complete way to play the dice (M3, M10). Pure functions, read by `ModernGame`'s readable validator,
so the game's own state is never changed to try a move.
"""

from __future__ import annotations

from ..errors import IllegalMoveError
from .board import OFF
from .core import PLAYER_IDS
from .reasons import Reason

SUN = 1
MOON = 26
BIRD = 27
SAFE_TILES = (28, 29, 30)

#: The board as {square: (player, dots)}.
Pieces = dict[int, tuple[int, int]]
#: A way to play the dice: one or two (square, value) steps.
Way = tuple[tuple[int, int], ...]


def dice_of(throw: object) -> tuple[int, ...]:
    """A throw here is dice: a tuple of one or two ints, as `parse_throw` and `random_throw` make it."""
    if not isinstance(throw, tuple):
        raise TypeError(f"a throw here is dice, not {throw!r}")
    return throw


def ways(pieces: Pieces, p: int, dice: tuple[int, ...], locked: int, one_more_up_ends: bool) -> list[Way]:
    """Every complete way to play the dice left, as (square, value) steps (M3): one piece by the
    sum, two different pieces by one die each, or a first die whose piece going up ends the game
    (M10, when `one_more_up_ends`). With no complete way, each single die that moves a piece (M3/M9
    reading). A piece with `locked` dots does not move."""
    mine = [sq for sq, (owner, dots) in pieces.items() if owner == p and dots != locked]
    if len(dice) == 1:
        return [((sq, dice[0]),) for sq in mine if can_move(pieces, p, sq, dice[0])]
    a, b = dice
    found: list[Way] = [((sq, a + b),) for sq in mine if can_move(pieces, p, sq, a + b)]
    for first, second in {(a, b), (b, a)}:
        for sq in mine:
            found += _ways_from(pieces, p, sq, first, second, one_more_up_ends)
    if not found:
        found = [((sq, d),) for d in {a, b} for sq in mine if can_move(pieces, p, sq, d)]
    return found


def _ways_from(pieces: Pieces, p: int, sq: int, first: int, second: int, one_more_up_ends: bool) -> list[Way]:
    """The complete ways that begin with the piece on `sq` moving by `first`."""
    try:
        after, went_up = moved(pieces, p, sq, first)
    except IllegalMoveError:
        return []
    if went_up and one_more_up_ends:
        return [((sq, first),)]
    moved_dots = pieces[sq][1]
    return [
        ((sq, first), (other, second))
        for other, (owner, dots) in after.items()
        if owner == p and dots != moved_dots and can_move(after, p, other, second)
    ]


def landing_square(from_sq: int, value: int) -> int:
    """M5: where a count ends: off (31) exactly, or bounced back by the overshoot."""
    to = from_sq + value
    return to if to <= OFF else OFF - (to - OFF)


def can_move(pieces: Pieces, p: int, from_sq: int, value: int) -> bool:
    """Whether the piece on `from_sq` may move by `value` (M4-M8)."""
    try:
        moved(pieces, p, from_sq, value)
    except IllegalMoveError:
        return False
    return True


def moved(pieces: Pieces, p: int, from_sq: int, value: int) -> tuple[Pieces, bool]:
    """The board after the piece on `from_sq` moves by `value` (M4-M8), and whether it went up;
    IllegalMoveError if it may not land there."""
    to = landing_square(from_sq, value)
    piece = pieces[from_sq]
    there = pieces.get(to) if to != from_sq else None
    if there is not None and there[0] == p:
        raise IllegalMoveError(Reason.OWN_PIECE, target=to, player=PLAYER_IDS[p])  # M4
    if there is not None and to in SAFE_TILES and from_sq not in SAFE_TILES:
        raise IllegalMoveError(Reason.SAFE_TILE, target=to)  # M8
    after = dict(pieces)
    del after[from_sq]
    if to == OFF:
        return after, True
    if there is not None:  # M4: the landed-on piece goes to the sun
        _to_sun(after, there)
    if to == MOON:  # M6
        _to_sun(after, piece)
    elif to == BIRD:  # M7: to 15, or the first empty square behind it; the sun if none is
        sq = 15
        while sq in after:
            sq -= 1
        if sq >= SUN:
            after[sq] = piece
        else:
            _to_sun(after, piece)
    else:
        after[to] = piece
    return after, False


def _to_sun(pieces: Pieces, piece: tuple[int, int]) -> None:
    """M4: to square 1; a piece already there leaves the game."""
    pieces[SUN] = piece
