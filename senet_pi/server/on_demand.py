"""The page of `senet-pi run`, started when its first visitor connects.

Flask, Werkzeug, Jinja, Click, uvicorn and asyncio are about 13 MiB of a board's memory, and
uvicorn's loop wakes ten times a second to see whether it should stop. A board whose page nobody
opens (an exhibit's table between visits, a board watched only through the broker) needs none
of it. So the page's port is bound at start (a taken port is said at once) and one thread waits
on it without a timeout (no wake-ups); the first connection imports the web stack, makes the app
and hands the socket to uvicorn, which answers that connection from the kernel's backlog. The
first page takes longer by the import (about 0.5 s on this machine); every later one is as
before, and the page stays up until the board stops. Ten seconds after it starts, the memory its
first requests used and freed is given back to the system (`serve.give_back`).
"""

from __future__ import annotations

import logging
import os
import select
import threading
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .listening import check_tls, exposed, listen

if TYPE_CHECKING:
    from ..fleet.published import Board
    from .serve import PageServer

log = logging.getLogger("senet_pi.server.serve")

SETTLE = 10.0  # seconds after the page starts before what its first requests freed is given back


class PinOnDisk:
    """Whether an operator PIN is set, read again from the config when the file changes (`set-pin`
    while the board runs): the operator status a visitor is shown before the page has started."""

    def __init__(self, path: Path | None, exposed: bool) -> None:
        self.path = path
        self.exposed = exposed
        self._seen: tuple[int, int] | None = None
        self._set = False

    def __call__(self) -> dict[str, object]:
        return {"enabled": self.pin_set(), "signed_in": False, "needed_for_sim": self.exposed}

    def pin_set(self) -> bool:
        if self.path is None:
            return False
        try:
            stat = self.path.stat()
            if (stat.st_mtime_ns, stat.st_size) != self._seen:
                self._seen = (stat.st_mtime_ns, stat.st_size)
                config = tomllib.loads(self.path.read_text(encoding="utf-8"))
                self._set = bool(config.get("OPERATOR_PIN_HASH"))
        except FileNotFoundError:
            self._seen, self._set = None, False
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            pass  # a config half written: the last reading stands (the page says the rest when it starts)
        return self._set


class LazyPage:
    """The page's socket, bound now; the page itself (`serve.PageServer`) made on the first connection.

    `scheme` and `effective_port` are known at once; `page` is None until a client connects;
    `close()` ends either."""

    def __init__(
        self,
        board: Board,
        host: str,
        port: int,
        tls: tuple[str, str] | None = None,
        on_start: Callable[[], None] | None = None,
    ) -> None:
        if tls is not None:
            check_tls(*tls)  # a certificate that cannot be used is said at start, not at the first visit
        self.scheme = "https" if tls else "http"
        self.board = board
        self.host = host
        self.on_start = on_start
        self.sock = listen(host, port)
        self.page: PageServer | None = None
        self.settled: threading.Timer | None = None
        self._lock = threading.Lock()
        self._closing = False
        self._wake_r, self._wake_w = os.pipe()  # close() wakes the waiting thread through this
        self.thread = threading.Thread(target=self._wait, name="senet-pi page", daemon=True)
        self.thread.start()

    @property
    def effective_port(self) -> int:
        return int(self.sock.getsockname()[1])

    def _wait(self) -> None:
        """Block until a client connects (or close() is called), then start the page on this socket."""
        try:
            select.select([self.sock.fileno(), self._wake_r], [], [])
        except (OSError, ValueError):
            return  # the socket was closed under us: the board is stopping
        with self._lock:
            if not self._closing:
                self.start()

    def start(self) -> None:
        """Make the app and serve it on the bound socket; a failure is logged in one line and the port
        closed (the board goes on without its page)."""
        if self.page is not None:
            return
        try:
            from senet_pi_web import create_app

            from .serve import PageServer, give_back

            app = create_app(board=self.board)
            app.config["LISTEN_HOST"] = self.host
            self.page = PageServer(app, self.host, self.effective_port, sock=self.sock)
        except Exception as exc:  # the config changed under us, out of memory...: said, never a traceback
            log.error("cannot start the page on port %s: %s: %s", self.effective_port, type(exc).__name__, exc)
            self.sock.close()
            return
        if self.on_start is not None:
            self.on_start()
        self.settled = threading.Timer(SETTLE, give_back)  # the first visit's page, style, script and state loaded
        self.settled.name, self.settled.daemon = "senet-pi settle", True
        self.settled.start()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the page if it started, else stop waiting for it; the port is let go of either way."""
        with self._lock:
            self._closing = True
            os.write(self._wake_w, b"x")
        self.thread.join(timeout)
        if self.settled is not None:
            self.settled.cancel()
        if self.page is not None:
            from .serve import stop_server

            stop_server(self.page, timeout)
        self.sock.close()
        os.close(self._wake_r)
        os.close(self._wake_w)


def serve_on_demand(
    board: Board,
    host: str,
    port: int,
    config: dict[str, object],
    on_start: Callable[[], None] | None = None,
) -> LazyPage:
    """The page for `board` on host:port, started by its first visitor. `config`: the instance config
    already read (its TLS_CERT and TLS_KEY, and where the PIN is kept, are needed before the page runs)."""
    from ..settings import instance_folder

    cert, key = config.get("TLS_CERT"), config.get("TLS_KEY")
    tls = (str(cert), str(key or "")) if cert else None  # checked now, by LazyPage: a key missing too
    if board.visitor is None:
        board.visitor = PinOnDisk(instance_folder() / "config.toml", exposed(host))
    return LazyPage(board, host, port, tls, on_start)
