"""The card game's hands on the players' own pages (K10): secret links, QR codes, playing from a phone."""

from __future__ import annotations

import random

import pytest

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.rules.cards import default_deck
from senet_pi.service.core import Service
from senet_pi_web import create_app
from senet_pi_web.hands import hand_token


@pytest.fixture
def cards_app():
    deck = default_deck()
    random.Random(6).shuffle(deck)
    service = Service(None, variant="cards", options={"deck_order": deck, "shuffle_seed": 6})
    backend = SimBackend(load_pinmap(), spin=0)
    backend.start(service, scan=False)
    app = create_app(
        {"TESTING": True, "SECRET_KEY": "hands", "SERVER_NAME": "senet.local"}, service=service, backend=backend
    )
    yield app, service
    backend.close()


def tokens(app) -> dict[str, str]:
    with app.app_context():
        return {pid: hand_token(pid) for pid in ("A", "B")}


def test_the_hands_page_shows_a_qr_code_and_a_link_per_player(cards_app):
    app, _ = cards_app
    page = app.test_client().get("/hands")
    assert page.status_code == 200
    assert page.data.count(b'class="segno"') == 2
    for pid, token in tokens(app).items():
        assert f"/hand/{pid}/{token}".encode() in page.data


def test_a_players_page_shows_only_their_hand(cards_app):
    app, service = cards_app
    client, t = app.test_client(), tokens(app)
    assert client.get(f"/hand/B/{t['B']}").status_code == 200
    state = client.get(f"/api/hand/B/{t['B']}").json
    assert state["cards"] == service.referee.game.hand("B")
    assert state["your_turn"] is True
    assert client.get(f"/api/hand/A/{t['B']}").status_code == 404  # B's link opens nothing of A's
    assert client.get("/api/hand/A/0123456789abcdef01234567").status_code == 404  # a guess gets nothing


def test_a_link_from_an_earlier_game_gets_nothing(cards_app):
    app, service = cards_app
    old = tokens(app)
    service.new_game("cards")
    client = app.test_client()
    assert client.get(f"/hand/B/{old['B']}").status_code == 404
    assert client.get(f"/hand/B/{tokens(app)['B']}").status_code == 200


def test_playing_a_card_from_the_page_tells_the_referee(cards_app):
    app, service = cards_app
    client, t = app.test_client(), tokens(app)
    game = service.referee.game
    assert client.post(f"/api/hand/A/{t['A']}/play", json={"card": game.hand("A")[0]}).status_code == 409  # B's turn
    card = next(c for c in game.hand("B") if game.playable(c))
    response = client.post(f"/api/hand/B/{t['B']}/play", json={"card": card})
    assert response.status_code == 200
    assert response.json["verdicts"][0] == {"v": "card", "player": "B", "card": card}


@pytest.mark.parametrize(
    ("action", "body", "status", "message"),
    [
        ("play", {"card": "XX"}, 400, "not in your hand"),
        ("exchange", {"cards": []}, 400, "exchange one or two"),
        ("fly", {}, 404, "unknown action"),
    ],
)
def test_bad_hand_requests_are_clear_and_change_nothing(cards_app, action, body, status, message):
    app, service = cards_app
    before = service.referee.game.hand("B")
    response = app.test_client().post(f"/api/hand/B/{tokens(app)['B']}/{action}", json=body)
    assert response.status_code == status
    assert message in response.json["error"]
    assert service.referee.game.hand("B") == before


def test_open_hands_show_on_the_main_page(cards_app):
    app, service = cards_app
    state = app.test_client().get("/api/state").json
    assert state["cards"]["hands"]["B"] == service.referee.game.hand("B")


def test_the_card_games_board_shows_the_houses_symbols_and_says_a_turn_starts_with_a_card(cards_app):
    """The page learns the special squares from the rule set (K1: houses' board), not from
    a table keyed by rule-set name that had none for the card game."""
    app, _ = cards_app
    state = app.test_client().get("/api/state").json
    assert state["turn_starts_with"] == "card"
    assert state["symbols"]["27"] == "water"
    assert state["special"]["26"].startswith("House of Happiness")
    assert state["rules"]["how_to_play"][0] == "Houses rules, but cards replace the sticks."


def test_the_thrower_in_the_card_game_passes_an_optional_move_and_otherwise_refuses(cards_app):
    """K9: the button declines the residue; at any other moment the card game takes no throw."""
    _, service = cards_app
    heard = []
    service.subscribe(lambda batch: heard.extend(v.json() for v in batch))
    press = service.press()
    assert press.throw is None
    assert "play a card" in str(press.refused)
    assert heard == [{"v": "refused", "text": "in the card game, play a card from your hand's page"}]
    assert service.referee.game.actions == []  # nothing was played or journaled


def test_a_kiosk_at_127_0_0_1_gives_the_phones_the_boards_lan_address(cards_app, monkeypatch):
    """The kiosk opens the page at 127.0.0.1; a phone scanning that would reach itself. The links and
    their QR codes carry the board's LAN address instead, when the page listens beyond this machine."""
    from werkzeug.security import generate_password_hash

    from senet_pi_web import hands

    _, service = cards_app
    config = {"TESTING": True, "SECRET_KEY": "hands", "LISTEN_HOST": "0.0.0.0", "PIN_DELAY": 0.01}
    app = create_app({**config, "OPERATOR_PIN_HASH": generate_password_hash("2468")}, service=service)
    monkeypatch.setattr(hands, "lan_address", lambda: "192.168.1.40")
    client = app.test_client()
    csrf = client.get("/api/op/csrf", base_url="http://127.0.0.1:8080").json["csrf"]
    headers = {"X-CSRF-Token": csrf}
    client.post("/api/op/login", json={"pin": "2468"}, headers=headers, base_url="http://127.0.0.1:8080")
    page = client.get("/hands", base_url="http://127.0.0.1:8080")
    assert page.status_code == 200, page.data
    for pid, token in tokens(app).items():
        assert f"http://192.168.1.40:8080/hand/{pid}/{token}".encode() in page.data
    assert b"127.0.0.1" not in page.data
    with app.test_request_context("/hands", base_url="http://senet.example:8080"):
        assert hands.reachable("http://senet.example:8080/hand/A/x") == "http://senet.example:8080/hand/A/x"
    app.config["LISTEN_HOST"] = "127.0.0.1"  # only this machine can reach it: the link stays as it is
    with app.test_request_context("/hands", base_url="http://127.0.0.1:8080"):
        assert hands.reachable("http://127.0.0.1:8080/hand/A/x") == "http://127.0.0.1:8080/hand/A/x"
