"""Where the fleet's broker is and what this board is called: `--mqtt URL`, `--board NAME`, or the
instance config's MQTT_URL, BOARD, MQTT_USERNAME and MQTT_PASSWORD (../shared/spec/fleet.md).

A password is kept out of every text this module makes: `BrokerAddress.shown` and its repr
name the user and the host only, so no log line, error or published state can carry it.
"""

from __future__ import annotations

import re
import socket
import sys
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..errors import FleetError

BOARD_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class BrokerAddress:
    """A broker to connect to: host, port, TLS or not, and the credentials (the password never shown)."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: str | None = None  # a CA bundle for mqtts:// (default: the system's)

    @property
    def shown(self) -> str:
        """The address as a person may read it: `mqtts://user@host:port`, never the password."""
        user = f"{urllib.parse.quote(self.username, safe='')}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{host}:{self.port}"

    def __str__(self) -> str:
        return self.shown


def parse_broker_url(url: str, username: str | None = None, password: str | None = None) -> BrokerAddress:
    """`mqtt://[USER[:PASS]@]HOST[:PORT]` or `mqtts://...`; `username`/`password` (the config's) are
    used when the URL gives none. FleetError says what is wrong, without repeating a password."""
    if not isinstance(url, str) or not url.strip():
        raise FleetError("the broker URL is empty: give one like mqtt://broker.local:1883")
    try:
        parts = urllib.parse.urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise FleetError("the broker URL has a bad port: use mqtt://HOST:PORT with PORT from 1 to 65535") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise FleetError("the broker URL must start with mqtt:// or mqtts:// (TLS), e.g. mqtt://broker.local:1883")
    if not parts.hostname:
        raise FleetError("the broker URL names no host: use mqtt://HOST:PORT")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise FleetError("the broker URL takes no path or query: use mqtt://HOST:PORT")
    if port == 0:
        raise FleetError("the broker URL has a bad port: use mqtt://HOST:PORT with PORT from 1 to 65535")
    user = urllib.parse.unquote(parts.username) if parts.username else username
    secret = urllib.parse.unquote(parts.password) if parts.password is not None else password
    if secret and not user:
        raise FleetError("the broker URL has a password but no user name: use mqtt://USER:PASSWORD@HOST")
    return BrokerAddress(parts.hostname, port or DEFAULT_PORTS[scheme], scheme == "mqtts", user or None, secret)


def check_board_name(name: str) -> str:
    """The board's name as it goes into topics: letters, digits, - and _ (at most 64)."""
    if not isinstance(name, str) or not BOARD_NAME.fullmatch(name):
        shown = repr(name) if len(repr(name)) <= 40 else repr(name)[:37] + "..."
        raise FleetError(f"the board name {shown} may hold only letters, digits, - and _ (1 to 64 of them)")
    return name


def default_board_name() -> str:
    """The machine's host name (its first label), as the spec says a board is named by default."""
    host = socket.gethostname().split(".")[0]
    if not BOARD_NAME.fullmatch(host):
        raise FleetError(f"this machine's host name {host!r} is not a board name: give one with --board NAME")
    return host


@dataclass(frozen=True)
class FleetSettings:
    """Everything `senet-pi run` needs to put a board on the broker."""

    broker: BrokerAddress
    board: str
    commands: bool = False  # MQTT_COMMANDS: whether the dashboard may start a new game or resync
    command_secret: str | None = field(default=None, repr=False)  # MQTT_COMMAND_SECRET, shared with the dashboard
    discovery_prefix: str = "homeassistant"
    buttons: tuple[str, ...] = ()  # MQTT_BUTTONS: the staff buttons Home Assistant may press (the broker authorises)
    area: str | None = None  # MQTT_AREA: the room Home Assistant suggests for the board's device
    page_url: str | None = None  # MQTT_PAGE_URL: the board's page, linked from Home Assistant
    staff_after: float = 60.0  # MQTT_STAFF_AFTER: seconds before a question or a fix left waiting calls staff


MIN_SECRET = 16  # characters a command secret needs at least


def fleet_settings(url: str | None, board: str | None, config: Mapping[str, object]) -> FleetSettings | None:
    """The board's fleet settings from the command line (first) and the config, or None when no
    broker is named (then nothing is published and nothing waits for a broker)."""
    if url:
        warn_of_password(url)
    url = url or _text(config, "MQTT_URL")
    if not url:
        if board is not None or config.get("MQTT_COMMANDS"):
            raise FleetError("a board name or MQTT_COMMANDS needs a broker too: give --mqtt URL (or MQTT_URL)")
        return None
    address = broker_from(url, config)
    if board is None:
        board = _text(config, "BOARD")
    name = check_board_name(default_board_name() if board is None else board)
    commands = bool(config.get("MQTT_COMMANDS", False))
    secret = command_secret(config) if commands else None
    return FleetSettings(
        address,
        name,
        commands,
        secret,
        _text(config, "MQTT_DISCOVERY_PREFIX") or "homeassistant",
        buttons_from(config.get("MQTT_BUTTONS", False)),
        _text(config, "MQTT_AREA"),
        page_url_from(_text(config, "MQTT_PAGE_URL")),
        staff_after_from(config.get("MQTT_STAFF_AFTER", 60)),
    )


BUTTONS = ("new_game", "undo", "resync")  # what a staff button may do, in the order Home Assistant shows them


def buttons_from(value: object) -> tuple[str, ...]:
    """MQTT_BUTTONS: true (every button), false, or a list of BUTTONS."""
    if value is True:
        return BUTTONS
    if value is False or value is None:
        return ()
    if isinstance(value, list) and all(isinstance(b, str) and b in BUTTONS for b in value):
        return tuple(b for b in BUTTONS if b in value)
    raise FleetError(f"MQTT_BUTTONS in the config must be true, false or a list of {', '.join(BUTTONS)}")


def page_url_from(value: str | None) -> str | None:
    """MQTT_PAGE_URL: an http:// or https:// address (Home Assistant links only those)."""
    if value is None:
        return None
    if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
        raise FleetError("MQTT_PAGE_URL in the config must be the board page's address, like http://hall-1.local:8080/")
    return value


def staff_after_from(value: object) -> float:
    """MQTT_STAFF_AFTER: seconds from 5 to 3600."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 5 <= value <= 3600:
        raise FleetError("MQTT_STAFF_AFTER in the config must be a number of seconds from 5 to 3600")
    return float(value)


PASSWORD_WARNING = (
    "warning: the password given in --mqtt can be read by every user of this machine (in ps): "
    "put it in config.toml as MQTT_PASSWORD instead"
)


def warn_of_password(command_line_url: str, say: Callable[[str], None] | None = None) -> bool:
    """Warn (on stderr) when a broker URL given on the command line holds a password; whether it did."""
    try:
        secret = urllib.parse.urlsplit(command_line_url.strip()).password
    except ValueError:
        return False
    if not secret:
        return False
    (say or (lambda text: print(text, file=sys.stderr)))(PASSWORD_WARNING)
    return True


def broker_from(url: str, config: Mapping[str, object]) -> BrokerAddress:
    """The broker at `url`, with the config's MQTT_USERNAME and MQTT_PASSWORD when the URL has
    none, and its MQTT_CA_FILE for mqtts://."""
    address = parse_broker_url(url, _text(config, "MQTT_USERNAME"), _text(config, "MQTT_PASSWORD"))
    return BrokerAddress(**{**address.__dict__, "ca_file": _text(config, "MQTT_CA_FILE")})


def command_secret(config: Mapping[str, object]) -> str:
    """MQTT_COMMAND_SECRET, which signs and checks remote commands; FleetError when missing or short."""
    secret = _text(config, "MQTT_COMMAND_SECRET")
    if not secret or len(secret) < MIN_SECRET:
        raise FleetError(
            f"remote commands need MQTT_COMMAND_SECRET in the config: the same {MIN_SECRET} or more characters "
            "on the board and the dashboard"
        )
    return secret


def _text(config: Mapping[str, object], key: str) -> str | None:
    value = config.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise FleetError(f"{key} in the config must be a string, not a {type(value).__name__}")
    return value
