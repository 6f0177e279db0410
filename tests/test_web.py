"""The page's routes through Flask's test client: every route, every bad request, the operator PIN."""

from __future__ import annotations

import random

import pytest
from werkzeug.security import generate_password_hash

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.service import Service
from web import create_app

PIN = "2468"


@pytest.fixture
def sim_service():
    service = Service(None, variant="secret")
    backend = SimBackend(load_pinmap(), rng=random.Random(4), spin=0)
    backend.start(service, scan=False)
    yield service, backend
    backend.close()


@pytest.fixture
def app(sim_service):
    service, backend = sim_service
    return create_app(
        {"TESTING": True, "OPERATOR_PIN_HASH": generate_password_hash(PIN), "PIN_DELAY": 0.01, "SECRET_KEY": "t"},
        service=service,
        backend=backend,
    )


@pytest.fixture
def client(app):
    return app.test_client()


class Operator:
    """Like flaskr's AuthActions: sign in and act with the session's CSRF token."""

    def __init__(self, client) -> None:
        self.client = client
        self.csrf = client.get("/api/op/csrf").json["csrf"]

    def login(self, pin: str = PIN):
        return self.client.post("/api/op/login", json={"pin": pin}, headers={"X-CSRF-Token": self.csrf})

    def post(self, action: str, body: dict | None = None, csrf: bool = True):
        headers = {"X-CSRF-Token": self.csrf} if csrf else {}
        return self.client.post(f"/api/op/{action}", json=body or {}, headers=headers)


@pytest.fixture
def operator(client):
    return Operator(client)


def test_the_pages_render(client):
    page = client.get("/")
    assert page.status_code == 200 and b'id="board"' in page.data and b'name="csrf-token"' in page.data
    assert b"cdn" not in page.data.lower() and b"https://" not in page.data
    assert client.get("/hardware").status_code == 200
    for asset in ("/static/app.js", "/static/style.css"):
        with client.get(asset) as response:
            assert response.status_code == 200


def test_state_has_what_the_api_promises(client):
    state = client.get("/api/state").json
    for key in ("variant", "players", "to_move", "last_throw", "squares", "off", "prompt", "warning", "winner"):
        assert key in state
    assert state["variant"] == "secret" and state["to_move"] == "B"
    assert state["squares"]["10"] == {"owner": "B", "dots": None}
    assert state["sim"] is True and state["operator"] == {"enabled": True, "signed_in": False}


def test_rules_lists_every_rule_set(client):
    assert set(client.get("/api/rules").json) == {"secret", "houses", "cards", "modern"}


def test_the_event_stream_starts_with_the_state(app, sim_service):
    service, _ = sim_service
    client = app.test_client()
    response = client.get("/api/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = response.response
    assert next(chunks) == b"retry: 1000\n\n"
    first = next(chunks).decode()
    assert first.startswith("event: state\ndata: {")
    service.handle("throw", 3)
    assert next(chunks).decode().startswith('event: verdicts\ndata: [{"v": "throw", "player": "B", "value": 3}')
    assert next(chunks).decode().startswith("event: state")
    response.close()


def test_sim_lift_place_and_press_move_the_mock_pins(client, sim_service):
    service, backend = sim_service
    assert client.post("/api/sim/press").status_code == 200
    assert service.referee.game.pending is not None
    response = client.post("/api/sim/lift", json={"square": 10})
    assert response.status_code == 200 and 10 not in response.json["pieces"]
    assert client.post("/api/sim/place", json={"square": 12}).json["pieces"][-1] == 12
    assert backend.sim.magnets >> 12 & 1


@pytest.mark.parametrize(
    ("path", "kwargs", "status", "message"),
    [
        ("/api/sim/lift", {"data": "{bad json", "content_type": "application/json"}, 400, "JSON object"),
        ("/api/sim/lift", {"data": "square=3"}, 400, "send JSON"),
        ("/api/sim/lift", {"json": {"square": 31}}, 400, "square must be a square from 1 to 30"),
        ("/api/sim/lift", {"json": {"square": "3"}}, 400, "square must be a square"),
        ("/api/sim/lift", {"json": {}}, 400, "square must be a square"),
        ("/api/sim/lift", {"json": {"square": 20}}, 409, "holds no piece"),
        ("/api/sim/place", {"json": {"square": 2}}, 409, "already holds a piece"),
        ("/api/sim/jump", {"json": {"square": 2}}, 404, "unknown action"),
    ],
)
def test_bad_sim_requests_are_clear_4xx_and_change_nothing(client, sim_service, path, kwargs, status, message):
    _, backend = sim_service
    before = backend.sim.magnets
    response = client.post(path, **kwargs)
    assert response.status_code == status and message in response.json["error"]
    assert backend.sim.magnets == before


def test_sim_endpoints_need_the_sim_backend():
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=Service(None), backend=None)
    response = app.test_client().post("/api/sim/press")
    assert response.status_code == 404 and "no simulated board" in response.json["error"]


def test_operator_actions_are_disabled_without_a_pin(sim_service):
    service, backend = sim_service
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "OPERATOR_PIN_HASH": None}, service=service, backend=backend)
    op = Operator(app.test_client())
    assert op.login("1234").status_code == 403
    response = op.post("undo")
    assert response.status_code == 403 and "disabled" in response.json["error"]


def test_actions_need_a_signed_in_operator_and_the_csrf_token(operator, sim_service):
    service, _ = sim_service
    before = service.referee.game.position()
    response = operator.post("throw", {"value": 3})
    assert response.status_code == 401 and "sign in" in response.json["error"]
    operator.login()
    response = operator.post("throw", {"value": 3}, csrf=False)
    assert response.status_code == 403 and "CSRF" in response.json["error"]
    assert service.referee.game.position() == before and service.referee.game.pending is None


def test_wrong_pins_are_slowed_down(operator):
    first = operator.login("0000")
    second = operator.login("1111")
    assert first.status_code == second.status_code == 401
    assert second.json["wait"] == pytest.approx(2 * first.json["wait"])
    assert operator.login().status_code == 200


def test_the_operator_enters_a_throw_and_a_move_and_undoes_it(operator, sim_service):
    service, _backend = sim_service
    operator.login()
    assert operator.post("throw", {"value": 3}).status_code == 200
    response = operator.post("move", {"from": 10, "to": 13})
    assert response.status_code == 200
    assert [v["v"] for v in response.json["verdicts"]][:2] == ["move", "turn"]
    assert response.json["state"]["prompt"]["text"] == "move B's piece from 10 to 13"
    undone = operator.post("undo")
    assert undone.status_code == 200, undone.json
    assert service.referee.game.pending == 3


def test_an_illegal_move_entered_is_refused_with_the_reason(operator, sim_service):
    service, _ = sim_service
    operator.login()
    operator.post("throw", {"value": 3})
    response = operator.post("move", {"from": 10, "to": 14})
    assert response.status_code == 422
    assert "takes the piece on 10 to 13, not 14" in response.json["verdicts"][0]["reason"]
    assert service.referee.game.pending == 3


@pytest.mark.parametrize(
    ("action", "body", "message"),
    [
        ("throw", {"value": 5}, "secret cannot throw 5"),
        ("throw", {}, "cannot throw None"),
        ("move", {"from": 0, "to": 3}, "from must be a square"),
        ("move", {"from": 10, "to": "home"}, 'to must be a square from 1 to 30 or "off"'),
        ("move", {"from": 10, "to": 13, "by": "x"}, "by must be"),
        ("new_game", {"variant": "chess"}, "variant must be one of"),
        ("new_game", {"variant": "modern", "players": 7}, "for 2 or 3 or 4 players"),
        ("new_game", {"variant": "secret", "options": {"throws": "d20"}}, "option throws='d20'"),
        ("answer", {"answer": 0}, "there is no question"),
    ],
)
def test_bad_operator_requests_are_clear_4xx_and_change_nothing(operator, sim_service, action, body, message):
    service, _ = sim_service
    operator.login()
    before = service.referee.game.position()
    response = operator.post(action, body)
    assert 400 <= response.status_code < 500 and message in response.json["error"]
    assert service.referee.game.position() == before


def test_the_operator_starts_a_new_game_and_the_sim_board_follows(operator, sim_service):
    service, backend = sim_service
    operator.login()
    response = operator.post("new_game", {"variant": "modern", "players": 3})
    assert response.status_code == 200 and response.json["state"]["variant"] == "modern"
    assert backend.sim.magnets == service.referee.game.occupied()


def test_the_operator_answers_a_question(operator, sim_service):
    service, _backend = sim_service
    operator.login()
    operator.post("new_game", {"variant": "secret"})
    service.handle("throw", 3)
    service.handle("lift", 10)
    service.handle("place", 13)
    service.referee.tick(service.referee.now + 1)
    service.handle("lift", 13)
    service.handle("place", 10)
    service.referee.tick(service.referee.now + 1)
    assert service.referee.question is not None and service.referee.question.kind == "undo"
    response = operator.post("answer", {"answer": "undo"})
    assert response.status_code == 200 and any(v["v"] == "undone" for v in response.json["verdicts"])


def test_set_pin_stores_only_a_hash(tmp_path):
    from senet_pi.page import PinError, set_pin

    path = set_pin("13579", tmp_path)
    text = path.read_text()
    assert "13579" not in text and text.startswith('OPERATOR_PIN_HASH = "')
    with pytest.raises(PinError):
        set_pin("abc", tmp_path)
    set_pin("", tmp_path)
    assert "OPERATOR_PIN_HASH" not in path.read_text()


def test_the_app_reads_its_pin_from_the_instance_config(tmp_path, monkeypatch):
    from senet_pi.page import set_pin

    monkeypatch.setenv("SENET_PI_INSTANCE", str(tmp_path))
    set_pin("8642")
    app = create_app(service=Service(None))
    assert app.config["OPERATOR_PIN_HASH"] and app.instance_path == str(tmp_path)
