"""What a board publishes as its state on the fleet's broker: exactly the JSON object its page
answers at `GET /api/state` to a visitor (../shared/spec/fleet.md), made by that same view."""

from __future__ import annotations

from collections.abc import Callable

from flask import Flask


def published_state(app: Flask) -> Callable[[], bytes]:
    """A function giving the page's `GET /api/state` answer (JSON bytes), as a visitor with no
    session would get it: the same view, in the config's language."""
    from .api import get_state

    def state() -> bytes:
        with app.test_request_context("/api/state", base_url="http://localhost/"):
            return get_state().get_data()

    return state
