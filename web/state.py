"""What the page and `GET /api/state` show: the board's state as `senet_pi.fleet.published` makes it
(the same object the fleet's broker carries), with this session's operator status added. The names
the page gives the players and the view's parts live there; they are imported here for the page."""

from __future__ import annotations

from typing import cast

from senet_pi.fleet.published import (
    DEMO_MOVES,
    NAMES,
    PIECES,
    PLAYER_PARAMS,
    PLAYERS,
    board_state,
    demo_game,
    named,
    view,
    wooden_board,
)
from senet_pi.hardware.backend import Backend
from senet_pi.service.core import Service
from senet_pi.verdicts import Illegal, Verdict

from .shared import shared

__all__ = [
    "DEMO_MOVES",
    "NAMES",
    "PIECES",
    "PLAYERS",
    "PLAYER_PARAMS",
    "demo_game",
    "for_page",
    "named",
    "operator_status",
    "refusals",
    "services",
    "state",
    "view",
    "wooden_board",
]


def services() -> tuple[Service, Backend | None]:
    """The service the page shows and its backend."""
    board = shared().board
    return board.service, board.backend


def state(for_session: bool = True) -> dict[str, object]:
    """The whole state the page needs; `for_session` adds this session's operator status (the live
    stream, shared by all pages, leaves it out)."""
    out = board_state(shared().board)
    if for_session:
        from .signin import is_operator

        out["operator"] = operator_status(is_operator())
    return out


def operator_status(signed_in: bool) -> dict[str, object]:
    """The operator status a session is shown: is a PIN set, is it signed in, does the simulated
    board need a sign-in (it does beyond localhost)."""
    from .security import exposed
    from .signin import guard

    return {"enabled": bool(guard().pin_hash), "signed_in": signed_in, "needed_for_sim": exposed()}


def for_page(verdicts: list[Verdict]) -> list[dict[str, object]]:
    """Verdicts in their JSON form as the page says them: the players named as in `named`."""
    return cast(list[dict[str, object]], named([v.json() for v in verdicts]))


def refusals(verdicts: list[Verdict]) -> list[object]:
    """Why the referee refused an input (its `illegal` verdicts' reasons), the players named."""
    return [named(v.reason) for v in verdicts if isinstance(v, Illegal)]
