"""Faulty switches: a square wrong for several settled boards without its switch changing has a
stuck switch (a weld under an empty square, a dead one under a piece), and is judged unknown
until it changes; moves through it are entered by hand."""

from __future__ import annotations

from collections.abc import Callable

from ..rules.board import bit, squares_in
from ..rules.text import N_, Text
from ..verdicts import Switch, Verdict
from .core import Part

#: Settled boards a square may stay wrong without its switch changing before the switch is
#: judged stuck (a welded switch under an empty square, a dead one under a piece).
STUCK_BOARDS = 3
#: Seconds a board may stay still with owed steps that only a never-changing square keeps open
#: before that square's switch is judged dead (a piece put on it is not seen).
STILL_TIME = 15.0

#: A switch's faults, as `Switch.fault` names them and a visitor reads them (translated).
FAULTS = (N_("stuck closed"), N_("stuck open"))


#: Judges the settled board again (a switch just judged faulty changes what it shows): `Judging.judge`.
Rejudge = Callable[[], list[Verdict]]


class Faults(Part):
    """The referee's judgement of its own switches (a part of judging a settled board).

    Reads the sensed board, the attempt's evidence and the switch history; may change only the
    switch faults (`switches`), and, when it marks a switch faulty, the warning on show and
    `judged`; it judges again through the `rejudge` it is handed, never by itself."""

    def faults_seen(self, target: int, rejudge: Rejudge) -> list[Verdict]:
        """A settled board that is wrong: count, per square, how long it has been wrong without its
        switch changing; a square wrong for STUCK_BOARDS settled boards has a stuck switch."""
        wrong = (self.state.sensed ^ target) & ~self.core.unknown
        wrong_for = self.state.switches.wrong_for
        for sq in list(wrong_for):
            if not wrong & bit(sq):
                del wrong_for[sq]
        out: list[Verdict] = []
        handled = self.state.attempt.lifted | self.state.attempt.placed
        for sq in squares_in(wrong):
            wrong_for[sq] = wrong_for.get(sq, 0) + 1
            if wrong_for[sq] < STUCK_BOARDS or self.state.switches.still_for(sq, self.state.now) < STILL_TIME - 1e-6:
                continue
            if self.state.sensed & bit(sq):
                out += self._mark_faulty(sq, "stuck closed", rejudge)
            elif not handled & bit(sq):  # a piece lifted from it may simply be in a hand
                out += self._mark_faulty(sq, "stuck open", rejudge)
        return out

    def dead_under_owed_steps(self, rejudge: Rejudge) -> list[Verdict]:
        """Owed steps, a still board, and only squares that never changed in this attempt keep them
        from being done: those switches do not see the pieces the game says are there."""
        wrong = (self.state.sensed ^ self.core.target()) & ~self.core.unknown
        changed = self.state.attempt.lifted | self.state.attempt.placed
        if not wrong or wrong & changed or wrong & self.state.sensed:
            return []  # a piece still in the hand, or a square that does change: not a dead switch
        out: list[Verdict] = []
        for sq in squares_in(wrong):
            out += self._mark_faulty(sq, "stuck open", rejudge)
        return out

    def _mark_faulty(self, square: int, fault: str, rejudge: Rejudge) -> list[Verdict]:
        self.state.switches.mark(square, fault)
        out: list[Verdict] = [Switch(square, fault, switch_text(square, fault))]
        if self.state.warning is not None and self.state.warning.swap is None:
            self.state.forget_warning()
        self.state.judged = False
        out += rejudge()
        return out


def switch_text(square: int, fault: str) -> Text:
    """What a faulty switch means for the people at the board."""
    return Text(
        "the switch under {square} seems {fault}: square {square} is judged as unknown "
        "until it changes; enter moves through it by hand",
        square=square,
        fault=Text(fault),
    )
