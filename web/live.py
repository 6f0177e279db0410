"""Live updates: every batch of verdicts goes to each open page as server-sent events.

Two ways to serve a stream, one Broker behind both:

- `senet-pi run` (uvicorn, see `senet_pi.server.serve`): `LiveApp` hands `/api/events`, once Flask has
  checked and answered its headers, to `Broker.serve`, a coroutine on the server's event loop.
  An open page then costs a small task and a queue, not a thread, so hundreds of phones can
  watch while the request threads stay free for `/api/state` and the operator. The state is
  built once per change and the same bytes go to every stream of a language (each language
  with an open page is said once); a client that leaves is
  noticed by the loop at once (the socket closes) and forgotten.
- Anything else that runs the Flask app as plain WSGI (the test client, `flask run`) gets
  `Broker.stream`, a generator that holds one thread per page, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import threading
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import Any

from senet_pi.i18n import DEFAULT, translate
from senet_pi.service.core import Service
from senet_pi.verdicts import Verdict

from .state import for_page

KEEPALIVE = 15.0  # seconds between comments that keep proxies and browsers from closing the stream
BACKLOG = 64  # updates a slow reader may fall behind before its stream is ended (its browser reconnects)

#: A batch of verdicts as the page says them, and a state: what the threads' queues carry.
Said = list[dict[str, object]]
State = dict[str, object]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class Broker:
    """Fans the service's verdicts out to every open event stream (threads' queues and the loop's)."""

    def __init__(self, service: Service) -> None:
        self._queues: list[queue.Queue[Said | None]] = []
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._streams: dict[asyncio.Queue[bytes | None], str] = {}  # stream -> its language; touched only on the loop
        self._snapshot: Callable[[], State] | None = None
        self._screens = 0  # open streams from this machine (the exhibit's screen), under the lock
        self.unsubscribe = service.subscribe(self._publish)

    def _publish(self, decided: list[Verdict]) -> None:
        # the pages name the players by their pieces: said so in the verdicts' sentences too
        verdicts = for_page(decided)
        with self._lock:
            for q in self._queues:
                q.put(verdicts)
            loop, snapshot = self._loop, self._snapshot
        if loop is not None and snapshot is not None and self._streams:
            update = (verdicts, snapshot())  # the state at this change; said in each page's language on the loop
            with contextlib.suppress(RuntimeError):  # the loop has closed: the server is gone
                loop.call_soon_threadsafe(self._fan_out, update)

    # ------------------------------------------------------------------ streams on the event loop

    def attach(self, loop: asyncio.AbstractEventLoop, snapshot: Callable[[], State]) -> None:
        """Serve streams on `loop`; `snapshot()` (thread-safe) is the state every page is sent."""
        with self._lock:
            self._loop, self._snapshot = loop, snapshot

    def _fan_out(self, update: tuple[Said, State] | None) -> None:
        """Send `update` (verdicts and state) to every stream, said once per language that has one;
        None ends every stream."""
        said: dict[str, bytes] = {}
        for q, lang in list(self._streams.items()):
            if update is not None and lang not in said:
                verdicts, state = update
                said[lang] = (
                    _event("verdicts", translate(verdicts, lang)) + _event("state", translate(state, lang))
                ).encode()
            try:
                q.put_nowait(None if update is None else said[lang])
            except asyncio.QueueFull:  # a reader that stopped reading: end its stream
                _end(q)

    async def serve(
        self, receive: Receive, send: Send, keepalive: float = KEEPALIVE, language: str = DEFAULT, screen: bool = False
    ) -> None:
        """One stream on the loop, after its headers have gone: the state, then every update (in
        `language`), until the client leaves, falls BACKLOG updates behind, or the server stops.
        `screen`: the stream is this machine's own (counted in `screens`)."""
        loop = asyncio.get_running_loop()
        q: asyncio.Queue[bytes | None] = asyncio.Queue(BACKLOG)
        self._streams[q] = language
        watcher = loop.create_task(_watch(receive, q))
        self._count_screen(screen, 1)
        try:
            await _body(send, b"retry: 1000\n\n")
            snapshot = self._snapshot
            assert snapshot is not None, "attach() the broker to the loop first"
            state = await loop.run_in_executor(None, snapshot)  # takes the service's lock: off the loop
            await _body(send, _event("state", translate(state, language)).encode())
            while True:
                try:
                    async with asyncio.timeout(keepalive):
                        data = await q.get()
                except TimeoutError:
                    data = b": keepalive\n\n"
                if data is None:
                    break
                await _body(send, data)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # the client went away mid-write
            pass
        finally:
            self._streams.pop(q, None)
            watcher.cancel()
            self._count_screen(screen, -1)

    # ------------------------------------------------------------------ streams on threads (plain WSGI)

    def stream(
        self, state: Callable[[], State], keepalive: float = KEEPALIVE, language: str = DEFAULT, screen: bool = False
    ) -> Iterator[str]:
        """Server-sent events: the state at once, then each batch of verdicts followed by the new state,
        said in `language`. `screen`: the stream is this machine's own (counted in `screens`)."""
        q: queue.Queue[Said | None] = queue.Queue()
        with self._lock:
            self._queues.append(q)
        self._count_screen(screen, 1)
        try:
            yield "retry: 1000\n\n"
            yield _event("state", translate(state(), language))
            while True:
                try:
                    verdicts = q.get(timeout=keepalive)
                except queue.Empty:
                    yield ": keepalive\n\n"
                    continue
                if verdicts is None:  # the server is stopping
                    return
                while not q.empty():  # a burst (a whole move) goes out as one update
                    more = q.get_nowait()
                    if more is None:
                        return
                    verdicts = verdicts + more
                yield _event("verdicts", translate(verdicts, language))
                yield _event("state", translate(state(), language))
        finally:
            with self._lock:
                self._queues.remove(q)
            self._count_screen(screen, -1)

    def close(self) -> None:
        """End every open stream (the server is stopping); closing twice is harmless."""
        with self._lock:
            for q in self._queues:
                q.put(None)
            loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._fan_out, None)
        unsubscribe, self.unsubscribe = self.unsubscribe, lambda: None
        unsubscribe()

    @property
    def listeners(self) -> int:
        """Open streams, on threads and on the loop."""
        return len(self._queues) + len(self._streams)

    @property
    def screens(self) -> int:
        """Open streams from this machine: the exhibit's own screen following the game (the kiosk)."""
        with self._lock:
            return self._screens

    def _count_screen(self, screen: bool, step: int) -> None:
        if screen:
            with self._lock:
                self._screens += step


def _end(q: asyncio.Queue[bytes | None]) -> None:
    """Make `q`'s stream end at its next read, dropping what it has not sent yet."""
    while not q.empty():
        q.get_nowait()
    q.put_nowait(None)


async def _watch(receive: Receive, q: asyncio.Queue[bytes | None]) -> None:
    """End the stream as soon as the client disconnects (uvicorn says so through `receive`)."""
    while (await receive())["type"] != "http.disconnect":
        pass
    _end(q)


async def _body(send: Send, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})


def _event(name: str, data: object) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


class LiveApp:
    """The ASGI app `senet-pi run` serves: the Flask app on a few threads (a2wsgi), and the live
    streams on the event loop.

    `/api/events` still goes through Flask first, so the Host check, the security headers and the
    stream limit are the same as everywhere; Flask answers only the headers, marks the scope,
    and the loop carries the stream from there."""

    def __init__(self, app: Any, workers: int = 16) -> None:
        from a2wsgi import WSGIMiddleware

        self.flask = app
        self.wsgi = WSGIMiddleware(app, workers=workers)
        from .shared import Senet, shared_of

        shared = shared_of(app)  # a board's page streams here; the fleet's dashboard streams through Flask
        self.broker: Broker | None = shared.broker if isinstance(shared, Senet) else None

    def snapshot(self) -> State:
        """The state every page is sent (without any session's operator status)."""
        from .state import state

        with self.flask.app_context():
            return state(for_session=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            return await self._flask(scope, receive, send)
        broker = self.broker
        if broker is None or scope["type"] != "http" or scope["path"] != "/api/events" or scope["method"] != "GET":
            return await self._flask(scope, receive, send)
        if broker._loop is None:
            broker.attach(asyncio.get_running_loop(), self.snapshot)
        scope = {**scope, "senet.live": True}

        async def headers_only(message: MutableMapping[str, Any]) -> None:
            if not scope.get("senet.handoff"):
                await send(message)
            elif message["type"] == "http.response.start":  # the stream's headers, without a length
                headers = [(k, v) for k, v in message["headers"] if k.lower() != b"content-length"]
                await send({**message, "headers": headers})

        await self._flask(scope, receive, headers_only)
        if scope.get("senet.handoff"):
            language = scope.get("senet.language", DEFAULT)
            await broker.serve(receive, send, language=language, screen=bool(scope.get("senet.screen")))

    async def _flask(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The Flask app on its threads, for one request."""
        await self.wsgi(scope, receive, send)  # type: ignore[arg-type]  # a2wsgi types ASGI messages as TypedDicts; uvicorn's are the same, as plain mappings

    def close(self) -> None:
        """Stop the Flask app's threads once they are idle."""
        self.wsgi.executor.shutdown(wait=False, cancel_futures=True)
