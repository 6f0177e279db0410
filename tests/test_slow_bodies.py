"""No client can hold the page: a request body is read on the event loop, within the body timeout,
before a worker thread is given the request. Connections that send a POST's headers with
`Content-Length: 100` and no body, from one address or from many, leave `/`, the static files and
`/api/state` answering (a sign-in reads its body: each held a worker thread before); the late ones
are cut off (408) and logged. Loopback only; every loop is bounded. The 2-second figure is measured
by benchmarks/bench_idle_connections.py --slow-bodies; here the bodies are held for a minute, so a
page that waited for them could not answer at all."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import time

import pytest
from werkzeug.security import generate_password_hash

from senet_pi.server.serve import WORKERS, start_server, stop_server
from senet_pi.service.core import Service
from senet_pi_web import create_app

PIN = "123456"
FAST_HASH = generate_password_hash(PIN, method="pbkdf2:sha256:1000")


def serve(body_timeout: float):
    config = {"TESTING": True, "SECRET_KEY": "t", "OPERATOR_PIN_HASH": FAST_HASH, "PIN_DELAY": 0.0}
    return start_server(create_app(config, service=Service(None)), "127.0.0.1", 0, body_timeout=body_timeout)


def sign_in_head(port: int, length: int = 100) -> bytes:
    """The headers of a sign-in the page reads the body of: a session cookie and its CSRF token."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/api/op/csrf")
    response = conn.getresponse()
    cookie = response.getheader("Set-Cookie", "").split(";")[0]
    token = json.loads(response.read())["csrf"]
    conn.close()
    return (
        f"POST /api/op/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Cookie: {cookie}\r\nX-CSRF-Token: {token}\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def slow_body(port: int, address: str, head: bytes) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(head)
    return sock


def get(port: int, path: str, timeout: float = 10.0) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("count", "addresses"),
    [(WORKERS, ["127.0.0.2"]), (200, ["127.0.0.1"]), (200, [f"127.0.2.{i}" for i in range(1, 51)])],
    ids=["16 from one address", "200 from the kiosk's own address", "200 from 50 addresses"],
)
def test_slow_bodies_cannot_hold_the_page(count, addresses):
    server = serve(body_timeout=60.0)
    port = server.effective_port
    socks: list[socket.socket] = []
    try:
        head = sign_in_head(port)
        for i in range(count):
            socks.append(slow_body(port, addresses[i % len(addresses)], head))
        time.sleep(0.3)  # every request is in, its headers read, its body awaited
        for _ in range(3):
            assert get(port, "/") == 200
            assert get(port, "/static/style.css") == 200
            assert get(port, "/api/state") == 200
    finally:
        for sock in socks:
            sock.close()
        stop_server(server)


def test_slow_bodies_a_late_body_is_cut_off_with_408_and_logged(caplog):
    server = serve(body_timeout=0.5)
    port = server.effective_port
    try:
        with caplog.at_level(logging.WARNING, logger="senet_pi.server.serve"):
            head = sign_in_head(port)
            socks = [slow_body(port, "127.0.0.3", head) for _ in range(3)]
            answers = []
            for sock in socks:
                sock.settimeout(10)
                data = b""
                while chunk := sock.recv(4096):  # the server answers, then closes
                    data += chunk
                answers.append(data)
                sock.close()
        assert all(a.startswith(b"HTTP/1.1 408") for a in answers), answers
        said = [r.getMessage() for r in caplog.records if r.name == "senet_pi.server.serve"]
        assert said
        assert "cut off POST /api/op/login from 127.0.0.3" in said[0]
        assert len(said) == 1  # the next ones in the same minute are counted, not each logged
        assert get(port, "/api/state") == 200
    finally:
        stop_server(server)


def test_slow_bodies_a_body_sent_in_parts_in_time_is_answered():
    server = serve(body_timeout=10.0)
    port = server.effective_port
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        body = json.dumps({"pin": PIN}).encode()
        sock.sendall(sign_in_head(port, len(body)) + body[:5])
        time.sleep(0.2)
        sock.sendall(body[5:])
        data = sock.recv(4096)
        sock.close()
        assert data.startswith(b"HTTP/1.1 200")  # signed in: the app had the whole body
    finally:
        stop_server(server)


def test_slow_bodies_a_body_past_the_limit_is_refused_without_reading_it_all():
    server = serve(body_timeout=10.0)
    port = server.effective_port
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        size = 10 * 1024 * 1024
        sock.sendall(sign_in_head(port, size) + b"x" * (128 * 1024))
        data = sock.recv(4096)
        sock.close()
        assert data.startswith(b"HTTP/1.1 413")
    finally:
        stop_server(server)
