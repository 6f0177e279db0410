"""The pages: the status page (the board, the prompt, the history, the operator's panel) and the
installer's hardware page."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, make_response, render_template
from flask.typing import ResponseReturnValue
from markupsafe import Markup

from senet_pi.rules.plain import PLAIN

from .operator import csrf_token
from .security import CSP
from .state import state

bp = Blueprint("pages", __name__)


def embedded(value: object) -> Markup:
    """`value` as JSON for a <script type="application/json"> in the page, said in the request's
    language, with "</" escaped so no text in it can end the script element."""
    # As UTF-8, not \\u escapes: an Arabic page's state and rulings are a third of the bytes to parse.
    return Markup(current_app.json.dumps(value, ensure_ascii=False).replace("</", "<\\/"))


def cell(square: int) -> tuple[int, int]:
    """Where a square is drawn on the board (P1: row 2 runs right to left), as the page's script does."""
    row, col = divmod(square - 1, 10)
    return 10 + (9 - col if row == 1 else col) * 60, 10 + row * 60


def piece_path(owner: str, x: int, y: int) -> str:
    """A piece's outline on the square at (x, y): a cone for A and C, a spool for B and D (the script's)."""
    cx, base = x + 31, y + 52
    if owner in ("A", "C"):
        return (
            f"M{cx - 15} {base} L{cx - 5} {base - 36} Q{cx} {base - 42} {cx + 5} {base - 36} "
            f"L{cx + 15} {base} Q{cx} {base + 5} {cx - 15} {base} z"
        )
    return f"M{cx - 15} {base - 38} h30 v6 q-9 4 -9 13 q0 9 9 13 v6 h-30 v-6 q9 -4 9 -13 q0 -9 -9 -13 z"


def first_board(st: dict[str, Any]) -> list[dict[str, object]]:
    """The board as the page first paints it, before its script runs: each square with its piece as
    it stands on the wood (the state's own drawing, `wood`, during prompts, fixes and setup). The
    script draws the board again at once, with its marks, signs and listeners."""
    wood = st.get("wood")
    sensed = {str(sq) for sq in st["sensed"]}
    out: list[dict[str, object]] = []
    for square in range(1, 31):
        x, y = cell(square)
        key = str(square)
        if wood is not None:
            on = wood["pieces"].get(key)
            owner, faded = (on["owner"], on["lifted"]) if on else (wood["ghosts"].get(key), True)
        else:
            on = st["squares"].get(key)
            owner, faded = (on["owner"], key not in sensed) if on else (None, False)
        out.append(
            {
                "square": square,
                "x": x,
                "y": y,
                "special": key in st["special"],
                "piece": piece_path(owner, x, y) if owner else None,
                "owner": owner,
                "faded": faded,
            }
        )
    return out


_style: tuple[float, str, str] | None = None  # style.css as the status page carries it: (mtime, text, hash)


def inline_style() -> tuple[str, str]:
    """style.css and its CSP hash: the status page carries its style sheet in itself, so the first
    paint waits for no second request (read again only when the file changes)."""
    global _style
    path = Path(current_app.static_folder or "") / "style.css"
    mtime = path.stat().st_mtime
    if _style is None or _style[0] != mtime:
        text = path.read_text(encoding="utf-8")
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        _style = (mtime, text, f"'sha256-{digest}'")
    return _style[1], _style[2]


@bp.get("/")
def index() -> ResponseReturnValue:
    """The status page, with the state and the rulings' sentences in it, and the board already drawn
    in it: the board is painted before the page's scripts run (static/later.js runs them after)."""
    st = state()
    style, allowed = inline_style()
    response = make_response(
        render_template(
            "index.html",
            csrf=csrf_token(),
            first_state=embedded(st),
            rulings=embedded(PLAIN),
            first_board=first_board(st),
            style=Markup(style),  # our own file, allowed by its hash alone
        )
    )
    # the style sheet in the page is allowed by its hash: still no inline style of any other kind
    response.headers["Content-Security-Policy"] = CSP.replace("style-src 'self'", f"style-src 'self' {allowed}")
    return response


@bp.get("/hardware")
def hardware() -> str:
    return render_template("hardware.html", csrf=csrf_token())
