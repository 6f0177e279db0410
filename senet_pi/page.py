"""Serving the status page for `senet-pi run`, and the operator PIN it checks.

The page itself lives in the top-level `web` package (a Flask app); this module only
serves it with waitress, a production WSGI server that runs anywhere Python does (a Pi
included), and writes the PIN's hash into the page's instance config.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import SenetError
from .hardware.backend import Backend
from .service import Service


class PinError(SenetError, ValueError):
    """A PIN that is not 4-12 digits."""


def serve(service: Service, backend: Backend | None, host: str, port: int):
    """Start waitress in a background thread; returns the server (`.close()` stops it)."""

    from waitress import create_server

    from web import create_app

    app = create_app(service=service, backend=backend)
    # Each open page holds one thread for its live stream: leave plenty for requests.
    server = create_server(app, host=host, port=port, threads=24, channel_timeout=3600)
    return start_server(server, app)


def start_server(server, app):
    """Run a waitress server in a background thread; `stop_server` ends it cleanly."""
    import threading

    server.senet_app = app
    server.loop_thread = threading.Thread(target=server.run, name="senet-pi page", daemon=True)
    server.loop_thread.start()
    return server


def stop_server(server, timeout: float = 5.0) -> None:
    """Close every connection and the listening socket from inside the server's own loop, so the
    loop never waits on a socket another thread has just closed; then let the loop end."""
    import threading

    done = threading.Event()
    senet = server.senet_app.extensions.get("senet")
    if senet is not None:
        senet["broker"].close()  # the live streams end instead of waiting for their next keepalive

    def close_all() -> None:
        for channel in list(server._map.values()):
            channel.close()
        done.set()

    try:
        server.trigger.pull_trigger(close_all)
        done.wait(timeout)
    except OSError:  # the loop's wake-up pipe is already gone: the loop has ended, close here
        close_all()
    server.task_dispatcher.shutdown(timeout=timeout)
    thread = getattr(server, "loop_thread", None)
    if thread is not None:
        thread.join(timeout)


def set_pin(pin: str, folder: Path | None = None) -> Path:
    """Store the PIN's hash (never the PIN) in the instance `config.toml`; an empty PIN removes it."""
    from werkzeug.security import generate_password_hash

    from web import instance_folder

    if pin and not re.fullmatch(r"\d{4,12}", pin):
        raise PinError("the PIN must be 4 to 12 digits")
    folder = folder or instance_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except UnicodeDecodeError:
        raise PinError(f"the config {path} is not a UTF-8 text file: fix or remove it first") from None
    lines = [line for line in text.splitlines() if not line.startswith("OPERATOR_PIN_HASH")]
    if pin:
        lines.append(f'OPERATOR_PIN_HASH = "{generate_password_hash(pin)}"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path
