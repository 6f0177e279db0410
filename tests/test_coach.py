"""Hints on the page: a person's decision is analysed off the service's threads,
the hint is the best move with its chance (exact where the solved tables reach), a move that cost
more than a little is said with the move that kept the chances; and the page's API for hints and
for playing alone against the computer."""

from __future__ import annotations

import pytest

from senet_pi.opponent.tables import Tables, build_table
from senet_pi.rules.secret import SecretGame
from senet_pi.service.coach import Coach, engine_analyser
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from senet_pi.service.seat import AtTheBoard, ComputerPlayer

#: secret, sticks: White (A) on 23 and 28, Green (B) on 24, the rest borne off; White throws 3.
#: 23-26 keeps White's chance at 0.8168 (exact), 28-off leaves 0.4181.
ENDGAME = {"A": [23, 28], "B": [24], "off": {"A": 3, "B": 4}, "to_move": "A"}


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """Solved tables of up to two pieces a side (a few seconds to build)."""
    folder = tmp_path_factory.mktemp("tables")
    build_table(SecretGame, "sticks", max_pieces=2, folder=folder)
    return Tables(folder, build=False)


@pytest.fixture
def endgame(tmp_path, tables):
    """A service resuming a journaled game that starts from ENDGAME, with its coach (stepped by hand)."""
    journal = Journal(tmp_path / "j.sqlite")
    journal.start_game("secret", 2, {}, ENDGAME)
    service = Service(journal)
    coach = Coach(service, engine_analyser(tables))
    said: list[dict] = []
    service.subscribe(lambda batch: said.extend(v.json() for v in batch))
    yield service, coach, said
    coach.close()
    journal.close()


def test_the_hint_is_the_best_move_with_its_exact_chance(endgame):
    service, coach, _ = endgame
    service.handle("throw", 3)
    assert coach.hint(timeout=0) is None  # not analysed yet: the page is told to ask again
    assert coach.step()
    hint = coach.hint(timeout=0)
    assert hint["exact"] is True
    assert hint["player"] == "A"
    assert hint["throw"] == 3
    assert [(m["move"], m["from"], m["to"]) for m in hint["moves"]] == [("23-26", 23, 26), ("28-off", 28, "off")]
    assert hint["win"] == hint["moves"][0]["win"] == pytest.approx(0.8168, abs=1e-3)
    assert hint["moves"][1]["win"] == pytest.approx(0.4181, abs=1e-3)


def bear_off_28_for_a_3(service, coach) -> None:
    """Throw 3 and play 28-off, the costly move (23-26 keeps the chances), the coach rating each step."""
    service.handle("throw", 3)
    coach.step()
    service.handle("move", [28, 31, 0])
    coach.step()


def test_a_move_that_cost_more_than_a_little_is_said_with_the_move_that_kept_the_chances(endgame):
    service, coach, said = endgame
    bear_off_28_for_a_3(service, coach)
    advice = [v for v in said if v["v"] == "advice"]
    assert [str(v["text"]) for v in advice] == ["this move lost 40 % of your chances: 23-26 kept them"]
    lost = coach.view()["lost"]
    assert lost["player"] == "A"
    assert lost["move"] == "28-off"
    assert lost["lost"] == pytest.approx(0.3987, abs=1e-3)
    assert lost["best"] == {"move": "23-26", "from": 23, "to": 26, "win": pytest.approx(0.8168, abs=1e-3)}


def test_the_terminal_says_what_a_move_cost_as_the_page_does(endgame):
    """`senet-pi run` prints the coach's remark after the move, in the terminal's language."""
    import io

    from senet_pi.cli.run import Runner
    from senet_pi.hardware.backend import SimBackend
    from senet_pi.hardware.pinmap import load_pinmap

    service, coach, _ = endgame
    printed = {language: io.StringIO() for language in ("en", "de")}
    for language, out in printed.items():
        Runner(service, SimBackend(load_pinmap()), out=out, language=language)
    bear_off_28_for_a_3(service, coach)
    lines = printed["en"].getvalue().splitlines()
    assert lines[-1] == "ii A: this move lost 40 % of your chances: 23-26 kept them"
    assert any(line.startswith("A moves 28") for line in lines[:-1])  # said after the move itself
    assert printed["de"].getvalue().splitlines()[-1].startswith("ii A: dieser Zug hat 40 % Ihrer Chancen gekostet")


def test_the_best_move_is_not_remarked_on(endgame):
    service, coach, said = endgame
    service.handle("throw", 3)
    coach.step()
    service.handle("move", [23, 26, 0])
    coach.step()
    assert not [v for v in said if v["v"] == "advice"]
    assert coach.view()["lost"] is None


def test_a_move_made_before_its_analysis_finished_is_rated_once_it_is(endgame):
    """The analysis is queued the moment the throw comes, so a quick hand is still rated."""
    service, coach, said = endgame
    service.handle("throw", 3)
    service.handle("move", [28, 31, 0])  # before the coach's thread got to it
    assert coach.step()
    assert [v["v"] for v in said].count("advice") == 1


def test_the_computers_decisions_are_not_rated_as_a_persons(tmp_path, tables):
    journal = Journal(tmp_path / "j.sqlite")
    journal.start_game("secret", 2, {}, ENDGAME)
    service = Service(journal)
    coach = Coach(service, engine_analyser(tables), lambda: {"A": 4})
    try:
        service.handle("throw", 3)
        assert not coach.step()  # nothing queued: the computer's own seat
    finally:
        coach.close()
        journal.close()


# ---------------------------------------------------------------------- the page's API


@pytest.fixture
def page(endgame, tables):
    from senet_pi_web import create_app

    service, coach, _ = endgame
    app = create_app({"SECRET_KEY": "t", "HINT_WAIT": 0.0, "EXHIBIT": True}, service=service)
    player = ComputerPlayer(service, {}, pause=0.0, tables=tables)
    AtTheBoard(player, coach, alone_level=2).attach(app)
    client = app.test_client()
    token = client.get("/api/op/csrf").get_json()["csrf"]
    yield client, token, service, coach, player
    player.close()


def test_the_hint_api_says_to_ask_again_until_the_analysis_is_ready(page):
    client, _, service, coach, _ = page
    service.handle("throw", 3)
    waiting = client.get("/api/hint")
    assert waiting.status_code == 202
    assert waiting.headers["Retry-After"] == "1"
    coach.step()
    ready = client.get("/api/hint")
    assert ready.status_code == 200
    assert ready.get_json()["moves"][0]["move"] == "23-26"


def test_a_visitor_at_the_screen_plays_alone_against_the_computer(page):
    client, token, _, _, player = page
    assert client.post("/api/computer/alone", json={"on": True}).status_code == 403  # no CSRF token
    answer = client.post("/api/computer/alone", json={"on": True}, headers={"X-CSRF-Token": token})
    assert answer.status_code == 200
    assert player.seats == {"B": 2}
    assert answer.get_json()["state"]["computer"]["seats"] == {"B": 2}
    client.post("/api/computer/alone", json={"on": False}, headers={"X-CSRF-Token": token})
    assert player.seats == {}


def test_a_phone_cannot_give_the_computer_a_seat_without_the_operator(page):
    client, token, _, _, player = page
    far = {"REMOTE_ADDR": "192.168.1.20"}
    answer = client.post("/api/computer/alone", json={"on": True}, headers={"X-CSRF-Token": token}, environ_base=far)
    assert answer.status_code == 403
    assert "operator" in answer.get_json()["error"]
    refused = client.post("/api/op/computer", json={"seats": {"B": 3}}, headers={"X-CSRF-Token": token})
    assert refused.status_code == 403  # no PIN set: the operator's actions are off
    assert player.seats == {}


def test_the_state_shows_the_computers_move_in_words_and_the_cost_of_a_move(page):
    client, token, service, coach, player = page
    client.post("/api/computer/alone", json={"on": True}, headers={"X-CSRF-Token": token})
    bear_off_28_for_a_3(service, coach)
    state = client.get("/api/state?lang=de").get_json()
    assert state["coach"]["lost"]["text"] == "dieser Zug hat 40 % Ihrer Chancen gekostet: 23-26 hätte sie gehalten"
    for _ in range(3):  # Green (the computer) throws, then chooses
        if player.view()["move"] is None:
            player.step()
    move = client.get("/api/state?lang=en").get_json()["computer"]["move"]
    assert move["player"] == "B"
    assert move["text"] == f"The computer plays {move['from']} → {move['to']}: move its piece"


def test_the_signed_in_operator_gives_the_computer_any_seat_and_level(endgame, tables):
    from werkzeug.security import generate_password_hash

    from senet_pi_web import create_app

    service, coach, _ = endgame
    app = create_app(
        {"SECRET_KEY": "t", "OPERATOR_PIN_HASH": generate_password_hash("135792"), "PIN_DELAY": 0.01},
        service=service,
    )
    player = ComputerPlayer(service, {}, pause=0.0, tables=tables)
    AtTheBoard(player, coach).attach(app)
    client = app.test_client()
    token = {"X-CSRF-Token": client.get("/api/op/csrf").get_json()["csrf"]}
    try:
        assert client.post("/api/op/computer", json={"seats": {"A": 3}}, headers=token).status_code == 401
        assert client.post("/api/op/login", json={"pin": "135792"}, headers=token).status_code == 200
        for bad in ({"seats": {"E": 2}}, {"seats": {"B": 5}}, {"seats": ["B"]}, {"seats": {"B": True}}):
            answer = client.post("/api/op/computer", json=bad, headers=token)
            assert answer.status_code == 400
            assert answer.get_json()["error"]
        assert player.seats == {}
        answer = client.post("/api/op/computer", json={"seats": {"A": 3}}, headers=token)
        assert answer.status_code == 200
        assert answer.get_json()["state"]["computer"]["seats"] == {"A": 3}
        assert player.seats == {"A": 3}
        assert client.post("/api/op/computer", json={"seats": {}}, headers=token).get_json()["state"]["computer"] == {
            "seats": {},
            "move": None,
            "tables": [],  # no endgame table refused
        }
    finally:
        player.close()


@pytest.mark.parametrize("level", [5, 7, 0])
def test_a_computer_level_in_the_config_outside_1_to_4_is_a_startup_error(tmp_path, level):
    """The config names a level 1-4 (4, the master) or the board does not start."""
    from senet_pi.errors import ConfigError
    from senet_pi_web import load_instance_config

    (tmp_path / "config.toml").write_text(f"COMPUTER_LEVEL = {level}\n", encoding="utf-8")
    wanted = (
        r"COMPUTER_LEVEL must be the computer's level: "
        r"1 \(beginner\), 2 \(club\), 3 \(expert\) or 4 \(master\), not "
    )
    with pytest.raises(ConfigError, match=wanted + str(level)):
        load_instance_config(tmp_path)
