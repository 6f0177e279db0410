"""Staff commands sent to a board over the broker, authenticated end to end.

A command is a JSON object `{"board", "action", "args", "id", "nonce", "hmac"}` published on
`senet-pi/BOARD/command`. `hmac` is HMAC-SHA256, keyed with the MQTT_COMMAND_SECRET that the
board and the dashboard share, over the other fields as canonical JSON (sorted keys, no
spaces). The broker and anyone else on it can read commands but cannot make or change one.

Freshness never rests on a clock a Pi may not have (no real-time clock: an hour behind after a
power cut, the image's date at every boot): the board makes a random nonce at every start and
a new one every WINDOW seconds of its monotonic clock, says the current one (retained) on
`senet-pi/BOARD/command/nonce`, and takes a command only with its current or previous nonce.
So a copy is refused after any restart (the nonces are gone with the old process), after any
clock jump (no wall clock is read), and within the same minutes by its id.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

ACTIONS = ("new_game", "resync")
WINDOW = 120.0  # seconds of the board's monotonic clock a nonce is current (and then one more window accepted)
MAX_PAYLOAD = 4096  # bytes: a command is small; anything bigger is refused before parsing
MAX_SEEN = 1000  # ids remembered per nonce: beyond that the nonce is retired early (a flood of genuine commands)
FIELDS = {"board", "action", "args", "id", "nonce", "hmac"}


def _digest(secret: str, fields: dict[str, object]) -> str:
    body = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def sign(
    secret: str, board: str, action: str, args: dict[str, object] | None = None, *, nonce: str
) -> dict[str, object]:
    """A signed command for `board` carrying the board's current `nonce` (its `id` is new and random)."""
    fields: dict[str, object] = {
        "board": board,
        "action": action,
        "args": dict(args or {}),
        "id": secrets.token_hex(8),
        "nonce": nonce,
    }
    return {**fields, "hmac": _digest(secret, fields)}


class CommandCheck:
    """The board's side: whether a command payload is genuine, for this board, of this start and new.

    `clock` is monotonic (a wall-clock jump changes nothing); `token()` makes a nonce."""

    def __init__(
        self,
        secret: str,
        board: str,
        clock: Callable[[], float] = time.monotonic,
        token: Callable[[], str] = lambda: secrets.token_hex(8),
    ) -> None:
        self._secret = secret
        self._board = board
        self._clock = clock
        self._token = token
        self._since = clock()
        # the nonces accepted, oldest first (the current and the one before), each with the ids carried out
        self._nonces: list[tuple[str, set[str]]] = [(token(), set())]

    @property
    def nonce(self) -> str:
        """The nonce a command must carry now (a new one once WINDOW s have passed)."""
        self._rotate()
        return self._nonces[-1][0]

    def _rotate(self, now: float | None = None) -> None:
        now = self._clock() if now is None else now
        if now - self._since >= 2 * WINDOW:  # nothing asked for two windows: neither nonce counts any more
            self._since, self._nonces = now, [(self._token(), set())]
        elif now - self._since >= WINDOW or len(self._nonces[-1][1]) >= MAX_SEEN:
            self._since, self._nonces = now, [self._nonces[-1], (self._token(), set())]

    def check(self, payload: bytes) -> dict[str, Any]:
        """The command, checked; ValueError says why it is refused.

        Complexity: one check per way a signed command can be wrong, each refused with its own reason."""
        if len(payload) > MAX_PAYLOAD:
            raise ValueError("the command is too long")
        try:
            data = json.loads(payload, parse_constant=_no_constant)
        except _NotANumber:
            raise ValueError("the command holds NaN or an infinity") from None
        except (ValueError, RecursionError):
            raise ValueError("the command is not JSON") from None
        if not isinstance(data, dict) or set(data) != FIELDS:
            raise ValueError("the command must have board, action, args, id, nonce and hmac")
        fields = {k: v for k, v in data.items() if k != "hmac"}
        sent = data["hmac"]
        if not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), _digest(self._secret, fields).encode()):
            raise ValueError("the command's signature is wrong (not signed with this board's MQTT_COMMAND_SECRET)")
        if data["board"] != self._board:
            raise ValueError(f"the command is for board {data['board']!r}, not this one")
        self._rotate()
        seen = next((ids for nonce, ids in self._nonces if nonce == data["nonce"]), None)
        if seen is None:
            raise ValueError(
                "the command's nonce is not this board's current one: it was made before this board started "
                "or more than 2 minutes ago (a copy, or a dashboard that lost the board: send it again)"
            )
        if data["action"] not in ACTIONS or not isinstance(data["args"], dict):
            raise ValueError(f"the action must be one of {', '.join(ACTIONS)}")
        if not isinstance(data["id"], str) or any(data["id"] in ids for _, ids in self._nonces):
            raise ValueError("the command was already carried out (a copy)")
        seen.add(data["id"])
        return data


class _NotANumber(ValueError):
    pass


def _no_constant(name: str) -> float:
    """json.loads would read NaN and Infinity as numbers: a command holds none."""
    raise _NotANumber(name)
