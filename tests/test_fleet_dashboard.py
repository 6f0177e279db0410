"""The staff dashboard (`senet-pi fleet`) against a real Mosquitto: three boards (three
services) come and go and the dashboard follows them live; it is behind the operator PIN with a
CSRF token on every action; staff actions reach only a board that allows them."""

from __future__ import annotations

import json
import random

import pytest
from mqtt_helpers import wait_until
from werkzeug.security import generate_password_hash

from senet_pi.cli.command import main
from senet_pi.fleet import FleetSettings, parse_broker_url
from senet_pi.fleet.on_run import start_board
from senet_pi.fleet.watcher import FleetWatcher
from senet_pi.service.core import Service
from senet_pi_web import create_app
from senet_pi_web.fleet import create_fleet_app

PIN = "2468"
SECRET = "the-museum-fleet-secret-0123"
FAST_HASH = generate_password_hash(PIN, method="pbkdf2:sha256:1000")  # a quick hash: the test is about the flow


@pytest.fixture
def fleet(mosquitto):
    """Boards on the broker and a dashboard watching them; everything stopped after the test."""
    started: list = []

    class Fleet:
        def board(self, name: str, **settings):
            service = Service(None)
            app = create_app({"TESTING": True}, service=service)
            publisher = start_board(
                service, None, FleetSettings(parse_broker_url(mosquitto.url), name, **settings), app
            )
            started.append(publisher)
            return service, publisher

        def dashboard(self, secret: str | None = SECRET, pin_hash: str | None = FAST_HASH):
            watcher = FleetWatcher(parse_broker_url(mosquitto.url), secret=secret)
            watcher.start()
            started.append(watcher)
            app = create_fleet_app({"TESTING": True, "OPERATOR_PIN_HASH": pin_hash, "PIN_DELAY": 0}, watcher=watcher)
            return watcher, app

    yield Fleet()
    for thing in reversed(started):
        thing.close()


def _signed_in(app):
    client = app.test_client()
    csrf = client.get("/api/op/csrf").get_json()["csrf"]
    answer = client.post("/api/op/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf})
    assert answer.status_code == 200, answer.get_json()
    return client, csrf


def _online(watcher, name):
    view = watcher.view(name)
    return view is not None and view["online"] and view["variant"] is not None  # its status and its state heard


def _events(response):
    """The server-sent events of a streamed answer, one (name, data) at a time."""
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
            if "event" in fields:
                yield fields["event"], json.loads(fields["data"])


def test_the_dashboard_sees_three_boards_come_and_go_live(fleet):
    watcher, app = fleet.dashboard()
    boards = {name: fleet.board(name) for name in ("hall-1", "hall-2", "hall-3")}
    wait_until(lambda: all(_online(watcher, n) for n in boards))
    client, _ = _signed_in(app)
    listed = client.get("/fleet/api/boards").get_json()
    assert [b["name"] for b in listed["boards"]] == ["hall-1", "hall-2", "hall-3"]
    assert listed["link"]["connected"] is True
    assert all(b["variant"] == "secret" and b["to_move"] for b in listed["boards"])

    stream = client.get("/fleet/api/events", buffered=False)
    events = _events(stream)
    name, data = next(events)
    assert name == "boards"
    assert len(data["boards"]) == 3

    boards["hall-2"][1].close()  # a board stops: offline, and an alert line for it
    name, data = next((n, d) for n, d in events if n == "board" and d["name"] == "hall-2" and d["online"] is False)
    assert data["alert"].startswith("board hall-2 went down at")
    assert watcher.view("hall-1")["alert"] is None

    service, _ = boards["hall-1"]
    press = service.press(random.Random(4))  # a board plays: its turn and last verdict, live
    name, data = next(
        (n, d) for n, d in events if n == "board" and d["name"] == "hall-1" and d["last_verdict"] is not None
    )
    assert data["last_verdict"]["v"] == press.verdicts[-1].json()["v"]

    newcomer, _ = fleet.dashboard()  # a dashboard started later: from the retained messages
    wait_until(lambda: _online(newcomer, "hall-1") and (newcomer.view("hall-2") or {}).get("online") is False)
    assert newcomer.view("hall-2")["alert"].startswith("board hall-2 is down (since before")
    assert newcomer.view("hall-1")["since_known"] is True  # the board's own state says since when

    fleet.board("hall-2")  # it comes back: online, the alert gone
    name, data = next((n, d) for n, d in events if n == "board" and d["name"] == "hall-2" and d["online"])
    assert data["alert"] is None
    stream.close()


def test_the_dashboard_is_behind_the_pin_and_every_action_needs_the_csrf_token(fleet):
    watcher, app = fleet.dashboard()
    fleet.board("hall-9", commands=True, command_secret=SECRET)
    wait_until(lambda: _online(watcher, "hall-9") and watcher.view("hall-9")["commands"])
    client = app.test_client()
    page = client.get("/")
    assert page.status_code == 200
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert b"<script>" not in page.data
    assert b"style=" not in page.data  # nothing inline: the strict CSP holds
    assert client.get("/fleet/api/boards").status_code == 401
    assert client.get("/fleet/api/events").status_code == 401
    csrf = client.get("/api/op/csrf").get_json()["csrf"]
    assert client.post("/api/op/login", json={"pin": PIN}).status_code == 403  # no CSRF token
    assert client.post("/api/op/login", json={"pin": "0000"}, headers={"X-CSRF-Token": csrf}).status_code == 401
    assert client.post("/api/op/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).status_code == 200
    assert client.get("/fleet/api/boards").status_code == 200
    assert client.post("/fleet/api/boards/hall-9/resync").status_code == 403  # signed in, but no CSRF token
    assert client.get("/fleet/api/boards", headers={"Host": "evil.example"}).status_code == 400  # DNS rebinding

    other = app.test_client()  # another browser with the token but no sign-in
    token = other.get("/api/op/csrf").get_json()["csrf"]
    assert other.post("/fleet/api/boards/hall-9/resync", headers={"X-CSRF-Token": token}).status_code == 401


def test_a_dashboard_with_no_pin_shows_nothing_of_the_boards(fleet):
    _, app = fleet.dashboard(pin_hash=None)
    client = app.test_client()
    assert b"no operator PIN is set" in client.get("/").data
    assert client.get("/fleet/api/boards").status_code == 403


def test_staff_start_a_new_game_only_on_a_board_that_allows_commands(fleet):
    watcher, app = fleet.dashboard()
    open_service, _ = fleet.board("club-a", commands=True, command_secret=SECRET)
    closed_service, _ = fleet.board("club-b")
    wait_until(lambda: _online(watcher, "club-b") and _online(watcher, "club-a") and watcher.view("club-a")["commands"])
    client, csrf = _signed_in(app)
    answer = client.post(
        "/fleet/api/boards/club-a/new_game", json={"variant": "houses"}, headers={"X-CSRF-Token": csrf}
    )
    assert answer.status_code == 202
    wait_until(lambda: open_service.variant == "houses")
    wait_until(lambda: (watcher.view("club-a")["last_command"] or {}).get("ok"))
    refused = client.post("/fleet/api/boards/club-b/new_game", json={}, headers={"X-CSRF-Token": csrf})
    assert refused.status_code == 409
    assert "does not take remote commands" in refused.get_json()["error"]
    assert closed_service.variant == "secret"


def test_a_board_with_another_secret_refuses_the_dashboards_command(fleet):
    watcher, app = fleet.dashboard(secret="not-the-boards-secret-at-all")
    service, _ = fleet.board("club-c", commands=True, command_secret=SECRET)
    wait_until(lambda: _online(watcher, "club-c") and watcher.view("club-c")["commands"])
    client, csrf = _signed_in(app)
    assert client.post("/fleet/api/boards/club-c/resync", headers={"X-CSRF-Token": csrf}).status_code == 202
    result = wait_until(lambda: watcher.view("club-c")["last_command"])
    assert result["ok"] is False
    assert "signature" in result["error"]  # type: ignore[index]
    assert service.variant == "secret"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--mqtt", "ftp://x"], "must start with mqtt:// or mqtts://"),
        ([], "needs a broker"),
    ],
)
def test_senet_pi_fleet_with_a_bad_broker_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys, args, said):
    monkeypatch.setenv("SENET_PI_INSTANCE", str(tmp_path))
    assert main(["fleet", "--port", "0", *args]) == 1
    err = capsys.readouterr().err
    assert said in err
    assert err.count("\n") == 1
