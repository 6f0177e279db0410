"""A stand-in for MicroPython's `machine` module: pins wired like the 6 x 5 diode matrix.

`BOARD` holds the magnets and the button; a column pin reads high when a row pin driven high
meets a closed switch on it, exactly as on the real board. `micropython_time()` adds the
MicroPython `ticks_*` and `sleep_ms` functions the firmware uses to `time`: only the firmware's
own process (sim/process.py) calls it; importing this module changes nothing.
"""

from __future__ import annotations

import threading
import time


class SimBoard:
    """Magnets on squares, the button, and what the firmware drove on its output pins."""

    def __init__(self) -> None:
        import codec  # the firmware's own modules: its square numbering and pin numbers
        import config

        self.config = config
        self.square_at = codec.square_at
        self.magnets = 0
        self.button_down = False
        self.button_reads = 0  # how often the firmware read the button since it last changed
        self.outputs: dict[int, int] = {}
        self.strip: list[tuple[int, int, int]] = []  # the LED strip as the firmware last wrote it (sim/neopixel.py)
        self.strip_written = 0.0  # when, on time.monotonic()
        self.lock = threading.Lock()

    def place(self, square: int) -> None:
        with self.lock:
            self.magnets |= 1 << square

    def lift(self, square: int) -> None:
        with self.lock:
            self.magnets &= ~(1 << square)

    def set_occupied(self, mask: int) -> None:
        with self.lock:
            self.magnets = mask

    def read(self, number: int) -> int:
        cfg = self.config
        if number == cfg.BUTTON:
            self.button_reads += 1
            return 0 if self.button_down else 1
        if number in cfg.COLUMNS:
            c = cfg.COLUMNS.index(number)
            for r, row in enumerate(cfg.ROWS):
                if self.outputs.get(row) and self.magnets & (1 << self.square_at(r, c)):
                    return 1
            return 0
        return self.outputs.get(number, 0)

    @property
    def leds(self) -> list[int]:
        return [self.outputs.get(n, 0) for n in self.config.LEDS]


BOARD: SimBoard | None = None


class Pin:
    OUT = "out"
    IN = "in"
    PULL_UP = "up"
    PULL_DOWN = "down"

    def __init__(self, number: int, mode: str = IN, pull: str | None = None, value: int | None = None) -> None:
        self.number = number
        self.mode = mode
        if value is not None:
            self.value(value)

    def value(self, v: int | None = None) -> int | None:
        assert BOARD is not None, "set machine.BOARD before starting the firmware"
        if v is None:
            return BOARD.read(self.number)
        BOARD.outputs[self.number] = 1 if v else 0
        return None


def unique_id() -> bytes:
    return b"\xe6\x61\x41\x04\x03\x52\x2a\x22"


def micropython_time() -> None:
    """Give `time` MicroPython's `ticks_ms`, `ticks_diff` and `sleep_ms`, for the firmware's own process."""
    start = time.monotonic()
    time.__dict__.update(  # functions CPython's time module does not have, so set by name
        ticks_ms=lambda: int((time.monotonic() - start) * 1000) & 0x3FFFFFFF,
        ticks_diff=lambda a, b: ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000,
        sleep_ms=lambda ms: time.sleep(ms / 1000),
    )
