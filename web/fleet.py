"""The staff dashboard for a fleet of boards (`senet-pi fleet`): its own Flask app, with the board
page's conventions: the app factory and instance config, the Host check and strict CSP
(`security`), the operator PIN (`PinGuard`, the same sign-in views) and a CSRF token on every
action. Everything about the boards is for a signed-in operator only.

The live stream (`/fleet/api/events`) is server-sent events: the whole list at once, then each
board as it changes (changes that queued up while the page was being written to go out once).
"""

from __future__ import annotations

import json
import queue
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    has_request_context,
    jsonify,
    render_template,
    stream_with_context,
)

from senet_pi.errors import ConfigError, FleetError
from senet_pi.fleet.commands import ACTIONS
from senet_pi.fleet.watcher import FleetWatcher
from senet_pi.i18n import Text

from . import _lasting_secret, instance_folder, load_instance_config
from .app import PageApp
from .errors import error, message_of
from .shared import Dashboard, dashboard

bp = Blueprint("fleet", __name__)

KEEPALIVE = 15.0
MAX_STREAMS = 12  # open dashboards at most (each holds one of the server's threads)


class FleetStreams:
    """The open live streams of the dashboard: each a queue of board names that changed."""

    def __init__(self, watcher: FleetWatcher) -> None:
        self._queues: list[queue.Queue[str | None]] = []
        self._lock = threading.Lock()
        self.unsubscribe = watcher.subscribe(self._changed)

    def _changed(self, name: str) -> None:
        with self._lock:
            for q in self._queues:
                q.put(name)

    @property
    def listeners(self) -> int:
        return len(self._queues)

    def stream(self, watcher: FleetWatcher, keepalive: float = KEEPALIVE) -> Iterator[str]:
        q: queue.Queue[str | None] = queue.Queue()
        with self._lock:
            self._queues.append(q)
        try:
            yield "retry: 1000\n\n"
            yield _event("boards", {"boards": watcher.views(), "link": watcher.link()})
            while True:
                try:
                    first = q.get(timeout=keepalive)
                except queue.Empty:
                    yield ": keepalive\n\n"
                    continue
                names = {first}
                while not q.empty():
                    names.add(q.get_nowait())
                if None in names:
                    return
                for name in sorted(n for n in names if n is not None):
                    if name == "":
                        yield _event("link", watcher.link())
                    else:
                        yield _event("board", watcher.view(name))
        finally:
            with self._lock:
                self._queues.remove(q)

    def close(self) -> None:
        """End every open stream (the server is stopping)."""
        with self._lock:
            for q in self._queues:
                q.put(None)
        self.unsubscribe()


def _event(name: str, data: object) -> str:
    """One server-sent event; its texts (a board's alert line) in the dashboard's language: the stream
    keeps its request (stream_with_context), so the app's JSON says them as every answer does."""
    said = current_app.json.dumps(data) if has_request_context() else json.dumps(data)
    return f"event: {name}\ndata: {said}\n\n"


def _watcher() -> FleetWatcher:
    return dashboard().watcher


def _refused() -> tuple[Response, int] | None:
    """Why this session may not see the boards (a JSON error), or None."""
    from .signin import guard, is_operator

    if not guard().pin_hash:
        return error(
            403, Text("the fleet dashboard is for staff and no operator PIN is set: set one with senet-pi set-pin")
        )
    if not is_operator():
        return error(401, Text("sign in with the operator PIN first"))
    return None


@bp.get("/")
def index() -> str:
    from .operator import csrf_token
    from .signin import guard

    return render_template("fleet.html", csrf=csrf_token(), pin_set=bool(guard().pin_hash))


@bp.get("/fleet/api/boards")
def boards() -> Response | tuple[Response, int]:
    refused = _refused()
    if refused:
        return refused
    watcher = _watcher()
    return jsonify({"boards": watcher.views(), "link": watcher.link(), "can_command": watcher.can_command})


@bp.get("/fleet/api/events")
def events() -> Response | tuple[Response, int]:
    refused = _refused()
    if refused:
        return refused
    streams = dashboard().broker
    if streams.listeners >= MAX_STREAMS:
        return error(503, Text("too many dashboards open: this one will try again"), retry_after=10)
    response = Response(stream_with_context(streams.stream(_watcher())), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _command(name: str, action: str) -> Response | tuple[Response, int]:
    from .errors import json_body
    from .operator import operator_check

    refused = operator_check()  # PIN set, CSRF token, signed in
    if refused is not None:
        return refused
    args: dict[str, Any] = {}
    if action == "new_game":
        data = json_body()
        args = {k: data[k] for k in ("variant", "players") if k in data}
    try:
        sent = _watcher().send(name, action, args)
    except FleetError as exc:
        return error(409, message_of(exc))
    return jsonify({"sent": sent, "board": name, "action": action}), 202


@bp.post("/fleet/api/boards/<name>/<action>")
def command(name: str, action: str) -> Response | tuple[Response, int]:
    """A staff action on one board: signed by this dashboard, carried out by a board that allows it."""
    if action not in ACTIONS:
        return error(404, Text("no such action: use one of {actions}", actions=", ".join(ACTIONS)))
    return _command(name, action)


def create_fleet_app(test_config: dict[str, object] | None = None, *, watcher: FleetWatcher) -> Flask:
    """The dashboard for `watcher`'s boards. Config: defaults, then the instance `config.toml` (or `test_config`)."""
    from . import errors, i18n, operator, pin, security

    app = PageApp(__name__, instance_path=str(instance_folder()), instance_relative_config=True)
    app.config.from_mapping(
        SECRET_KEY=None,
        OPERATOR_PIN_HASH=None,
        PIN_DELAY=1.0,
        PIN_FILE=None,
        LISTEN_HOST="127.0.0.1",
        HOSTS=[],
        MAX_CONTENT_LENGTH=16 * 1024,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        LANGUAGE="en",
    )
    if test_config is None:
        app.config.from_mapping(load_instance_config(Path(app.instance_path)))
        app.config["PIN_FILE"] = Path(app.instance_path) / "config.toml"
    else:
        app.config.from_mapping(test_config)
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = (
            _lasting_secret(Path(app.instance_path)) if test_config is None else secrets.token_hex(32)
        )
    if not isinstance(app.config["PIN_DELAY"], int | float):
        raise ConfigError("PIN_DELAY must be a number of seconds")
    pin_file = app.config["PIN_FILE"]
    guard = pin.PinGuard(
        app.config["OPERATOR_PIN_HASH"], Path(pin_file) if pin_file else None, float(app.config["PIN_DELAY"])
    )
    Dashboard(pin_guard=guard, watcher=watcher, broker=FleetStreams(watcher)).init_app(app)
    errors.init_app(app)
    security.init_app(app)
    i18n.init_app(app)
    # The board page's own sign-in views: the same PIN guard, lockouts and CSRF check.
    app.add_url_rule("/api/op/csrf", "csrf", operator.csrf, methods=["GET"])
    app.add_url_rule("/api/op/login", "login", operator.login, methods=["POST"])
    app.add_url_rule("/api/op/logout", "logout", operator.logout, methods=["POST"])
    app.register_blueprint(bp)
    return app
