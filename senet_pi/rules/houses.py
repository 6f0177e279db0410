"""`houses`: the House rules (seed 003), rulings H1-H9."""

from __future__ import annotations

from ..errors import IllegalMoveError
from .board import OFF, RUN3_STARTS_ANYWHERE, between, bit
from .core import Game, Special
from .reasons import Reason
from .text import Text
from .throws import Sticks

_HAPPINESS = 26
#: H7: a piece on 28, 29 or 30 moves only with exactly this throw, which bears it off.
_EXACT_FROM = {28: 3, 29: 2, 30: 1}


class HousesGame(Game):
    """Stop on 26 whatever the throw, drown on 27, the last three houses need an exact throw."""

    name = "houses"
    aliases = ("house", "house-rules")
    how_to_play = (
        Text("Four sticks count their white sides (none = 5); 1, 4 and 5 throw again."),
        Text("{player} opens with the piece on 10.", player="B"),  # the page names B by its pieces
        Text(
            "Land on an unprotected enemy to swap places; two in a row protect each other, three in a row "
            "block (even round a corner)."
        ),
        Text("15 is safe and throws again."),
        Text("Every piece stops on 26, and while 26 is taken nobody may land on or pass it."),
        Text("27 drowns you back to 15."),
        Text("28, 29 and 30 are safe, throw again, and leave only with exactly 3, 2 and 1."),
        Text("No move? The throw is lost."),
    )
    special_squares = {
        15: Special("ankh", Text("House of Rebirth (safe, throw again)")),
        26: Special("nefer", Text("House of Happiness: stop here (safe)")),
        27: Special("water", Text("House of Water: drown, back to 15")),
        28: Special("three", Text("Three Truths: leave with 3")),
        29: Special("two", Text("Ra-Atum: leave with 2")),
        30: Special("one", Text("Ra-Horakhty: leave with 1")),
    }
    throw_kinds = {"sticks": Sticks("white", 5)}  # H1
    bonus_throws = frozenset({1, 4, 5})  # H1
    bonus_landings = {15: "H4", 28: "H7", 29: "H7", 30: "H7"}
    safe_squares = {15: "H4", 26: "H5", 28: "H7", 29: "H7", 30: "H7"}
    blockade_starts = RUN3_STARTS_ANYWHERE  # H3: corners allowed
    blockade_ruling = "H3"
    opening_ruling = "H2"
    water_square = 27
    water_kind = "drowned"
    water_ruling = "H6"
    stop_square = _HAPPINESS  # H5 (as data; _check_path applies it)
    solved_endgames = True

    @classmethod
    def destination(cls, from_sq: int, throw: int) -> int:
        """H5: a move that would pass 26 ends on it; H7: 28-30 leave only with an exact throw."""
        needed = _EXACT_FROM.get(from_sq)
        if needed is not None:
            if throw != needed:
                raise IllegalMoveError(Reason.ONLY_EXACT_THROW, square=from_sq, needed=needed)
            return OFF
        if from_sq < _HAPPINESS < from_sq + throw:
            return _HAPPINESS
        return super().destination(from_sq, throw)

    def _check_path(self, p: int, from_sq: int, to_sq: int) -> None:
        """H5: while 26 is occupied no piece may land on it or pass it, its owner's included."""
        if self.occupied() & bit(_HAPPINESS) and (
            to_sq == _HAPPINESS or between(from_sq, min(to_sq, OFF)) & bit(_HAPPINESS)
        ):
            raise IllegalMoveError(Reason.HOUSE_26_OCCUPIED)
        super()._check_path(p, from_sq, to_sq)
