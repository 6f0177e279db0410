"""The status page: a Flask app (factory, blueprints, instance config) showing the running service.

`create_app()` takes the service and its backend; `senet-pi run` serves it with uvicorn (see
`senet_pi.server.serve`), the live streams on its event loop and everything else on a few threads.
The web layer only shows the service and passes on what people do; the referee decides.

Its folder is `web/`, but it is the package `senet_pi_web` (pyproject.toml maps the name), so
no other `web` on a user's path can shadow it or be shadowed by it: import `senet_pi_web`.
"""

from __future__ import annotations

if __name__ != "senet_pi_web":  # e.g. `import web` from a checkout: a second copy of the app
    raise ImportError(
        f"senet-pi's page is the package senet_pi_web (its folder is web/): import senet_pi_web, not {__name__}"
    )

import logging
import secrets
from pathlib import Path

from flask import Flask

from senet_pi import settings
from senet_pi.errors import ConfigError
from senet_pi.fleet.published import Board, machine_name
from senet_pi.hardware.backend import Backend
from senet_pi.i18n import LANGUAGES
from senet_pi.service.core import Service
from senet_pi.settings import instance_folder, load_instance_config
from senet_pi.tomlfile import write_private

from .app import PageApp
from .live import Broker
from .shared import Senet, shared

__all__ = ["ConfigError", "create_app", "instance_folder", "load_instance_config", "shared"]


#: The instance config's keys this app reads, with the types they must have and the values they
#: take in words: a view of the one table, `senet_pi.settings.SETTINGS`.
CONFIG_TYPES: dict[str, tuple[tuple[type, ...], str]] = {s.name: (s.types, s.wanted) for s in settings.SETTINGS}


SECRET_FILE = "secret_key"  # the page's signing key, in a file of its own beside config.toml


def _lasting_secret(folder: Path) -> str:
    """The signing key kept in the instance folder's own `secret_key` file (made on the first start),
    so sessions and hand links survive a restart; config.toml is never written. A folder it cannot be
    read from or written to is said at start (logged), and the key then lasts only this run."""
    path = folder / SECRET_FILE
    try:
        kept = path.read_text(encoding="ascii").strip()
        if len(kept) >= 32:
            return kept
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        return _one_run_key(f"cannot read the page's key {path}: {getattr(exc, 'strerror', None) or exc}")
    key = secrets.token_hex(32)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_private(path, key + "\n")
    except OSError as exc:
        return _one_run_key(f"cannot keep the page's key in {path}: {exc.strerror or exc}", key)
    return key


def _one_run_key(problem: str, key: str | None = None) -> str:
    logging.getLogger("senet_pi.server.serve").warning(
        "%s; sign-ins and hand links last only until the service stops", problem
    )
    return key or secrets.token_hex(32)


def create_app(
    test_config: dict[str, object] | None = None,
    *,
    service: Service | None = None,
    backend: Backend | None = None,
    board: Board | None = None,
) -> Flask:
    """The app for one board: `board` (what `senet-pi run` shares with the fleet), else one made of
    `service` and `backend`. Config: defaults, then the instance `config.toml` (or `test_config`)."""
    app = PageApp(__name__, instance_path=str(instance_folder()), instance_relative_config=True)
    app.config.from_mapping(settings.defaults())  # every setting's default: senet_pi.settings.SETTINGS
    app.config.from_mapping(
        PIN_FILE=None,  # the config.toml the PIN hash is read from again when it changes (set-pin while running)
        LISTEN_HOST="127.0.0.1",  # where the page listens; beyond loopback /hands and the sim need the operator
    )
    if test_config is None:
        app.config.from_mapping(load_instance_config(Path(app.instance_path)))
        app.config["PIN_FILE"] = Path(app.instance_path) / "config.toml"
    else:
        app.config.from_mapping(test_config)
    if app.config.get("TLS_CERT"):  # served over HTTPS: the session cookie never travels in clear
        app.config["SESSION_COOKIE_SECURE"] = True
    if app.config["LANGUAGE"] not in LANGUAGES:
        raise ConfigError(f"LANGUAGE must be one of {', '.join(LANGUAGES)}, not {app.config['LANGUAGE']!r}")
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = (
            _lasting_secret(Path(app.instance_path)) if test_config is None else secrets.token_hex(32)
        )
    if board is None:
        board = Board(
            service if service is not None else Service(None),
            backend,
            exhibit=bool(app.config.get("EXHIBIT")),
            language=str(app.config["LANGUAGE"]),
            name=str(app.config.get("BOARD") or machine_name()),
        )
    if board.words is None:  # the fleet's summary says verdicts in the page's language
        from senet_pi.fleet.published import verdict_words

        board.words = verdict_words(board.language)
    service = board.service
    service.question_seconds = float(app.config["QUESTION_SECONDS"])  # the table is never left waiting
    from . import (
        answers,
        api,
        compress,
        computer,
        errors,
        hands,
        i18n,
        manual,
        operator,
        pages,
        security,
        sim,
        staff,
        state,
    )
    from .pin import PinGuard
    from .sessions import LastingSessions

    pin_file = app.config["PIN_FILE"]
    guard = PinGuard(
        app.config["OPERATOR_PIN_HASH"], Path(pin_file) if pin_file else None, float(app.config["PIN_DELAY"])
    )
    senet = Senet(pin_guard=guard, board=board, broker=Broker(service))
    senet.door.watch(service)  # the table's join code changes with every game
    senet.init_app(app)
    named = board.name
    app.context_processor(lambda: {"board_name": named})  # the header shows the board's name

    def visitor() -> dict[str, object]:  # what the fleet publishes of the operator: a visitor's view
        with app.app_context():
            return state.operator_status(signed_in=False)

    board.visitor = visitor
    app.session_interface = LastingSessions()  # sign-ins survive a wall-clock jump
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
    app.register_blueprint(manual.bp)  # the manual, served by the board itself
    app.register_blueprint(computer.bp)  # playing against the computer, hints
    return app
