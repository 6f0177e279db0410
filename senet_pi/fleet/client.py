"""One paho-mqtt client set up the fleet's way: credentials, TLS, backoff, a bounded queue and a
cap on what the broker may send it.

paho runs the network on its own thread (`loop_start`): it connects, retries a missing or
refusing broker with a growing delay (MIN_BACKOFF to MAX_BACKOFF seconds, kept short so a
flapping broker is caught in its up windows) and reconnects after the broker goes away, so
nothing of ours ever waits for a broker. The client speaks MQTT 5 so that it can tell the
broker the largest message it takes (`max_packet`): the broker drops a bigger one instead of
sending it, so an oversized payload is never read whole here. paho's logger is never enabled:
nothing it could say (nor anything of ours, see `BrokerAddress.shown`) carries the password.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import ssl

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from ..errors import FleetError
from .address import BrokerAddress

MIN_BACKOFF = 1  # seconds before the first retry of a missing broker
MAX_BACKOFF = 3  # seconds between retries at most: a broker up for 3 s in 6 is still caught
KEEPALIVE = 15  # seconds: a broker that vanished without a word is noticed within about 1.5 x this
MAX_QUEUED = 1000  # messages paho holds for the broker at most (QoS 1 in flight and waiting)


class FleetClient(mqtt.Client):
    """paho's client, remembering why its last connection attempt failed (`failure`, in words), which
    paho's own `on_connect_fail` does not say: a refused port, a name not found, an untrusted certificate.
    Only the words are kept: the exception would keep the failed socket alive."""

    failure: str = "no broker answers there"

    def reconnect(self) -> MQTTErrorCode:
        try:
            return super().reconnect()
        except OSError as exc:
            self.failure = _failure_words(exc)
            _close_left_sockets(exc)
            raise


def properties_for(packet_type: int) -> Properties:
    """Empty MQTT v5 properties for a packet of `packet_type` (paho's PacketTypes)."""
    return Properties(packet_type)  # type: ignore[no-untyped-call]  # paho's Properties() has no annotations


def make_client(address: BrokerAddress, name: str) -> FleetClient:
    """A client for `address` (not connected yet); `name` starts its client id."""
    client = FleetClient(CallbackAPIVersion.VERSION2, client_id=f"{name}-{secrets.token_hex(3)}", protocol=mqtt.MQTTv5)
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


def disconnect(client: mqtt.Client) -> None:
    """Say goodbye to the broker and stop paho's network thread. paho 2.2's `loop_stop` reads its
    thread three times while the thread, once the disconnect ends it, clears it on its way out
    (eclipse-paho/paho.mqtt.python#872): when that wins, the thread is gone and nothing is left to
    stop, so the AttributeError it raises then means done, not a fault."""
    client.disconnect()
    with contextlib.suppress(AttributeError):
        client.loop_stop()


def connect_in_background(client: mqtt.Client, address: BrokerAddress, max_packet: int | None = None) -> None:
    """Start paho's thread: it connects when it can and keeps trying; never raises for a missing broker.
    `max_packet`: the largest message (in bytes, topic and headers included) the broker may send us."""
    properties = None
    if max_packet is not None:
        properties = properties_for(PacketTypes.CONNECT)
        properties.MaximumPacketSize = max_packet
    try:
        client.connect_async(address.host, address.port, keepalive=KEEPALIVE, properties=properties)
    except (OSError, ValueError) as exc:
        raise FleetError(f"cannot use the broker {address.shown}: {exc}") from None
    client.loop_start()


def failure_text(client: mqtt.Client) -> str:
    """Why the last connection attempt failed, in words: TLS trouble said as such, not as a missing broker."""
    return str(getattr(client, "failure", "no broker answers there"))


def _close_left_sockets(exc: BaseException) -> None:
    """Close the sockets a failed attempt left open (paho leaves a TLS socket whose handshake failed)."""
    tb = exc.__traceback__
    while tb is not None:
        for value in list(tb.tb_frame.f_locals.values()):
            if isinstance(value, socket.socket) and value.fileno() != -1:
                value.close()
        tb = tb.tb_next


def _failure_words(exc: OSError) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = exc.verify_message or "not trusted"
        return f"the broker's TLS certificate is refused ({why}): name its CA with MQTT_CA_FILE"
    if isinstance(exc, ssl.SSLError):
        return f"the TLS handshake with the broker failed ({exc.reason or exc}): is the port a TLS listener?"
    if isinstance(exc, socket.gaierror):
        return "the broker's host name is not known on this network"
    return "no broker answers there"


def reason_text(reason: object) -> str:
    """A connection result in words (paho's reason code), e.g. 'Bad user name or password'."""
    text = str(getattr(reason, "getName", lambda: reason)())
    return text or "refused"


def refusal_text(reason: object) -> str:
    """A refused connection in words, an authorisation failure said as such."""
    text = reason_text(reason)
    if text in ("Bad user name or password", "Not authorized"):
        return f"the broker refused the user name or password ({text}): check MQTT_USERNAME and MQTT_PASSWORD"
    return f"the broker refused the connection: {text}"
