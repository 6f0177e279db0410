"""A stand-in for MicroPython's `neopixel` module: the strip's colours as the firmware last wrote
them, kept on the simulated board (`machine.BOARD.strip`) for the tests and the benchmarks."""

from __future__ import annotations

import time

import machine


class NeoPixel:
    """`n` LEDs on a pin; `write()` is when they change (as on the Pico, not before)."""

    def __init__(self, pin: object, n: int) -> None:
        self.n = n
        self.pixels: list[tuple[int, int, int]] = [(0, 0, 0)] * n

    def __setitem__(self, index: int, colour: tuple[int, int, int]) -> None:
        self.pixels[index] = (int(colour[0]), int(colour[1]), int(colour[2]))

    def write(self) -> None:
        board = machine.BOARD
        if board is not None:
            board.strip = list(self.pixels)
            board.strip_written = time.monotonic()
