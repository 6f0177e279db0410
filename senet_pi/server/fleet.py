"""`senet-pi fleet`: the fleet's watcher on the broker, and the staff dashboard's page served for it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..errors import FleetError, SenetError
from ..fleet.address import broker_from, command_secret, warn_of_password
from ..fleet.watcher import FleetWatcher


def serve_fleet(
    url: str | None, host: str, port: int, config: Mapping[str, object], say: Callable[[str], None] = print
) -> tuple[FleetWatcher, Any]:
    """Follow the boards on the broker (`url`, else the config's MQTT_URL) and serve the dashboard
    on host:port; returns the watcher and the page server (`serve.stop_server` ends it)."""
    from senet_pi_web.fleet import create_fleet_app

    from .serve import start_server

    if url:
        warn_of_password(url)
    configured = config.get("MQTT_URL")
    url = url or (configured if isinstance(configured, str) else None)
    if not url:
        raise FleetError("the dashboard needs a broker: give --mqtt URL (or MQTT_URL in the config)")
    broker = broker_from(url, config)
    secret = command_secret(config) if config.get("MQTT_COMMAND_SECRET") is not None else None
    watcher = FleetWatcher(broker, secret=secret)
    app = create_fleet_app(watcher=watcher)
    app.config["LISTEN_HOST"] = host
    try:
        server = start_server(app, host, port)
    except OSError as exc:
        raise SenetError(
            f"cannot serve the dashboard on {host}:{port}: {exc.strerror or exc} (choose --port)"
        ) from None
    watcher.start()
    say(f"the fleet dashboard: http://{host}:{server.effective_port}/ (boards on {broker.shown})")
    return watcher, server
