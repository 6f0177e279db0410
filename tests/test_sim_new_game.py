"""The simulated board sets its pieces up itself when the service says a new game began, whoever
asked for it (the page, the terminal, the fleet, a test calling the service)."""

from __future__ import annotations

import time

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.service.core import Service


def _settled(backend: SimBackend, wanted: int, seconds: float = 5.0) -> bool:
    assert backend.board is not None
    end = time.monotonic() + seconds
    while backend.board.occupied != wanted and time.monotonic() < end:
        time.sleep(0.01)
    return backend.board.occupied == wanted


def test_a_new_game_from_the_service_puts_the_simulated_pieces_at_the_start():
    service = Service(None)
    backend = SimBackend(load_pinmap())
    backend.start(service)
    try:
        start = service.expected
        backend.sim.set_occupied(0)  # every piece taken off the simulated board
        assert _settled(backend, 0)
        service.new_game("modern", 2)
        assert backend.sim.magnets == service.expected != 0
        assert _settled(backend, service.expected)
        service.new_game("secret", 2)
        assert backend.sim.magnets == start
    finally:
        backend.close()
        service.close()


def test_a_closed_simulated_board_no_longer_follows_the_service():
    service = Service(None)
    backend = SimBackend(load_pinmap())
    backend.start(service, scan=False)
    backend.close()
    backend.sim.magnets = 0
    service.new_game("secret", 2)
    assert backend.sim.magnets == 0
    service.close()
