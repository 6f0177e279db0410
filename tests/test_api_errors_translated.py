"""The staff's and the operator's JSON errors (shown on the page under the staff panel,
the simulated board and a phone's hand) come in the page's language, like every other sentence a
person reads: each error the web package writes is a `Text` of the catalogue, and one passed up
from below keeps its `Text` (tests/test_i18n.py checks the catalogue itself)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from senet_pi.i18n import gettext
from tests.web_helpers import PIN

WEB = Path(__file__).resolve().parent.parent / "web"


def _bare(node: ast.expr) -> bool:
    """Whether `node` makes a sentence no catalogue knows: a literal, an f-string, `str(...)` or a sum of them."""
    if isinstance(node, ast.Constant | ast.JoinedStr):
        return isinstance(node, ast.JoinedStr) or isinstance(node.value, str)
    if isinstance(node, ast.BinOp):
        return _bare(node.left) or _bare(node.right)
    if isinstance(node, ast.BoolOp):  # `exc.description or "..."`
        return any(_bare(value) for value in node.values)
    if isinstance(node, ast.IfExp):
        return _bare(node.body) or _bare(node.orelse)
    if isinstance(node, ast.Subscript):
        return _bare(node.value)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str"


def _messages(tree: ast.AST):
    """(line, message) of every error answer: `error(status, message)`, `BadInput(message)`,
    `jsonify({"error": message})`."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if node.func.id == "error" and len(node.args) >= 2:
            yield node.lineno, node.args[1]
        elif node.func.id == "BadInput" and node.args:
            yield node.lineno, node.args[0]
        elif node.func.id == "jsonify" and node.args and isinstance(node.args[0], ast.Dict):
            for key, value in zip(node.args[0].keys, node.args[0].values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "error":
                    yield node.lineno, value


def test_every_error_the_web_package_writes_is_a_catalogue_text_not_a_bare_string():
    bare = [
        f"{path.name}:{line}: {ast.unparse(message)[:70]}"
        for path in sorted(WEB.glob("*.py"))
        for line, message in _messages(ast.parse(path.read_text(encoding="utf-8")))
        if _bare(message)
    ]
    assert not bare, "say these through Text(...) so the catalogue has them:\n" + "\n".join(bare)


@pytest.mark.parametrize("lang", ["de", "ar"])
def test_the_simulated_boards_and_the_apis_own_errors_come_in_the_pages_language(client, lang):
    csrf = {"X-CSRF-Token": client.get("/api/op/csrf").json["csrf"]}
    empty = client.post(f"/api/sim/lift?lang={lang}", json={"square": 20}, headers=csrf)
    assert empty.status_code == 409
    assert empty.json["error"] == gettext("square {square} holds no piece to lift", lang, square=20)
    off = client.post(f"/api/sim/lift?lang={lang}", json={"square": 31}, headers=csrf)
    assert off.json["error"] == gettext(
        "{key} must be a square from 1 to 30, not {value}", lang, key="square", value=31
    )
    form = client.post(f"/api/sim/lift?lang={lang}", data="square=3", headers=csrf)
    assert form.json["error"] == gettext("send JSON (Content-Type: application/json)", lang)
    nowhere = client.get(f"/api/nowhere?lang={lang}")
    assert nowhere.status_code == 404
    assert nowhere.json["error"] == gettext("there is nothing at {path}", lang, path="/api/nowhere")
    assert empty.json["error"] != "square 20 holds no piece to lift"  # the catalogue has it in this language


def test_an_operators_wrong_throw_says_why_in_german_down_to_the_sticks(operator):
    operator.login(PIN)
    wrong = operator.client.post("/api/op/throw?lang=de", json={"value": 5}, headers={"X-CSRF-Token": operator.csrf})
    assert wrong.status_code == 400
    said = wrong.json["error"]
    assert said.startswith("secret kann nicht 5 werfen") and "dunklen Seiten" in said, said
    english = operator.client.post("/api/op/throw?lang=en", json={"value": 5}, headers={"X-CSRF-Token": operator.csrf})
    assert english.json["error"].startswith("secret cannot throw 5: 4 sticks counting dark sides")


def test_the_language_comes_from_the_cookie_for_the_pages_own_requests(client):
    """The page's fetches carry no ?lang=: the cookie its ?lang= visit set says the language."""
    client.get("/?lang=de")
    csrf = {"X-CSRF-Token": client.get("/api/op/csrf").json["csrf"]}
    taken = client.post("/api/sim/place", json={"square": 1}, headers=csrf)
    assert taken.status_code == 409
    assert taken.json["error"] == gettext("square {square} already holds a piece", "de", square=1)
    assert taken.json["error"] != "square 1 already holds a piece"
