"""Every setting a user can put in the instance `config.toml`, and the environment variables read.

One typed table, so the checks at start, the page's defaults and the Configuration page of the
documentation (rendered from `SETTINGS` and `ENVIRONMENT`) cannot disagree. The file is found
and read here too (`load_instance_config`), so the command line, the server and the page all take
their settings from this one home; the page (`senet_pi_web`) applies them. No Flask here.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .errors import SenetError
from .i18n import LANGUAGES
from .opponent.levels import LEVEL_RANGE, level_names
from .tomlfile import read_toml

#: A check: the value (already of one of the setting's types) -> what is wrong with it, or None.
Check = Callable[[object], str | None]


@dataclass(frozen=True)
class Setting:
    """One config.toml key: its types, its default, what it means, and the check it must pass."""

    name: str
    types: tuple[type, ...]
    wanted: str  #: the values it takes, as the message for a wrong one says it ("a string")
    default: object
    meaning: str
    check: Check | None = None
    default_text: str = ""  #: the default in words, where it is worked out at start rather than fixed

    def problem(self, value: object) -> str | None:
        """What is wrong with `value` for this key, as one line naming the key; None if it is good."""
        if (isinstance(value, bool) and bool not in self.types) or not isinstance(value, self.types):
            return f"{self.name} must be {self.wanted}, not a {type(value).__name__}"
        return self.check(value) if self.check else None

    @property
    def type_name(self) -> str:
        """The TOML types it takes, for the documentation."""
        names = {str: "string", int: "integer", float: "number", bool: "boolean", list: "list of strings"}
        if self.types == (int, float):
            return "number"
        return " or ".join(names[t] for t in self.types)

    @property
    def shown_default(self) -> str:
        """The default as the documentation shows it."""
        if self.default_text:
            return self.default_text
        if self.default is None:
            return "none"
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if isinstance(self.default, str):
            return f'"{self.default}"'
        return str(self.default)


def _within(value: object, low: float, high: float = math.inf) -> bool:
    """Whether a setting's value (its type already checked) is a number from `low` to `high`."""
    return isinstance(value, int | float) and low <= value <= high


def _pin_delay(value: object) -> str | None:
    return None if _within(value, 0, 30) else f"PIN_DELAY must be {_PIN_DELAY}"


def _language(value: object) -> str | None:
    return None if value in LANGUAGES else f"LANGUAGE must be {_LANGUAGE}, not {value!r}"


def _content_length(value: object) -> str | None:
    return None if _within(value, 1024) else "MAX_CONTENT_LENGTH must be at least 1024"


def _level(value: object) -> str | None:
    return None if value in LEVEL_RANGE else f"COMPUTER_LEVEL must be {_LEVEL}, not {value}"


def _idle(value: object) -> str | None:
    return None if isinstance(value, int | float) and value > 0 else f"IDLE_MINUTES must be {_IDLE}, not {value}"


def _hosts(value: object) -> str | None:
    if isinstance(value, list):
        for item in value:
            if not isinstance(item, str):
                return f"HOSTS must be {_HOSTS}, not a list holding a {type(item).__name__}"
    return None


_HOST_PORT = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


def _server_name(value: object) -> str | None:
    if _HOST_PORT.fullmatch(str(value)):
        return None
    return f"SERVER_NAME must be {_SERVER_NAME}, not {value!r}"


def _samesite(value: object) -> str | None:
    return None if value in ("Strict", "Lax") else f"SESSION_COOKIE_SAMESITE must be {_SAMESITE}, not {value!r}"


def _streams(value: object) -> str | None:
    return None if _within(value, 1) else f"MAX_LIVE_STREAMS must be {_STREAMS}, not {value}"


def _question(value: object) -> str | None:
    return None if _within(value, 5, 600) else f"QUESTION_SECONDS must be {_QUESTION}, not {value}"


def _hint_wait(value: object) -> str | None:
    return None if _within(value, 0, 60) else f"HINT_WAIT must be {_HINT_WAIT}, not {value}"


_PIN_DELAY = "a number of seconds from 0 to 30"
_LANGUAGE = f"one of {', '.join(LANGUAGES)} (the page's and the terminal's default language)"
_LEVEL = f"the computer's level: {level_names()}"
_IDLE = "a number of minutes more than 0 (exhibit mode: idle time before a new game)"
_HOSTS = "a host name, or a list of the names the page is reached by"
_SERVER_NAME = "a host name, with :PORT if not the usual one (e.g. senet.local:8080)"
_SAMESITE = '"Strict" or "Lax"'
_STREAMS = "a whole number of live streams, 1 or more"
_HINT_WAIT = "a number of seconds from 0 to 60"
_QUESTION = "a number of seconds from 5 to 600 (how long a question waits before the likelier answer is taken)"

#: Every key of config.toml the board and its page read, in the order the documentation lists them.
#: What a Home Assistant button may do (senet_pi.fleet.address.BUTTONS, which a test holds equal).
_BUTTONS = ("new_game", "undo", "resync")
_BUTTONS_WANTED = 'true (every button), false, or a list of "new_game", "undo", "resync"'
_PAGE_URL_WANTED = "the board page's address, like http://hall-1.local:8080/"
_STAFF_WANTED = "a number of seconds from 5 to 3600"


def _buttons(value: object) -> str | None:
    if isinstance(value, list) and any(item not in _BUTTONS for item in value):
        return f"MQTT_BUTTONS must be {_BUTTONS_WANTED}, not {value!r}"
    return None


def _page_url(value: object) -> str | None:
    if re.fullmatch(r"https?://[^\s/]+(/\S*)?", str(value)):
        return None
    return f"MQTT_PAGE_URL must be {_PAGE_URL_WANTED}, not {value!r}"


def _staff_after(value: object) -> str | None:
    return None if _within(value, 5, 3600) else f"MQTT_STAFF_AFTER must be {_STAFF_WANTED}, not {value}"


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "LANGUAGE",
        (str,),
        _LANGUAGE,
        "en",
        "The language of the page and the terminal until a visitor picks another.",
        _language,
    ),
    Setting(
        "EXHIBIT",
        (bool,),
        "true or false (exhibit mode: idle reset, attract loop, no long presses)",
        False,
        "Exhibit mode: a game left alone is reset, the page shows its attract loop, long presses are off.",
    ),
    Setting(
        "IDLE_MINUTES",
        (int, float),
        _IDLE,
        5,
        "In exhibit mode, the minutes without a move after which the game is abandoned and a new one waits.",
        _idle,
    ),
    Setting(
        "THROWER_GESTURES",
        (bool,),
        "true or false (whether a long press offers an undo or a new game)",
        None,
        "Whether holding the throw button offers an undo (1.5-4 s) or a new game (4 s or more).",
        default_text="true; false in exhibit mode",
    ),
    Setting(
        "COMPUTER",
        (str,),
        'the seats the computer plays, e.g. "B" (or "B,C"; "none" for nobody)',
        None,
        "The seats the computer plays when `senet-pi run` is not given `--computer`.",
        default_text="none (people play every seat)",
    ),
    Setting(
        "COMPUTER_LEVEL",
        (int,),
        _LEVEL,
        2,
        "The computer's level when `--level` is not given.",
        _level,
    ),
    Setting(
        "HINT_WAIT",
        (int, float),
        _HINT_WAIT,
        1.5,
        "Seconds a hint request on the page waits for the analysis before it answers 'still thinking'.",
        _hint_wait,
    ),
    Setting(
        "QUESTION_SECONDS",
        (int, float),
        _QUESTION,
        20,
        "Seconds a question of the referee nobody answers waits before the likelier answer is taken.",
        _question,
    ),
    Setting(
        "SECRET_KEY",
        (str,),
        "a string",
        None,
        "Signs the page's sessions and the players' hand links; kept so they survive a restart.",
        default_text="made at the first start and kept in the instance folder's own secret_key file",
    ),
    Setting(
        "OPERATOR_PIN_HASH",
        (str,),
        "a string (set it with senet-pi set-pin)",
        None,
        "The hash of the operator PIN that enables the page's operator actions. Set it with `senet-pi set-pin`.",
        default_text="none (operator actions are off)",
    ),
    Setting(
        "PIN_DELAY",
        (int, float),
        _PIN_DELAY,
        1.0,
        "Seconds a client is locked out after a wrong PIN, doubling with each wrong one (at most 300 s).",
        _pin_delay,
    ),
    Setting(
        "HOSTS",
        (str, list),
        _HOSTS,
        [],
        "Names the page answers to besides localhost, IP addresses and the machine's own name (`hall-1`, "
        '`hall-1.local`), e.g. `["senet.museum.example"]`.',
        _hosts,
    ),
    Setting(
        "SERVER_NAME",
        (str,),
        _SERVER_NAME,
        None,
        "The page's own name for links it makes; when set, the page answers only to it (and HOSTS).",
        _server_name,
    ),
    Setting(
        "TLS_CERT",
        (str,),
        "the path of the page's HTTPS certificate (PEM; with TLS_KEY)",
        None,
        "The page's HTTPS certificate (PEM). With it the page is served over HTTPS only.",
    ),
    Setting(
        "TLS_KEY",
        (str,),
        "the path of the HTTPS certificate's private key (PEM; with TLS_CERT)",
        None,
        "The private key of TLS_CERT (PEM).",
    ),
    Setting(
        "MAX_CONTENT_LENGTH",
        (int,),
        "a whole number of bytes",
        64 * 1024,
        "The largest request body the page accepts, in bytes (1024 or more).",
        _content_length,
    ),
    Setting(
        "MAX_LIVE_STREAMS",
        (int,),
        _STREAMS,
        1000,
        "Live streams open at once at most; more are answered 503 with Retry-After.",
        _streams,
    ),
    Setting(
        "SESSION_COOKIE_SAMESITE",
        (str,),
        _SAMESITE,
        "Strict",
        "The SameSite attribute of the page's session cookie.",
        _samesite,
    ),
    Setting(
        "SESSION_COOKIE_HTTPONLY",
        (bool,),
        "true or false",
        True,
        "Whether the session cookie is hidden from the page's scripts.",
    ),
    Setting(
        "SESSION_COOKIE_SECURE",
        (bool,),
        "true or false",
        False,
        "Whether the session cookie travels over HTTPS only.",
        default_text="false; true when TLS_CERT is set",
    ),
    Setting(
        "MQTT_URL",
        (str,),
        "a broker URL, mqtt://HOST:PORT or mqtts://HOST:PORT",
        None,
        "The fleet's MQTT broker this board reports to (`--mqtt` overrides it).",
        default_text="none (the board is on no fleet)",
    ),
    Setting(
        "BOARD",
        (str,),
        "the board's name on the broker: letters, digits, - and _",
        None,
        "The board's name on the broker (`--board` overrides it).",
        default_text="the machine's host name",
    ),
    Setting(
        "MQTT_USERNAME",
        (str,),
        "a string (the broker's user name)",
        None,
        "The broker's user name, when the URL has none.",
    ),
    Setting(
        "MQTT_PASSWORD",
        (str,),
        "a string (the broker's password)",
        None,
        "The broker's password, when the URL has none.",
    ),
    Setting(
        "MQTT_CA_FILE",
        (str,),
        "the path of a CA bundle for mqtts://",
        None,
        "A CA bundle to trust for an `mqtts://` broker.",
        default_text="the system's certificates",
    ),
    Setting(
        "MQTT_COMMANDS",
        (bool,),
        "true or false (whether the fleet dashboard may start a new game or resync)",
        False,
        "Whether the fleet dashboard may start a new game or resync this board (needs MQTT_COMMAND_SECRET).",
    ),
    Setting(
        "MQTT_COMMAND_SECRET",
        (str,),
        "a string of 16 or more characters, the same on the boards and the dashboard",
        None,
        "The secret that signs the dashboard's commands: the same on the boards and the dashboard.",
    ),
    Setting(
        "MQTT_DISCOVERY_PREFIX",
        (str,),
        "Home Assistant's discovery prefix (default homeassistant)",
        "homeassistant",
        "The topic prefix of the board's Home Assistant discovery messages.",
    ),
    Setting(
        "MQTT_BUTTONS",
        (bool, list),
        _BUTTONS_WANTED,
        False,
        "The staff buttons Home Assistant and Node-RED may press on this board (the broker's access list "
        "decides who may).",
        _buttons,
    ),
    Setting("MQTT_AREA", (str,), "a room's name", None, "The room Home Assistant suggests for the board's device."),
    Setting(
        "MQTT_PAGE_URL",
        (str,),
        _PAGE_URL_WANTED,
        None,
        "The board page's address, linked from Home Assistant's device page.",
        _page_url,
    ),
    Setting(
        "MQTT_STAFF_AFTER",
        (int, float),
        _STAFF_WANTED,
        60,
        "Seconds a question or a fix may wait before the board tells the fleet that the table needs staff.",
        _staff_after,
    ),
)


BY_NAME: Mapping[str, Setting] = {setting.name: setting for setting in SETTINGS}


def defaults() -> dict[str, object]:
    """Every setting's default, as the page's config starts (a fresh list for HOSTS)."""
    return {s.name: (list(s.default) if isinstance(s.default, list) else s.default) for s in SETTINGS}


def unknown(key: str) -> str:
    """The line for a key that is no setting: a typo is named with the setting it most likely meant."""
    if key.upper() in BY_NAME:
        return f"{key} is not a setting: settings are written in capitals, {key.upper()}"
    close = difflib.get_close_matches(key.upper(), BY_NAME, n=1, cutoff=0.6)
    if close:
        return f"{key} is not a setting: did you mean {close[0]}?"
    return f"{key} is not a setting (the Configuration page of the documentation lists every one)"


def problems(data: Mapping[str, object]) -> list[str]:
    """What is wrong with the settings in `data`, one line each naming the key: keys that are no
    setting first (a typo would otherwise be ignored in silence), then the table's checks in order.
    As in Flask, only capitals are settings: a lowercase key or a `[table]` is the owner's own and
    left alone, unless it is a setting written in small letters (`exhibit = true`)."""
    found = [unknown(key) for key in data if key not in BY_NAME and (key.isupper() or key.upper() in BY_NAME)]
    for key, value in data.items():  # a setting written under a [table] would be ignored in silence
        inside = [k for k in value if k.upper() in BY_NAME and k.upper() not in data] if isinstance(value, dict) else []
        if inside and key not in BY_NAME:
            found.append(f"{inside[0]} is inside [{key}]: settings go at the top of config.toml, before any [table]")
    for setting in SETTINGS:
        value = data.get(setting.name)
        if value is not None:
            problem = setting.problem(value)
            if problem:
                found.append(problem)
    return found


def instance_folder() -> Path:
    """Where the instance config lives: `$SENET_PI_INSTANCE`, else `$XDG_CONFIG_HOME/senet-pi`."""
    if os.environ.get("SENET_PI_INSTANCE"):
        return Path(os.environ["SENET_PI_INSTANCE"])
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "senet-pi"


class ConfigError(SenetError, ValueError):
    """An instance `config.toml` that cannot be used; said at startup, not as a 500 later."""


def load_instance_config(folder: Path | None = None) -> dict[str, object]:
    """The settings of the instance `config.toml` (none if there is no file), checked: ConfigError
    names the file and the problem (not UTF-8, not TOML, nested too deeply, a key of the wrong type
    or value: the checks of `SETTINGS`)."""
    path = (folder or instance_folder()) / "config.toml"
    data = read_toml(path, "the config", ConfigError, missing_ok=True)
    found = problems(data)
    if found:
        raise ConfigError(f"the config {path}: {found[0]}")
    return {k: v for k, v in data.items() if k.isupper()}


@dataclass(frozen=True)
class Variable:
    """An environment variable senet-pi (or one of its scripts) reads."""

    name: str
    meaning: str
    default: str
    used_by: str  #: who reads it: senet-pi itself, the exhibit's units, or the developer's scripts


#: Every environment variable read; tests/test_docs.py checks that the code reads no other SENET_PI_*.
ENVIRONMENT: tuple[Variable, ...] = (
    Variable(
        "SENET_PI_INSTANCE",
        "The folder of config.toml (the instance folder).",
        "$XDG_CONFIG_HOME/senet-pi",
        "senet-pi",
    ),
    Variable(
        "SENET_PI_JOURNAL",
        "The journal file (`--journal` overrides it).",
        "$XDG_STATE_HOME/senet-pi/journal.sqlite",
        "senet-pi",
    ),
    Variable(
        "SENET_PI_PINMAP",
        "The pin map of the real board (`--pinmap` overrides it).",
        "the pin map installed with senet-pi",
        "senet-pi",
    ),
    Variable(
        "SENET_PI_TABLES",
        "The folder of the solved endgame tables.",
        "$XDG_CACHE_HOME/senet-pi/tables",
        "senet-pi",
    ),
    Variable(
        "SENET_PI_DEBUG",
        "Set to 1 to see the traceback of an internal error (exit status 70) when reporting a bug.",
        "unset",
        "senet-pi",
    ),
    Variable(
        "XDG_CONFIG_HOME",
        "Where the instance folder is when SENET_PI_INSTANCE is not set.",
        "~/.config",
        "senet-pi",
    ),
    Variable(
        "XDG_STATE_HOME",
        "Where the journal is when SENET_PI_JOURNAL is not set.",
        "~/.local/state",
        "senet-pi",
    ),
    Variable(
        "XDG_CACHE_HOME",
        "Where the endgame tables are when SENET_PI_TABLES is not set.",
        "~/.cache",
        "senet-pi",
    ),
    Variable(
        "SENET_PI_ARGS",
        "The arguments of `senet-pi run` for the exhibit's service (in /etc/senet-pi/senet-pi.env).",
        "set by the installer",
        "exhibit service",
    ),
    Variable(
        "SENET_PI_URL",
        "The address the exhibit's kiosk browser opens.",
        "http://127.0.0.1:8080/",
        "exhibit kiosk",
    ),
    Variable(
        "SENET_PI_KIOSK_WAIT",
        "Seconds the kiosk waits for the page after a boot or a restart.",
        "60",
        "exhibit kiosk",
    ),
    Variable(
        "SENET_PI_CHROMIUM",
        "Another chromium for the browser tests and scripts/screenshot.py.",
        "/usr/bin/chromium",
        "scripts/test, tests",
    ),
    Variable(
        "SENET_PI_MOSQUITTO",
        "Another mosquitto for the fleet's tests.",
        "/usr/sbin/mosquitto",
        "scripts/test, tests",
    ),
    Variable(
        "SENET_PI_SYSTEMD_RUNNING",
        "The folder whose presence says systemd runs (for the install scripts' tests).",
        "/run/systemd/system",
        "scripts, tests",
    ),
    Variable(
        "SENET_PI_UNITS",
        "Where the home-Pi installer writes its systemd unit (for its tests).",
        "/etc/systemd/system",
        "scripts/install-pi, tests",
    ),
    Variable(
        "SENET_PI_APT_WAIT",
        "Seconds scripts/test waits between tries while apt is busy.",
        "10",
        "scripts/test",
    ),
    Variable(
        "SENET_PI_ARM64",
        "1: CI runs scripts/arm64-check (a Debian 12 arm64 root under emulation) before the suite.",
        "unset",
        ".ci/run",
    ),
    Variable(
        "SENET_PI_ARM64_CACHE",
        "Where scripts/arm64-check keeps its arm64 root between runs.",
        "/var/cache/senet-pi-arm64",
        "scripts/arm64-check",
    ),
    Variable(
        "SENET_PI_APT_ETC",
        "The apt folder scripts/arm64-check reads the package mirror's address from (for its tests).",
        "/etc/apt",
        "scripts/arm64-check",
    ),
)
