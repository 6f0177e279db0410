"""The pages: the status page (the board, the prompt, the history, the operator's panel) and the
installer's hardware page."""

from __future__ import annotations

from flask import Blueprint, render_template

from .operator import csrf_token

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> str:
    return render_template("index.html", csrf=csrf_token())


@bp.get("/hardware")
def hardware() -> str:
    return render_template("hardware.html", csrf=csrf_token())
