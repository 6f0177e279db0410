"""A real Home Assistant Core on a real Mosquitto with a simulated board: every entity the Fleet
page promises appears under one device with readable values, an automation triggered by the
board's event entity (an illegal move) presses the board's new-game button and the board starts
a new game, and the entities go unavailable when the board stops.

Opt-in and slow: SENET_PI_HOME_ASSISTANT names a `hass` program. Home Assistant Core 2024.3.3
(the newest on Python 3.11) installed with its own constraints file, in a venv of its own:

    python3 -m venv /tmp/ha && /tmp/ha/bin/pip download --no-deps -d /tmp/ha-dl homeassistant==2024.3.3
    unzip -p /tmp/ha-dl/homeassistant-2024.3.3-py3-none-any.whl homeassistant/package_constraints.txt > c.txt
    /tmp/ha/bin/pip install -c c.txt /tmp/ha-dl/homeassistant-2024.3.3-py3-none-any.whl paho-mqtt==1.6.1
    SENET_PI_HOME_ASSISTANT=/tmp/ha/bin/hass pytest tests/test_fleet_home_assistant.py

Its first start installs what else Home Assistant needs (its frontend, recorder...), with the same
constraints: a few minutes. After that the test takes about 10 s (the entities appear about 5 s
after Home Assistant starts).

Home Assistant's view is read from the broker: an automation publishes its senet entities'
states every two seconds (no HTTP token needed)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
import uuid

import pytest
from mqtt_helpers import Ear, stop_group, wait_until

from senet_pi.fleet import FleetSettings, parse_broker_url
from senet_pi.fleet.address import BUTTONS
from senet_pi.fleet.on_run import start_board
from senet_pi.service.core import Service
from senet_pi_web import create_app

HASS = os.environ.get("SENET_PI_HOME_ASSISTANT")
pytestmark = pytest.mark.skipif(not HASS, reason="opt-in and slow: set SENET_PI_HOME_ASSISTANT to a hass program")

CONFIGURATION = """
homeassistant:
  name: senet-pi test
  latitude: 0
  longitude: 0
  elevation: 0
  unit_system: metric
  time_zone: UTC
  country: GB
automation: !include automations.yaml
logger:
  default: warning
"""

AUTOMATIONS = """
- id: report
  alias: report the senet entities on the broker
  trigger:
    - platform: time_pattern
      seconds: "/2"
  action:
    - service: mqtt.publish
      data:
        topic: ha-test/states
        payload: >-
          {% set ns = namespace(items=[]) %}{% for s in states if 'senet_board' in s.entity_id %}{% set ns.items =
          ns.items + [[s.entity_id, s.state, s.attributes.get('event_type'), s.attributes.get('kind'),
          s.attributes.get('pieces'), s.attributes.get('options')]] %}{% endfor %}{{ ns.items | tojson }}
- id: illegal_means_new_game
  alias: an illegal move starts a new game (a museum's choice, to test the event and the button)
  trigger:
    - platform: state
      entity_id: event.senet_board_hall_ha_events
  condition:
    - condition: template
      value_template: "{{ trigger.to_state.attributes.event_type == 'illegal' }}"
  action:
    - service: button.press
      target:
        entity_id: button.senet_board_hall_ha_new_game
"""


def _config_entry(port: int) -> dict:
    entry = {
        "entry_id": uuid.uuid4().hex,
        "version": 1,
        "minor_version": 1,
        "domain": "mqtt",
        "title": "127.0.0.1",
        "data": {"broker": "127.0.0.1", "port": port, "discovery": True, "discovery_prefix": "homeassistant"},
        "options": {},
        "pref_disable_new_entities": False,
        "pref_disable_polling": False,
        "source": "user",
        "unique_id": None,
        "disabled_by": None,
    }
    return {"version": 1, "minor_version": 1, "key": "core.config_entries", "data": {"entries": [entry]}}


@pytest.fixture
def home_assistant(mosquitto, tmp_path):
    config = tmp_path / "ha"
    (config / ".storage").mkdir(parents=True)
    (config / "configuration.yaml").write_text(CONFIGURATION)
    (config / "automations.yaml").write_text(AUTOMATIONS)
    (config / ".storage" / "core.config_entries").write_text(json.dumps(_config_entry(mosquitto.port)))
    log = (tmp_path / "hass.log").open("wb")
    proc = subprocess.Popen(
        [str(HASS), "-c", str(config)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        yield proc, tmp_path / "hass.log"
    finally:
        stop_group(proc, log, 30)


def test_home_assistant_shows_the_board_and_its_automation_presses_new_game(mosquitto, home_assistant):
    _, log = home_assistant
    started = time.monotonic()
    ear = Ear(mosquitto.port, "ha-test/states", "senet-pi/+/command/result")
    service = Service(None)
    app = create_app({"TESTING": True}, service=service)
    settings = FleetSettings(
        parse_broker_url(mosquitto.url), "hall-ha", buttons=BUTTONS, area="Gallery 2", page_url="http://hall-ha:8080/"
    )
    publisher = start_board(service, None, settings, app)
    try:

        def entities() -> dict[str, list] | None:
            heard = ear.on("ha-test/states")
            if not heard:
                return None
            seen = {item[0]: item[1:] for item in heard[-1].json()}  # type: ignore[union-attr]
            return seen if len(seen) >= 11 else None

        expected = {
            "sensor.senet_board_hall_ha_game": "waiting",
            "sensor.senet_board_hall_ha_player_to_move": "Green",
            "binary_sensor.senet_board_hall_ha_needs_staff": "off",
            "binary_sensor.senet_board_hall_ha_switch_faults": "off",
            "binary_sensor.senet_board_hall_ha_journal_trouble": "off",
            "binary_sensor.senet_board_hall_ha_online": "on",
        }

        def as_expected() -> dict[str, list] | None:
            seen = entities()
            return seen if seen and all(seen.get(e, [None])[0] == state for e, state in expected.items()) else None

        try:
            seen = wait_until(as_expected, 240, 0.5)
        except AssertionError:
            raise AssertionError(f"Home Assistant showed {entities()}") from None
        up = time.monotonic() - started
        for button in ("new_game", "undo_the_last_move", "take_the_board_as_it_is"):
            assert f"button.senet_board_hall_ha_{button}" in seen  # type: ignore[operator]
        assert "event.senet_board_hall_ha_events" in seen  # type: ignore[operator]
        assert "sensor.senet_board_hall_ha_last_verdict" in seen  # type: ignore[operator]

        kinds: list[str] = []
        service.subscribe(lambda verdicts: kinds.extend(v.v for v in verdicts))
        service.press(random.Random(4))
        wait_until(
            lambda: (e := entities()) and e["sensor.senet_board_hall_ha_last_verdict"][0] == "Green throws 2", 20, 0.5
        )
        service.handle("move", "10-11")  # illegal: the event entity fires, the automation presses New game
        wait_until(lambda: "new_game" in kinds, 20, 0.5)
        result = ear.last("senet-pi/hall-ha/command/result", 10).json()
        assert result == {"ok": True, "action": "new_game", "via": "button"}

        publisher.close()  # the board stops: Home Assistant shows its entities unavailable
        wait_until(lambda: (e := entities()) and e["sensor.senet_board_hall_ha_game"][0] == "unavailable", 20, 0.5)
        print(f"home assistant: entities {up:.1f} s after start, whole test {time.monotonic() - started:.1f} s")
        said = log.read_text(errors="replace").splitlines()
        assert [line for line in said if "ERROR" in line and "mqtt" in line.lower()] == []  # no discovery error
    finally:
        publisher.close()
        ear.close()
