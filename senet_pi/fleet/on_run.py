"""`senet-pi run --mqtt`: the running service's board put on the broker, its state taken from the
page's app (served or not) and staff commands carried out as the page's operator would."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .address import FleetSettings
from .board import BoardPublisher

#: The rule sets' player counts a remote new game may ask for.
PLAYERS = range(1, 9)


def start_board(
    service: Any, backend: Any, settings: FleetSettings, app: Any = None, say: Callable[[str], None] | None = None
) -> BoardPublisher:
    """Publish `service` as `settings.board`; `app`: the page's Flask app (made here when no page is
    served, for the state it answers). The page and `senet-pi status` then show the broker's link."""
    from senet_pi_web import create_app
    from senet_pi_web.published import published_state, verdict_words

    if app is None:
        app = create_app(service=service, backend=backend)

    def act(action: str, args: dict) -> None:
        if action in ("resync", "undo"):
            refused = [v for v in service.handle(action) if v.v == "illegal"]
            if refused:
                raise ValueError(str(refused[0].json().get("reason")))
            return
        variant = args.get("variant", service.variant)
        players = args.get("players", service.players)
        if not isinstance(variant, str) or isinstance(players, bool) or players not in PLAYERS:
            raise ValueError("a new game takes a rule set's name and a number of players")
        service.new_game(variant, players)
        sim = getattr(backend, "sim", None)
        if sim is not None:  # the simulated pieces go back to the start, as the page's new game does
            sim.set_occupied(service.expected)

    publisher = BoardPublisher(service, settings, published_state(app), say=say, act=act, words=verdict_words(app))
    app.extensions["senet"]["fleet"] = publisher
    publisher.start()
    return publisher
