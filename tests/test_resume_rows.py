"""Journal rows that do not read as an input (an unknown kind, a value of the wrong shape) are read
once as they leave the journal and refused on resume exactly as they were refused live: the game
resumes as it was, with no note that the record differs and nothing cut short."""

from __future__ import annotations

import json

import pytest

from senet_pi.service import Service
from senet_pi.service.journal import Journal
from tests.journal_helpers import INPUTS, ScriptClock, feed

UNREADABLE = [
    ("jump", 3, "unknown input 'jump'"),
    ("lift", "ten", "could not judge this lift (TypeError)"),
    ("place", None, "could not judge this place (TypeError)"),
    ("sense", 7, "could not judge this sense (TypeError)"),
    ("sense", [3, "x"], "could not judge this sense (TypeError)"),
    ("move", [3], "could not judge this move (TypeError)"),
    ("move", "9-12", "could not judge this move (TypeError)"),
    ("answer", True, "could not judge this answer (TypeError)"),
]


def history_of(service: Service) -> list[dict]:
    return json.loads(json.dumps([v.json() for v in service.history]))


@pytest.mark.parametrize("at", [3, 41, 97])
@pytest.mark.parametrize(("kind", "value", "said"), UNREADABLE)
def test_an_unreadable_row_is_refused_again_on_resume_as_it_was_live(tmp_path, kind, value, said, at):
    inputs = INPUTS[:120]
    ms = inputs[at][0]
    script = [*inputs[:at], (ms, kind, value), *[(t + 1, k, v) for t, k, v in inputs[at:]]]
    path = tmp_path / "j.sqlite"
    clock = ScriptClock()
    service = Service(Journal(path), clock=clock)
    feed(service, clock, script[: at + 1])
    refused = service.history[-1].json()
    assert refused["v"] == "illegal"
    assert said in str(refused["reason"])
    feed(service, clock, script[at + 1 :])
    live, seq = history_of(service), service.seq
    service.close()

    again = Service(Journal(path))
    assert again.game_id == 1
    assert again.seq == seq
    assert history_of(again) == live
    assert not [n for n in again.notes if "differs" in n or "could not be resumed" in n]
    again.close()
