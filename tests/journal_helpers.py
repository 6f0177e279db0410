"""Feeding scripted games to a `Service` on a clock that only moves when the script says so."""

from __future__ import annotations

from senet_pi.service import Service


class ScriptClock:
    """A clock for the service: seconds, set by the script."""

    def __init__(self, t: float = 0.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def timed(events: list[dict]) -> list[tuple[int, str, object]]:
    """(ms, kind, value) for each input of a replay script, 1 ms apart, waits turned into ticks."""
    out, ms = [], 0
    for event in events:
        kind, value = next((k, v) for k, v in event.items() if k != "by")
        if kind == "wait":
            ms += value
            out.append((ms, "tick", True))
            continue
        ms += 1
        if kind == "move":
            value = [*value, event.get("by", 0)]
        out.append((ms, kind, value))
    return out


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
