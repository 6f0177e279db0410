"""Who may answer the referee's questions: the table, not the whole network.

By default only the exhibit's own screen (a request from this machine) and phones that joined
with the table's code answer; the code is shown on that screen only and changes with every game
(a phone joined for one game must join again for the next). `ANSWERS_FROM_ANY_PHONE = true` in
config.toml opens answering to every page, as before. Every client's answers (and tries at the
code) are rate limited: BURST at once, then PER_SECOND a second, on the monotonic clock.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from flask import request

from senet_pi.verdicts import NewGame, Verdict

CODE_DIGITS = 6
BURST = 5  # answers (or tries at the code) a client may send at once
PER_SECOND = 1.0  # and then this many a second
MAX_CLIENTS = 4096  # clients whose allowance is remembered (the oldest are forgotten first)


def on_the_screen() -> bool:
    """The request comes from this machine (the exhibit's own screen), not a phone."""
    try:
        return ipaddress.ip_address((request.remote_addr or "").split("%")[0]).is_loopback
    except ValueError:
        return False


class TableDoor:
    """The table's join code (new with every game) and each client's allowance of answers."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, salt: bytes | None = None) -> None:
        self._clock = clock
        self._salt = salt or secrets.token_bytes(16)  # a new start: codes no one has seen
        self._games = 0  # new games heard since the start
        self._lock = threading.Lock()
        self._allowance: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client: (tokens, when)

    def watch(self, service: Any) -> None:
        """Change the code with every new game the service starts."""
        service.subscribe(self._heard)

    def _heard(self, verdicts: list[Verdict]) -> None:
        if any(isinstance(v, NewGame) for v in verdicts):
            with self._lock:
                self._games += 1

    def code(self, game: int) -> str:
        """The code of the game in progress (`game`: the service's game id; without a journal every
        game is 0, so the count of new games since the start is part of it too)."""
        with self._lock:
            message = f"{game}:{self._games}".encode()
        number = int.from_bytes(hmac.new(self._salt, message, hashlib.sha256).digest()[:8], "big")
        return str(number % 10**CODE_DIGITS).zfill(CODE_DIGITS)

    def wait(self, client: str) -> float:
        """Take one from `client`'s allowance: 0.0 when it may go on, else the seconds until it may."""
        now = self._clock()
        with self._lock:
            tokens, then = self._allowance.pop(client, (float(BURST), now))
            tokens = min(float(BURST), tokens + (now - then) * PER_SECOND)
            if tokens < 1.0:
                self._allowance[client] = (tokens, now)
                return (1.0 - tokens) / PER_SECOND
            self._allowance[client] = (tokens - 1.0, now)
            while len(self._allowance) > MAX_CLIENTS:
                self._allowance.popitem(last=False)
        return 0.0
