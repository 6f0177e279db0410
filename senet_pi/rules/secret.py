"""`secret`: the "Secret Rules" print-and-play set (seeds 000 and 002), rulings S1-S12."""

from __future__ import annotations

from ..errors import IllegalMoveError
from .board import OFF, ROW1, RUN3_STARTS_IN_ROW, bit, highest
from .core import Game, Special
from .reasons import Reason
from .text import Text
from .throws import RerolledDie, Sticks

#: S6, S8-S10: the largest throw that still moves a piece on these squares.
_LIMITS = {26: (4, "S6"), 28: (3, "S8"), 29: (2, "S9"), 30: (1, "S10")}


class SecretGame(Game):
    """Exact landing on 26, reincarnation on 27, backward moves, blockades that stay in a row."""

    name = "secret"
    aliases = ("secret-rules", "print-and-play")
    how_to_play = (
        Text("Four sticks count their dark sides (none = 6); 1, 4 and 6 throw again."),
        Text("{player} opens with the piece on 10.", player="B"),  # the page names B by its pieces
        Text("In row 1 only your most advanced piece may move."),
        Text(
            "Land on an unprotected enemy to swap places; two in a row protect each other, three in a row "
            "(in one row) block."
        ),
        Text(
            "Every piece must stop on 26 exactly; 27 sends you back to 15; 28 and 29 are safe and throw "
            "again; 30 leaves only with a 1."
        ),
        Text("Bear off exactly, and never while you still have a piece in row 1."),
        Text("No forward move? Then you must move backward."),
    )
    special_squares = {
        15: Special("ankh", Text("Ankh (safe)")),
        26: Special("bird", Text("Soul Bird: land exactly (safe)")),
        27: Special("water", Text("Rivers of Life: back to 15")),
        28: Special("three", Text("Three Truths (safe, throw again from 26)")),
        29: Special("eye", Text("Eye of Ra (safe, throw again)")),
        30: Special("one", Text("Exit: leave with a 1")),
    }
    throw_kinds = {"sticks": Sticks("dark", 6), "d6": RerolledDie(6, reroll=5)}  # S1
    bonus_throws = frozenset({1, 4, 6})  # S1
    bonus_landings = {29: "S9", 30: "S10"}
    safe_squares = {15: "S5", 26: "S6", 28: "S8", 29: "S9"}  # 30 is not safe (S10)
    blockade_starts = RUN3_STARTS_IN_ROW  # S4: blockades do not turn corners
    blockade_ruling = "S4"
    opening_ruling = "S2"
    backward_moves = True  # S12
    water_square = 27
    water_kind = "reincarnated"
    water_ruling = "S7"
    top_row_gate = True  # S3, S11: the generator applies them as data, `_check_source` and `_check_bear_off` name them
    solved_endgames = True

    @classmethod
    def destination(cls, from_sq: int, throw: int) -> int:
        """S6: no move passes 26; S8-S10: the last squares leave only with small throws; S11 exact."""
        dest = from_sq + throw
        if from_sq < 26 < dest:
            raise IllegalMoveError(Reason.MUST_STOP_ON_26, square=from_sq, throw=throw)
        if dest > OFF:
            if from_sq in _LIMITS:
                limit, ruling = _LIMITS[from_sq]
                raise IllegalMoveError(Reason.ONLY_SMALL_THROWS, square=from_sq, limit=limit, ruling=ruling)
            raise IllegalMoveError(Reason.EXACT_BEAR_OFF, square=from_sq, throw=throw)
        return dest

    @classmethod
    def _extra_bonus(cls, from_sq: int, to_sq: int) -> bool:
        """S8: moving from 26 onto 28 grants a bonus throw."""
        return from_sq == 26 and to_sq == 28

    def _check_source(self, p: int, from_sq: int, t: int) -> None:
        super()._check_source(p, from_sq, t)
        row1 = self.occ[p] & ROW1
        if row1 & bit(from_sq) and from_sq != highest(row1):
            raise IllegalMoveError(Reason.TOP_ROW, player=self.player_ids[p], square=highest(row1))

    def _check_bear_off(self, p: int, from_sq: int) -> None:
        if self.occ[p] & ROW1:
            raise IllegalMoveError(Reason.ROW1_GATE, player=self.player_ids[p])
