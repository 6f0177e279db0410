"""What Home Assistant and Node-RED act on, against a real Mosquitto: the staff buttons (pressed
with no code, authorised by the broker), the events (a win with who and the score, an illegal
move, a new game, a table needing staff) and the retained summary in words, true after a win
and after a restart."""

from __future__ import annotations

import json
import random
import time

import pytest
from mqtt_helpers import Ear, wait_until

from senet_pi.errors import FleetError
from senet_pi.fleet import FleetSettings, parse_broker_url
from senet_pi.fleet.address import BUTTONS, fleet_settings
from senet_pi.fleet.on_run import start_board
from senet_pi.fleet.summary import Summary
from senet_pi.service.core import Service
from senet_pi.verdicts import Answered, Fix, Question, Settled, Switch, Win
from senet_pi_web import create_app


@pytest.fixture
def board(mosquitto):
    made = []

    def start(name: str, language: str = "en", service: Service | None = None, **settings):
        service = service or Service(None)
        app = create_app({"TESTING": True, "LANGUAGE": language}, service=service)
        publisher = start_board(service, None, FleetSettings(parse_broker_url(mosquitto.url), name, **settings), app)
        made.append(publisher)
        wait_until(lambda: publisher.listening)
        return service, publisher

    yield start
    for publisher in made:
        publisher.close()


def _verdicts(service: Service) -> list[str]:
    kinds: list[str] = []
    service.subscribe(lambda verdicts: kinds.extend(v.v for v in verdicts))
    return kinds


def test_a_button_pressed_as_home_assistant_presses_it_starts_a_new_game(mosquitto, board):
    ear = Ear(mosquitto.port, "senet-pi/+/command/result", "senet-pi/+/event")
    service, publisher = board("hall-b", buttons=BUTTONS)
    kinds = _verdicts(service)
    assert publisher.describe()["buttons"] == list(BUTTONS)
    service.press(random.Random(4))
    ear.client.publish("senet-pi/hall-b/button", "new_game", qos=1)  # HA's button: payload_press, no signature
    result = ear.last("senet-pi/hall-b/command/result").json()
    assert result == {"ok": True, "action": "new_game", "via": "button"}
    assert kinds.count("new_game") == 1
    assert service.snapshot().to_json()["last_throw"] is None
    event = ear.last("senet-pi/hall-b/event", where=lambda h: h.json()["event_type"] == "new_game").json()
    assert event["event_id"]
    assert event["text"]

    ear.client.publish("senet-pi/hall-b/button", "undo", qos=1)  # nothing to undo: refused, in words
    undo = ear.last("senet-pi/hall-b/command/result", where=lambda h: h.json()["action"] == "undo").json()
    assert undo["ok"] is False
    assert "no move to undo" in undo["error"]
    ear.client.publish("senet-pi/hall-b/button", "format_disk", qos=1)
    odd = ear.last("senet-pi/hall-b/command/result", where=lambda h: h.json()["action"] == "format_disk").json()
    assert odd["ok"] is False
    assert "must be one of" in odd["error"]
    ear.client.publish("senet-pi/hall-b/button", "new_game", qos=1, retain=True)  # carried out live, once...
    wait_until(lambda: kinds.count("new_game") == 2)
    ear.close()
    board("hall-b", service=service, buttons=BUTTONS)  # ...and never again from the retained copy
    listen = Ear(mosquitto.port, "senet-pi/+/command/result")
    time.sleep(0.5)
    assert kinds.count("new_game") == 2
    listen.client.publish("senet-pi/hall-b/button", b"", retain=True)
    listen.close()


def test_a_board_without_buttons_ignores_a_press(mosquitto, board):
    ear = Ear(mosquitto.port, "senet-pi/#")
    service, publisher = board("hall-n")
    kinds = _verdicts(service)
    ear.client.publish("senet-pi/hall-n/button", "new_game", qos=1)
    service.press(random.Random(1))  # something that comes after the press
    ear.last("senet-pi/hall-n/verdicts")
    time.sleep(0.3)
    assert "new_game" not in kinds
    assert ear.on("senet-pi/hall-n/command/result") == []
    assert publisher.describe()["buttons"] == []


def test_an_illegal_move_is_an_event_and_the_summary_says_it_in_the_boards_language(mosquitto, board):
    ear = Ear(mosquitto.port, "senet-pi/+/event", "senet-pi/+/summary")
    service, _ = board("hall-de", language="de")
    service.press(random.Random(4))
    service.handle("move", "10-11")
    event = ear.last("senet-pi/hall-de/event", where=lambda h: h.json()["event_type"] == "illegal").json()
    assert event["ruling"]
    assert event["reason"]
    assert event["player"] == "B"
    summary = ear.last("senet-pi/hall-de/summary", where=lambda h: h.json()["last_kind"] == "illegal").json()
    assert summary["to_move"] == "Grün"
    assert summary["game"] == "playing"
    assert summary["last"]
    assert not summary["last"].startswith("!!")
    ear.close()


def test_a_question_left_waiting_calls_staff_in_the_summary_and_as_an_event(mosquitto, board):
    ear = Ear(mosquitto.port, "senet-pi/+/event", "senet-pi/+/summary")
    _, publisher = board("hall-q", staff_after=0.5)
    publisher._listen([Question(1, "capture", "Which piece?", ["a", "b"])])  # as the service would tell it
    event = ear.last("senet-pi/hall-q/event", 5, where=lambda h: h.json()["event_type"] == "needs_staff").json()
    assert event["reason"] == "question"
    assert "Which piece?" in event["text"]
    summary = ear.last("senet-pi/hall-q/summary", 5, where=lambda h: h.json()["needs_staff"]).json()
    assert "Which piece?" in summary["staff_reason"]
    publisher._listen([Answered(1, "a")])
    ear.last("senet-pi/hall-q/summary", 5, where=lambda h: h.json()["last_kind"] == "answered")
    assert ear.last("senet-pi/hall-q/summary").json()["needs_staff"] is False
    ear.close()


def test_nothing_in_the_summary_is_stale_after_a_restart(mosquitto, board):
    ear = Ear(mosquitto.port, "senet-pi/+/summary")
    service, publisher = board("hall-s")
    service.press(random.Random(4))
    ear.last("senet-pi/hall-s/summary", where=lambda h: h.json()["last"] == "Green throws 2")
    publisher.close()
    board("hall-s")  # a new run: a fresh game, nothing of the last one
    later = Ear(mosquitto.port, "senet-pi/+/summary")
    summary = later.last("senet-pi/hall-s/summary", where=lambda h: h.json()["last"] is None).json()
    assert summary["game"] == "waiting"
    assert summary["needs_staff"] is False
    newcomer = Ear(mosquitto.port, "senet-pi/+/summary")  # Home Assistant restarting: the retained summary
    retained = newcomer.last("senet-pi/hall-s/summary")
    assert retained.retain
    assert retained.json()["last"] is None  # type: ignore[index]
    newcomer.close()
    later.close()
    ear.close()


# ---------------------------------------------------------------------- the summary on its own


def _summary(staff_after: float = 60.0) -> Summary:
    return Summary(lambda v: f"words for {v.v}", staff_after)


STATE = {"player_names": {"A": "White", "B": "Green"}, "pieces": {"A": "the white cones", "B": "the green spools"}}


def test_a_win_says_who_and_the_score_and_nobody_is_to_move_once_it_is_over():
    summary = _summary()
    summary.json({**STATE, "to_move": "A", "touched": True}, 0)
    (event,) = summary.heard([Win("A", {"A": 5, "B": 3})], 10.0)
    assert event["event_type"] == "win"
    assert event["winner"] == "White"
    assert event["scores"] == {"A": 5, "B": 3}
    over = summary.json({**STATE, "to_move": "A", "winner": "A", "scores": {"A": 5, "B": 3}}, 10.0)
    assert over["game"] == "won"
    assert over["to_move"] is None
    assert over["to_move_pieces"] is None
    assert over["winner"] == "White"
    assert over["last"] == "words for win"
    assert over["last_kind"] == "win"


def test_the_table_needs_staff_after_a_question_or_a_fix_waits_and_at_once_for_a_switch_fault():
    summary = _summary(staff_after=30)
    assert summary.heard([Question(1, "capture", "Which piece?", ["a", "b"])], 0.0) == []
    assert summary.due(29.0) == []
    (called,) = summary.due(30.0)
    assert called["event_type"] == "needs_staff"
    assert called["reason"] == "question"
    assert summary.due(40.0) == []  # told once
    assert summary.json(STATE, 40.0)["needs_staff"] is True
    summary.heard([Answered(1, "a")], 41.0)
    assert summary.json(STATE, 41.0)["needs_staff"] is False

    summary.heard([Fix("put the piece back on 12")], 50.0)
    summary.heard([Settled()], 60.0)  # followed in time: nobody is called
    assert summary.due(200.0) == []
    summary.heard([Fix("put the piece back on 12")], 300.0)
    assert [e["reason"] for e in summary.due(330.0)] == ["fix"]

    (fault,) = summary.heard([Switch(7, "stuck closed", "the switch on 7 is stuck")], 400.0)
    assert fault["reason"] == "switch"
    assert summary.json(STATE, 400.0)["staff_reason"]
    summary.heard([Switch(7, None, "the switch on 7 works again")], 410.0)
    assert "switch" not in (summary.json(STATE, 410.0)["staff_reason"] or "")


def test_the_summary_leaves_the_referees_commentary_out_of_the_last_thing():
    summary = _summary()
    summary.heard([Win("B")], 1.0)
    summary.heard([Settled()], 2.0)  # "the board is as the game expects": not news
    assert summary.json(STATE, 2.0)["last_kind"] == "win"


@pytest.mark.parametrize(
    ("config", "said"),
    [
        ({"MQTT_BUTTONS": ["explode"]}, "MQTT_BUTTONS"),
        ({"MQTT_BUTTONS": "yes"}, "MQTT_BUTTONS"),
        ({"MQTT_PAGE_URL": "hall-1:8080"}, "MQTT_PAGE_URL"),
        ({"MQTT_STAFF_AFTER": 0}, "MQTT_STAFF_AFTER"),
        ({"MQTT_STAFF_AFTER": True}, "MQTT_STAFF_AFTER"),
    ],
)
def test_bad_home_assistant_settings_are_one_line(config, said):
    with pytest.raises(FleetError, match=said):
        fleet_settings("mqtt://broker", "b1", config)


def test_home_assistant_settings_come_from_the_config():
    config = {"MQTT_BUTTONS": ["resync", "new_game"], "MQTT_AREA": "Hall 1", "MQTT_PAGE_URL": "http://h1:8080/"}
    settings = fleet_settings("mqtt://broker", "b1", {**config, "MQTT_STAFF_AFTER": 90})
    assert settings is not None
    assert settings.buttons == ("new_game", "resync")  # in BUTTONS' order
    assert (settings.area, settings.page_url, settings.staff_after) == ("Hall 1", "http://h1:8080/", 90.0)
    assert fleet_settings("mqtt://broker", "b1", {"MQTT_BUTTONS": True}).buttons == BUTTONS  # type: ignore[union-attr]
    assert json.dumps(fleet_settings("mqtt://broker", "b1", {}).buttons) == "[]"  # type: ignore[union-attr]
