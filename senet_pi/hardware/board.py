"""The sensing board: 30 reed switches in a 6 x 5 diode matrix, read through gpiozero devices.

Each row line is driven high in turn; a column reads high through the reed switch (closed by
the magnet in a piece) and its diode, so a square's switch is read at its row and column.
The diodes keep other closed switches from showing up where they should not (ghosting).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gpiozero import DigitalOutputDevice, InputDevice

from firmware_bridge.codec import square_at

from ..rules.board import squares_in
from ..rules.text import Text
from .debounce import Debouncer, SwitchFault
from .device import Device, EventHandler

if TYPE_CHECKING:
    from gpiozero.pins import Factory

#: Scans per second. Fast enough that a change counts within 25 ms (read, then confirmed: debounce),
#: slow enough that scanning costs little of a Pi's core (see benchmarks/bench_scanner.py).
SCAN_RATE = 50.0
#: Scans a second once the board may rest: a board at rest costs little (each scan wakes the Pi). It
#: rests after REST_AFTER s with no switch change while the game waits for a press of the button (a
#: throw; `expect_hand(False)`, the service's call), so only an idle board's first touch is seen up
#: to 0.2 s late; while a hand is expected (a move, a fix, an answer) only after HAND_REST_AFTER s.
REST_RATE = 5.0
REST_AFTER = 60.0
#: The backstop for a board left mid-move: ten minutes is past any player's thinking over one move
#: (QUESTION_SECONDS is at most that too), and full-rate scanning costs about 2 % of a core against
#: 0.2 % resting (docs/benchmarks.md), so an abandoned board pays that for ten minutes, not all night.
HAND_REST_AFTER = 600.0
#: Seconds from a scan that reads a change to the scan that confirms it (debounce.py): well past a
#: reed switch's bounce (about a millisecond), and no period's wait before the lights follow a hand.
CONFIRM_AFTER = 0.005


class ReedSwitchBoard(Device):
    """The 30 squares' switches, scanned in a background thread.

    `when_placed(square)` and `when_lifted(square)` are called with every clean change;
    `when_fault(SwitchFault)` when a switch chatters or a line is stuck.
    """

    when_placed = EventHandler()
    when_lifted = EventHandler()
    when_fault = EventHandler()

    def __init__(
        self,
        rows: Sequence[int],
        columns: Sequence[int],
        *,
        scan_rate: float = SCAN_RATE,
        samples: int = 2,
        pin_factory: Factory | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._rows: list[DigitalOutputDevice] = []
        # Columns are read by each scan, never watched: a DigitalInputDevice watches its pin for edges from
        # the start, and on a Pi's pins (lgpio) that keeps lgpio's alert thread polling every 0.5 ms, all day.
        self._columns: list[InputDevice] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._woken = threading.Event()  # set by `wake` and `close`: the scanning thread stops waiting
        try:
            for pin in rows:
                self._rows.append(DigitalOutputDevice(pin, pin_factory=pin_factory))
            for pin in columns:
                self._columns.append(InputDevice(pin, pull_up=False, pin_factory=pin_factory))
        except Exception:
            self.close()
            raise
        self.scan_rate = scan_rate
        self._clock = clock
        self._squares = [[square_at(r, c) for c in range(len(columns))] for r in range(len(rows))]
        self.when_placed = None
        self.when_lifted = None
        self.when_fault = None
        self._samples = samples
        self._debouncer = Debouncer(self.read(), samples=samples)
        self._stuck_columns = 0
        self._scans = 0
        self._last_raw = -1
        self._changed_at = clock()  # the last scan that read something new (the scanner rests after REST_AFTER s)
        self._hand_expected = False  # the game waits for a hand on the board, not the button (`expect_hand`)

    # ------------------------------------------------------------------ reading

    def read(self) -> int:
        """One raw scan of the matrix: the squares whose switch is closed, as a mask."""
        self._check_open()
        occupied = 0
        for row, squares in zip(self._rows, self._squares, strict=True):
            row.on()
            for column, square in zip(self._columns, squares, strict=True):
                if column.value:
                    occupied |= 1 << square
            row.off()
        return occupied

    def idle_columns(self) -> int:
        """Columns that read high with every row off: a shorted or stuck line (bit c = column c)."""
        self._check_open()
        return sum(1 << c for c, column in enumerate(self._columns) if column.value)

    def take_reading(self) -> None:
        """Take the board as it reads now as its clean state, without reporting changes (after a
        position is set up, before scanning starts)."""
        self._debouncer = Debouncer(self.read(), samples=self._samples)

    @property
    def occupied(self) -> int:
        """The clean (debounced) occupancy, as told to the referee."""
        self._check_open()
        return self._debouncer.reported

    @property
    def scans(self) -> int:
        """How many scans so far: the systemd watchdog is fed only while this moves on."""
        return self._scans

    @property
    def chattering(self) -> list[int]:
        """Squares whose switch is being ignored for chattering."""
        return squares_in(self._debouncer.chattering)

    def scan_once(self, now: float | None = None) -> None:
        """Scan, debounce and call the `when_*` handlers: what the background thread does each tick."""
        now = self._clock() if now is None else now
        raw = self.read()
        if raw != self._last_raw:
            self._last_raw, self._changed_at = raw, now
        changes, faults = self._debouncer.update(raw, now)
        self._scans += 1
        if self._scans % max(1, int(self.scan_rate)) == 1:  # once a second: are the lines sound?
            faults += self._check_lines()
        for fault in faults:
            if self.when_fault:
                self.when_fault(fault)
        for square, closed in changes:
            handler = self.when_placed if closed else self.when_lifted
            if handler:
                handler(square)

    def _check_lines(self) -> list[SwitchFault]:
        stuck = self.idle_columns()
        faults = []
        for c in range(len(self._columns)):
            if (stuck ^ self._stuck_columns) & (1 << c):
                squares = ", ".join(str(row[c]) for row in self._squares)
                if stuck & (1 << c):
                    text = Text(
                        "column line {line} reads a piece with no row driven (squares {squares}): check its wiring",
                        line=c + 1,
                        squares=squares,
                    )
                else:
                    text = Text("column line {line} is sound again", line=c + 1)
                faults.append(SwitchFault(self._squares[0][c], "stuck line", text, cleared=not stuck & (1 << c)))
        self._stuck_columns = stuck
        return faults

    # ------------------------------------------------------------------ the scanning thread

    def start(self) -> None:
        """Scan `scan_rate` times a second in a background thread until `close()`."""
        self._check_open()
        if self._thread is not None:
            return
        self._stop.clear()
        self._woken.clear()
        self._thread = threading.Thread(target=self._run, name="senet-pi scanner", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        next_scan = time.monotonic()
        last_error = ""
        while not self._stop.is_set():
            try:
                self.scan_once()
            except Exception as exc:  # a handler's error must not stop the scanning: say it (once), go on
                said = f"senet-pi: internal error in a scan (scanning goes on): {type(exc).__name__}: {exc}"
                if said != last_error:
                    print(said, file=sys.stderr, flush=True)
                last_error = said
            next_scan = self.next_scan(next_scan, time.monotonic())
            delay = next_scan - time.monotonic()
            if delay < 0:  # fell behind (a busy Pi): skip, do not race to catch up
                next_scan = time.monotonic()
                delay = 0
            if self._woken.wait(delay):  # `wake` or `close`: scan now
                self._woken.clear()
                next_scan = time.monotonic()

    def wake(self) -> None:
        """Scan at full speed again from now (a throw was made, or the game waits for a hand: a hand
        is about to lift a piece)."""
        self._changed_at = self._clock()
        self._woken.set()

    def expect_hand(self, expected: bool) -> None:
        """Whether the game waits for a hand on the board (a move, a fix, an answer) rather than a
        press of the button: the service says so after every batch of verdicts. While it does, the
        scanner stays at full rate however long the board is still (up to HAND_REST_AFTER s); the
        moment it starts to, the scanner wakes."""
        was, self._hand_expected = self._hand_expected, expected
        if expected and not was:
            self.wake()

    def next_scan(self, last: float, now: float) -> float:
        """When the scan after the one due at `last` is due (`now`: the monotonic clock after it): a
        change read and not yet counted is confirmed CONFIRM_AFTER from now; else a period after
        `last`, or at REST_RATE once nothing has changed for REST_AFTER s (HAND_REST_AFTER s while a
        hand is expected)."""
        if self._debouncer.pending:  # a switch flickering back to how it stood is not pending: no faster scans
            return now + CONFIRM_AFTER
        resting = self._clock() - self._changed_at >= (HAND_REST_AFTER if self._hand_expected else REST_AFTER)
        return last + (1.0 / REST_RATE if resting and self.scan_rate > REST_RATE else 1.0 / self.scan_rate)

    def close(self) -> None:
        """Stop scanning and release the pins; safe to call twice."""
        self._stop.set()
        self._woken.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._thread = None
        for device in [*self._rows, *self._columns]:
            device.close()
        self._rows, self._columns = [], []

    @property
    def closed(self) -> bool:
        return not self._rows

    def __repr__(self) -> str:
        if self.closed:
            return "<ReedSwitchBoard closed>"
        return f"<ReedSwitchBoard 30 squares, {bin(self.occupied).count('1')} occupied>"
