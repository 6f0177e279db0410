"""Idle and half-open connections cannot take the page down. A connection that
never sends its headers is closed after the header timeout, one address holds a bounded number of
connections, the unit's file limit is above the page's connection limit, and a repeated loop error
is said once a minute, not at every retry. No timing is asserted."""

from __future__ import annotations

import configparser
import http.client
import logging
import socket
import time
from pathlib import Path

import pytest

from senet_pi.server.connections import QuietErrors
from senet_pi.server.serve import MAX_CONNECTIONS, start_server, stop_server
from senet_pi.service.core import Service
from senet_pi_web import create_app

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def guarded():
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=Service(None))
    server = start_server(app, "127.0.0.1", 0, workers=2, header_timeout=0.5, per_client=8)
    yield server.effective_port
    stop_server(server)


def closed_by_server(sock: socket.socket, within: float = 15.0) -> bool:
    """Whether the server closes `sock` (recv gives b"") before `within` seconds pass."""
    sock.settimeout(within)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def state_answers(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request("GET", "/api/state")
        return conn.getresponse().status == 200
    finally:
        conn.close()


def from_address(address: str, port: int) -> socket.socket:
    """A connection from another loopback address (a phone on the Wi-Fi, as far as the server sees)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    return sock


@pytest.mark.parametrize("sent", [b"", b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n"])
def test_a_connection_that_never_finishes_its_headers_is_closed(guarded, sent):
    sock = from_address("127.0.0.2", guarded)
    try:
        sock.sendall(sent)
        assert closed_by_server(sock)
    finally:
        sock.close()
    assert state_answers(guarded)


def test_one_address_holds_a_bounded_number_of_connections_and_the_page_still_answers(guarded):
    socks = [from_address("127.0.0.3", guarded) for _ in range(30)]
    try:
        time.sleep(0.2)
        refused = sum(closed_by_server(s, within=0.2) for s in socks)
        assert refused >= 30 - 8  # beyond 8 per address, closed at once
        assert state_answers(guarded)  # this machine's own clients are not counted
        other = from_address("127.0.0.4", guarded)  # another visitor still gets in
        try:
            other.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            other.settimeout(20)
            assert other.recv(64).startswith(b"HTTP/1.1 200")
        finally:
            other.close()
    finally:
        for s in socks:
            s.close()


def test_a_request_sent_in_time_is_answered(guarded):
    sock = from_address("127.0.0.5", guarded)
    try:
        sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(20)
        assert sock.recv(64).startswith(b"HTTP/1.1 200")
        assert closed_by_server(sock)  # then idle on keep-alive: closed too, not held for ever
    finally:
        sock.close()


def test_the_units_file_limit_is_above_the_pages_connection_limit():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read_string((ROOT / "exhibit" / "senet-pi.service").read_text(encoding="utf-8"))
    assert int(unit["Service"]["LimitNOFILE"]) >= MAX_CONNECTIONS + 256


def test_a_repeated_loop_error_is_said_once_a_minute_with_a_count(caplog):
    now = [0.0]
    handler = QuietErrors(clock=lambda: now[0])
    context = {"message": "socket.accept() out of system resource", "exception": OSError(24, "Too many open files")}
    with caplog.at_level(logging.ERROR, logger="senet_pi.server.serve"):
        for _ in range(600):  # ten minutes of retries, one a second
            handler(None, context)  # type: ignore[arg-type]
            now[0] += 1.0
    records = [r.getMessage() for r in caplog.records]
    assert 1 <= len(records) <= 11
    assert "out of system resource" in records[0]
    assert "59 more like it" in records[1]
