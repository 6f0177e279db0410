"""The lights on the page: `/api/state` and the live stream carry them, and the page's board glows
the same squares the wooden board's strip would (the simulated board shows what the wood shows)."""

from __future__ import annotations

import json

from senet_pi.events import Lift


def test_api_state_carries_the_lights_and_how_each_kind_looks(client, sim_service):
    service, _ = sim_service
    service.handle("throw", 2)
    service.handle(Lift(10))
    state = client.get("/api/state").json
    assert state["lights"] == {"12": "move"}
    assert state["light_looks"]["move"] == {"colour": "#0072B2", "pattern": "steady"}
    assert state["light_looks"]["fix_from"]["pattern"] == "blink"


def test_the_live_stream_carries_the_lights_when_a_lift_changes_them(app, sim_service):
    service, _ = sim_service
    service.handle("throw", 2)
    response = app.test_client().get("/api/events", buffered=False)
    chunks = response.response
    next(chunks)  # retry
    assert json.loads(next(chunks).decode().split("data: ", 1)[1])["lights"] == {}
    service.handle(Lift(10))
    said = b"".join(next(chunks) for _ in range(2)).decode()
    states = [json.loads(part.split("data: ", 1)[1]) for part in said.split("\n\n") if part.startswith("event: state")]
    assert states[-1]["lights"] == {"12": "move"}
    response.close()
