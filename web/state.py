"""What the page and `GET /api/state` show: the service's snapshot, with the page's own names for
the players, the backend's health and this session's operator status."""

from __future__ import annotations

import random
from functools import lru_cache
from typing import cast

from flask import current_app

from senet_pi.hardware.backend import Backend, SimBackend
from senet_pi.i18n import Text
from senet_pi.rules import find_ruleset
from senet_pi.rules.random_play import play_random_turn
from senet_pi.service import Service

#: Names the page gives the players (P2: display names are configurable; ids stay A-D).
NAMES = {"A": Text("white"), "B": Text("green"), "C": Text("red"), "D": Text("blue")}  # translated in JSON


def services() -> tuple[Service, Backend | None]:
    senet = current_app.extensions["senet"]
    return senet["service"], senet["backend"]


def state(for_session: bool = True) -> dict:
    """The whole state the page needs; `for_session` adds this session's operator status (the live
    stream, shared by all pages, leaves it out)."""
    service, backend = services()
    out = service.snapshot()
    out["names"] = {pid: NAMES[pid] for pid in cast(list[str], out["players"])}
    out["backend"] = backend.describe() if backend is not None else {"backend": "none"}
    out["sim"] = isinstance(backend, SimBackend)
    fleet = current_app.extensions["senet"].get("fleet")  # the board on an MQTT broker (issue 25), if it is
    out["mqtt"] = fleet.describe() if fleet is not None else None
    if current_app.config.get("EXHIBIT"):  # the attract loop's demo (issue 15): only an exhibit shows it
        out["demo"] = demo_game(str(out["variant"]), len(cast(list[str], out["players"])))
    if for_session:
        from .security import exposed
        from .signin import guard, is_operator

        out["operator"] = {
            "enabled": bool(guard().pin_hash),
            "signed_in": is_operator(),
            "needed_for_sim": exposed(),  # beyond localhost the simulated board is the operator's too
        }
    return out


#: How many moves the attract loop's demo game plays.
DEMO_MOVES = 6


@lru_cache(maxsize=16)
def demo_game(variant: str, players: int) -> list[dict[str, object]]:
    """The first moves of a game of `variant` played by the rules with a fixed seed, each with the
    board after it: the attract loop shows them on its board drawing (computed once per rule set)."""
    cls = find_ruleset(variant)
    game = cls(players, cls.seeded_options(15), None)
    rng = random.Random(15)
    steps: list[dict[str, object]] = []
    for _turn in range(100):  # a bound, though a few turns always make the moves
        if len(steps) >= DEMO_MOVES or game.winner is not None:
            break
        before = len(game.actions)
        play_random_turn(game, rng)
        for kind, move in game.actions[before:]:
            if kind == "move":
                steps.append(
                    {
                        "from": move.from_sq,  # type: ignore[attr-defined]
                        "to": move.to_sq,  # type: ignore[attr-defined]  # beyond 30: borne off
                        "board": {str(sq): owner for sq, owner in game.board().items()},
                    }
                )
    return steps[:DEMO_MOVES]
