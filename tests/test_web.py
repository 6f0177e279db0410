"""The page's routes through Flask's test client: every route, every bad request, the operator PIN."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from senet_pi.service import Service
from senet_pi_web import create_app, shared
from tests.web_helpers import FAST_HASH, PIN, Operator


def test_the_pages_render(client):
    page = client.get("/")
    assert page.status_code == 200
    assert b'id="board"' in page.data
    assert b'name="csrf-token"' in page.data
    assert b"cdn" not in page.data.lower()
    assert b"https://" not in page.data
    assert client.get("/hardware").status_code == 200
    for asset in ("/static/app.js", "/static/style.css"):
        with client.get(asset) as response:
            assert response.status_code == 200


def test_every_static_file_is_sent_with_its_type_without_the_systems_table(client, monkeypatch):
    """The page names its files' types itself: the system's table (0.4 MiB kept for good) is never read."""
    import mimetypes
    from pathlib import Path

    from senet_pi_web.app import STATIC_TYPES

    def no_table(*args, **kwargs):
        raise AssertionError("the system's table of file types was consulted")

    monkeypatch.setattr(mimetypes, "guess_type", no_table)
    monkeypatch.setattr(mimetypes, "init", no_table)
    folder = Path(client.application.static_folder)
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    assert files
    for path in files:
        with client.get(f"/static/{path.relative_to(folder).as_posix()}") as response:
            assert response.status_code == 200, path
            assert response.mimetype == STATIC_TYPES[path.suffix], path
    with client.get("/static/../__init__.py") as response:
        assert response.status_code == 404


def test_state_has_what_the_api_promises(client):
    state = client.get("/api/state").json
    for key in ("variant", "players", "to_move", "last_throw", "squares", "off", "prompt", "warning", "winner"):
        assert key in state
    assert state["variant"] == "secret"
    assert state["to_move"] == "B"
    assert state["squares"]["10"] == {"owner": "B", "dots": None}
    assert state["sim"] is True
    assert state["operator"] == {"enabled": True, "signed_in": False, "needed_for_sim": False}


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


def csrf(client) -> dict[str, str]:
    """The header a page of this service sends with its actions: the session's CSRF token."""
    return {"X-CSRF-Token": client.get("/api/op/csrf").json["csrf"]}


def test_sim_lift_place_and_press_move_the_mock_pins(client, sim_service):
    service, backend = sim_service
    client.environ_base["HTTP_X_CSRF_TOKEN"] = csrf(client)["X-CSRF-Token"]
    assert client.post("/api/sim/press").status_code == 200
    assert service.referee.game.pending is not None
    response = client.post("/api/sim/lift", json={"square": 10})
    assert response.status_code == 200
    assert 10 not in response.json["pieces"]
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
    response = client.post(path, headers=csrf(client), **kwargs)
    assert response.status_code == status
    assert message in response.json["error"]
    assert backend.sim.magnets == before


def test_sim_endpoints_need_the_sim_backend():
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=Service(None), backend=None)
    client = app.test_client()
    response = client.post("/api/sim/press", headers=csrf(client))
    assert response.status_code == 404
    assert "no simulated board" in response.json["error"]


def test_operator_actions_are_disabled_without_a_pin(sim_service):
    service, backend = sim_service
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "OPERATOR_PIN_HASH": None}, service=service, backend=backend)
    op = Operator(app.test_client())
    assert op.login("1234").status_code == 403
    response = op.post("undo")
    assert response.status_code == 403
    assert "disabled" in response.json["error"]


def test_actions_need_a_signed_in_operator_and_the_csrf_token(operator, sim_service):
    service, _ = sim_service
    before = service.referee.game.position()
    response = operator.post("throw", {"value": 3})
    assert response.status_code == 401
    assert "sign in" in response.json["error"]
    operator.login()
    response = operator.post("throw", {"value": 3}, csrf=False)
    assert response.status_code == 403
    assert "CSRF" in response.json["error"]
    assert service.referee.game.position() == before
    assert service.referee.game.pending is None


class Clock:
    """The PIN guard's clock, moved by hand: lockouts are tested without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(app):
    guard = shared(app).pin_guard
    guard.clock = Clock()
    guard.first_lockout = 2.0
    return guard.clock


def test_a_wrong_pin_locks_the_client_out_with_429_and_retry_after(operator, clock):
    first = operator.login("0000")
    assert first.status_code == 401
    assert first.headers["Retry-After"] == "2"
    assert "wrong PIN" in first.json["error"]
    locked = operator.login(PIN)  # even the right PIN is not checked while locked out
    assert locked.status_code == 429
    assert locked.headers["Retry-After"] == "2"
    assert "too many wrong PINs" in locked.json["error"]
    clock.now += 2
    second = operator.login("1111")
    assert second.status_code == 401
    assert second.headers["Retry-After"] == "4"  # the lockout doubles
    clock.now += 4
    assert operator.login().status_code == 200


def test_lockouts_are_capped_and_per_client(app, operator, clock):
    guard = shared(app).pin_guard
    for _ in range(19):  # under the limit across all addresses, past the per-client cap
        guard.wrong("127.0.0.1", clock.now)
    assert guard.locked_for("127.0.0.1", clock.now) == 300.0
    assert operator.login().status_code == 429
    other = Operator(app.test_client())
    response = other.client.post(
        "/api/op/login",
        json={"pin": PIN},
        headers={"X-CSRF-Token": other.csrf},
        environ_overrides={"REMOTE_ADDR": "10.0.0.9"},
    )
    assert response.status_code == 200


def test_only_one_pin_is_checked_at_a_time_the_rest_get_429_at_once(app, operator):
    guard = shared(app).pin_guard
    assert guard._checking.acquire(blocking=False)  # a check is under way (as in another thread)
    try:
        response = operator.login(PIN)
    finally:
        guard._checking.release()
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "1"
    assert "another PIN is being checked" in response.json["error"]
    assert operator.login().status_code == 200


def test_pin_checks_never_sleep_in_the_request_thread(app, operator, clock, monkeypatch):
    import time as time_module

    def no_sleep(seconds: float) -> None:
        raise AssertionError(f"a request slept {seconds} s")

    monkeypatch.setattr(time_module, "sleep", no_sleep)
    for pin in ("0000", "1111", "2222", PIN):
        assert operator.login(pin).status_code in (401, 429)


@pytest.mark.parametrize("pin", [["2468"], 2468, None, "٢٤٦٨", "9" * 200])
def test_a_pin_that_is_not_a_string_of_digits_is_a_400(operator, pin):
    response = operator.login(pin)
    assert response.status_code in (400, 401)
    assert "error" in response.json


def test_logout_revokes_a_copied_session_cookie(app, operator):
    operator.login()
    cookie = operator.client.get_cookie("session").value
    thief = app.test_client()
    thief.set_cookie("session", cookie)
    allowed = thief.post("/api/op/undo", json={}, headers={"X-CSRF-Token": operator.csrf})
    assert allowed.status_code == 422
    assert allowed.json["verdicts"]  # signed in: the referee answers (nothing to undo)
    operator.post("logout")
    response = thief.post("/api/op/undo", json={}, headers={"X-CSRF-Token": operator.csrf})
    assert response.status_code == 401
    assert "sign in" in response.json["error"]
    assert operator.post("undo").status_code == 401


def test_set_pin_while_running_revokes_sessions_and_takes_the_new_pin(tmp_path, sim_service):
    from senet_pi.server.serve import set_pin

    service, backend = sim_service
    path = set_pin(PIN, tmp_path)
    config = {"TESTING": True, "SECRET_KEY": "t", "PIN_FILE": path, "PIN_DELAY": 0.0}
    app = create_app(config, service=service, backend=backend)
    op = Operator(app.test_client())
    assert op.login().status_code == 200
    assert op.post("undo").status_code == 422  # signed in: nothing to undo
    set_pin("975312", tmp_path)
    response = op.post("undo")
    assert response.status_code == 401
    assert "sign in" in response.json["error"]
    assert op.login(PIN).status_code == 401
    assert op.login("975312").status_code == 200
    assert op.post("undo").status_code == 422
    set_pin("", tmp_path)
    assert op.post("undo").status_code == 403


def test_the_operator_enters_a_throw_and_a_move_and_undoes_it(operator, sim_service):
    service, _backend = sim_service
    operator.login()
    assert operator.post("throw", {"value": 3}).status_code == 200
    response = operator.post("move", {"from": 10, "to": 13})
    assert response.status_code == 200
    assert [v["v"] for v in response.json["verdicts"]][:2] == ["move", "turn"]
    # the page names the players by their pieces
    assert response.json["state"]["prompt"]["text"] == "move Green's piece from 10 to 13"
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


def refused_and_unchanged(operator, service, action: str, body: dict, message: str) -> None:
    """A bad operator request is a clear 4xx with `message`, and the game is as it was."""
    operator.login()
    before = service.referee.game.position()
    response = operator.post(action, body)
    assert 400 <= response.status_code < 500
    assert message in response.json["error"]
    assert service.referee.game.position() == before


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
    refused_and_unchanged(operator, sim_service[0], action, body, message)


def test_the_operator_starts_a_new_game_and_the_sim_board_follows(operator, sim_service):
    service, backend = sim_service
    operator.login()
    response = operator.post("new_game", {"variant": "modern", "players": 3})
    assert response.status_code == 200
    assert response.json["state"]["variant"] == "modern"
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
    assert service.referee.question is not None
    assert service.referee.question.kind == "undo"
    response = operator.post("answer", {"answer": "undo"})
    assert response.status_code == 200
    assert any(v["v"] == "undone" for v in response.json["verdicts"])


def test_set_pin_stores_only_a_hash(tmp_path):
    from senet_pi.server.serve import PinError, set_pin

    path = set_pin("135791", tmp_path)
    text = path.read_text()
    assert "135791" not in text
    assert text.startswith('OPERATOR_PIN_HASH = "')
    with pytest.raises(PinError):
        set_pin("abc", tmp_path)
    set_pin("", tmp_path)
    assert "OPERATOR_PIN_HASH" not in path.read_text()


def test_the_app_reads_its_pin_from_the_instance_config(tmp_path, monkeypatch):
    from senet_pi.server.serve import set_pin

    monkeypatch.setenv("SENET_PI_INSTANCE", str(tmp_path))
    set_pin("864209")
    app = create_app(service=Service(None))
    assert app.config["OPERATOR_PIN_HASH"]
    assert app.instance_path == str(tmp_path)


# ---------------------------------------------------------------- the API speaks JSON


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status"),
    [
        ("get", "/api/nowhere", {}, 404),
        ("get", "/api", {}, 404),
        ("delete", "/api/state", {}, 405),
        ("get", "/api/op/login", {}, 405),
        ("post", "/api/sim/lift", {"data": b"x" * 70_000, "content_type": "application/json"}, 413),
        ("post", "/api/sim/lift", {"data": "[" * 100_000 + "]" * 100_000, "content_type": "application/json"}, 413),
        ("post", "/api/sim/lift", {"data": "[" * 30_000 + "]" * 30_000, "content_type": "application/json"}, 400),
        ("post", "/api/sim/lift", {"data": b"\xff\xfe{", "content_type": "application/json"}, 400),
        ("get", "/api/hand/A/\u00e9\u00e9", {}, 404),
    ],
)
def test_every_api_error_is_json_with_a_message(client, method, path, kwargs, status):
    response = getattr(client, method)(path, headers=csrf(client), **kwargs)
    assert response.status_code == status
    assert response.mimetype == "application/json"
    assert response.json["error"]


def test_a_page_not_found_is_an_html_page_not_json(client):
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert response.mimetype == "text/html"


def test_an_internal_error_under_api_is_json_without_a_traceback(app, client):
    shared(app).board.service = None  # a bug: state() cannot work
    response = client.get("/api/state")
    assert response.status_code == 500
    assert response.json == {"error": "internal error: the service logged the details"}
    assert b"Traceback" not in response.data


@pytest.mark.parametrize(
    ("headers", "body", "message"),
    [
        ({"X-CSRF-Token": "\u00e9t\u00e9"}, {"pin": PIN}, "CSRF"),
        ({"X-CSRF-Token": "x" * 5000}, {"pin": PIN}, "CSRF"),
    ],
)
def test_a_non_ascii_or_huge_csrf_header_is_a_clear_403(client, headers, body, message):
    client.get("/api/op/csrf")
    response = client.post("/api/op/login", json=body, headers=headers)
    assert response.status_code == 403
    assert message in response.json["error"]


@pytest.mark.parametrize(
    ("action", "body", "message"),
    [
        ("new_game", {"variant": ["secret"]}, "variant must be one of"),
        ("new_game", {"variant": {"a": 1}}, "variant must be one of"),
        ("new_game", {"variant": "secret", "players": [2]}, "players must be"),
        ("new_game", {"variant": "modern", "players": 10**12}, "players must be"),
        ("new_game", {"variant": "secret", "options": {"throws": ["a"]}}, "cannot start secret"),
        ("throw", {"value": [[3]]}, ""),
        ("throw", {"value": {"x": 1}}, ""),
        ("move", {"from": [10], "to": 13}, "from must be a square"),
        ("answer", {"answer": [0]}, "there is no question"),
    ],
)
def test_a_list_or_object_where_a_value_belongs_is_a_400(operator, sim_service, action, body, message):
    refused_and_unchanged(operator, sim_service[0], action, body, message)


def test_a_hand_action_with_a_list_for_a_card_is_a_400(sim_service):
    from senet_pi_web.hands import hand_token

    service, backend = sim_service
    service.new_game("cards", options={"shuffle_seed": 3})
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=service, backend=backend)
    client = app.test_client()
    with app.test_request_context():
        player = service.referee.game.to_move_id
        base = f"/api/hand/{player}/{hand_token(player)}"
    for action, body in (("play", {"card": ["3"]}), ("exchange", {"cards": [["3"], {}]}), ("play", [1, 2])):
        response = client.post(f"{base}/{action}", json=body)
        assert response.status_code == 400
        assert response.json["error"]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
FIELDS = ["square", "pin", "variant", "players", "options", "value", "from", "to", "by", "answer", "card", "cards"]
# What an HTTP header can carry, as a WSGI server hands it over: latin-1 text.
HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"), max_size=40)


def _api_post_routes(app) -> list[str]:
    """Every POST route under /api, with its variable parts filled in (a hand's real token too)."""
    from senet_pi_web.hands import hand_token

    with app.test_request_context():
        token = hand_token("A")
    routes = []
    for rule in app.url_map.iter_rules():
        if "POST" in rule.methods and rule.rule.startswith("/api"):
            path = rule.rule.replace("<player>", "A").replace("<token>", token)
            for action in ("lift", "place", "press", "play", "exchange", "pass", "jump"):
                routes.append(path.replace("<action>", action))
            if "<" not in path:
                routes.append(path)
    return sorted(set(routes))


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.data(),
    body=st.one_of(
        st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES, max_size=4),
        JSON_VALUES,
    ),
    csrf=st.one_of(st.none(), st.just("real"), HEADER_TEXT),
    content_type=st.sampled_from(["application/json", "application/json; charset=latin-1", "text/plain", None]),
    signed_in=st.booleans(),
)
def test_fuzz_every_api_post_answers_json_below_500(sim_service, data, body, csrf, content_type, signed_in):
    import json as json_module

    service, backend = sim_service
    if data.draw(st.booleans()):  # the hands' routes answer for the card game only
        service.new_game("cards", options={"shuffle_seed": 5})
    else:
        service.new_game("secret")
    app = create_app(
        {"TESTING": True, "OPERATOR_PIN_HASH": FAST_HASH, "PIN_DELAY": 0.0, "SECRET_KEY": "t"},
        service=service,
        backend=backend,
    )
    op = Operator(app.test_client())
    if signed_in:
        op.login()
    path = data.draw(st.sampled_from(_api_post_routes(app)))
    headers = {}
    if csrf is not None:
        headers["X-CSRF-Token"] = op.csrf if csrf == "real" else csrf
    raw = json_module.dumps(body).encode()
    response = op.client.post(path, data=raw, content_type=content_type, headers=headers)
    assert response.status_code < 500, (path, body, response.data[:300])
    assert response.mimetype == "application/json" and isinstance(response.json, dict), (path, response.data[:300])
    assert response.status_code < 400 or response.json["error"]


# ---------------------------------------------------------------- browser security


def test_every_answer_has_the_security_headers(client):
    for path in ("/", "/hardware", "/hands", "/api/state", "/static/app.js", "/nowhere", "/api/nowhere"):
        with client.get(path) as response:
            csp = response.headers["Content-Security-Policy"]
            assert "script-src 'self'" in csp
            assert "frame-ancestors 'none'" in csp
            assert "unsafe-inline" not in csp
            assert response.headers["X-Content-Type-Options"] == "nosniff"
            assert response.headers["Referrer-Policy"] == "no-referrer"


def test_the_templates_have_no_inline_script_or_handlers(client):
    import re

    for path in ("/", "/hardware", "/hands"):
        page = client.get(path).data.decode()
        # A JSON data block (the page's catalogue) is never run, so the CSP has nothing to allow.
        assert not re.search(r"<script(?![^>]*\b(src=|type=\"application/json\"))[^>]*>", page), path
        assert not re.search(r"\son[a-z]+\s*=", page), path
        assert "style=" not in page, path


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "localhost:8080",
        "127.0.0.1:8080",
        "[::1]:8080",
        "192.168.1.20:8080",
        "senet.local",
        "SENET.LOCAL:80",
    ],
)
def test_known_hosts_are_served(sim_service, host):
    service, backend = sim_service
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "HOSTS": ["senet.local"]}, service=service, backend=backend)
    assert app.test_client().get("/api/state", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "x\u00e9.local", ""])
def test_a_foreign_host_is_refused_dns_rebinding(client, host):
    for path in ("/api/state", "/", "/hands"):
        response = client.get(path, headers={"Host": host})
        assert response.status_code == 400
        assert "unknown Host" in response.json["error"]


def test_the_machines_own_name_is_served_by_default(client, monkeypatch):
    """A home Pi's page by the name Installing gives, http://<hostname>.local:8080/, with no HOSTS."""
    import socket

    monkeypatch.setattr(socket, "gethostname", lambda: "Hall-1")
    for host in ("hall-1.local:8080", "hall-1:8080", "HALL-1.LOCAL", "hall-1.local.:8080"):
        assert client.get("/api/state", headers={"Host": host}).status_code == 200, host
    for host in ("hall-1.local.evil.example", "hall-2.local:8080", "evil-hall-1.local"):
        assert client.get("/api/state", headers={"Host": host}).status_code == 400, host


def test_the_listen_host_name_is_served(sim_service):
    service, backend = sim_service
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "LISTEN_HOST": "senet-pi"}, service=service, backend=backend)
    assert app.test_client().get("/api/state", headers={"Host": "senet-pi:8080"}).status_code == 200


@pytest.fixture
def cards_service(sim_service):
    service, backend = sim_service
    service.new_game("cards", options={"shuffle_seed": 7})
    backend.sim.set_occupied(service.referee.expected)
    return service, backend


def test_hands_links_use_only_a_checked_host(cards_service):
    service, backend = cards_service
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=service, backend=backend)
    client = app.test_client()
    page = client.get("/hands", headers={"Host": "127.0.0.1:8080"})
    assert page.status_code == 200
    assert b"http://127.0.0.1:8080/hand/A/" in page.data
    assert client.get("/hands", headers={"Host": "evil.example"}).status_code == 400


def test_beyond_localhost_hands_and_the_sim_need_the_operator(cards_service):
    service, backend = cards_service
    config = {"TESTING": True, "SECRET_KEY": "t", "LISTEN_HOST": "0.0.0.0", "OPERATOR_PIN_HASH": FAST_HASH}
    app = create_app(config, service=service, backend=backend)
    op = Operator(app.test_client())
    page = op.client.get("/hands")
    assert page.status_code == 401
    assert b"/hand/" not in page.data
    assert b"sign in" in page.data
    before = backend.sim.magnets
    response = op.client.post("/api/sim/press", headers={"X-CSRF-Token": op.csrf})
    assert response.status_code == 401
    assert "sign in" in response.json["error"]
    response = op.client.post("/api/sim/lift", json={"square": 10}, headers={"X-CSRF-Token": op.csrf})
    assert response.status_code == 401
    assert backend.sim.magnets == before
    assert op.client.get("/api/state").json["operator"]["needed_for_sim"] is True
    op.login()
    assert b"/hand/A/" in op.client.get("/hands").data
    assert op.client.post("/api/sim/press", headers={"X-CSRF-Token": op.csrf}).status_code == 200
    assert op.client.post("/api/sim/press").status_code == 403  # and the CSRF token


def test_on_localhost_hands_and_the_sim_stay_open(cards_service):
    service, backend = cards_service
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=service, backend=backend)
    client = app.test_client()
    assert b"/hand/A/" in client.get("/hands").data
    assert client.post("/api/sim/press", headers=csrf(client)).status_code == 200


@pytest.mark.parametrize("action", ["press", "lift", "place"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"data": '{"square": 10}', "content_type": "text/plain"},  # a cross-site form or fetch, no preflight
        {"data": "square=10", "content_type": "application/x-www-form-urlencoded"},
        {"json": {"square": 10}},
        {"json": {"square": 10}, "headers": {"X-CSRF-Token": "guessed"}},
    ],
)
def test_on_localhost_the_sim_refuses_a_request_without_the_pages_csrf_token(sim_service, action, kwargs):
    service, backend = sim_service
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=service, backend=backend)
    client = app.test_client()
    client.get("/api/op/csrf")  # even with a session, a request must carry its token
    before, pending = backend.sim.magnets, service.referee.game.pending
    response = client.post(
        f"/api/sim/{action}", headers={"Origin": "http://evil.example"} | kwargs.pop("headers", {}), **kwargs
    )
    assert response.status_code == 403
    assert "CSRF" in response.json["error"]
    assert backend.sim.magnets == before
    assert service.referee.game.pending == pending


# ------------------------------------------------------------ what the page gets for visitors who have never seen Senet


def test_the_state_names_a_lifted_piece_and_where_it_may_go(client, sim_service):
    service, _ = sim_service
    assert client.get("/api/state").json["lifted"] == []
    service.handle("throw", 3)
    assert client.get("/api/state").json["movable"] == [10]  # S2: the opening piece only (the movable hint)
    service.handle("lift", 10)
    assert client.get("/api/state").json["lifted"] == [{"square": 10, "owner": "B", "targets": [13]}]
    service.handle("lift", 9)  # a piece that cannot move for this throw is in the hand too, going nowhere
    lifted = client.get("/api/state").json["lifted"]
    assert {"square": 9, "owner": "A", "targets": []} in lifted
    assert len(lifted) == 2


def test_no_throw_no_targets_and_nothing_movable(client, sim_service):
    service, _ = sim_service
    service.handle("lift", 10)
    state = client.get("/api/state").json
    assert state["lifted"] == [{"square": 10, "owner": "B", "targets": []}]
    assert state["movable"] == []


def test_every_ruling_the_referee_names_has_a_plain_sentence(client):
    """Every ruling id the reasons, the referee and the rule sets can name is explained for visitors."""
    import pathlib
    import re

    from senet_pi.rules.plain import PLAIN, explain
    from senet_pi.rules.reasons import Reason

    root = pathlib.Path(__file__).resolve().parents[1]
    named = {r.ruling for r in Reason if not r.ruling.startswith("{")}
    for path in (root / "senet_pi").rglob("*.py"):
        named |= set(re.findall(r"\b([PSHKM](?:[1-9]|1[0-2]))\b", path.read_text(encoding="utf-8")))
    # the ids rulings.md decides (it lives beside the repository, not in it)
    spec = {f"{k}{i}" for k, n in (("P", 8), ("S", 12), ("H", 9), ("K", 10), ("M", 10)) for i in range(1, n + 1)}
    assert named <= spec and set(PLAIN) == spec, (sorted(named - spec), sorted(spec ^ set(PLAIN)))
    assert client.get("/api/rulings").json == PLAIN
    assert explain("P3") == PLAIN["P3"]
    assert explain("Z9") is None
    assert all(len(s) < 160 and "(" not in s for s in PLAIN.values())  # one short sentence, no ids inside


def test_hands_outside_the_card_game_say_how_to_start_one(client):
    page = client.get("/hands").get_data(as_text=True)
    assert "senet-pi run --ruleset cards" in page
    assert "Each player scans their own code: the page that opens" not in page
