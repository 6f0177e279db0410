"""Staff commands sent to a board over the broker, authenticated end to end.

A command is a JSON object `{"board", "action", "args", "id", "at", "hmac"}` published on
`senet-pi/BOARD/command`. `hmac` is HMAC-SHA256, keyed with the MQTT_COMMAND_SECRET that the
board and the dashboard share, over the other fields as canonical JSON (sorted keys, no
spaces). The broker and anyone else on it can read commands but cannot make or change one; a
board refuses a command for another board, one older or newer than WINDOW seconds (copied
from the broker later), one sent before the board started (a copy replayed after a restart:
the ids it carried out before are gone with the old process), an id it has already carried
out (copied within the window), and a time that is no number (NaN, infinities).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

ACTIONS = ("new_game", "resync")
WINDOW = 120.0  # seconds a command stays valid either side of the board's clock
MAX_PAYLOAD = 4096  # bytes: a command is small; anything bigger is refused before parsing


def _digest(secret: str, fields: dict[str, object]) -> str:
    body = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def sign(
    secret: str, board: str, action: str, args: dict[str, object] | None = None, at: float | None = None
) -> dict[str, object]:
    """A signed command for `board` (its `id` is new and random)."""
    fields: dict[str, object] = {
        "board": board,
        "action": action,
        "args": dict(args or {}),
        "id": secrets.token_hex(8),
        "at": round(time.time() if at is None else at, 3),
    }
    return {**fields, "hmac": _digest(secret, fields)}


class CommandCheck:
    """The board's side: whether a command payload is genuine, for this board, fresh and new."""

    def __init__(
        self, secret: str, board: str, clock: Callable[[], float] = time.time, not_before: float | None = None
    ) -> None:
        """`not_before`: when the board started; a command sent earlier is refused (at most once across restarts)."""
        self._secret = secret
        self._not_before = not_before
        self._board = board
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()  # ids carried out within the window

    def check(self, payload: bytes) -> dict[str, Any]:
        """The command, checked; ValueError says why it is refused.

        Complexity: one check per way a signed command can be wrong, each refused with its own reason."""
        if len(payload) > MAX_PAYLOAD:
            raise ValueError("the command is too long")
        try:
            data = json.loads(payload, parse_constant=_no_constant)
        except _NotANumber:
            raise ValueError("the command holds NaN or an infinity: its time must be a number of seconds") from None
        except (ValueError, RecursionError):
            raise ValueError("the command is not JSON") from None
        if not isinstance(data, dict) or set(data) != {"board", "action", "args", "id", "at", "hmac"}:
            raise ValueError("the command must have board, action, args, id, at and hmac")
        fields = {k: v for k, v in data.items() if k != "hmac"}
        sent = data["hmac"]
        if not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), _digest(self._secret, fields).encode()):
            raise ValueError("the command's signature is wrong (not signed with this board's MQTT_COMMAND_SECRET)")
        if data["board"] != self._board:
            raise ValueError(f"the command is for board {data['board']!r}, not this one")
        at, now = data["at"], self._clock()
        if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
            raise ValueError("the command's time must be a number of seconds")
        if abs(now - at) > WINDOW:
            raise ValueError(f"the command is stale: sent more than {WINDOW:g} s from this board's clock")
        if self._not_before is not None and at < self._not_before:
            raise ValueError("the command was sent before this board started: it is never carried out again")
        if data["action"] not in ACTIONS or not isinstance(data["args"], dict):
            raise ValueError(f"the action must be one of {', '.join(ACTIONS)}")
        if not isinstance(data["id"], str) or data["id"] in self._seen:
            raise ValueError("the command was already carried out (a copy)")
        self._seen[data["id"]] = now
        while self._seen and next(iter(self._seen.values())) < now - 2 * WINDOW:
            self._seen.popitem(last=False)
        return data


class _NotANumber(ValueError):
    pass


def _no_constant(name: str) -> float:
    """json.loads would read NaN and Infinity as numbers: a command holds none."""
    raise _NotANumber(name)
