"""What a board publishes as its state on the fleet's broker: exactly the JSON object its page
answers at `GET /api/state` to a visitor (../shared/spec/fleet.md), made by that same view."""

from __future__ import annotations

from collections.abc import Callable

from flask import Flask

from senet_pi.verdicts import Verdict


def published_state(app: Flask) -> Callable[[], bytes]:
    """A function giving the page's `GET /api/state` answer (JSON bytes), as a visitor with no
    session would get it: the same view, in the config's language."""
    from .api import get_state

    def state() -> bytes:
        with app.test_request_context("/api/state", base_url="http://localhost/"):
            return get_state().get_data()

    return state


def verdict_words(app: Flask) -> Callable[[Verdict], str | None]:
    """A verdict in words, as the terminal says it but with the players by name, in the config's
    language: the fleet summary's "last thing that happened" (None for a verdict said to nobody)."""
    from senet_pi.cli.terminal import MARKS, _words
    from senet_pi.i18n import translate

    from .state import named

    language = str(app.config.get("LANGUAGE", "en"))

    def words(verdict: Verdict) -> str | None:
        text = _words(verdict)
        if text is None:
            return None
        said = str(translate(named(text), language))
        for mark in {*MARKS.values(), "!! "}:  # the terminal's marks ("?? ", "!! "...) are not words
            said = said.removeprefix(mark)
        return said.strip(" *")

    return words
