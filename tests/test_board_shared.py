"""A board's shared objects: one typed value the page, the fleet and the command line read, and the
state made from it with no request (the fleet publishes exactly what the page answers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from senet_pi.fleet.published import Board, state_json
from senet_pi.service.core import Service
from senet_pi_web import create_app, shared
from senet_pi_web.shared import Senet


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_published_state_is_the_pages_answer_to_a_visitor_byte_for_byte(language):
    service = Service(None)
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "LANGUAGE": language, "EXHIBIT": True}, service=service)
    board = shared(app).board
    answered = app.test_client().get("/api/state").get_data()
    assert state_json(board) == answered
    assert json.loads(answered)["operator"] == {"enabled": False, "signed_in": False, "needed_for_sim": False}
    assert "demo" in json.loads(answered)  # the exhibit's setting reaches the board's state


def test_a_board_with_no_page_publishes_the_same_object_a_page_would():
    service = Service(None)
    alone = Board(service, pin_set=True)
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "OPERATOR_PIN_HASH": "x"}, service=service)
    assert json.loads(state_json(alone)) == json.loads(state_json(shared(app).board))


def test_the_app_shares_one_typed_value_made_by_create_app():
    service = Service(None)
    board = Board(service)
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, board=board)
    value = app.extensions["senet"]
    assert isinstance(value, Senet)
    assert shared(app) is value
    assert value.board is board
    assert value.broker is not None
    assert board.words is not None  # the fleet's summary says verdicts in the page's language


def test_a_fleet_dashboard_is_not_a_boards_page():
    from senet_pi_web.shared import Dashboard, dashboard

    service = Service(None)
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=service)
    with pytest.raises(TypeError, match="a board's page"):
        dashboard(app)
    assert not isinstance(shared(app), Dashboard)


def test_the_command_line_and_the_server_read_settings_without_the_page():
    """`senet-pi run` with no page loads neither the web package nor Flask (they cost memory)."""
    code = (
        "import sys\n"
        "import senet_pi.cli.command, senet_pi.server.serve, senet_pi.settings, senet_pi.fleet.on_run\n"
        "senet_pi.settings.load_instance_config()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('senet_pi_web', 'flask')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "SENET_PI_INSTANCE": "/nonexistent"},
    )
    assert out.stdout.strip() == "[]", out.stdout


def test_the_fleet_dashboard_is_served_by_the_page_server_and_stops():
    """The server serves either app: the dashboard's live streams go through Flask, not a board's broker."""
    import http.client

    from senet_pi.fleet import parse_broker_url
    from senet_pi.fleet.watcher import FleetWatcher
    from senet_pi.server.serve import start_server, stop_server
    from senet_pi_web.fleet import create_fleet_app

    watcher = FleetWatcher(parse_broker_url("mqtt://127.0.0.1:1"))  # never started: no broker needed
    server = start_server(create_fleet_app({"SECRET_KEY": "t", "TESTING": True}, watcher=watcher))
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10)
        conn.request("GET", "/fleet/api/events")
        answer = conn.getresponse()
        assert answer.status == 403  # no PIN set: the dashboard is for staff (but it was served)
        conn.close()
    finally:
        stop_server(server)
    assert not server.thread.is_alive()
