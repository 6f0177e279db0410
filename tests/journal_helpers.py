"""Feeding scripted games to a `Service` on a clock that only moves when the script says so."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

from senet_pi.events import timed_inputs
from senet_pi.referee import Referee
from senet_pi.referee.hands import scripted_game
from senet_pi.service import Service
from senet_pi.service.journal import Journal
from senet_pi.verdicts import Progress, Thrown


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


# A journal of several b-tree levels, for damage by page (test_journal_pages, test_journal_aside).
PAGED_GAMES, PAGED_INPUTS = 24, 40  # enough rows for tables of several levels: interior pages above the leaves
PAGE = 4096


def build(path: Path) -> dict[int, list[tuple[int, str, object]]]:
    """A journal of PAGED_GAMES games of PAGED_INPUTS inputs each (with a verdict each), closed (no -wal): what a
    journal is after its last checkpoint. The inputs by game: (seq, kind, value)."""
    made: dict[int, list[tuple[int, str, object]]] = {}
    with Journal(path) as journal:
        for g in range(PAGED_GAMES):
            game = journal.start_game("secret", 2, {"game": g})
            for seq in range(PAGED_INPUTS):
                value: object = [seq % 30, (seq * 7 + g) % 30] if seq % 3 else (seq + g) % 5 + 1
                kind = "move" if seq % 3 else "throw"
                journal.record_event(game, seq, seq * 700, kind, value)
                journal.record_verdicts(game, seq, [Thrown("A", value)] if kind == "throw" else [Progress()])
                made.setdefault(game, []).append((seq, kind, value))
            journal.end_game(game, "A" if g % 2 else None)
    assert not Path(f"{path}-wal").exists()
    return made


def kept_inputs(path: Path) -> dict[int, list[tuple[int, str, object]]]:
    with Journal(path, readonly=True) as journal:
        return {g.id: [(e.seq, e.kind, e.value) for e in journal.events(g.id)] for g in journal.games()}


def lose_the_events_root(path: Path) -> None:
    """Zero the events table's root page, an interior page (a parent lost, its leaves kept)."""
    db = sqlite3.connect(path)
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchone()[0]
    db.close()
    data = bytearray(path.read_bytes())
    assert data[(root - 1) * PAGE] == 0x05
    data[(root - 1) * PAGE : root * PAGE] = bytes(PAGE)
    path.write_bytes(bytes(data))
