"""Operator actions behind a PIN: new game, undo, a throw or a move entered by hand, answers, resync.

The PIN is set at install (`senet-pi set-pin`) and stored only as a hash; with none set the
actions are disabled, not open. Every action is a JSON POST carrying the session's CSRF
token in `X-CSRF-Token`; each wrong PIN makes the next answer wait longer.
"""

from __future__ import annotations

import functools
import secrets
import threading
import time
from collections.abc import Callable

from flask import Blueprint, Response, current_app, jsonify, request, session
from werkzeug.security import check_password_hash

from senet_pi.errors import SenetError
from senet_pi.rules import RULESETS

from .errors import BadInput, error, json_body, square_from
from .state import services, state

bp = Blueprint("operator", __name__, url_prefix="/api/op")

_failures: dict[str, int] = {}
_failures_lock = threading.Lock()
MAX_DELAY = 30.0


def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def _csrf_ok() -> bool:
    sent = request.headers.get("X-CSRF-Token", "")
    return bool(sent) and "csrf" in session and secrets.compare_digest(sent, session["csrf"])


def wrong_pin_delay(failures: int) -> float:
    """Seconds to wait after the n-th wrong PIN in a row: doubling from PIN_DELAY, at most 30 s."""
    return min(current_app.config["PIN_DELAY"] * 2 ** (failures - 1), MAX_DELAY) if failures else 0.0


def operator_required(view: Callable) -> Callable:
    """Like flaskr's login_required: a PIN must be set, the session signed in, the CSRF token sent."""

    @functools.wraps(view)
    def wrapped(*args: object, **kwargs: object) -> object:
        if not current_app.config["OPERATOR_PIN_HASH"]:
            return error(403, "operator actions are disabled: set a PIN with `senet-pi set-pin`")
        if not _csrf_ok():
            return error(403, "missing or wrong CSRF token (reload the page)")
        if not session.get("operator"):
            return error(401, "sign in with the operator PIN first")
        try:
            return view(*args, **kwargs)
        except BadInput as exc:
            return error(400, str(exc))

    return wrapped


@bp.get("/csrf")
def csrf() -> Response:
    return jsonify({"csrf": csrf_token()})


@bp.post("/login")
def login() -> object:
    if not current_app.config["OPERATOR_PIN_HASH"]:
        return error(403, "operator actions are disabled: set a PIN with `senet-pi set-pin`")
    if not _csrf_ok():
        return error(403, "missing or wrong CSRF token (reload the page)")
    try:
        pin = json_body().get("pin")
    except BadInput as exc:
        return error(400, str(exc))
    who = request.remote_addr or "?"
    if isinstance(pin, str) and check_password_hash(current_app.config["OPERATOR_PIN_HASH"], pin):
        with _failures_lock:
            _failures.pop(who, None)
        session["operator"] = True
        return jsonify({"signed_in": True})
    with _failures_lock:
        _failures[who] = _failures.get(who, 0) + 1
        delay = wrong_pin_delay(_failures[who])
    time.sleep(delay)
    return jsonify({"error": "wrong PIN", "wait": delay}), 401


@bp.post("/logout")
def logout() -> Response:
    session.pop("operator", None)
    return jsonify({"signed_in": False})


def _handled(kind: str, value: object = True) -> tuple[Response, int]:
    service, _ = services()
    verdicts = service.handle(kind, value)
    refused = any(v["v"] == "illegal" for v in verdicts)
    return jsonify({"verdicts": verdicts, "state": state()}), 422 if refused else 200


@bp.post("/new_game")
@operator_required
def new_game() -> object:
    data = json_body()
    service, backend = services()
    variant = data.get("variant", service.referee.game.name)
    if variant not in RULESETS:
        raise BadInput(f"variant must be one of {', '.join(RULESETS)}")
    players = data.get("players", 2)
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise BadInput("options must be a JSON object")
    try:
        verdicts = service.new_game(variant, players, options)
    except SenetError as exc:
        raise BadInput(str(exc)) from None
    sim = getattr(backend, "sim", None)
    if sim is not None:  # the simulated pieces go back to the start as well
        sim.set_occupied(service.referee.expected)
    return jsonify({"verdicts": verdicts, "state": state()})


@bp.post("/undo")
@operator_required
def undo() -> object:
    return _handled("undo")


@bp.post("/resync")
@operator_required
def resync() -> object:
    return _handled("resync")


@bp.post("/throw")
@operator_required
def throw() -> object:
    value = json_body().get("value")
    service, _ = services()
    try:
        service.referee.game.parse_throw(value)
    except (SenetError, TypeError) as exc:
        raise BadInput(str(exc)) from None
    return _handled("throw", value)


@bp.post("/move")
@operator_required
def move() -> object:
    data = json_body()
    from_sq, to_sq = square_from(data, "from"), square_from(data, "to", allow_off=True)
    by = data.get("by", 0)
    if isinstance(by, bool) or not isinstance(by, int) or not 0 <= by <= 12:
        raise BadInput("by must be a die or dice sum from 1 to 12")
    return _handled("move", [from_sq, to_sq, by])


@bp.post("/answer")
@operator_required
def answer() -> object:
    choice = json_body().get("answer")
    service, _ = services()
    question = service.referee.question
    if question is None:
        return error(409, "there is no question to answer")
    if isinstance(choice, bool) or not isinstance(choice, int | str):
        raise BadInput("answer with an option's number or its text")
    if choice not in question.options and not (isinstance(choice, int) and 0 <= choice < len(question.options)):
        raise BadInput(f"{choice!r} is not one of the options: {', '.join(question.options)}")
    return _handled("answer", choice)
