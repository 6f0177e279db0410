"""The read side of the JSON API: the state, the live event stream, the rule sets."""

from __future__ import annotations

from collections.abc import Iterator

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context

from senet_pi.i18n import Text
from senet_pi.rules import RULESETS
from senet_pi.rules.plain import PLAIN

from .door import on_the_screen
from .errors import error
from .i18n import language
from .shared import shared
from .state import state

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/state")
def get_state() -> Response:
    return jsonify(state())


@bp.get("/screens")
def screens() -> Response:
    """How many live pages this machine's own screen has open: `senet-pi status` reads it to tell
    a kiosk whose page follows the game from one that runs but lost it."""
    return jsonify({"screens": shared().broker.screens})


@bp.get("/events")
def events() -> Response | tuple[Response, int]:
    """Server-sent events: `state` at once and after every change, `verdicts` as they are decided.

    Under `senet-pi run` only the headers are answered here and the server's event loop carries
    the stream (see `live.LiveApp`); under plain WSGI this thread streams it."""
    broker = shared().broker
    if broker.listeners >= current_app.config["MAX_LIVE_STREAMS"]:
        return error(503, Text("too many live pages open: this one will try again"), retry_after=10)
    scope = request.environ.get("asgi.scope")
    if scope is not None and scope.get("senet.live"):
        scope["senet.handoff"] = True
        scope["senet.language"] = language()
        scope["senet.screen"] = on_the_screen()
        body: Iterator[str] = iter(())
    else:
        app = current_app._get_current_object()  # type: ignore[attr-defined]  # werkzeug's proxy method, absent from its stubs

        def snapshot() -> dict[str, object]:
            with app.app_context():
                return state(for_session=False)

        body = stream_with_context(broker.stream(snapshot, language=language(), screen=on_the_screen()))
    response = Response(body, mimetype="text/event-stream")
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


@bp.get("/rulings")
def rulings() -> Response:
    """Each ruling id in one plain sentence, for the page's explanations of "(P3)" (fetched once)."""
    return jsonify(PLAIN)
