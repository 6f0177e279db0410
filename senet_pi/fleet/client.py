"""One paho-mqtt client set up the fleet's way: credentials, TLS, backoff and a bounded queue.

paho runs the network on its own thread (`loop_start`): it connects, retries a missing or
refusing broker with a growing delay (MIN_BACKOFF to MAX_BACKOFF seconds) and reconnects
after the broker goes away, so nothing of ours ever waits for a broker. paho's logger is
never enabled: nothing it could say (nor anything of ours, see `BrokerAddress.shown`)
carries the password.
"""

from __future__ import annotations

import secrets
import ssl

import paho.mqtt.client as mqtt

from .address import BrokerAddress, FleetError

MIN_BACKOFF = 1  # seconds before the first retry of a missing broker
MAX_BACKOFF = 30  # seconds between retries at most
KEEPALIVE = 15  # seconds: a broker that vanished without a word is noticed within about 1.5 x this
MAX_QUEUED = 1000  # messages paho holds for the broker at most (QoS 1 in flight and waiting)


def make_client(address: BrokerAddress, name: str) -> mqtt.Client:
    """A client for `address` (not connected yet); `name` starts its client id."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{name}-{secrets.token_hex(3)}")
    if address.username:
        client.username_pw_set(address.username, address.password)
    if address.tls:
        try:
            client.tls_set(ca_certs=address.ca_file, cert_reqs=ssl.CERT_REQUIRED)
        except (OSError, ssl.SSLError) as exc:
            raise FleetError(f"cannot use the CA file {address.ca_file} for mqtts://: {exc.strerror or exc}") from None
    client.reconnect_delay_set(MIN_BACKOFF, MAX_BACKOFF)
    client.max_queued_messages_set(MAX_QUEUED)
    return client


def connect_in_background(client: mqtt.Client, address: BrokerAddress) -> None:
    """Start paho's thread: it connects when it can and keeps trying; never raises for a missing broker."""
    try:
        client.connect_async(address.host, address.port, keepalive=KEEPALIVE)
    except (OSError, ValueError) as exc:
        raise FleetError(f"cannot use the broker {address.shown}: {exc}") from None
    client.loop_start()


def reason_text(reason: object) -> str:
    """A connection result in words (paho's reason code), e.g. 'Bad user name or password'."""
    text = str(getattr(reason, "getName", lambda: reason)())
    return text or "refused"
