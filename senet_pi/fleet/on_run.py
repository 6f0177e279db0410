"""`senet-pi run --mqtt`: the running service's board put on the broker, its state the one its page
shows (`published.state_json`, made from the board's shared objects, page served or not), and staff
commands carried out as the page's operator would."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..hardware.backend import Backend
from ..service.core import Service
from .address import FleetSettings
from .board import BoardPublisher
from .published import Board, state_json

#: The rule sets' player counts a remote new game may ask for.
PLAYERS = range(1, 9)


def start_board(
    service: Service,
    backend: Backend | None,
    settings: FleetSettings,
    shown: Board | Any = None,
    say: Callable[[str], None] | None = None,
) -> BoardPublisher:
    """Publish `service` as `settings.board`. `shown`: the board's shared objects (a `Board`, or the
    page's Flask app holding one); one made of `service` and `backend` when None. The page and
    `senet-pi status` then show the broker's link."""
    board = _board_of(shown) if shown is not None else Board(service, backend)

    def act(action: str, args: dict[str, object]) -> None:
        if action in ("resync", "undo"):
            refused = [v for v in service.handle(action) if v.v == "illegal"]
            if refused:
                raise ValueError(str(refused[0].json().get("reason")))
            return
        variant = args.get("variant", service.variant)
        players = args.get("players", service.players)
        if not isinstance(variant, str) or not isinstance(players, int) or isinstance(players, bool):
            raise ValueError("a new game takes a rule set's name and a number of players")
        if players not in PLAYERS:
            raise ValueError("a new game takes a rule set's name and a number of players")
        service.new_game(variant, players)  # a simulated board sets its pieces up itself

    publisher = BoardPublisher(service, settings, lambda: state_json(board), say=say, act=act, words=board.words)
    board.fleet = publisher
    publisher.start()
    return publisher


def _board_of(shown: Board | Any) -> Board:
    """The `Board` itself, or the one a page's app shares (`app.extensions["senet"].board`)."""
    if isinstance(shown, Board):
        return shown
    board = getattr(shown.extensions.get("senet"), "board", None)
    if not isinstance(board, Board):
        raise TypeError("start_board takes a Board or a page made by senet_pi_web.create_app")
    return board
