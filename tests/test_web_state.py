"""The page's view is shaped in the web package (web/state.py), not in
`Service.snapshot()`; `GET /api/state` keeps every field the page, the tests and the fleet contract
read, and names the players by their pieces in its sentences, in every language."""

from __future__ import annotations

import pytest

from senet_pi.i18n import Text, translate
from senet_pi.service.core import Service
from senet_pi_web import create_app
from senet_pi_web.state import named

#: What the page shapes for itself, out of the service's snapshot.
PAGE_KEYS = ("rules", "special", "symbols", "lifted", "movable", "names", "player_names", "pieces", "kind_words")


@pytest.fixture
def service():
    return Service(None, variant="secret", settle=0.2)


@pytest.fixture
def client(service):
    return create_app({"SECRET_KEY": "t", "TESTING": True}, service=service).test_client()


def test_the_snapshot_is_the_services_data_and_the_page_shapes_its_view(service, client):
    snapshot = service.snapshot().to_json()
    assert not set(PAGE_KEYS) & set(snapshot)  # no page names in the service's snapshot
    service.handle("throw", 3)
    assert service.snapshot().to_json()["moves"] == [[10, 13]]  # the data the page's hints are made from (S2)
    state = client.get("/api/state").json
    assert set(snapshot) <= set(state)  # every field of the snapshot is still answered
    assert set(PAGE_KEYS) <= set(state)
    assert state["player_names"] == {"A": "White", "B": "Green"}
    assert state["pieces"] == {"A": "the white cones", "B": "the green spools"}
    assert state["symbols"]["15"] == "ankh"
    assert state["kind_words"]["exchange"] == "exchange"


def test_the_states_sentences_name_the_players_by_their_pieces(service, client):
    service.handle("throw", 3)
    service.handle("lift", 10)
    service.handle("place", 14)
    service.tick()
    state = client.get("/api/state").json
    assert state["rules"]["how_to_play"][1] == "Green opens with the piece on 10."
    assert state["lifted"][0]["owner"] == "B"  # the data keeps the ids
    german = client.get("/api/state?lang=de").json
    assert german["rules"]["how_to_play"][1] == "Grün beginnt mit dem Stein auf 10."


@pytest.mark.parametrize(("language", "expected"), [("en", "put Green's piece back on 10"), ("de", "Grün")])
def test_named_replaces_player_params_at_any_depth(language, expected):
    sentence = Text("put {player}'s piece back on {to}", player="B", to=10)
    nested = {"fix": [Text("{p0}; {p1}", p0=sentence, p1=Text("{player} to throw", player="A"))], "player": "B"}
    said = named(nested)
    assert said["player"] == "B"  # plain data keeps the id
    assert expected in str(translate(said["fix"][0], language))
    assert "White" in str(said["fix"][0])
    assert named(Text("{player} to throw", player="Z")) == "Z to throw"  # no player's id: as it is
