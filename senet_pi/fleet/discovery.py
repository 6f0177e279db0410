"""Home Assistant MQTT discovery for one board: a device with its entities, no YAML by hand.

Each entity is a retained `PREFIX/COMPONENT/senet-pi_BOARD/ENTITY/config` message in Home
Assistant's documented discovery schema: `unique_id`, the shared `device` (`identifiers`,
`name`, `manufacturer`, `model`, `sw_version`), `origin`, and the board's status topic as
`availability` (online/offline), so every entity shows "unavailable" when the board is down.
The values come from the board's own retained topics through `value_template`s.
"""

from __future__ import annotations

from .. import __version__
from . import topics

#: (component, entity id, name, what else the entity's config holds); the state topic is the board's state unless given.
ENTITIES: list[tuple[str, str, str, dict[str, object]]] = [
    (
        "sensor",
        "game_state",
        "Game",
        {
            "value_template": "{% if value_json.winner %}won by {{ value_json.winner }}"
            "{% elif value_json.touched %}in play{% else %}waiting for players{% endif %}",
            "json_attributes_topic": "STATE",
            "json_attributes_template": "{{ {'game': value_json.game, 'variant': value_json.variant,"
            " 'players': value_json.players, 'off': value_json.off} | tojson }}",
            "icon": "mdi:checkerboard",
        },
    ),
    ("sensor", "to_move", "Player to move", {"value_template": "{{ value_json.to_move }}", "icon": "mdi:account"}),
    (
        "sensor",
        "last_verdict",
        "Last verdict",
        {
            "state_topic": "VERDICTS",
            "value_template": "{{ value_json.v }}",
            "json_attributes_topic": "VERDICTS",
            "icon": "mdi:gavel",
        },
    ),
    (
        "binary_sensor",
        "switch_faults",
        "Switch faults",
        {
            "device_class": "problem",
            "value_template": "{{ 'ON' if value_json.switch_faults else 'OFF' }}",
            "json_attributes_topic": "STATE",
            "json_attributes_template": "{{ {'squares': value_json.switch_faults} | tojson }}",
            "entity_category": "diagnostic",
        },
    ),
    (
        "binary_sensor",
        "journal",
        "Journal trouble",
        {
            "device_class": "problem",
            "value_template": "{{ 'ON' if value_json.journal else 'OFF' }}",
            "entity_category": "diagnostic",
        },
    ),
    (
        "binary_sensor",
        "online",
        "Online",
        {
            "state_topic": "STATUS",
            "device_class": "connectivity",
            "payload_on": "online",
            "payload_off": "offline",
            "entity_category": "diagnostic",
        },
    ),
]


def device(board: str) -> dict[str, object]:
    """The Home Assistant device every entity of this board belongs to."""
    return {
        "identifiers": [f"senet-pi_{board}"],
        "name": f"Senet board {board}",
        "manufacturer": "senet-pi",
        "model": "Senet referee",
        "sw_version": __version__,
    }


def discovery_messages(board: str, prefix: str = "homeassistant") -> list[tuple[str, dict[str, object]]]:
    """(topic, config) for every entity of `board`, to be published retained."""
    named = {"STATE": topics.state(board), "VERDICTS": topics.verdicts(board), "STATUS": topics.status(board)}
    out = []
    for component, entity, name, extra in ENTITIES:
        config: dict[str, object] = {
            "name": name,
            "unique_id": f"senet-pi_{board}_{entity}",
            "state_topic": topics.state(board),
            "device": device(board),
            "origin": {"name": "senet-pi", "sw_version": __version__},
            "qos": 1,
        }
        config.update({k: named.get(v, v) if isinstance(v, str) else v for k, v in extra.items()})
        if entity != "online":  # the online entity itself says off rather than unavailable
            config["availability_topic"] = topics.status(board)
            config.update(payload_available="online", payload_not_available="offline")
        out.append((f"{prefix}/{component}/senet-pi_{board}/{entity}/config", config))
    return out
