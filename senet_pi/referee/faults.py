"""Faulty switches: a square wrong for several settled boards without its switch changing has a
stuck switch (a weld under an empty square, a dead one under a piece), and is judged unknown
until it changes; moves through it are entered by hand."""

from __future__ import annotations

from ..rules.board import bit, squares_in
from ..rules.text import N_, Text
from .outcome import MarkFaulty
from .part import Part

#: Settled boards a square may stay wrong without its switch changing before the switch is
#: judged stuck (a welded switch under an empty square, a dead one under a piece).
STUCK_BOARDS = 3
#: Seconds a board may stay still with owed steps that only a never-changing square keeps open
#: before that square's switch is judged dead (a piece put on it is not seen).
STILL_TIME = 15.0

#: A switch's faults, as `Switch.fault` names them and a visitor reads them (translated).
FAULTS = (N_("stuck closed"), N_("stuck open"))


class Faults(Part):
    """The referee's judgement of its own switches (a part of judging a settled board).

    Contract: read-only. Reads the sensed board, the attempt's evidence and the switch history
    (the core counts each settled wrong board against its switches, `SwitchFaults.count_wrong`),
    and says which switch is stuck (`stuck`) or dead (`MarkFaulty`); the core marks them."""

    def stuck(self, square: int, handled: int) -> str | None:
        """The fault of the switch under `square`, wrong on a settled board (and counted so), when it is
        stuck: wrong for STUCK_BOARDS settled boards and still for STILL_TIME, closed under no piece, or
        open where no hand took a piece (`handled`: the squares the hands lifted from or put on); else None."""
        switches = self.state.switches
        if (
            switches.wrong_for.get(square, 0) < STUCK_BOARDS
            or switches.still_for(square, self.state.now) < STILL_TIME - 1e-6
        ):
            return None
        if self.state.sensed & bit(square):
            return "stuck closed"
        if not handled & bit(square):  # a piece lifted from it may simply be in a hand
            return "stuck open"
        return None

    def dead_under_owed_steps(self) -> MarkFaulty | None:
        """Owed steps, a still board, and only squares that never changed in this attempt keep them
        from being done: those switches do not see the pieces the game says are there."""
        wrong = (self.state.sensed ^ self.core.target()) & ~self.core.unknown
        changed = self.state.attempt.lifted | self.state.attempt.placed
        if not wrong or wrong & changed or wrong & self.state.sensed:
            return None  # a piece still in the hand, or a square that does change: not a dead switch
        return MarkFaulty(tuple((sq, "stuck open") for sq in squares_in(wrong)))


def switch_text(square: int, fault: str) -> Text:
    """What a faulty switch means for the people at the board."""
    return Text(
        "the switch under {square} seems {fault}: square {square} is judged as unknown "
        "until it changes; enter moves through it by hand",
        square=square,
        fault=Text(fault),
    )
