"""Choosing a backend by name: the one module that knows every kind of board.

It sits above `backend` (the seam and the gpiozero boards) and `serial_link` (the USB bridge),
so neither of those has to import the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Unpack

from .backend import Backend, BackendOptions, GpioBackend, SimBackend, on_a_pi
from .pinmap import load_pinmap
from .serial_link import SerialBackend


def make_backend(
    name: str | None, pinmap_path: str | Path | None = None, port: str | None = None, **kwargs: Unpack[BackendOptions]
) -> Backend:
    """`gpio`, `sim` or `serial` by name; None chooses `gpio` on a Pi and `sim` anywhere else."""
    name = name or ("gpio" if on_a_pi() else "sim")
    if name == "serial":
        return SerialBackend(port, **kwargs)
    pinmap = load_pinmap(pinmap_path)
    if name == "sim":
        return SimBackend(pinmap, **kwargs)
    if name == "gpio":
        return GpioBackend(pinmap, **kwargs)
    raise ValueError(f"unknown backend {name!r}: use gpio, sim or serial")
