"""Feeding scripted games to a `Service` on a clock that only moves when the script says so."""

from __future__ import annotations

import os
from pathlib import Path

from senet_pi.events import timed_inputs
from senet_pi.service.core import Service


class ScriptClock:
    """A clock for the service: seconds, set by the script."""

    def __init__(self, t: float = 0.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def timed(events: list[dict]) -> list[tuple[int, str, object]]:
    """(ms, kind, value) for each input of a replay script, 1 ms apart, waits turned into ticks."""
    return list(timed_inputs(events, spacing_ms=1))


def feed(service: Service, clock: ScriptClock, inputs: list[tuple[int, str, object]], after_ms: int = -1) -> None:
    """Give the service every input later than `after_ms`."""
    for ms, kind, value in inputs:
        if ms <= after_ms:
            continue
        clock.t = ms / 1000
        if kind == "tick":
            service.tick()
        else:
            service.handle(kind, value)


def fill_partition(ballast: Path) -> Path:
    """Fill every byte the partition has left with a ballast file; returns it."""
    fd = os.open(ballast, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    return ballast
