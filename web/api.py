"""The read side of the JSON API: the state, the live event stream, the rule sets."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, stream_with_context

from senet_pi.rules import RULESETS

from .state import state

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/state")
def get_state() -> Response:
    return jsonify(state())


@bp.get("/events")
def events() -> Response:
    """Server-sent events: `state` at once and after every change, `verdicts` as they are decided."""
    broker = current_app.extensions["senet"]["broker"]
    app = current_app._get_current_object()  # type: ignore[attr-defined]

    def snapshot() -> dict:
        with app.app_context():
            return state(for_session=False)

    response = Response(stream_with_context(broker.stream(snapshot)), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/rules")
def rules() -> Response:
    return jsonify(
        {
            name: {"summary": cls.summary, "players": list(cls.player_counts), "options": cls.option_defaults()}
            for name, cls in RULESETS.items()
        }
    )
