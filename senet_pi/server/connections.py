"""Idle and half-open connections cannot take the page down.

uvicorn gives a connection that never finishes its request's headers all the time in the world,
so 1,100 phones that connected and went quiet (or one script) would hold every file descriptor
under systemd's 1,024 and `/api/state` would stop answering. Here, on top of uvicorn's h11 protocol:

- a request's headers must arrive within HEADER_TIMEOUT of the connection (or of the previous
  answer on a kept-alive one), else the connection is closed;
- one address holds at most PER_CLIENT connections (127.0.0.1 and ::1, the kiosk's own screen and
  local tools, are not counted); more are closed at once;
- TCP keepalive finds peers that vanished without closing (a phone that left the Wi-Fi);
- the event loop says a repeated error (out of file descriptors at accept) once a minute with a
  count, not at every retry.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT = 10.0  # seconds a connection has to send its request's headers
PER_CLIENT = 64  # connections one address may hold at once
UNCOUNTED = {"127.0.0.1", "::1"}  # this machine's own clients: the kiosk and local tools
LOG_EVERY = 60.0  # seconds between two reports of the same loop error

log = logging.getLogger("senet_pi.server.serve")


def guarded_protocol(
    header_timeout: float = HEADER_TIMEOUT, per_client: int = PER_CLIENT, on_connect: Callable[[], None] | None = None
) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a header-read timeout and a cap per client (one count per server);
    `on_connect()` is called as each connection is made, on the server's loop."""
    counts: dict[str, int] = {}

    class Guarded(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None
        _counted: str | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # asyncio's base takes a BaseTransport; uvicorn hands a Transport
            super().connection_made(transport)
            if on_connect is not None:
                on_connect()
            host = self.client[0] if self.client else "?"
            if host not in UNCOUNTED:
                self._counted = host
                counts[host] = counts.get(host, 0) + 1
                if counts[host] > per_client:
                    transport.close()  # connection_lost gives the count back
                    return
            sock = transport.get_extra_info("socket")
            if sock is not None:
                _keepalive(sock)
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(header_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._header_timer is not None and self.cycle is not None and not self.cycle.response_complete:
                self._disarm()  # the headers are in: the request is the app's business now

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # a kept-alive connection gets the same time for its next headers

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._counted is not None:
                left = counts.get(self._counted, 1) - 1
                if left > 0:
                    counts[self._counted] = left
                else:
                    counts.pop(self._counted, None)
                self._counted = None
            super().connection_lost(exc)

    return Guarded


def _keepalive(sock: socket.socket) -> None:
    """Probe an idle peer after 60 s, give up after three unanswered probes 10 s apart."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        for name, value in (("TCP_KEEPIDLE", 60), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3)):
            if hasattr(socket, name):
                sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)
    except OSError:
        pass  # not a TCP socket (a test's): nothing to probe


class QuietErrors:
    """An event loop exception handler that reports each kind of error once, then at most once every
    LOG_EVERY seconds with how many there were (accept() out of file descriptors retries every second)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._seen: dict[str, tuple[float, int]] = {}  # message: (when last reported, how many since)

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        key = f"{context.get('message', '')}|{type(exc).__name__ if exc else ''}"
        now = self.clock()
        last, since = self._seen.get(key, (None, 0))
        if last is not None and now - last < LOG_EVERY:
            self._seen[key] = (last, since + 1)
            return
        self._seen[key] = (now, 0)
        text = f"{context.get('message', 'error in the page server')}" + (f": {exc}" if exc else "")
        log.error("%s%s", text, f" ({since} more like it in the last minute)" if since else "")


def raise_file_limit(needed: int) -> None:
    """Raise this process's soft limit of open files towards `needed` (up to the hard limit), so the
    page's connection limit, not the default 1,024 descriptors, is what refuses a crowd."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    except (ImportError, ValueError, OSError):
        pass
