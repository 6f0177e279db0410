"""What the staff dashboard knows of every board heard on the broker (`senet-pi fleet`).

`FleetWatcher` subscribes to every board's status, state, verdicts and command results and
keeps one small summary per board: online or not and since when, the game and whose turn, the
last verdict, switch faults, journal trouble, whether it takes remote commands. Listeners are
told the board's name at each change (the dashboard's live stream); an alert line is kept for
a board that went down. Commands are signed here (see `commands`) and sent only to a board
whose state says it takes them.

A board is not trusted to say `offline` itself: one that stops its heartbeat (its retained
`online`, said again every so often, see `board.HEARTBEAT`) for longer than its liveness is
shown offline, so a board that died while the broker was away does not stay online for ever.
A verdict heard twice (the same `verdict_id`, QoS 1 after a broker restart) is taken once.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import paho.mqtt.client as mqtt

from ..errors import FleetError
from ..rules.text import Text
from . import topics
from .address import BrokerAddress
from .client import connect_in_background, disconnect, failure_text, make_client, reason_text, refusal_text
from .commands import ACTIONS, sign

MAX_BOARDS = 1000  # boards remembered at most: a broker full of strangers cannot fill the memory
MAX_STATE = 512 * 1024  # bytes of one board's state read at most (the broker sends nothing bigger)
SEEN_VERDICTS = 256  # verdict ids remembered per board, to drop copies
SWEEP = 5.0  # seconds between two looks for boards whose heartbeat stopped


@dataclass
class BoardView:
    """One board as the dashboard shows it (plain data, JSON-ready)."""

    name: str
    online: bool | None = None  # None: no status heard yet
    since: float | None = None  # when `online` changed, as heard here
    since_known: bool = True  # False: the status was retained, older than this dashboard
    variant: str | None = None
    game: int | None = None
    to_move: str | None = None
    winner: str | None = None
    touched: bool = False
    prompt: str | None = None
    faults: list[str] = field(default_factory=list)
    journal: str | None = None
    commands: bool = False
    broker_link: str | None = None  # the board's own view of its link (its state's mqtt field)
    last_verdict: dict[str, Any] | None = None
    last_command: dict[str, Any] | None = None
    alert: str | None = None  # "went down at ..." while a board that was up is down
    heard: float | None = None  # the last message of any kind
    alive: float | None = None  # the last `online` heard (the board's heartbeat)
    liveness: float | None = None  # seconds without a heartbeat after which it counts as offline (its state says)
    verdicts: int = 0  # verdicts heard, each once (copies dropped by id)

    def json(self) -> dict[str, Any]:
        return asdict(self)


def _recent() -> deque[str]:
    return deque(maxlen=SEEN_VERDICTS)


def _clock_text(t: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(t))


class FleetWatcher:
    """Follows the boards on one broker; thread-safe (paho's thread writes, the page's threads read)."""

    def __init__(
        self,
        broker: BrokerAddress,
        *,
        secret: str | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """`clock`: the wall clock, for the times shown; `monotonic`: the heartbeats' timer (a clock jump
        neither counts a live board offline nor keeps a dead one online)."""
        self.broker = broker
        self._secret = secret
        self._clock = clock
        self._monotonic = monotonic
        self._alive: dict[str, float] = {}  # each board's last `online`, on the monotonic clock
        self._nonces: dict[str, str] = {}  # each board's command nonce, as it last said
        self._lock = threading.Lock()
        self._boards: dict[str, BoardView] = {}
        self._seen: dict[str, deque[str]] = {}  # each board's last verdict ids
        self._stop = threading.Event()
        self._sweeper = threading.Thread(target=self._sweep_now_and_then, name="senet-pi fleet sweep", daemon=True)
        self._listeners: list[Callable[[str], None]] = []
        self.started = clock()
        self.connected = False
        self.problem: str | None = "not connected yet"
        self.client = make_client(broker, "senet-pi-fleet")
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = lambda *_: self._set_link(False, failure_text(self.client))
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    def start(self) -> None:
        connect_in_background(self.client, self.broker, MAX_STATE + 1024)
        self._sweeper.start()

    def close(self) -> None:
        self._stop.set()
        disconnect(self.client)

    def _sweep_now_and_then(self) -> None:
        while not self._stop.wait(SWEEP):
            for name in self.sweep():
                self._tell(name)

    def sweep(self) -> list[str]:
        """Count offline every board whose heartbeat stopped for longer than its liveness; their names."""
        now, tick, gone = self._clock(), self._monotonic(), []
        with self._lock:
            for view in self._boards.values():
                alive = self._alive.get(view.name)
                if view.online and view.liveness and alive is not None and tick - alive > view.liveness:
                    view.online, view.since, view.since_known = False, now, True
                    last = _clock_text(view.alive or now)
                    view.alert = Text("board {board} stopped answering at {time}", board=view.name, time=last)
                    gone.append(view.name)
        return gone

    # ------------------------------------------------------------------ paho's thread

    def _on_connect(self, client: mqtt.Client, _data: object, _flags: object, reason: Any, _props: object) -> None:
        if reason.is_failure:
            self._set_link(False, refusal_text(reason))
            return
        client.subscribe([(t, 1) for t in topics.WATCHED])
        self._set_link(True, None)

    def _on_disconnect(self, _client: mqtt.Client, _data: object, _flags: object, reason: Any, _props: object) -> None:
        if self.connected:
            self._set_link(False, f"the broker went away ({reason_text(reason)})")

    def _set_link(self, connected: bool, problem: str | None) -> None:
        with self._lock:
            self.connected, self.problem = connected, problem
        self._tell("")  # "": the dashboard's own link changed

    def _on_message(self, _client: mqtt.Client, _data: object, message: mqtt.MQTTMessage) -> None:
        split = topics.split(message.topic)
        if split is None:
            return
        name, what = split
        if not name.replace("-", "").replace("_", "").isalnum() or len(message.payload) > MAX_STATE:
            return
        try:
            self._heard(name, what, bytes(message.payload), bool(message.retain))
        except (ValueError, TypeError, AttributeError, RecursionError):
            return  # a message that is not a board's: ignored, never the end of the dashboard
        self._tell(name)

    def _heard(self, name: str, what: str, payload: bytes, retained: bool) -> None:
        now = self._clock()
        with self._lock:
            view = self._boards.get(name)
            if view is None:
                if len(self._boards) >= MAX_BOARDS:
                    return
                view = self._boards[name] = BoardView(name)
            view.heard = now
            if what == "command/nonce":
                self._nonces[name] = payload.decode("ascii")[:64]
            elif what == "status":
                online = payload == b"online"
                if online:
                    view.alive, self._alive[name] = now, self._monotonic()
                if online != view.online:
                    if view.online and not online:
                        view.alert = Text("board {board} went down at {time}", board=name, time=_clock_text(now))
                    elif not online and retained:  # down before this dashboard started
                        view.alert = Text(
                            "board {board} is down (since before {time})", board=name, time=_clock_text(now)
                        )
                    elif online:
                        view.alert = None
                    view.online, view.since, view.since_known = online, now, not retained
            elif what == "state":
                self._read_state(view, json.loads(payload))
            elif what == "verdicts":
                verdict = json.loads(payload)
                if isinstance(verdict, dict):
                    seen = self._seen.setdefault(name, _recent())
                    if isinstance(verdict.get("verdict_id"), str):
                        if verdict["verdict_id"] in seen:
                            return  # a copy (QoS 1 delivers at least once)
                        seen.append(verdict["verdict_id"])
                    view.last_verdict = verdict
                    view.verdicts += 1
            elif what == "command/result":
                result = json.loads(payload)
                if isinstance(result, dict):
                    view.last_command = {**result, "at": now}

    @staticmethod
    def _read_state(view: BoardView, state: dict[str, Any]) -> None:
        view.variant = str(state.get("variant"))
        view.game = state.get("game")
        view.to_move = state.get("to_move")
        view.winner = state.get("winner")
        view.touched = bool(state.get("touched"))
        view.prompt = state.get("prompt") if isinstance(state.get("prompt"), str) else None
        backend: dict[str, Any] = state["backend"] if isinstance(state.get("backend"), dict) else {}
        squares = [f"switch on square {sq} stuck" for sq in state.get("switch_faults") or []]
        computer: dict[str, Any] = state["computer"] if isinstance(state.get("computer"), dict) else {}
        tables = [str(t) for t in computer.get("tables") or []]  # endgame tables refused by a check
        view.faults = squares + [str(f) for f in backend.get("faults") or []] + tables
        view.journal = state.get("journal")
        link: dict[str, Any] = state["mqtt"] if isinstance(state.get("mqtt"), dict) else {}
        view.commands = bool(link.get("commands"))
        since = link.get("since")
        if view.online and not view.since_known and isinstance(since, int | float) and link.get("connected"):
            view.since, view.since_known = float(since), True  # the board's own word for when it came online
        view.broker_link = link.get("problem")
        liveness = link.get("liveness")
        view.liveness = float(liveness) if isinstance(liveness, int | float) and liveness > 0 else None

    # ------------------------------------------------------------------ listeners and views

    def subscribe(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call `listener(board name)` at every change ("" for the dashboard's own link)."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _tell(self, name: str) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(name)

    def view(self, name: str) -> dict[str, Any] | None:
        with self._lock:
            board = self._boards.get(name)
            return board.json() if board is not None else None

    def views(self) -> list[dict[str, Any]]:
        """Every board heard, by name."""
        with self._lock:
            return [self._boards[n].json() for n in sorted(self._boards)]

    def link(self) -> dict[str, Any]:
        """The dashboard's own link to the broker (never the password)."""
        with self._lock:
            return {"broker": self.broker.shown, "connected": self.connected, "problem": self.problem}

    @property
    def can_command(self) -> bool:
        """Whether this dashboard holds a secret to sign commands with."""
        return self._secret is not None

    def send(self, name: str, action: str, args: dict[str, object] | None = None) -> str:
        """Sign and send `action` to board `name`; its id. FleetError when that is not allowed."""
        if self._secret is None:
            raise FleetError(Text("this dashboard has no MQTT_COMMAND_SECRET: it cannot send commands"))
        if action not in ACTIONS:
            raise FleetError(Text("the action must be one of {actions}", actions=", ".join(ACTIONS)))
        with self._lock:
            board = self._boards.get(name)
            if board is None or not board.commands:
                raise FleetError(f"board {name} does not take remote commands (MQTT_COMMANDS is not set there)")
            if not board.online:
                raise FleetError(f"board {name} is not online")
            nonce = self._nonces.get(name)
        if nonce is None:
            raise FleetError(f"board {name} has not said its command nonce yet: try again in a moment")
        command = sign(self._secret, name, action, args, nonce=nonce)
        info = self.client.publish(topics.command(name), json.dumps(command), qos=1)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            raise FleetError("the dashboard is not connected to the broker: try again in a moment")
        return str(command["id"])
