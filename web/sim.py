"""The simulated board from the page or a script: lift or place a piece, press the thrower's button.

Only with the `sim` backend. These move magnets on the mock pins; the scanner reads them
like a real board, so the referee sees exactly what it would see on a Pi.
"""

from __future__ import annotations

import time

from flask import Blueprint, Response, jsonify
from flask.typing import ResponseReturnValue

from senet_pi.hardware.backend import SimBackend
from senet_pi.i18n import Text
from senet_pi.rules.board import bit

from .errors import error, json_body, square_from
from .operator import csrf_ok, operator_check
from .security import exposed
from .state import services

bp = Blueprint("sim", __name__, url_prefix="/api/sim")


def _sim() -> SimBackend | None:
    _, backend = services()
    return backend if isinstance(backend, SimBackend) else None


@bp.post("/<action>")
def act(action: str) -> ResponseReturnValue:
    """One action on the simulated board; beyond localhost only the signed-in operator may act, and on
    localhost too only a page of this service: the session's CSRF token in `X-CSRF-Token`, which a
    cross-site form or `text/plain` POST cannot send."""
    if exposed():
        refused = operator_check()
        if refused is not None:
            return refused
    elif not csrf_ok():
        return error(403, Text("missing or wrong CSRF token (reload the page)"))
    backend = _sim()
    if backend is None:
        _, other = services()
        name = other.name if other is not None else "none"
        return error(404, Text("there is no simulated board: the backend is {name}", name=name))
    if action not in ("lift", "place", "press"):
        return error(404, Text("unknown action {action}: use lift, place or press", action=repr(action)[:40]))
    sim = backend.sim
    if action == "press":
        sim.press()
        time.sleep(0.05)
        sim.release()
        return _done(backend)
    square = square_from(json_body())
    has_piece = bool(sim.magnets & bit(square))
    if action == "lift" and not has_piece:
        return error(409, Text("square {square} holds no piece to lift", square=square))
    if action == "place" and has_piece:
        return error(409, Text("square {square} already holds a piece", square=square))
    getattr(sim, action)(square)
    return _done(backend)


def _done(backend: SimBackend) -> Response:
    moves, pieces = backend.sim.pieces()
    return jsonify({"pieces": pieces, "moves": moves, "leds": list(backend.sim.leds)})
