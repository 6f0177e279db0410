"""The pages: the status page (the board, the prompt, the history, the operator's panel) and the
installer's hardware page."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template
from markupsafe import Markup

from senet_pi.rules.plain import PLAIN

from .operator import csrf_token
from .state import state

bp = Blueprint("pages", __name__)


def embedded(value: object) -> Markup:
    """`value` as JSON for a <script type="application/json"> in the page, said in the request's
    language, with "</" escaped so no text in it can end the script element."""
    # As UTF-8, not \\u escapes: an Arabic page's state and rulings are a third of the bytes to parse.
    return Markup(current_app.json.dumps(value, ensure_ascii=False).replace("</", "<\\/"))


@bp.get("/")
def index() -> str:
    """The status page, with the state and the rulings' sentences in it: the board is drawn as the
    page loads, with no request to wait for (issue 24: within 400 ms on a slowed CPU)."""
    return render_template("index.html", csrf=csrf_token(), first_state=embedded(state()), rulings=embedded(PLAIN))


@bp.get("/hardware")
def hardware() -> str:
    return render_template("hardware.html", csrf=csrf_token())
