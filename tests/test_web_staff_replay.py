"""A captured staff request (its session cookie, CSRF token and body) is refused after a restart, and
a wall-clock jump either way neither ends a sign-in early nor keeps one past its hours: sign-ins live
in the server's memory and end on the monotonic clock."""

from __future__ import annotations

import time

import pytest
from web_helpers import FAST_HASH, Operator

from senet_pi.service.core import Service
from senet_pi_web import create_app
from senet_pi_web import pin as pin_module

CONFIG = {"SECRET_KEY": "the-same-key-across-restarts", "OPERATOR_PIN_HASH": FAST_HASH, "PIN_DELAY": 0.01}


def _captured(app):
    """A signed-in staff client and what an eavesdropper copies of its next request."""
    client = app.test_client()
    staff = Operator(client)
    assert staff.login().status_code == 200
    cookie = client.get_cookie("session")
    return staff, {"cookie": cookie.value, "csrf": staff.csrf}


def _replay(app, captured):
    client = app.test_client()
    client.set_cookie("session", captured["cookie"])
    return client.post("/api/op/new_game", json={}, headers={"X-CSRF-Token": captured["csrf"]})


def test_a_captured_staff_request_is_refused_after_a_restart():
    service = Service(None)
    first = create_app(dict(CONFIG), service=service)
    _, captured = _captured(first)
    assert _replay(first, captured).status_code == 200  # the same run: the sign-in holds
    again = create_app(dict(CONFIG), service=service)  # the restart: the same secret key, a new process
    refused = _replay(again, captured)
    assert refused.status_code == 401
    assert "sign in" in refused.get_json()["error"]


@pytest.mark.parametrize("jump", [30 * 86400.0, -30 * 86400.0])
def test_a_wall_clock_jump_changes_no_sign_in(monkeypatch, jump):
    tick = [1000.0]
    wall = [time.time()]
    monkeypatch.setattr(time, "time", lambda: wall[0])
    app = create_app(dict(CONFIG), service=Service(None))
    app.extensions["senet"].pin_guard.clock = lambda: tick[0]
    staff, captured = _captured(app)
    wall[0] += jump
    assert staff.post("new_game").status_code == 200
    tick[0] += pin_module.SIGN_IN_HOURS * 3600 + 1
    wall[0] -= jump  # the clock set back: the sign-in has still ended
    assert _replay(app, captured).status_code == 401
