"""The card game's hands (K10): each player's hand on their own page, reached by a secret link.

The link carries a token made from the server's secret, the game and the player, so it works
for that game only: a guessed link, or one from an earlier game, gets nothing. `/hands`
shows each player's link as a QR code (drawn here, no internet) for their phone.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import socket
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request, url_for
from flask.typing import ResponseReturnValue

from senet_pi.errors import BadInput, SenetError
from senet_pi.events import CardAction
from senet_pi.i18n import Text, joined, translate

from .errors import error, json_body, message_of
from .i18n import language
from .security import exposed
from .signin import is_operator
from .state import PIECES, PLAYERS, for_page, refusals, services

bp = Blueprint("hands", __name__)


def hand_token(player: str) -> str:
    """The secret part of `player`'s link for the current game."""
    service, _ = services()
    message = f"{service.hand_seed()}:{player}".encode()
    return hmac.new(current_app.config["SECRET_KEY"].encode(), message, hashlib.sha256).hexdigest()[:24]


def _check(player: str, token: str) -> dict[str, Any]:
    """`player`'s view of their hand, if the link is theirs for this game; 404 otherwise."""
    service, _ = services()
    view = service.hand(player)
    # compared as bytes: compare_digest refuses a str with non-ASCII characters, and a URL may carry any
    if view is None or not hmac.compare_digest(token.encode(), hand_token(player).encode()):
        abort(404)
    return view.to_json()


@bp.get("/hands")
def hands() -> str | tuple[str, int]:
    """Every player's secret link as a QR code: beyond localhost only for the signed-in operator.

    The links are built from the request's Host, which `security` has checked is one of ours."""
    import segno  # here, not at import: its QR tables are for this page only

    if exposed() and not is_operator():
        return render_template("hands.html", links=[], csrf="", locked=True), 401
    service, _ = services()
    links = []
    for pid in service.card_players():  # each code under the player's name (A and B stay internal)
        url = reachable(url_for("hands.hand", player=pid, token=hand_token(pid), _external=True))
        links.append(
            {
                "player": said(PLAYERS.get(pid, pid)),
                "pieces": said(PIECES.get(pid, "")),
                "url": url,
                "qr": segno.make(url, error="m").svg_inline(scale=5),
            }
        )
    return render_template("hands.html", links=links, csrf="")


def lan_address() -> str | None:
    """This machine's address on its local network (the one its default route leaves by), or None.
    A UDP socket is only pointed at a documentation address: nothing is sent."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if ipaddress.ip_address(address).is_loopback else str(address)


def reachable(url: str) -> str:
    """A hand's link as a phone on the network can follow it: a kiosk that opened the page at a
    loopback address (127.0.0.1, localhost) would give every phone a link to the phone itself, so
    the board's LAN address stands in for it, when the page listens beyond this machine."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        loopback = host in ("localhost", "localhost.") or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    lan = lan_address() if loopback and exposed() else None
    if lan is None:
        return url
    return urlunsplit(parts._replace(netloc=f"{lan}:{parts.port}" if parts.port else lan))


def said(text: str) -> str:
    """A text in this request's language."""
    return str(translate(text, language()))


@bp.get("/hand/<player>/<token>")
def hand(player: str, token: str) -> str:
    _check(player, token)
    # the phone says whose hand it is by the player's pieces, e.g. "Green: the green spools"
    name, pieces = said(PLAYERS.get(player, player)), said(PIECES.get(player, ""))
    names = {pid: said(text) for pid, text in PLAYERS.items()}  # the others, named on the phone too
    return render_template("hand.html", player=player, token=token, csrf="", name=name, pieces=pieces, names=names)


@bp.get("/api/hand/<player>/<token>")
def hand_state(player: str, token: str) -> Response:
    return jsonify(_check(player, token))


@bp.post("/api/hand/<player>/<token>/<action>")
def act(player: str, token: str, action: str) -> ResponseReturnValue:
    view = _check(player, token)
    if action not in ("play", "exchange", "pass"):
        return error(404, Text("unknown action {action}: use play, exchange or pass", action=repr(action)[:40]))
    if view["to_move"] != player:
        return error(409, Text("it is {player}'s turn", player=PLAYERS.get(view["to_move"], view["to_move"])))
    entry: CardAction  # the card played, the cards exchanged, or a pass: read here, where it comes in
    try:
        body = json_body() if request.content_length else {}
        if action == "play":
            card = body.get("card")
            if not isinstance(card, str) or card not in view["cards"]:
                raise BadInput(Text("{card} is not in your hand", card=repr(str(card)[:20])))
            entry = CardAction("card", card)
        elif action == "exchange":
            cards = body.get("cards")
            if not isinstance(cards, list) or not 1 <= len(cards) <= 2 or not all(isinstance(c, str) for c in cards):
                raise BadInput(Text("exchange one or two cards: {example}", example='{"cards": ["2", "H28"]}'))
            entry = CardAction("exchange", cards)
        else:
            entry = CardAction("pass", True)
    except BadInput as exc:
        return error(400, message_of(exc))
    service, _ = services()
    try:
        handled = service.handle(entry)
    except (SenetError, TypeError, ValueError) as exc:
        return error(400, message_of(exc))
    verdicts = for_page(handled)  # the players by name
    refused = refusals(handled)  # Texts, translated by jsonify
    if refused:
        return jsonify({"error": joined(refused), "verdicts": verdicts}), 422
    return jsonify({"verdicts": verdicts}), 200
