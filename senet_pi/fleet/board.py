"""A board on the broker: its status, its state and every verdict, as ../shared/spec/fleet.md fixes.

`BoardPublisher` listens to the service (`Service.subscribe`) and never blocks it: the
listener only appends the verdicts' JSON lines to a bounded queue and marks the state as
changed. A thread of its own takes the state (the page's `GET /api/state` object, from the
`state` function it is given) once per burst of changes and hands everything to paho,
whose own thread talks to the broker. While the broker is away, at most HELD verdicts wait
(the oldest are dropped and counted); the retained state is republished on reconnection,
and that is what matters to anyone watching.

Beside the contract's topics, a board publishes a retained summary and its events (see
`summary`) for Home Assistant and Node-RED, and, when the config allows staff buttons, carries
out a button pressed (`senet-pi/BOARD/button`): unsigned, so the broker's access list decides
who may press (see `broker_files`).

Trust: every verdict carries a `verdict_id` (this run's token and a count) so that a consumer can drop
a copy (QoS 1 may deliver one twice when the broker restarts). The retained `online` is said
again every HEARTBEAT s with an expiry of LIVENESS s, so a board that died while the broker was
away does not stay online: the dashboard and Home Assistant count it offline when the
heartbeats stop. A command is never taken from a retained message nor without this start's current
nonce (a copy replayed after a restart or a clock jump), and refusals are answered at most REFUSALS a second,
at QoS 0, so a flood of forged commands never crowds the board's own messages out of the queue.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes

from ..service.replay import verdict_line
from ..verdicts import Verdict
from . import topics
from .address import FleetSettings
from .client import (
    connect_in_background,
    disconnect,
    failure_text,
    make_client,
    properties_for,
    reason_text,
    refusal_text,
)
from .commands import MAX_PAYLOAD, CommandCheck
from .discovery import discovery_messages
from .summary import Summary

HELD = 500  # verdicts kept while the broker is away (the oldest go first)
STATE_SPACING = 0.05  # seconds: changes closer than this go out as one state
RECHECK = 1.0  # seconds of quiet after which the state is made again and published if it changed
HEARTBEAT = 20.0  # seconds between two retained `online` messages
LIVENESS = topics.LIVENESS  # seconds an `online` holds (its MQTT 5 expiry; the dashboard's timeout too)
REFUSALS = 2.0  # refused commands answered a second at most (a burst of REFUSAL_BURST first)
REFUSAL_BURST = 10
MAX_INCOMING = MAX_PAYLOAD + 1024  # bytes the broker may send this board in one message (topic included)


class BoardPublisher:
    """Publishes one service on the broker named by `settings`; `close()` says `offline` and stops."""

    def __init__(
        self,
        service: Any,
        settings: FleetSettings,
        state: Callable[[], bytes | str],
        *,
        say: Callable[[str], None] | None = None,
        act: Callable[[str, dict[str, object]], None] | None = None,
        words: Callable[[Verdict], str | None] | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """`state()`: the state's JSON text; `say`: where connection news is told (the terminal);
        `act(action, args)`: carries out a checked remote command or a pressed button;
        `words(verdict)`: a verdict in words in the board's language (the summary's last thing);
        `clock`: the wall clock, for times shown to people; `monotonic`: every timer (staff called,
        command nonces), so a clock set by NTP after a boot without a real-time clock changes none."""
        self.settings = settings
        self.board = settings.board
        self._state = state
        self._say = say or (lambda _text: None)
        self._act = act
        self._clock = clock
        self._monotonic = monotonic
        self._cv = threading.Condition()
        self._held: deque[str] = deque(maxlen=HELD)
        self._events: deque[dict[str, object]] = deque(maxlen=HELD)
        self._summary = Summary(words or (lambda _verdict: None), settings.staff_after, wall=clock)
        self._last_summary: str | None = None
        self._state_due = True
        self._only_if_changed = False  # the next state goes out only if it differs from the last one
        self._last_state: bytes | str | None = None
        self._closing = False
        self.connected = False
        self._awaited: set[int] = set()  # subscriptions of this connection not acknowledged yet
        self.since: float | None = None  # when `connected` last changed
        self.problem: str | None = "not connected yet"
        self.dropped = 0  # verdicts dropped while the broker was away (more than HELD)
        self.published = 0  # messages handed to paho
        self.unanswered = 0  # refused commands not answered (more than REFUSALS a second)
        self._run_id = secrets.token_hex(4)  # verdict ids: this run's token and a count
        self._count = 0
        self._beat = 0.0  # when `online` was last said
        self._allowance, self._allowance_at = float(REFUSAL_BURST), time.monotonic()
        self._told: str | None = None
        self._nonce_said: str | None = None  # the command nonce last published (None: say it again)
        self._checker = (
            CommandCheck(settings.command_secret, self.board, monotonic)
            if settings.commands and settings.command_secret
            else None
        )
        self.client = make_client(settings.broker, f"senet-pi-{self.board}")
        self.client.will_set(topics.status(self.board), "offline", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish
        self.client.on_subscribe = self._on_subscribe
        self._sender = threading.Thread(target=self._run, name="senet-pi mqtt", daemon=True)
        self._unsubscribe = service.subscribe(self._listen)

    def start(self) -> None:
        """Connect in the background (paho retries with backoff); returns at once."""
        self._sender.start()
        connect_in_background(self.client, self.settings.broker, MAX_INCOMING)
        self._say(f"mqtt: publishing board {self.board} on {self.settings.broker.shown}")

    # ------------------------------------------------------------------ from the service (under its lock)

    def _listen(self, verdicts: list[Verdict]) -> None:
        """The service's listener: queue and return at once (runs under the service's lock)."""
        with self._cv:
            for verdict in verdicts:
                if len(self._held) == self._held.maxlen:
                    self.dropped += 1
                self._count += 1
                self._held.append(verdict_line({**verdict.json(), "verdict_id": f"{self._run_id}-{self._count}"}))
            self._events.extend(self._summary.heard(verdicts, self._monotonic()))
            self._state_due = True
            self._cv.notify()

    # ------------------------------------------------------------------ our thread: hand the messages to paho

    def _run(self) -> None:
        while True:
            with self._cv:
                ready = self._cv.wait_for(
                    lambda: self._closing or (self.connected and (self._held or self._events or self._state_due)),
                    RECHECK,
                )
                if self._closing:
                    return
                if not ready:  # quiet for RECHECK s: a change no verdict told of (a switch, the sticks' LEDs)?
                    if not self.connected:
                        continue
                    self._state_due = self._only_if_changed = True
                    self._events.extend(self._summary.due(self._monotonic()))  # staff called after a wait
            if time.monotonic() - self._beat >= HEARTBEAT:
                self._say_online(self.client)
            self._say_nonce()
            if ready:
                time.sleep(STATE_SPACING)  # let a burst (a whole move) gather into one state
            self._flush()

    def _flush(self) -> None:
        """Hand the held verdicts, then the state if it changed, to paho; kept for later if the broker went."""
        with self._cv:
            lines, due, events = list(self._held), self._state_due, list(self._events)
            self._held.clear()
            self._events.clear()
            self._state_due = False
        for n, line in enumerate(lines):
            if not self._publish(topics.verdicts(self.board), line, qos=1):
                with self._cv:  # lost the broker meanwhile: keep the rest for the next connection
                    self._held.extendleft(reversed(lines[n:]))
                break
        for event in events:
            self._publish(topics.event(self.board), json.dumps(event), qos=1)
        if not due:
            return
        try:
            text = self._state()
        except Exception as exc:  # a bug of ours: said, never the end of the publishing
            self._say(f"mqtt: cannot make the state to publish: {type(exc).__name__}: {exc}")
            return
        only_if_changed, self._only_if_changed = self._only_if_changed, False
        if only_if_changed and text == self._last_state:
            self._publish_summary(text)  # time alone may change it: a question left waiting calls staff
            return
        if self._publish(topics.state(self.board), text, qos=1, retain=True):
            self._last_state = text
        else:
            with self._cv:
                self._state_due = True
            return
        self._publish_summary(text)

    def _publish_summary(self, state_text: bytes | str) -> None:
        """The retained summary, when it changed."""
        try:
            state = json.loads(state_text)
        except ValueError:
            return
        with self._cv:
            summary = json.dumps(self._summary.json(state, self._monotonic()))
        if summary != self._last_summary and self._publish(topics.summary(self.board), summary, qos=1, retain=True):
            self._last_summary = summary

    def _publish(self, topic: str, payload: bytes | str, qos: int = 0, retain: bool = False) -> bool:
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc == mqtt.MQTT_ERR_SUCCESS:
            self.published += 1
            return True
        if info.rc == mqtt.MQTT_ERR_QUEUE_SIZE:
            self.dropped += 1  # paho's own queue is full: the broker is far behind
            return True
        if info.rc == mqtt.MQTT_ERR_NO_CONN and qos > 0:
            self.published += 1  # paho keeps it and sends it on reconnecting: held again here, it would go twice
            return True
        return False

    def _say_online(self, client: mqtt.Client) -> None:
        """The retained `online`, expiring after LIVENESS s unless said again (the heartbeat)."""
        properties = properties_for(PacketTypes.PUBLISH)
        properties.MessageExpiryInterval = LIVENESS
        client.publish(topics.status(self.board), "online", qos=1, retain=True, properties=properties)
        self._beat = time.monotonic()

    @property
    def command_nonce(self) -> str | None:
        """The nonce a signed command must carry now (None: this board takes no commands)."""
        return self._checker.nonce if self._checker is not None else None

    def _say_nonce(self) -> None:
        """The command nonce, retained, whenever it is new (a start, every WINDOW s, a new connection)."""
        if self._checker is None:
            return
        nonce = self._checker.nonce
        if nonce != self._nonce_said and self._publish(topics.command_nonce(self.board), nonce, qos=1, retain=True):
            self._nonce_said = nonce

    # ------------------------------------------------------------------ paho's thread

    def _on_connect(self, client: mqtt.Client, _userdata: object, _flags: object, reason: Any, _props: object) -> None:
        if reason.is_failure:
            self._lost(refusal_text(reason))
            return
        self._say_online(client)
        for topic, config in discovery_messages(self.settings):
            client.publish(topic, json.dumps(config) if config else b"", qos=1, retain=True)
        wanted = [topics.command(self.board)] if self._checker is not None else []
        wanted += [topics.button(self.board)] if self.settings.buttons else []
        awaited = {mid for topic in wanted if (mid := client.subscribe(topic, qos=1)[1]) is not None}
        self._last_summary = None  # said again on every connection
        self._nonce_said = None
        with self._cv:
            self._awaited = awaited
            self.connected, self.since, self.problem = True, self._clock(), None
            self._state_due = True
            self._cv.notify()
        self._tell(f"mqtt: connected to {self.settings.broker.shown} as board {self.board}")

    @property
    def listening(self) -> bool:
        """Connected and every subscription of this connection (commands, buttons) acknowledged."""
        with self._cv:
            return self.connected and not self._awaited

    def _on_subscribe(self, _client: mqtt.Client, _data: object, mid: int, _reasons: object, _props: object) -> None:
        """The broker took a subscription: once all of this connection's are, commands and buttons arrive."""
        with self._cv:
            self._awaited.discard(mid)

    def _on_publish(self, _client: mqtt.Client, _data: object, _mid: int, reason: Any, _props: object) -> None:
        """A message the broker refused (MQTT 5 says why): its access list, said as such."""
        if getattr(reason, "is_failure", False):
            problem = (
                f"the broker refused a message of board {self.board} ({reason_text(reason)}): "
                f"its user may not write senet-pi/{self.board}/...; check the broker's access list"
            )
            with self._cv:
                self.problem = problem
            self._tell(f"mqtt: {problem}")

    def _on_connect_fail(self, _client: mqtt.Client, _userdata: object) -> None:
        self._lost(failure_text(self.client))

    def _on_disconnect(self, _client: mqtt.Client, _data: object, _flags: object, reason: Any, _props: object) -> None:
        if not self._closing and self.connected:  # after a refusal the refusal is what to say
            self._lost(f"the broker went away ({reason_text(reason)})")

    def _lost(self, problem: str) -> None:
        with self._cv:
            if self.connected or self.since is None:
                self.since = self._clock()
            self.connected, self.problem = False, problem
            self._state_due = True  # the state says so once the broker is back
        self._tell(f"mqtt: {problem} at {self.settings.broker.shown}; the game goes on and the board retries")

    def _tell(self, text: str) -> None:
        """Say a change of the link once (not at every retry)."""
        if text != self._told:
            self._told = text
            self._say(text)

    def _on_message(self, client: mqtt.Client, _userdata: object, message: mqtt.MQTTMessage) -> None:
        if self.settings.buttons and message.topic == topics.button(self.board):
            self._pressed(client, message)
            return
        if self._checker is None or message.topic != topics.command(self.board):
            return
        result: dict[str, object] = {"ok": False}
        try:
            if message.retain:  # a retained copy is handed to every new subscriber: never an order
                raise ValueError("a retained command is never carried out: publish commands without retain")
            command = self._checker.check(bytes(message.payload))
            result.update(id=command["id"], action=command["action"])
            if self._act is None:
                raise ValueError("this board carries out no remote commands")
            self._act(command["action"], command["args"])
            result["ok"] = True
        except Exception as exc:  # refused or failed: said to the sender, never the end of the board
            result["error"] = str(exc)[:300]
        self._answer(client, result)

    def _pressed(self, client: mqtt.Client, message: mqtt.MQTTMessage) -> None:
        """A staff button: the broker's access list said who may press it; the action is the payload."""
        action = bytes(message.payload[:32]).decode("ascii", "replace").strip()
        result: dict[str, object] = {"ok": False, "action": action, "via": "button"}
        try:
            if message.retain:
                raise ValueError("a retained button press is never carried out: publish presses without retain")
            if action not in self.settings.buttons:
                raise ValueError(f"the button must be one of {', '.join(self.settings.buttons)}")
            if self._act is None:
                raise ValueError("this board carries out no remote commands")
            self._act(action, {})
            result["ok"] = True
        except Exception as exc:  # refused or failed: said to the sender, never the end of the board
            result["error"] = str(exc)[:300]
        self._answer(client, result)

    def _answer(self, client: mqtt.Client, result: dict[str, object]) -> None:
        """A command's or a button's result: carried out, always said (QoS 1); refused, said only as
        often as refusals may be, so a flood of them never crowds out the board's own messages."""
        if result["ok"]:
            client.publish(topics.command_result(self.board), json.dumps(result), qos=1)
        elif self._may_answer_refusal():
            client.publish(topics.command_result(self.board), json.dumps(result), qos=0)
        else:
            self.unanswered += 1

    def _may_answer_refusal(self) -> bool:
        """A token bucket: REFUSALS answers a second, REFUSAL_BURST at once (paho's thread only)."""
        now = time.monotonic()
        self._allowance = min(float(REFUSAL_BURST), self._allowance + (now - self._allowance_at) * REFUSALS)
        self._allowance_at = now
        if self._allowance < 1:
            return False
        self._allowance -= 1
        return True

    # ------------------------------------------------------------------ what the page and `senet-pi status` show

    def describe(self) -> dict[str, object]:
        """The link to the broker for the state's `mqtt` field: never the password."""
        return {
            "board": self.board,
            "broker": self.settings.broker.shown,
            "connected": self.connected,
            "since": self.since,
            "problem": self.problem,
            "held": len(self._held),
            "dropped": self.dropped,
            "unanswered": self.unanswered,
            "liveness": LIVENESS,  # a watcher counts this board offline after so long without an `online`
            "commands": self._checker is not None,
            "buttons": list(self.settings.buttons),
        }

    def close(self, timeout: float = 2.0) -> None:
        """Say `offline` (retained) if the broker is there, and stop; closing twice is harmless."""
        if self._closing:
            return
        self._unsubscribe()
        with self._cv:
            self._closing = True
            self._cv.notify_all()
        if self._sender.is_alive():
            self._sender.join(timeout)
        if self.connected:
            self._flush()  # the last moves and the state as it was left, then offline
            info = self.client.publish(topics.status(self.board), "offline", qos=1, retain=True)
            if info.rc == mqtt.MQTT_ERR_SUCCESS:
                with contextlib.suppress(RuntimeError, ValueError):
                    info.wait_for_publish(timeout)
        disconnect(self.client)
        self.connected = False
