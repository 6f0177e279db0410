"""Home Assistant MQTT discovery for one board: a device with its entities, no YAML by hand.

Each entity is a retained `PREFIX/COMPONENT/senet-pi_BOARD/ENTITY/config` message in Home
Assistant's documented discovery schema: `unique_id`, the shared `device` (`identifiers`,
`name`, `manufacturer`, `model`, `sw_version`, and from the config `configuration_url` and
`suggested_area`), `origin`, and the board's status topic as `availability` (online/offline),
so every entity shows "unavailable" when the board is down.

The readable entities come from the board's retained summary (see `summary`): the game as an
enum sensor, the player to move by name, the last thing that happened in words with its kind
as an attribute; nothing of them is stale after a restart. An event entity carries the board's
events (a win, an illegal move, a new game, a table needing staff) for automations, and, when
the config allows them, button entities press the staff buttons. A button the config no longer
allows is removed (an empty retained config), so Home Assistant drops it.
"""

from __future__ import annotations

from .. import __version__
from . import topics
from .address import BUTTONS, FleetSettings
from .summary import EVENT_TYPES, GAME_STATES

#: (component, entity id, name, what else its config holds); the state topic is the summary unless given.
ENTITIES: list[tuple[str, str, str, dict[str, object]]] = [
    (
        "sensor",
        "game_state",
        "Game",
        {
            "device_class": "enum",
            "options": GAME_STATES,
            "value_template": "{{ value_json.game }}",
            "json_attributes_topic": "SUMMARY",
            "json_attributes_template": "{{ {'number': value_json.number, 'variant': value_json.variant,"
            " 'winner': value_json.winner, 'scores': value_json.scores} | tojson }}",
            "icon": "mdi:checkerboard",
        },
    ),
    (
        "sensor",
        "to_move",
        "Player to move",
        {
            "value_template": "{{ value_json.to_move if value_json.to_move else 'none' }}",
            "json_attributes_topic": "SUMMARY",
            "json_attributes_template": "{{ {'pieces': value_json.to_move_pieces} | tojson }}",
            "icon": "mdi:account",
        },
    ),
    (
        "sensor",
        "last_verdict",
        "Last verdict",
        {
            "value_template": "{{ (value_json.last or '')[:255] }}",
            "json_attributes_topic": "SUMMARY",
            "json_attributes_template": "{{ {'kind': value_json.last_kind, 'at': value_json.last_at} | tojson }}",
            "icon": "mdi:gavel",
        },
    ),
    (
        "binary_sensor",
        "needs_staff",
        "Needs staff",
        {
            "device_class": "problem",
            "value_template": "{{ 'ON' if value_json.needs_staff else 'OFF' }}",
            "json_attributes_topic": "SUMMARY",
            "json_attributes_template": "{{ {'reason': value_json.staff_reason} | tojson }}",
            "icon": "mdi:account-alert",
        },
    ),
    (
        "event",
        "events",
        "Events",
        {"state_topic": "EVENT", "event_types": EVENT_TYPES, "icon": "mdi:bell-ring"},
    ),
    (
        "binary_sensor",
        "switch_faults",
        "Switch faults",
        {
            "state_topic": "STATE",
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
            "state_topic": "STATE",
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
            "expire_after": "LIVENESS",  # unavailable when the heartbeat stops, even with no last will
            "entity_category": "diagnostic",
        },
    ),
]

#: The staff buttons: (action, name, icon).
BUTTON_ENTITIES = [
    ("new_game", "New game", "mdi:restart"),
    ("undo", "Undo the last move", "mdi:undo"),
    ("resync", "Take the board as it is", "mdi:sync"),
]
assert [b[0] for b in BUTTON_ENTITIES] == list(BUTTONS)


def device(settings: FleetSettings) -> dict[str, object]:
    """The Home Assistant device every entity of this board belongs to."""
    out: dict[str, object] = {
        "identifiers": [f"senet-pi_{settings.board}"],
        "name": f"Senet board {settings.board}",
        "manufacturer": "senet-pi",
        "model": "Senet referee",
        "sw_version": __version__,
    }
    if settings.page_url:
        out["configuration_url"] = settings.page_url
    if settings.area:
        out["suggested_area"] = settings.area
    return out


def discovery_messages(settings: FleetSettings) -> list[tuple[str, dict[str, object] | None]]:
    """(topic, config) for every entity of the board, to be published retained; config None: an
    entity to remove (an empty retained message), a button the config no longer allows."""
    board = settings.board
    named: dict[str, object] = {
        "LIVENESS": topics.LIVENESS,
        "STATE": topics.state(board),
        "SUMMARY": topics.summary(board),
        "EVENT": topics.event(board),
        "STATUS": topics.status(board),
    }
    common: dict[str, object] = {"device": device(settings), "origin": {"name": "senet-pi", "sw_version": __version__}}
    available = {
        "availability_topic": topics.status(board),
        "payload_available": "online",
        "payload_not_available": "offline",
    }
    out: list[tuple[str, dict[str, object] | None]] = []
    for component, entity, name, extra in ENTITIES:
        config: dict[str, object] = {
            "name": name,
            "unique_id": f"senet-pi_{board}_{entity}",
            "state_topic": topics.summary(board),
            **common,
            "qos": 1,
        }
        config.update({k: named.get(v, v) if isinstance(v, str) else v for k, v in extra.items()})
        if entity != "online":  # the online entity itself says off rather than unavailable
            config.update(available)
        out.append((_topic(settings, component, entity), config))
    for action, name, icon in BUTTON_ENTITIES:
        button: dict[str, object] | None = None
        if action in settings.buttons:
            button = {
                "name": name,
                "unique_id": f"senet-pi_{board}_{action}",
                "command_topic": topics.button(board),
                "payload_press": action,
                "icon": icon,
                **common,
                **available,
                "qos": 1,
                "retain": False,
            }
        out.append((_topic(settings, "button", action), button))
    return out


def retained_topics(settings: FleetSettings) -> list[str]:
    """Every retained topic a board leaves on the broker: cleared (an empty retained message each)
    when a board is retired, nothing is left behind."""
    board = settings.board
    return [topics.status(board), topics.state(board), topics.summary(board)] + [
        topic for topic, _ in discovery_messages(settings)
    ]


def _topic(settings: FleetSettings, component: str, entity: str) -> str:
    return f"{settings.discovery_prefix}/{component}/senet-pi_{settings.board}/{entity}/config"
