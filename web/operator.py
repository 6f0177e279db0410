"""Operator actions behind a PIN: new game, undo, a throw or a move entered by hand, answers, resync.

The PIN is set at install (`senet-pi set-pin`) and stored only as a hash; with none set the
actions are disabled, not open. Every action is a JSON POST carrying the session's CSRF
token in `X-CSRF-Token`.

A PIN guesser cannot starve the service: one PIN is checked at a time (a check costs scrypt's
32 MiB and a good part of a second), an attempt while another is being checked, or from a
client locked out after wrong PINs, is answered at once with 429 and Retry-After, and no
request thread ever sleeps. Sessions are revocable: the session cookie only names a sign-in
kept here, which logout forgets and which a new PIN hash (`senet-pi set-pin`, read again
from config.toml when it changes) makes void, so a copied cookie stops working.
"""

from __future__ import annotations

import functools
import math
import secrets
from collections.abc import Callable
from typing import ParamSpec, cast

from flask import Blueprint, Response, jsonify, request, session
from flask.typing import ResponseReturnValue

from senet_pi.errors import BadInput, SenetError
from senet_pi.events import Answer, Input, MoveEntry, Resync, Throw, Undo
from senet_pi.i18n import Text, joined
from senet_pi.rules import RULESETS

from .errors import error, json_body, message_of, square_from
from .signin import guard, is_operator
from .state import for_page, refusals, services, state

P = ParamSpec("P")  # the parameters of a view `operator_required` wraps

bp = Blueprint("operator", __name__, url_prefix="/api/op")


def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def csrf_ok() -> bool:
    """Whether the request carries this session's CSRF token in `X-CSRF-Token`."""
    sent = request.headers.get("X-CSRF-Token", "")
    expected = session.get("csrf")
    # compared as bytes: compare_digest refuses a str with non-ASCII characters (a header may carry any)
    return bool(sent) and isinstance(expected, str) and secrets.compare_digest(sent.encode(), expected.encode())


def operator_check() -> tuple[Response, int] | None:
    """Why this request may not act as the operator (an error answer), or None when it may."""
    if not guard().pin_hash:
        return error(403, Text("operator actions are disabled: set a PIN with `senet-pi set-pin`"))
    if not csrf_ok():
        return error(403, Text("missing or wrong CSRF token (reload the page)"))
    if not is_operator():
        return error(401, Text("sign in with the operator PIN first"))
    return None


def operator_required(view: Callable[P, ResponseReturnValue]) -> Callable[P, ResponseReturnValue]:
    """Like flaskr's login_required: a PIN must be set, the session signed in, the CSRF token sent."""

    @functools.wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> ResponseReturnValue:
        refused = operator_check()
        if refused is not None:
            return refused
        return view(*args, **kwargs)

    return wrapped


@bp.get("/csrf")
def csrf() -> Response:
    return jsonify({"csrf": csrf_token()})


@bp.post("/login")
def login() -> ResponseReturnValue:
    if not guard().pin_hash:
        return error(403, Text("operator actions are disabled: set a PIN with `senet-pi set-pin`"))
    if not csrf_ok():
        return error(403, Text("missing or wrong CSRF token (reload the page)"))
    pin = json_body().get("pin")
    if not isinstance(pin, str) or not pin.isascii() or len(pin) > 64:
        raise BadInput(Text("send the PIN as a string of digits: {example}", example='{"pin": "1234"}'))
    outcome, wait = guard().check(request.remote_addr or "?", pin)
    if outcome == "ok":
        guard().sign_out(session.get("operator"))
        session["operator"] = guard().sign_in()
        return jsonify({"signed_in": True})
    if outcome == "disabled":
        return error(403, Text("operator actions are disabled: set a PIN with `senet-pi set-pin`"))
    if outcome == "busy":
        return error(429, Text("another PIN is being checked: try again in a moment"), retry_after=wait)
    if outcome == "locked":
        return error(
            429, Text("too many wrong PINs: try again in {seconds} s", seconds=math.ceil(wait)), retry_after=wait
        )
    return error(401, Text("wrong PIN: try again in {seconds} s", seconds=math.ceil(wait)), retry_after=wait)


@bp.post("/logout")
def logout() -> Response:
    guard().sign_out(session.pop("operator", None))
    return jsonify({"signed_in": False})


def _handled(entry: Input) -> tuple[Response, int]:
    service, _ = services()
    handled = service.handle(entry)
    verdicts = for_page(handled)  # the players by name
    refused = refusals(handled)  # Texts, translated by jsonify
    if refused:  # the referee's reason as the message every /api error carries
        return jsonify({"error": joined(refused), "verdicts": verdicts, "state": state()}), 422
    return jsonify({"verdicts": verdicts, "state": state()}), 200


@bp.post("/new_game")
@operator_required
def new_game() -> ResponseReturnValue:
    data = json_body()
    service, _backend = services()
    variant = data.get("variant", service.variant)
    if not isinstance(variant, str) or variant not in RULESETS:
        raise BadInput(Text("variant must be one of {variants}", variants=", ".join(RULESETS)))
    players = data.get("players", 2)
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise BadInput(Text("options must be a JSON object"))
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 8:
        raise BadInput(Text("players must be a whole number of players, e.g. 2"))
    try:
        verdicts = service.new_game(variant, players, options)
    except (SenetError, TypeError, ValueError, RecursionError) as exc:  # options the rule set cannot use
        raise BadInput(
            Text("cannot start {variant} with these options: {reason}", variant=variant, reason=message_of(exc))
        ) from None
    return jsonify({"verdicts": for_page(verdicts), "state": state()})


@bp.post("/undo")
@operator_required
def undo() -> ResponseReturnValue:
    return _handled(Undo())


@bp.post("/resync")
@operator_required
def resync() -> ResponseReturnValue:
    return _handled(Resync())


@bp.post("/throw")
@operator_required
def throw() -> ResponseReturnValue:
    value = json_body().get("value")
    service, _ = services()
    try:
        service.parse_throw(value)
    except (SenetError, TypeError, ValueError) as exc:
        raise BadInput(message_of(exc)) from None
    return _handled(Throw(value))


@bp.post("/move")
@operator_required
def move() -> ResponseReturnValue:
    data = json_body()
    from_sq, to_sq = square_from(data, "from"), square_from(data, "to", allow_off=True)
    by = data.get("by", 0)
    if isinstance(by, bool) or not isinstance(by, int) or not 0 <= by <= 12:
        raise BadInput(Text("by must be a die or dice sum from 1 to 12"))
    return _handled(MoveEntry(from_sq, to_sq, by))


@bp.post("/answer")
@operator_required
def answer() -> ResponseReturnValue:
    """Staff answer the open question; `question` (its id, as for `/api/answer`) keeps a late tap
    from answering a newer question it never saw."""
    data = json_body()
    choice, asked = data.get("answer"), data.get("question")
    if asked is not None and (isinstance(asked, bool) or not isinstance(asked, int)):
        raise BadInput(Text("question must be the question's id, a whole number"))
    service, _ = services()
    with service.lock:  # the question cannot change between the check and the answer
        question = service.question()
        if question is None:
            return error(409, Text("there is no question to answer"))
        if asked is not None and asked != question["id"]:
            return error(409, Text("that question is no longer open"))
        if isinstance(choice, bool) or not isinstance(choice, int | str):
            raise BadInput(Text("answer with an option's number or its text"))
        options = cast(list[str], question["options"])
        if choice not in options and not (isinstance(choice, int) and 0 <= choice < len(options)):
            listed, shown = joined(options, ", "), repr(choice)[:40]
            raise BadInput(Text("{choice} is not one of the options: {options}", choice=shown, options=listed))
        return _handled(Answer(choice))
