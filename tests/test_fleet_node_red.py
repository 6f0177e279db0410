"""The example Node-RED flow (examples/node-red/fleet-flow.json) loaded into a real Node-RED from npm
against a real Mosquitto: its dashboard lists the boards, its alert fires when a table needs
staff, and its new-game button starts a new game on a board.

Opt-in (Node-RED is not a dependency): SENET_PI_NODE_RED names the `node-red` program, e.g.
after `npm install node-red@4` in some folder, SENET_PI_NODE_RED=that/node_modules/.bin/node-red.
It takes about 10-20 s (Node-RED starts in 5-10 s on this machine)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from mqtt_helpers import Ear, free_port, stop_group, wait_until

from senet_pi.fleet import FleetSettings, parse_broker_url
from senet_pi.fleet.on_run import start_board
from senet_pi.service.core import Service
from senet_pi.verdicts import Switch
from senet_pi_web import create_app

NODE_RED = os.environ.get("SENET_PI_NODE_RED")
FLOW = Path(__file__).resolve().parent.parent / "examples" / "node-red" / "fleet-flow.json"
OPT_IN = pytest.mark.skipif(not NODE_RED, reason="opt-in: set SENET_PI_NODE_RED to a node-red program")


def test_the_flow_file_is_node_red_json_with_the_three_parts():
    nodes = json.loads(FLOW.read_text())
    kinds = {n["type"] for n in nodes}
    assert {"tab", "mqtt-broker", "mqtt in", "mqtt out", "http in", "function"} <= kinds
    out = next(n for n in nodes if n["type"] == "mqtt out")
    assert out["retain"] in ("false", False)  # a board refuses a retained press


@pytest.fixture
def node_red(mosquitto, tmp_path):
    port = free_port()
    env = {**os.environ, "SENET_MQTT_HOST": "127.0.0.1", "SENET_MQTT_PORT": str(mosquitto.port)}
    user_dir = tmp_path / "node-red"
    user_dir.mkdir()
    flows = user_dir / "flows.json"
    flows.write_text(FLOW.read_text())
    log = (tmp_path / "node-red.log").open("wb")
    proc = subprocess.Popen(
        [str(NODE_RED), "--port", str(port), "--userDir", str(user_dir), str(flows)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"

    def get(path: str) -> bytes | None:
        try:
            with urllib.request.urlopen(base + path, timeout=2) as answer:
                return answer.read()
        except OSError:
            return None

    try:
        wait_until(lambda: get("/senet/boards.json") is not None, 60, 0.25)
        yield base, get
    finally:
        stop_group(proc, log, 10)


@OPT_IN
def test_node_red_shows_the_boards_alerts_staff_and_presses_new_game(mosquitto, node_red):
    base, get = node_red
    started = time.monotonic()
    service = Service(None)
    app = create_app({"TESTING": True}, service=service)
    settings = FleetSettings(parse_broker_url(mosquitto.url), "hall-1", buttons=("new_game",))
    publisher = start_board(service, None, settings, app)
    ear = Ear(mosquitto.port, "museum/alerts", "senet-pi/+/command/result")
    try:
        service.press(random.Random(4))

        def board() -> dict | None:
            seen = json.loads(get("/senet/boards.json") or b"{}").get("boards", {}).get("hall-1")
            return seen if seen and seen.get("online") and seen.get("last") else None

        seen = wait_until(board, 15)
        assert seen["game"] == "playing"
        assert seen["to_move"] == "Green"  # type: ignore[index]
        page = (get("/senet/boards") or b"").decode()
        assert "hall-1" in page
        assert "New game" in page

        publisher._listen([Switch(7, "stuck closed", "the switch on square 7 is stuck closed")])  # as the service would
        alert = ear.last("museum/alerts", 10).payload.decode()
        assert alert.startswith("Table hall-1 needs staff")
        assert "needs staff" in (get("/senet/boards") or b"").decode()

        kinds: list[str] = []
        service.subscribe(lambda verdicts: kinds.extend(v.v for v in verdicts))
        request = urllib.request.Request(base + "/senet/boards/hall-1/new_game", method="POST", data=b"")
        with urllib.request.urlopen(request, timeout=5) as answer:
            assert answer.status == 202
        wait_until(lambda: "new_game" in kinds, 10)
        result = ear.last("senet-pi/hall-1/command/result").json()
        assert result == {"ok": True, "action": "new_game", "via": "button"}
        print(f"node-red test: {time.monotonic() - started:.1f} s after Node-RED was up")
    finally:
        ear.close()
        publisher.close()
