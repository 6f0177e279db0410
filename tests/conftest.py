"""Shared helpers: positions written inline, as python-chess tests write FENs."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from senet_pi.rules import Game, new_game

# No timing in tests (deadline=None). Every run (CI or a newcomer's) replays the same examples, so a
# green suite stays green; SENET_PI_EXPLORE=1 explores new random examples each run, to look for bugs.
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("dev"), derandomize=True, print_blob=True)
settings.load_profile("dev" if os.environ.get("SENET_PI_EXPLORE") else "ci")


def at(ruleset: str, A: list[int], B: list[int], to_move: str = "A", throw: object = None, **off: int) -> Game:
    """A game of `ruleset` from a position: squares of A's and B's pieces, the rest borne off."""
    counts = {"A": off.get("A", 5 - len(A)), "B": off.get("B", 5 - len(B))}
    position = {"A": A, "B": B, "to_move": to_move, "off": counts}
    game = new_game(ruleset, position=position)
    if throw is not None:
        game.push_throw(throw)
    return game


def moves(game: Game) -> set[str]:
    """The legal moves as text, e.g. {"10-13", "26-off"}."""
    return {str(m) for m in game.legal_moves()}


@pytest.fixture
def secret() -> Game:
    return new_game("secret")


@pytest.fixture
def houses() -> Game:
    return new_game("houses")


@pytest.fixture
def mock_factory():
    """gpiozero's MockFactory as the default pin factory, restored afterwards (as gpiozero's own tests do)."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    saved = Device.pin_factory
    Device.pin_factory = MockFactory()
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def pinmap():
    from senet_pi.hardware.pinmap import load_pinmap

    return load_pinmap()
