"""No memory growth on the simulated board, idle or played, over minutes of
simulated time (the scanner and the ticks are driven directly; nothing sleeps)."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.board import SCAN_RATE
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.hardware.sim import PIN_HISTORY
from senet_pi.service.core import Service
from tests.journal_helpers import ScriptClock

TICK = 0.05


def drive(backend: SimBackend, service: Service, clock: ScriptClock, seconds: float, hands=None) -> None:
    """`seconds` of simulated time: a scan every 1/SCAN_RATE s, a service tick every TICK s."""
    assert backend.board is not None
    scans = round(seconds * SCAN_RATE)
    per_tick = round(TICK * SCAN_RATE)
    for n in range(scans):
        clock.t += 1 / SCAN_RATE
        if hands is not None:
            hands(n)
        backend.board.scan_once(clock.t)
        if n % per_tick == 0:
            service.tick()


def pins(backend: SimBackend) -> list:
    return list(backend.sim.factory.pins.values())


@pytest.mark.slow
def test_memory_idle_simulated_board_stays_flat_over_minutes(tmp_path):
    clock = ScriptClock()
    service = Service(None, clock=clock)
    backend = SimBackend(load_pinmap(), clock=clock)
    backend.start(service, scan=False)
    try:
        drive(backend, service, clock, 30)  # warm up: caches, first faults check
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        drive(backend, service, clock, 180)  # three simulated minutes: 9,000 scans
        gc.collect()
        growth = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(before, "filename"))
        tracemalloc.stop()
        # Unbounded pin histories kept ~12 entries a scan: megabytes here. Bounded, nothing grows.
        assert growth < 64 * 1024, f"grew {growth} bytes in 3 simulated minutes"
        assert all(len(pin.states) <= PIN_HISTORY for pin in pins(backend))
    finally:
        backend.close()


def test_memory_pin_history_stays_bounded_while_pieces_move(tmp_path):
    clock = ScriptClock()
    service = Service(None, clock=clock)
    backend = SimBackend(load_pinmap(), clock=clock)
    backend.start(service, scan=False)
    sim = backend.sim

    def hands(n: int) -> None:  # a restless visitor: lifts and puts back the piece on 10, twice a second
        if n % 25 == 0:
            (sim.lift if n % 50 == 0 else sim.place)(10)

    try:
        drive(backend, service, clock, 120, hands)
        assert all(len(pin.states) <= PIN_HISTORY for pin in pins(backend))
        assert {"progress", "cleared"} <= {v.json()["v"] for v in service.history}  # the board was read and judged
    finally:
        backend.close()
