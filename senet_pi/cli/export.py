"""`senet-pi export`: a journaled game as a replay file that `senet-pi replay` judges the same way."""

from __future__ import annotations

import json

from ..events import events_of
from ..service.journal import Journal, seats_said


def export_game(journal: Journal, game_id: int) -> dict[str, object]:
    """The replay object for one journaled game; time between inputs becomes `wait` events."""
    record = journal.game(game_id)
    events = events_of((event.ms, event.kind, event.value) for event in journal.events(game_id))
    replay: dict[str, object] = {"variant": record.variant, "players": record.players, "options": record.options}
    if record.position is not None:
        replay["position"] = record.position
    seats = journal.seats(game_id)
    if seats:  # who played: replay reads it and judges the same
        replay["seats"] = seats_said(seats)
    replay["events"] = events
    return replay


def export_text(journal: Journal, game_id: int) -> str:
    """The replay file's text: the header on one line, then one event per line, so diffs read well."""
    replay = export_game(journal, game_id)
    events = replay.pop("events")
    assert isinstance(events, list)  # export_game's events_of list
    head = json.dumps(replay)[:-1]
    lines = ",\n  ".join(json.dumps(e) for e in events)
    return f'{head}, "events": [\n  {lines}\n]}}\n' if events else f'{head}, "events": []}}\n'
