"""Many boards, one view: boards on an MQTT broker, Home Assistant discovery, and what the staff
dashboard (`senet-pi fleet`) knows of every board it hears.

paho-mqtt talks to the broker; nothing here is a broker of its own. It may import the service and
everything below it; the web package and the server only where the dashboard and the run's publisher
are put together (`on_fleet`, `on_run`), which tests/test_packaging.py lists one by one.
"""

from __future__ import annotations

from .address import BrokerAddress, FleetError, FleetSettings, fleet_settings, parse_broker_url

__all__ = ["BrokerAddress", "FleetError", "FleetSettings", "fleet_settings", "parse_broker_url"]
