"""A Pi without a real-time clock boots with its clock years behind and jumps when
the network sets it. Game lengths come from the journal's monotonic time, dates written before the
jump move with it, and operators stay signed in across it."""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

import pytest

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.referee.hands import scripted_game
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from senet_pi.service.stats import day_stats
from senet_pi_web import create_app, shared
from tests.journal_helpers import SEVEN_YEARS, ScriptClock, Wall, feed, timed
from tests.web_helpers import FAST_HASH, PIN, Operator


@pytest.fixture
def ram_folder():
    """A folder in RAM when there is one: a whole game's synced writes, without waiting for a disk."""
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as folder:
        yield Path(folder)


@pytest.mark.parametrize("behind", [SEVEN_YEARS, -3 * 86400.0])  # years behind at boot; or days ahead
def test_a_game_begun_before_the_clock_is_set_counts_on_its_real_day_and_length(ram_folder, monkeypatch, behind):
    wall = Wall(behind)
    monkeypatch.setattr(time, "time", wall)
    path = ram_folder / "j.sqlite"
    clock = ScriptClock()
    service = Service(Journal(path), clock=clock)
    inputs = timed(scripted_game("secret", 1)["events"])
    half = len(inputs) // 2
    feed(service, clock, inputs[:half])
    wall.behind = 0.0  # the network sets the clock, mid-game
    service.tick()
    feed(service, clock, inputs[half:])
    assert service.referee.game.winner_id is not None
    game = service.journal.games()[0]
    now = wall.real()
    assert abs(game.started - now) < 600
    assert game.ended is not None
    assert abs(game.ended - now) < 600
    service.close()
    (row,) = day_stats(path)
    assert row.date == time.strftime("%Y-%m-%d", time.localtime(game.started))  # the day it really began
    played = inputs[-1][0] / 1000
    assert row.finished == 1
    assert 0 < row.median_duration_s <= played + 1  # the game's clock, not 7 years


def test_a_small_correction_of_the_clock_changes_no_date(tmp_path, monkeypatch):
    wall = Wall(0.0)
    monkeypatch.setattr(time, "time", wall)
    service = Service(Journal(tmp_path / "j.sqlite"), clock=ScriptClock())
    started = service.journal.games()[0].started
    wall.behind = 20.0  # NTP slewing a few seconds: not the clock being set
    service.tick()
    assert service.journal.games()[0].started == started
    service.close()


@pytest.mark.parametrize("jump", [SEVEN_YEARS, -SEVEN_YEARS, -86400.0])
def test_a_signed_in_operator_stays_signed_in_across_a_wall_clock_jump(monkeypatch, jump):
    service = Service(None)
    backend = SimBackend(load_pinmap(), rng=random.Random(4), spin=0)
    backend.start(service, scan=False)
    try:
        app = create_app(
            {"TESTING": True, "SECRET_KEY": "t", "OPERATOR_PIN_HASH": FAST_HASH}, service=service, backend=backend
        )
        op = Operator(app.test_client())
        assert op.login(PIN).status_code == 200
        wall = Wall(-jump)
        monkeypatch.setattr(time, "time", wall)
        assert op.client.get("/api/state").json["operator"]["signed_in"] is True
        assert op.post("undo").status_code in (200, 422)  # the action is carried out (or refused by the referee)
    finally:
        backend.close()


def test_a_sign_in_still_ends_on_the_monotonic_clock(monkeypatch):
    service = Service(None)
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "OPERATOR_PIN_HASH": FAST_HASH}, service=service)
    guard = shared(app).pin_guard
    now = [1000.0]
    guard.clock = lambda: now[0]
    op = Operator(app.test_client())
    assert op.login(PIN).status_code == 200
    now[0] += 11 * 3600
    assert op.client.get("/api/state").json["operator"]["signed_in"] is True
    now[0] += 2 * 3600
    assert op.client.get("/api/state").json["operator"]["signed_in"] is False
