"""Many boards, one view: boards on an MQTT broker, Home Assistant discovery, and what the staff
dashboard (`senet-pi fleet`) knows of every board it hears.

paho-mqtt talks to the broker; nothing here is a broker of its own. It may import the hardware, the
service and everything below it, never the front ends: the dashboard's page and its server are
put together in `senet_pi/server/fleet.py`. What a board shows (the state its page answers and its
broker carries) is made here, in `published`, for both.
"""

from __future__ import annotations

from ..errors import FleetError
from .address import BrokerAddress, FleetSettings, fleet_settings, parse_broker_url

__all__ = ["BrokerAddress", "FleetError", "FleetSettings", "fleet_settings", "parse_broker_url"]
