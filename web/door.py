"""Who may answer the referee's questions: the table, not the whole network.

By default only the exhibit's own screen (a request from this machine) and phones that joined
with the table's code answer; the code is shown on that screen only and changes with every game
(a phone joined for one game must join again for the next). `ANSWERS_FROM_ANY_PHONE = true` in
config.toml opens answering to every page, as before. Every client's answers (and tries at the
code) are rate limited: BURST at once, then PER_SECOND a second, on the monotonic clock.

A client is its network address, never its cookie (a client that drops its session and fetches a
new CSRF token keeps its allowance): an IPv4 address, an IPv6 /64 (a phone picks new addresses
inside its /64 at will: privacy extensions), the exhibit's own screen (loopback) one client of its
own. Clients that may not answer (a phone that has not joined, every try at the code) also share
one allowance between them, STRANGERS_BURST then STRANGERS_PER_SECOND, so many addresses get no
more answers or guesses at the code than a few; the screen and joined phones never wait for it.
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
STRANGERS_BURST = 10  # answers and tries at the code from all clients that may not answer, at once
STRANGERS_PER_SECOND = 2.0  # and then this many a second, all of them together
STRANGERS = "strangers"  # the key of their shared allowance (no address looks like it)


def on_the_screen() -> bool:
    """The request comes from this machine (the exhibit's own screen), not a phone; also when a
    server listening on IPv6 and IPv4 at once names 127.0.0.1 as ::ffff:127.0.0.1."""
    try:
        ip = ipaddress.ip_address((request.remote_addr or "").split("%")[0])
    except ValueError:
        return False
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return (mapped or ip).is_loopback


def client_of(address: str) -> str:
    """The client an address is for the allowance: "screen" for this machine, an IPv4 address as
    it is (also written IPv4-mapped), an IPv6 address as its /64; anything else as given."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "screen"
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


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

    def wait(self, client: str, stranger: bool = False) -> tuple[float, str]:
        """Take one from `client`'s allowance (and, for a `stranger`, one from the strangers' shared
        allowance too): (0.0, "") when it may go on, else the seconds until it may and whose
        allowance is spent (`client` or STRANGERS), and nothing is taken."""
        now = self._clock()
        keys = [client, STRANGERS] if stranger else [client]
        with self._lock:
            waits = {key: self._refill(key, now) for key in keys}
            spent = max(keys, key=waits.__getitem__)
            if waits[spent] > 0.0:
                return waits[spent], spent
            for key in keys:
                tokens, then = self._allowance[key]
                self._allowance[key] = (tokens - 1.0, then)
            while len(self._allowance) > MAX_CLIENTS:
                self._allowance.popitem(last=False)
        return 0.0, ""

    def _refill(self, key: str, now: float) -> float:
        """`key`'s allowance brought up to now (and made the newest); the seconds until it holds one."""
        burst, per_second = (STRANGERS_BURST, STRANGERS_PER_SECOND) if key == STRANGERS else (BURST, PER_SECOND)
        tokens, then = self._allowance.pop(key, (float(burst), now))
        tokens = min(float(burst), tokens + (now - then) * per_second)
        self._allowance[key] = (tokens, now)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / per_second
