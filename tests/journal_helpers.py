"""Feeding scripted games to a `Service` on a clock that only moves when the script says so."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from senet_pi.events import timed_inputs
from senet_pi.referee import Referee
from senet_pi.referee.hands import scripted_game
from senet_pi.service import Service
from senet_pi.service.journal import Journal


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


def play(service: Service, clock: ScriptClock, inputs: list[tuple[int, str, object]]) -> None:
    """Give the current game `inputs`, its times counted from when it began."""
    start = clock.t
    for ms, kind, value in inputs:
        clock.t = start + ms / 1000
        if kind == "tick":
            service.tick()
        else:
            service.handle(kind, value)


class Boom(Exception):
    """An exception no code of ours raises on purpose: the resume must hold for any kind."""


def restart_failing_at(path, monkeypatch, fail_at: int, error: type[BaseException] = RuntimeError) -> Service:
    """A restart whose referee fails on the `fail_at`-th input it judges again (counting from 1)."""
    real = Referee.take
    calls = {"n": 0}

    def failing(self, entry, at):
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise error("the referee fails here")
        return real(self, entry, at)

    monkeypatch.setattr(Referee, "take", failing)
    service = Service(Journal(path))
    monkeypatch.setattr(Referee, "take", real)
    return service


INPUTS = timed(scripted_game("secret", 2)["events"])


def straight_history() -> list[dict]:
    clock = ScriptClock()
    service = Service(None, clock=clock)
    feed(service, clock, INPUTS)
    return json.loads(json.dumps([v.json() for v in service.history]))


SEVEN_YEARS = 7 * 365 * 86400.0


class Wall:
    """time.time() as a Pi without a real-time clock has it: behind by `behind` seconds until set."""

    def __init__(self, behind: float) -> None:
        self.behind = behind
        self.real = time.time

    def __call__(self) -> float:
        return self.real() - self.behind
