"""The status page: a Flask app (factory, blueprints, instance config) showing the running service.

`create_app()` takes the service and its backend; `senet-pi run` serves it with uvicorn (see
`senet_pi.page`), the live streams on its event loop and everything else on a few threads.
The web layer only shows the service and passes on what people do; the referee decides.

Its folder is `web/`, but it is the package `senet_pi_web` (pyproject.toml maps the name), so
no other `web` on a user's path can shadow it or be shadowed by it: import `senet_pi_web`.
"""

from __future__ import annotations

if __name__ != "senet_pi_web":  # e.g. `import web` from a checkout: a second copy of the app
    raise ImportError(
        f"senet-pi's page is the package senet_pi_web (its folder is web/): import senet_pi_web, not {__name__}"
    )

import os
import secrets
from pathlib import Path

from flask import Flask

from senet_pi.computer import LEVEL_RANGE
from senet_pi.errors import SenetError
from senet_pi.hardware.backend import Backend
from senet_pi.i18n import LANGUAGES
from senet_pi.service import Service
from senet_pi.tomlfile import read_toml

from .live import Broker


def instance_folder() -> Path:
    """Where the page's config lives: `$SENET_PI_INSTANCE`, else `$XDG_CONFIG_HOME/senet-pi`."""
    if os.environ.get("SENET_PI_INSTANCE"):
        return Path(os.environ["SENET_PI_INSTANCE"])
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "senet-pi"


class ConfigError(SenetError, ValueError):
    """An instance `config.toml` that cannot be used; said at startup, not as a 500 later."""


#: The instance config's keys this app reads, with the types they must have.
CONFIG_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "SECRET_KEY": ((str,), "a string"),
    "OPERATOR_PIN_HASH": ((str,), "a string (set it with senet-pi set-pin)"),
    "PIN_DELAY": ((int, float), "a number of seconds from 0 to 30"),
    "MAX_CONTENT_LENGTH": ((int,), "a whole number of bytes"),
    "THROWER_GESTURES": ((bool,), "true or false (whether a long press offers an undo or a new game)"),
    "HOSTS": ((str, list), "a host name, or a list of the names the page is reached by"),
    "LANGUAGE": ((str,), f"one of {', '.join(LANGUAGES)} (the page's and the terminal's default language)"),
    "EXHIBIT": ((bool,), "true or false (exhibit mode: idle reset, attract loop, no long presses)"),
    "IDLE_MINUTES": ((int, float), "a number of minutes more than 0 (exhibit mode: idle time before a new game)"),
    "MQTT_URL": ((str,), "a broker URL, mqtt://HOST:PORT or mqtts://HOST:PORT (the fleet, issue 25)"),
    "BOARD": ((str,), "the board's name on the broker: letters, digits, - and _"),
    "MQTT_USERNAME": ((str,), "a string (the broker's user name)"),
    "MQTT_PASSWORD": ((str,), "a string (the broker's password)"),
    "MQTT_CA_FILE": ((str,), "the path of a CA bundle for mqtts://"),
    "MQTT_COMMANDS": ((bool,), "true or false (whether the fleet dashboard may start a new game or resync)"),
    "MQTT_COMMAND_SECRET": ((str,), "a string of 16 or more characters, the same on the boards and the dashboard"),
    "MQTT_DISCOVERY_PREFIX": ((str,), "Home Assistant's discovery prefix (default homeassistant)"),
    "TLS_CERT": ((str,), "the path of the page's HTTPS certificate (PEM; with TLS_KEY)"),
    "TLS_KEY": ((str,), "the path of the HTTPS certificate's private key (PEM; with TLS_CERT)"),
    "COMPUTER": ((str,), 'the seats the computer plays, e.g. "B" (or "B,C"; "none" for nobody)'),
    "COMPUTER_LEVEL": ((int,), "the computer's level: 1 (beginner), 2 (club) or 3 (expert)"),
    "QUESTION_SECONDS": (
        (int, float),
        "a number of seconds from 5 to 600 (how long a question waits before the likelier answer is taken)",
    ),
}


def load_instance_config(folder: Path | None = None) -> dict[str, object]:
    """The settings of the instance `config.toml` (none if there is no file), checked: ConfigError
    names the file and the problem (not UTF-8, not TOML, nested too deeply, a key of the wrong type)."""
    path = (folder or instance_folder()) / "config.toml"
    data = read_toml(path, "the config", ConfigError, missing_ok=True)
    for key, (types, wanted) in CONFIG_TYPES.items():
        value = data.get(key)
        if value is None:
            continue
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            raise ConfigError(f"the config {path}: {key} must be {wanted}, not a {type(value).__name__}")
        if key == "PIN_DELAY" and not 0 <= value <= 30:
            raise ConfigError(f"the config {path}: PIN_DELAY must be {wanted}")
        if key == "LANGUAGE" and value not in LANGUAGES:
            raise ConfigError(f"the config {path}: LANGUAGE must be {wanted}, not {value!r}")
        if key == "MAX_CONTENT_LENGTH" and value < 1024:
            raise ConfigError(f"the config {path}: MAX_CONTENT_LENGTH must be at least 1024")
        if key == "COMPUTER_LEVEL" and value not in LEVEL_RANGE:
            raise ConfigError(f"the config {path}: COMPUTER_LEVEL must be {wanted}, not {value}")
        if key == "QUESTION_SECONDS" and not 5 <= value <= 600:
            raise ConfigError(f"the config {path}: QUESTION_SECONDS must be {wanted}, not {value}")
        if key == "IDLE_MINUTES" and not value > 0:
            raise ConfigError(f"the config {path}: IDLE_MINUTES must be {wanted}, not {value}")
    return {k: v for k, v in data.items() if k.isupper()}


def _lasting_secret(folder: Path) -> str:
    """A secret key kept in the instance config, so sessions and hand links survive a restart."""
    key = secrets.token_hex(32)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "config.toml"
        with path.open("a", encoding="utf-8") as config:
            config.write(f'SECRET_KEY = "{key}"\n')
        path.chmod(0o600)
    except OSError:
        pass  # a read-only instance folder: the key lasts until the server stops
    return key


def create_app(
    test_config: dict | None = None, *, service: Service | None = None, backend: Backend | None = None
) -> Flask:
    """The app for one service. Config: defaults, then the instance `config.toml` (or `test_config`)."""
    app = Flask(__name__, instance_path=str(instance_folder()), instance_relative_config=True)
    app.config.from_mapping(
        SECRET_KEY=None,
        OPERATOR_PIN_HASH=None,  # set with `senet-pi set-pin`; none = operator actions disabled
        PIN_DELAY=1.0,  # seconds a client is locked out after a wrong PIN, doubling with each one (at most 300 s)
        PIN_FILE=None,  # the config.toml the PIN hash is read from again when it changes (set-pin while running)
        LISTEN_HOST="127.0.0.1",  # where the page listens; beyond loopback /hands and the sim need the operator
        HOSTS=[],  # names (besides localhost and IP addresses) the page answers to, e.g. ["senet.local"]
        MAX_LIVE_STREAMS=1000,  # open live streams at most; more are answered 503 with Retry-After
        MAX_CONTENT_LENGTH=64 * 1024,
        EXHIBIT=False,  # exhibit mode: the page shows the attract loop while a new game waits (issue 15)
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        LANGUAGE="en",  # the page's language until a visitor picks another (cookie senet-lang or ?lang=)
        QUESTION_SECONDS=20,  # a question nobody answers: the likelier answer is taken after this long
    )
    if test_config is None:
        app.config.from_mapping(load_instance_config(Path(app.instance_path)))
        app.config["PIN_FILE"] = Path(app.instance_path) / "config.toml"
    else:
        app.config.from_mapping(test_config)
    if app.config.get("TLS_CERT"):  # served over HTTPS: the session cookie never travels in clear (issue 22)
        app.config["SESSION_COOKIE_SECURE"] = True
    if app.config["LANGUAGE"] not in LANGUAGES:
        raise ConfigError(f"LANGUAGE must be one of {', '.join(LANGUAGES)}, not {app.config['LANGUAGE']!r}")
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = (
            _lasting_secret(Path(app.instance_path)) if test_config is None else secrets.token_hex(32)
        )
    if service is None:
        service = Service(None)
    service.question_seconds = float(app.config["QUESTION_SECONDS"])  # the table is never left waiting
    from . import answers, api, compress, computer, errors, hands, i18n, operator, pages, security, sim, staff
    from .sessions import LastingSessions

    pin_file = app.config["PIN_FILE"]
    guard = operator.PinGuard(
        app.config["OPERATOR_PIN_HASH"], Path(pin_file) if pin_file else None, float(app.config["PIN_DELAY"])
    )
    app.extensions["senet"] = {"service": service, "backend": backend, "broker": Broker(service), "pin_guard": guard}
    app.session_interface = LastingSessions()  # sign-ins survive a wall-clock jump (issue 22)
    errors.init_app(app)
    security.init_app(app)
    i18n.init_app(app)
    compress.init_app(app)  # gzip for a browser that takes it

    app.register_blueprint(pages.bp)
    app.register_blueprint(hands.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(answers.bp)  # the people at the table answer the referee's questions
    app.register_blueprint(operator.bp)
    app.register_blueprint(sim.bp)
    app.register_blueprint(staff.bp)
    app.register_blueprint(computer.bp)  # playing against the computer, hints (issue 23)
    return app
