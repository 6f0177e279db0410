"""The status page: a Flask app (factory, blueprints, instance config) showing the running service.

`create_app()` takes the service and its backend; `senet-pi run` serves it with waitress.
The web layer only shows the service and passes on what people do; the referee decides.
"""

from __future__ import annotations

import os
import secrets
import tomllib
from pathlib import Path

from flask import Flask

from senet_pi.hardware.backend import Backend
from senet_pi.service import Service

from .live import Broker


def instance_folder() -> Path:
    """Where the page's config lives: `$SENET_PI_INSTANCE`, else `$XDG_CONFIG_HOME/senet-pi`."""
    if os.environ.get("SENET_PI_INSTANCE"):
        return Path(os.environ["SENET_PI_INSTANCE"])
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "senet-pi"


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
        PIN_DELAY=1.0,  # seconds added after a wrong PIN, doubling with each one (at most 30 s)
        MAX_CONTENT_LENGTH=64 * 1024,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
    )
    if test_config is None:
        app.config.from_file("config.toml", load=tomllib.load, text=False, silent=True)
    else:
        app.config.from_mapping(test_config)
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = (
            _lasting_secret(Path(app.instance_path)) if test_config is None else secrets.token_hex(32)
        )
    if service is None:
        service = Service(None)
    app.extensions["senet"] = {"service": service, "backend": backend, "broker": Broker(service)}

    from . import api, hands, operator, pages, sim

    app.register_blueprint(pages.bp)
    app.register_blueprint(hands.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(operator.bp)
    app.register_blueprint(sim.bp)
    return app
