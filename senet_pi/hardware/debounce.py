"""Clean switch changes from raw scans: debouncing, and chattering switches kept out of the game.

Pure logic, no pins and no clock of its own: times come in with each scan, so tests drive it
scan by scan. A reed switch bounces for about a millisecond when a magnet arrives or leaves;
a switch must read the same in two scans running before the change counts. The scanner scans 50
times a second, and a scan that reads a change (`pending`) is followed by the confirming scan
CONFIRM_AFTER later, not a whole period later: a change counts 5-25 ms after it happens, far
below the referee's 0.4 s settle time, and within the lights' 50 ms.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ..rules.board import bit, squares_in
from ..rules.text import Text


@dataclass(frozen=True)
class SwitchFault:
    """A switch or line the scanner does not trust; `cleared` when it behaves again."""

    square: int
    kind: str  # "chattering", "stuck line", "stuck closed", "stuck open"
    text: str
    cleared: bool = False


class Debouncer:
    """Turns raw occupancy scans into clean changes; reports and mutes chattering switches."""

    def __init__(
        self,
        initial: int,
        samples: int = 2,
        chatter_flips: int = 6,
        chatter_window: float = 2.0,
        quiet_after: float = 2.0,
    ) -> None:
        self.samples = samples
        self.chatter_flips = chatter_flips
        self.chatter_window = chatter_window
        self.quiet_after = quiet_after
        self.stable = initial  # debounced state of every switch
        self.reported = initial  # what the referee has been told
        self._last_raw = initial
        self._streak = [0] * 32
        self._flips: list[deque[float]] = [deque() for _ in range(32)]
        self.chattering = 0

    @property
    def pending(self) -> int:
        """The switches the last scan read changed that are not counted yet (a chattering one left
        out): what a confirming scan is for."""
        return (self._last_raw ^ self.stable) & ~self.chattering

    def update(self, raw: int, now: float) -> tuple[list[tuple[int, bool]], list[SwitchFault]]:
        """One scan: the clean changes to report (square, closed) and any fault found or cleared."""
        changes: list[tuple[int, bool]] = []
        faults: list[SwitchFault] = []
        moved = raw ^ self._last_raw
        self._last_raw = raw
        for sq in squares_in(moved):
            self._streak[sq] = 0
        for sq in squares_in(raw ^ self.stable):
            self._streak[sq] += 1
            if self._streak[sq] < self.samples:
                continue
            self.stable ^= bit(sq)
            self._streak[sq] = 0
            flips = self._flips[sq]
            flips.append(now)
            while flips and now - flips[0] > self.chatter_window:
                flips.popleft()
            if not self.chattering & bit(sq) and len(flips) > self.chatter_flips:
                self.chattering |= bit(sq)
                faults.append(
                    SwitchFault(
                        sq,
                        "chattering",
                        Text("switch {square} is chattering; its changes are ignored until it calms", square=sq),
                    )
                )
        for sq in squares_in(self.chattering):
            flips = self._flips[sq]
            if flips and now - flips[-1] >= self.quiet_after:
                self.chattering &= ~bit(sq)
                flips.clear()
                faults.append(
                    SwitchFault(sq, "chattering", Text("switch {square} is steady again", square=sq), cleared=True)
                )
        for sq in squares_in((self.stable ^ self.reported) & ~self.chattering):
            closed = bool(self.stable & bit(sq))
            self.reported ^= bit(sq)
            changes.append((sq, closed))
        return changes, faults
