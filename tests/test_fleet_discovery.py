"""Home Assistant discovery and the signed remote commands of a board on the broker,
against a real Mosquitto: the payloads checked against Home Assistant's documented MQTT discovery
schema (sensor and binary_sensor: device, availability, unique ids) and their templates rendered
with Jinja, as Home Assistant does, on the board's real state."""

from __future__ import annotations

import json
import random
import re

import jinja2
import pytest
from mqtt_helpers import Ear, wait_until

from senet_pi.fleet import FleetSettings, parse_broker_url
from senet_pi.fleet.commands import WINDOW, CommandCheck, sign
from senet_pi.fleet.on_run import start_board
from senet_pi.service.core import Service
from senet_pi_web import create_app

SECRET = "a-museum-secret-of-some-length"

# Home Assistant's documented configuration variables (MQTT sensor / binary sensor, MQTT discovery).
COMMON = {
    "availability", "availability_mode", "availability_template", "availability_topic", "default_entity_id",
    "device", "device_class", "enabled_by_default", "encoding", "entity_category", "entity_picture",
    "expire_after", "force_update", "icon", "json_attributes_template", "json_attributes_topic", "name",
    "object_id", "origin", "payload_available", "payload_not_available", "platform", "qos", "state_topic",
    "unique_id", "value_template",
}  # fmt: skip
ALLOWED = {
    "sensor": COMMON
    | {"last_reset_value_template", "options", "suggested_display_precision", "state_class", "unit_of_measurement"},
    "binary_sensor": COMMON | {"off_delay", "payload_off", "payload_on"},
    "event": (COMMON - {"expire_after", "force_update"}) | {"event_types"},
    "button": (COMMON - {"expire_after", "force_update", "state_topic", "value_template"})
    | {"command_template", "command_topic", "payload_press", "retain"},
}
DEVICE_KEYS = {
    "configuration_url", "connections", "hw_version", "identifiers", "manufacturer", "model", "model_id", "name",
    "serial_number", "suggested_area", "sw_version", "via_device",
}  # fmt: skip
DEVICE_CLASSES = {"binary_sensor": {"problem", "connectivity"}, "sensor": {"enum"}, "event": set(), "button": set()}
TOPIC = re.compile(r"homeassistant/(sensor|binary_sensor|event|button)/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+/config")


@pytest.fixture
def board(mosquitto):
    made = []

    def start(name: str = "hall-3", **settings):
        service = Service(None)
        app = create_app({"TESTING": True}, service=service)
        publisher = start_board(service, None, FleetSettings(parse_broker_url(mosquitto.url), name, **settings), app)
        made.append(publisher)
        wait_until(lambda: publisher.listening)
        return service, app, publisher

    yield start
    for publisher in made:
        publisher.close()


def _render(template: str, payload: bytes) -> str:
    """A value template as Home Assistant renders it: Jinja with `value` and `value_json`."""
    env = jinja2.Environment()
    return env.from_string(template).render(value=payload.decode(), value_json=json.loads(payload)).strip()


def test_discovery_makes_one_device_with_the_entities_home_assistant_documents(mosquitto, board):
    ear = Ear(mosquitto.port, "homeassistant/#", "senet-pi/#")
    settings = {"area": "Gallery 2", "page_url": "http://hall-3.local:8080/", "buttons": ("new_game", "undo")}
    service, _, _ = board("hall-3", **settings)
    wait_until(lambda: len([h for h in ear.on_prefix("homeassistant/") if h.payload]) >= 10)
    later = Ear(mosquitto.port, "homeassistant/#")  # retained: a Home Assistant started later has them all
    heard = wait_until(lambda: len(later.on_prefix("homeassistant/")) >= 10 and later.on_prefix("homeassistant/"))
    configs = {h.topic: (h.json(), h.retain) for h in heard}  # type: ignore[union-attr]
    later.close()
    assert all(retained for _, retained in configs.values())
    entities = {}
    for topic, (config, _) in configs.items():
        component = TOPIC.fullmatch(topic).group(1)  # type: ignore[union-attr]
        assert set(config) <= ALLOWED[component], set(config) - ALLOWED[component]
        assert set(config["device"]) <= DEVICE_KEYS
        assert config["device"]["identifiers"] == ["senet-pi_hall-3"]
        assert config["device"]["configuration_url"] == "http://hall-3.local:8080/"
        assert config["device"]["suggested_area"] == "Gallery 2"
        assert config["origin"]["name"] == "senet-pi"
        topic_key = "command_topic" if component == "button" else "state_topic"
        assert config[topic_key].startswith("senet-pi/hall-3/")
        if "device_class" in config:
            assert config["device_class"] in DEVICE_CLASSES[component]
        assert config.get("entity_category", "diagnostic") == "diagnostic"
        entities[config["unique_id"]] = (component, config)
    assert len(entities) == len(configs)  # unique ids
    names = {uid.removeprefix("senet-pi_hall-3_") for uid in entities}
    assert {"game_state", "to_move", "last_verdict", "switch_faults", "journal", "online"} <= names
    assert {"needs_staff", "events", "new_game", "undo"} <= names
    assert "resync" not in names  # buttons as allowed
    for uid, (_, config) in entities.items():
        if uid.endswith("_online"):
            assert config["state_topic"] == "senet-pi/hall-3/status"
            assert config["payload_on"] == "online"
            assert 0 < config["expire_after"] <= 120  # unavailable once the heartbeat stops
        else:  # the board's status is every other entity's availability
            assert config["availability_topic"] == "senet-pi/hall-3/status"
            assert (config["payload_available"], config["payload_not_available"]) == ("online", "offline")
    by_name = {uid.removeprefix("senet-pi_hall-3_"): config for uid, (_, config) in entities.items()}
    assert by_name["game_state"]["options"] == ["waiting", "playing", "won"]
    assert by_name["events"]["event_types"] == ["win", "illegal", "new_game", "needs_staff"]
    assert by_name["new_game"]["command_topic"] == "senet-pi/hall-3/button"
    assert by_name["new_game"]["payload_press"] == "new_game"
    removed = [h for h in ear.on_prefix("homeassistant/button/") if h.topic.endswith("/resync/config")]
    assert removed
    assert removed[-1].payload == b""  # a button the config does not allow is removed

    # The templates, rendered on what the board really publishes, give the values Home Assistant shows.
    assert _render(by_name["game_state"]["value_template"], ear.last("senet-pi/hall-3/summary").payload) == "waiting"
    service.press(random.Random(4))
    summary = ear.last("senet-pi/hall-3/summary", where=lambda h: h.json()["last"] is not None).payload
    state = ear.last("senet-pi/hall-3/state", where=lambda h: h.json()["last_throw"] is not None).payload
    assert _render(by_name["game_state"]["value_template"], summary) == "playing"
    assert by_name["game_state"]["value_template"]
    assert json.loads(summary)["game"] in by_name["game_state"]["options"]
    assert _render(by_name["to_move"]["value_template"], summary) == "Green" == json.loads(state)["player_names"]["B"]
    assert json.loads(_render(by_name["to_move"]["json_attributes_template"], summary)) == {
        "pieces": "the green spools"
    }
    assert _render(by_name["last_verdict"]["value_template"], summary) == "Green throws 2"
    assert json.loads(_render(by_name["last_verdict"]["json_attributes_template"], summary))["kind"] == "throw"
    assert _render(by_name["needs_staff"]["value_template"], summary) == "OFF"
    assert _render(by_name["switch_faults"]["value_template"], state) == "OFF"
    assert _render(by_name["journal"]["value_template"], state) == "OFF"
    attributes = json.loads(_render(by_name["game_state"]["json_attributes_template"], summary))
    assert attributes["variant"] == service.variant
    ear.close()


def test_a_signed_command_starts_a_new_game_and_a_forged_or_copied_one_is_refused(mosquitto, board):
    ear = Ear(mosquitto.port, "senet-pi/+/command/result")
    service, _, publisher = board("clubroom", commands=True, command_secret=SECRET)
    assert publisher.describe()["commands"] is True
    service.press(random.Random(4))
    command = sign(SECRET, "clubroom", "new_game", {"variant": "houses", "players": 2}, nonce=publisher.command_nonce)
    ear.client.publish("senet-pi/clubroom/command", json.dumps(command), qos=1)
    result = ear.last("senet-pi/clubroom/command/result").json()
    assert result == {"ok": True, "id": command["id"], "action": "new_game"}
    assert service.variant == "houses"
    assert service.snapshot().to_json()["last_throw"] is None

    ear.client.publish("senet-pi/clubroom/command", json.dumps(command), qos=1)  # the same message again
    copied = ear.last("senet-pi/clubroom/command/result", where=lambda h: not h.json()["ok"]).json()
    assert "already carried out" in copied["error"]
    forged = sign("another-secret-of-some-length", "clubroom", "resync", nonce=publisher.command_nonce)
    ear.client.publish("senet-pi/clubroom/command", json.dumps(forged), qos=1)
    wrong = ear.last(
        "senet-pi/clubroom/command/result",
        where=lambda h: h.json().get("id") is None and "signature" in h.json()["error"],
    )
    assert not wrong.json()["ok"]
    assert service.variant == "houses"
    ear.close()


def test_a_board_without_mqtt_commands_does_not_listen_for_them(mosquitto, board):
    ear = Ear(mosquitto.port, "senet-pi/#")
    service, _, publisher = board("shy")
    assert publisher.describe()["commands"] is False
    ear.client.publish("senet-pi/shy/command", json.dumps(sign(SECRET, "shy", "new_game", nonce="n")), qos=1)
    variant, game = service.variant, service.game_id
    service.press(random.Random(1))  # something to wait for that comes after the command
    ear.last("senet-pi/shy/verdicts")
    assert ear.on("senet-pi/shy/command/result") == []
    assert (service.variant, service.game_id) == (variant, game)
    ear.close()


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda c: {**c, "board": "other"}, "signature"),  # changed after signing
        (lambda c: {**c, "hmac": "0" * 64}, "signature"),
        (lambda c: {k: v for k, v in c.items() if k != "nonce"}, "must have"),
    ],
)
def test_a_changed_command_is_refused(change, why):
    check = CommandCheck(SECRET, "b1")
    with pytest.raises(ValueError, match=why):
        check.check(json.dumps(change(sign(SECRET, "b1", "resync", nonce=check.nonce))).encode())


def test_a_stale_command_or_one_for_another_board_is_refused():
    now = [10_000.0]
    check = CommandCheck(SECRET, "b1", clock=lambda: now[0])
    old = sign(SECRET, "b1", "resync", nonce=check.nonce)
    now[0] += 2 * WINDOW + 1  # two nonces later, on the monotonic clock
    with pytest.raises(ValueError, match="nonce is not this board's current one"):
        check.check(json.dumps(old).encode())
    with pytest.raises(ValueError, match="for board 'b2'"):
        check.check(json.dumps(sign(SECRET, "b2", "resync", nonce=check.nonce)).encode())
    assert check.check(json.dumps(sign(SECRET, "b1", "resync", nonce=check.nonce)).encode())["action"] == "resync"
