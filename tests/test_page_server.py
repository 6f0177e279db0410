"""The page as `senet-pi run` serves it (uvicorn, live streams on its event loop), over real
sockets on 127.0.0.1: many live pages at once, and pages that leave. No timing is asserted:
the figures are `benchmarks/bench_page.py`'s."""

from __future__ import annotations

import http.client
import json
import random
import socket
import time

import pytest

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.server.serve import serve, stop_server
from senet_pi.service.core import Service
from senet_pi_web import shared


@pytest.fixture
def live():
    service = Service(None, variant="secret")
    backend = SimBackend(load_pinmap(), rng=random.Random(4), spin=0)
    backend.start(service, scan=False)
    server = serve(service, backend, "127.0.0.1", 0)
    yield service, server
    stop_server(server)
    backend.close()


def until(condition, timeout: float = 20.0, what: str = "the server") -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def open_stream(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    return sock


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(65536)
        assert chunk, f"the stream closed before {marker!r}"
        data += chunk
    return data


def get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def listeners(server) -> int:
    return shared(server.app).broker.listeners


def test_eighty_live_pages_and_the_api_still_answers(live):
    service, server = live
    port = server.effective_port
    streams = [open_stream(port) for _ in range(80)]  # the old server had 24 threads: 24 pages took them all
    try:
        for sock in streams:
            head = read_until(sock, b"event: state")
            assert b"200 OK" in head
            assert b"text/event-stream" in head
            assert b"frame-ancestors 'none'" in head
        until(lambda: listeners(server) == 80, what="80 streams on the loop")
        for _ in range(20):
            status, body = get(port, "/api/state")
            assert status == 200
            assert b'"variant": "secret"' in body.replace(b'":"', b'": "')
        service.handle("throw", 3)
        for sock in streams:  # every page gets the update
            read_until(sock, b'"value": 3')
    finally:
        for sock in streams:
            sock.close()


def test_a_page_that_leaves_is_freed(live):
    _, server = live
    port = server.effective_port
    streams = [open_stream(port) for _ in range(10)]
    for sock in streams:
        read_until(sock, b"event: state")
    until(lambda: listeners(server) == 10, what="10 streams")
    for sock in streams[:6]:
        sock.close()
    until(lambda: listeners(server) == 4, what="the server to let go of the closed streams")
    for sock in streams[6:]:
        sock.close()
    until(lambda: listeners(server) == 0, what="every stream to be freed")


def screens(port: int) -> int:
    status, body = get(port, "/api/screens")
    assert status == 200
    return int(json.loads(body)["screens"])


def test_the_exhibit_s_own_screen_is_counted_while_its_page_is_live(live):
    """A live page opened from this machine (the kiosk's) counts in /api/screens until it
    leaves: what `senet-pi status` reads to tell a kiosk that follows the game."""
    _, server = live
    port = server.effective_port
    assert screens(port) == 0
    sock = open_stream(port)
    read_until(sock, b"event: state")
    assert screens(port) == 1
    sock.close()
    until(lambda: screens(port) == 0, what="the closed stream to be forgotten")


def test_stopping_the_server_ends_the_open_streams(live):
    _, server = live
    sock = open_stream(server.effective_port)
    read_until(sock, b"event: state")
    stop_server(server)
    rest = b""
    while chunk := sock.recv(65536):
        rest += chunk
    assert rest.endswith(b"0\r\n\r\n")  # the chunked stream ended properly
    sock.close()


def test_streams_past_the_limit_get_503_and_retry_after(live):
    _, server = live
    server.app.config["MAX_LIVE_STREAMS"] = 2
    port = server.effective_port
    streams = [open_stream(port) for _ in range(2)]
    for sock in streams:
        read_until(sock, b"event: state")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    assert response.status == 503
    assert response.getheader("Retry-After") == "10"
    assert b"too many live pages" in response.read()
    conn.close()
    for sock in streams:
        sock.close()


def test_a_foreign_host_gets_no_stream(live):
    _, server = live
    sock = socket.create_connection(("127.0.0.1", server.effective_port), timeout=20)
    sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: evil.example\r\n\r\n")
    head = read_until(sock, b"}")
    assert b"400 Bad Request" in head
    assert b"unknown Host" in head
    sock.close()
    assert listeners(server) == 0


def test_a_phone_s_live_page_is_not_the_screen(app):
    """Under plain WSGI too (one thread a stream): only a stream from this machine counts."""
    client = app.test_client()

    def counted() -> int:
        return int(client.get("/api/screens").json["screens"])

    phone = client.get("/api/events", buffered=False, environ_base={"REMOTE_ADDR": "192.168.1.20"})
    next(phone.response)  # the stream has begun
    assert counted() == 0
    screen = client.get("/api/events", buffered=False)  # the test client comes from 127.0.0.1
    next(screen.response)
    assert counted() == 1
    screen.close()
    phone.close()
    assert counted() == 0
    # a server on IPv6 and IPv4 at once names this machine ::ffff:127.0.0.1; ::1 is it too
    for address, count in (("::ffff:127.0.0.1", 1), ("::1", 1), ("::ffff:192.168.1.20", 0), ("unix", 0)):
        stream = client.get("/api/events", buffered=False, environ_base={"REMOTE_ADDR": address})
        next(stream.response)
        assert counted() == count, address
        stream.close()
