"""What the page and `GET /api/state` show: the service's snapshot, with the page's own names for
the players, the backend's health and this session's operator status."""

from __future__ import annotations

from typing import cast

from flask import current_app

from senet_pi.hardware.backend import Backend, SimBackend
from senet_pi.i18n import Text
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
    if for_session:
        from .security import exposed
        from .signin import guard, is_operator

        out["operator"] = {
            "enabled": bool(guard().pin_hash),
            "signed_in": is_operator(),
            "needed_for_sim": exposed(),  # beyond localhost the simulated board is the operator's too
        }
    return out
