"""Many boards, one view: boards on an MQTT broker (../shared/spec/fleet.md), Home Assistant
discovery, and what the staff dashboard (`senet-pi fleet`) knows of every board it hears.

paho-mqtt talks to the broker; nothing here is a broker of its own."""

from __future__ import annotations

from .address import BrokerAddress, FleetError, FleetSettings, fleet_settings, parse_broker_url

__all__ = ["BrokerAddress", "FleetError", "FleetSettings", "fleet_settings", "parse_broker_url"]
