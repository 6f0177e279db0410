"""Serving the status page for `senet-pi run`, and the operator PIN it checks.

The page itself lives in the top-level `web` package (a Flask app); this module serves it with
uvicorn, a small asyncio HTTP server (pure Python over h11 here, fine on a Pi). Why not a
thread per connection (waitress, as before): every open page holds its live stream open, so 24
phones took all 24 threads and the 25th client, even `/api/state`, waited a minute. Here the
event loop owns every socket: a live stream is a coroutine on the loop (`web.live.LiveApp`),
costing a few kilobytes while idle and dropped as soon as its socket closes, and the Flask
app's ordinary requests run on a small pool of threads (a2wsgi) that streams never occupy.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import re
import socket
import threading
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import uvicorn

from ..errors import SenetError
from ..fleet.published import Board
from ..hardware.backend import Backend
from ..service.core import Service
from .connections import HEADER_TIMEOUT, PER_CLIENT, QuietErrors, guarded_protocol, log, raise_file_limit
from .listening import check_tls, listen

if TYPE_CHECKING:
    from flask import Flask

WORKERS = 16  # threads for the Flask app's requests (the live streams need none)
MAX_CONNECTIONS = 2000  # open connections at most (each a file descriptor); beyond, 503 at once
BODY_TIMEOUT = 10.0  # seconds a request has, after its headers, to send its whole body
BODY_LIMIT = 1024 * 1024  # bytes of a body read at most when the app sets no MAX_CONTENT_LENGTH
LOG_EVERY = 60.0  # seconds between two lines about connections cut off


class BodyFirst:
    """ASGI middleware: a request's whole body is read on the event loop, within `timeout` seconds
    and up to the app's MAX_CONTENT_LENGTH, before a worker thread is given the request. A body that
    is late is answered 408 and its connection closed; one too large 413. So no client, slow or idle,
    from one address or many, holds the threads that answer everyone else: a thread only ever waits
    for the app, never for a socket."""

    def __init__(self, app: Any, flask: Any, timeout: float = BODY_TIMEOUT, clock: Any = time.monotonic) -> None:
        self.app = app
        self.flask = flask
        self.timeout = timeout
        self.clock = clock
        self._said: float | None = None  # when the last line about cut-offs was logged
        self._since = 0  # cut-offs since then, said with the next line

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = int(self.flask.config.get("MAX_CONTENT_LENGTH") or BODY_LIMIT)
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.timeout):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        return  # the client left before its body came: nothing to answer
                    chunks.append(message.get("body", b""))
                    size += len(chunks[-1])
                    if size > limit:
                        return await self._refuse(scope, send, 413, b"request body too large")
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            self._cut_off(scope, size)
            return await self._refuse(scope, send, 408, b"request body not sent in time")
        body = b"".join(chunks)
        given = False

        async def replay() -> dict[str, Any]:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return cast(dict[str, Any], await receive())  # after the body: the disconnect, as the app saw it

        await self.app(scope, replay, send)

    @staticmethod
    async def _refuse(scope: dict[str, Any], send: Any, status: int, text: bytes) -> None:
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
        headers.append((b"content-length", str(len(text) + 1).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": text + b"\n", "more_body": False})

    def _cut_off(self, scope: dict[str, Any], size: int) -> None:
        """Log a connection cut off for a late body: the first at once, then one line a minute with a count."""
        now = self.clock()
        if self._said is not None and now - self._said < LOG_EVERY:
            self._since += 1
            return
        client = scope.get("client") or ("?", 0)
        more = f" ({self._since} more cut off in the last minute)" if self._since else ""
        log.warning(
            "cut off %s %s from %s: its body was not sent within %g s (%d bytes came)%s",
            scope.get("method", "?"),
            scope.get("path", "?")[:80],
            client[0],
            self.timeout,
            size,
            more,
        )
        self._said, self._since = now, 0


class CalmServer(uvicorn.Server):
    """uvicorn's server, its housekeeping once a second instead of ten times, and none while nobody
    is connected. uvicorn's loop wakes every 0.1 s to see whether it should stop and to date its
    answers once a second; on a board at rest those wake-ups were the page's whole idle cost. Here
    it waits a second while a connection is open (the Date header as fresh as before) and, with
    none open, until one comes (`connected()`, whose pass dates the answers before its request is
    read); `wake()` (stop_server) ends any wait at once, so stopping is as quick."""

    period = 1.0  # seconds between two passes of the loop's housekeeping
    _loop: asyncio.AbstractEventLoop | None = None
    _woken: asyncio.Event | None = None

    async def main_loop(self) -> None:
        self._loop, self._woken = asyncio.get_running_loop(), asyncio.Event()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 10) % 864000  # each pass is uvicorn's tenth tick: the once-a-second work
            resting = not self.server_state.connections
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(None if resting else self.period):
                    await self._woken.wait()
            self._woken.clear()
            should_exit = await self.on_tick(counter)

    def connected(self) -> None:
        """A connection came (called on the loop's thread): end a resting wait, so the next pass
        dates the answers and the passes come once a second again."""
        if self._woken is not None:
            self._woken.set()

    def wake(self) -> None:
        """End the loop's wait now (from any thread): it sees `should_exit` at once."""
        loop, woken = self._loop, self._woken
        if loop is not None and woken is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nothing left to wake
                loop.call_soon_threadsafe(woken.set)


M_ARENA_MAX = -8  # glibc's mallopt() parameter number (malloc.h)
ARENAS = 2


def _libc(*names: str) -> list[Any]:
    """Functions of the C library (glibc's `mallopt`, `malloc_trim`), None for each it has not."""
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return [None for _ in names]
    return [getattr(libc, name, None) for name in names]


_MALLOPT, _MALLOC_TRIM = _libc("mallopt", "malloc_trim")  # found now: giving memory back later allocates nothing


def few_arenas(arenas: int = ARENAS) -> bool:
    """Let glibc's malloc keep at most `arenas` arenas from now on, before the page's worker threads
    start. Each thread that allocates may otherwise get an arena of its own (up to 8 per core) and
    keep what it freed for good: after 80 requests at once the board held 0.8 MiB less with 2 (more
    the more workers a crowd wakes). False where the C library is not glibc (nothing changes there)."""
    return _MALLOPT is not None and bool(_MALLOPT(M_ARENA_MAX, arenas))


def give_back() -> bool:
    """Collect garbage, then hand the memory malloc holds free back to the system (glibc's
    malloc_trim). The page's first requests compile its templates and fill its caches once, and
    what they used on the way stays with the process unless given back: 0.7 MiB of a board at rest
    after one visit. False where the C library is not glibc, or nothing was given back."""
    gc.collect()
    return _MALLOC_TRIM is not None and bool(_MALLOC_TRIM(0))


class PinError(SenetError, ValueError):
    """A PIN that is neither 6-12 digits nor a passphrase of 12-64 characters."""


def pin_problem(pin: str) -> str | None:
    """Why `pin` is too weak or cannot be typed on the page's sign-in, or None. At least 6 digits
    (a million PINs), or a passphrase of at least 12 printable ASCII characters."""
    if re.fullmatch(r"\d{6,12}", pin):
        return None
    if re.fullmatch(r"\d+", pin):
        return "a PIN must be 6 to 12 digits (4 digits fall to a guesser with many addresses in a day)"
    if not (pin.isascii() and pin.isprintable()) or not 12 <= len(pin) <= 64:
        return "use 6 to 12 digits, or a passphrase of 12 to 64 letters, digits, spaces or punctuation (ASCII)"
    return None


class PageServer:
    """uvicorn serving one Flask app on a background thread; `stop_server` ends it.

    The listening socket is bound here, in the caller's thread, so a taken port is an OSError
    at once (or given bound, `sock`); `effective_port` is the port it got (ask for 0 for a free one)."""

    def __init__(
        self,
        app: Flask,
        host: str,
        port: int,
        workers: int = WORKERS,
        header_timeout: float = HEADER_TIMEOUT,
        per_client: int = PER_CLIENT,
        body_timeout: float = BODY_TIMEOUT,
        sock: socket.socket | None = None,
    ) -> None:
        cert, key = app.config.get("TLS_CERT"), app.config.get("TLS_KEY")
        self.scheme = "https" if cert else "http"
        if cert:
            check_tls(str(cert), str(key or ""))

        from senet_pi_web.live import LiveApp

        raise_file_limit(MAX_CONNECTIONS + 256)  # the connection limit refuses a crowd, not the file limit
        few_arenas()

        self.sock = sock if sock is not None else listen(host, port)  # `sock`: bound already (on_demand)
        self.app = app
        self.asgi = LiveApp(app, workers=workers)
        self.body_first = BodyFirst(self.asgi, app, body_timeout)
        config = uvicorn.Config(
            self.body_first,
            # h11, with a header timeout and a cap per client; a connection ends the loop's rest
            http=guarded_protocol(header_timeout, per_client, on_connect=lambda: self.server.connected()),
            loop="asyncio",
            ws="none",
            lifespan="off",
            log_config=None,
            log_level="warning",
            access_log=False,
            proxy_headers=False,  # the address a PIN guesser is locked out by is the socket's, not a header
            server_header=False,
            limit_concurrency=MAX_CONNECTIONS,
            timeout_keep_alive=5,
            timeout_graceful_shutdown=2,
            ssl_certfile=str(cert) if cert else None,  # HTTPS when the config names a certificate
            ssl_keyfile=str(key) if cert else None,
        )
        self.server = CalmServer(config)
        self.thread = threading.Thread(target=self._run, name="senet-pi page", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)  # uvicorn says it is ready with a flag only
        if not self.server.started:
            raise OSError(f"the page server did not start on {host}:{port}")

    def _run(self) -> None:
        """uvicorn's loop, with errors it repeats (accept() out of files) said once a minute, not flooded."""
        loop = asyncio.new_event_loop()
        loop.set_exception_handler(QuietErrors())
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self.server.serve(sockets=[self.sock]))
        finally:
            loop.close()

    @property
    def effective_port(self) -> int:
        return int(self.sock.getsockname()[1])


def serve(service: Service, backend: Backend | None, host: str, port: int, board: Board | None = None) -> PageServer:
    """Serve the page for `service` on host:port from a background thread; `board`: the objects the
    page shares with the command line and the fleet (made here of `service` and `backend` if None)."""
    from senet_pi_web import create_app

    app = create_app(service=service, backend=backend, board=board)
    app.config["LISTEN_HOST"] = host
    return start_server(app, host, port)


def start_server(
    app: Flask, host: str = "127.0.0.1", port: int = 0, workers: int = WORKERS, **limits: Any
) -> PageServer:
    """Serve a Flask app made by `web.create_app` on host:port; `stop_server` ends it cleanly. `limits`:
    `header_timeout` and `per_client` (see senet_pi.server.connections), `body_timeout` (BodyFirst)."""
    return PageServer(app, host, port, workers=workers, **limits)


def stop_server(server: PageServer, timeout: float = 5.0) -> None:
    """End the live streams at once, then let uvicorn close the connections and its loop."""
    shared = server.app.extensions.get("senet")  # the page's (or the dashboard's) shared objects
    if shared is not None:
        shared.close()  # the live streams end instead of waiting for their next keepalive
    server.server.should_exit = True
    server.server.wake()
    server.thread.join(timeout)
    if server.thread.is_alive():  # a request that will not finish: stop waiting for it
        server.server.force_exit = True
        server.thread.join(timeout)
    server.asgi.close()
    server.sock.close()


def set_pin(pin: str, folder: Path | None = None) -> Path:
    """Store the PIN's hash (never the PIN) as the instance `config.toml`'s top-level OPERATOR_PIN_HASH
    through the one config writer (the rest of the file, its owner, group and mode kept); an empty PIN
    removes it. PinError, one line, and the file as it was, when it cannot be written; PinError too
    when it does not read back as written."""
    from werkzeug.security import generate_password_hash

    from ..configfile import write_settings
    from ..errors import ConfigWriteError
    from ..settings import instance_folder

    problem = pin_problem(pin) if pin else None
    if problem:
        raise PinError(problem)
    folder = folder or instance_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PinError(
            f"cannot make the config's folder {folder}: {exc.strerror or exc}; the PIN is unchanged"
        ) from None
    hashed = generate_password_hash(pin) if pin else None
    try:
        path = write_settings(folder / "config.toml", {"OPERATOR_PIN_HASH": hashed})  # a new file: 0600
        readback = tomllib.loads(path.read_text(encoding="utf-8")).get("OPERATOR_PIN_HASH")
    except ConfigWriteError as exc:
        raise PinError(str(exc)) from None
    except OSError as exc:
        raise PinError(f"cannot read back the config {folder / 'config.toml'}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PinError(f"the config {path} does not read back as written ({exc}): check the disk") from None
    if readback != hashed:
        raise PinError(f"the config {path} does not read back the PIN as written: check the disk")
    return path
