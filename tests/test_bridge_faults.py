"""A USB bridge that falls silent, or stops reading, is marked down in seconds,
never blocks the service, and every frame lost either way is counted."""

from __future__ import annotations

import os
import pty
import threading
import time

import serial

from firmware_bridge import codec
from senet_pi.hardware.serial_link import WRITE_TIMEOUT, SerialBackend
from senet_pi.rules import new_game
from senet_pi.service.core import Service

START = codec.occupancy_hex(new_game("secret").occupied())
HELLO = [(0, "H", ("proto=1", "fw=0.1.0", "board=x")), (1, "S", (START, 0))]


def frames(*items) -> bytes:
    return b"".join(codec.encode(seq, kind, fields) for seq, kind, fields in items)


def until(condition, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.01)


class Port:
    """A serial port: the given bytes are read once, then silence; `stalled` makes writes time out
    as pyserial's do with a write timeout when the other end stops reading."""

    def __init__(self, data: bytes, stalled: threading.Event | None = None) -> None:
        self.data, self.stalled = data, stalled or threading.Event()
        self.written: list[bytes] = []
        self.opened = 0

    def read(self, n: int) -> bytes:
        chunk, self.data = self.data[:n], self.data[n:]
        if not chunk:
            time.sleep(0.01)
        return chunk

    def write(self, data: bytes) -> None:
        if self.stalled.is_set():
            time.sleep(0.01)
            raise serial.SerialTimeoutException("Write timeout")
        self.written.append(data)

    def close(self) -> None:
        pass


def connected(port: Port, **options) -> tuple[SerialBackend, Service, list[dict]]:
    service = Service(None)
    notes: list[dict] = []
    service.subscribe(lambda batch: notes.extend(v.json() for v in batch))

    def open_port(_: str) -> Port:
        port.opened += 1
        return port

    backend = SerialBackend("fake", open_port=open_port, retry=0.05, **options)
    backend.start(service)
    until(lambda: backend.connected)
    return backend, service, notes


def test_a_bridge_that_falls_silent_is_marked_down_after_missed_heartbeats():
    port = Port(frames(*HELLO, (2, "K", (1000, 0))))
    backend, _, notes = connected(port, silent_after=0.3)
    try:
        until(lambda: not backend.connected)
        down = [n for n in notes if n["v"] == "link" and not n["connected"]]
        assert down
        assert "fell silent" in down[0]["text"]
        assert backend.reconnects == 1
        assert "fell silent" in backend.describe()["problem"]
        until(lambda: port.opened >= 2)  # and it tries again, asking the bridge for its hello
    finally:
        backend.close()


def test_a_bridge_that_keeps_its_heartbeat_stays_connected():
    beats = [(i, "K", (i * 1000, 0)) for i in range(2, 17)]
    port = Port(frames(*HELLO))
    backend, _, _ = connected(port, silent_after=0.3)
    try:
        for item in beats:  # a heartbeat every 0.1 s, well inside the silence allowed
            port.data += frames(item)
            time.sleep(0.1)
            assert backend.connected
    finally:
        backend.close()


def test_a_bridge_that_stops_reading_never_blocks_and_every_unsent_frame_is_counted():
    stalled = threading.Event()
    port = Port(frames(*HELLO, (2, "K", (1000, 3))), stalled)
    backend, _, notes = connected(port, silent_after=60)
    try:
        until(lambda: backend.bridge_dropped == 3)  # the bridge's own count, from its heartbeat
        stalled.set()
        for _ in range(20):
            backend.command("L", (15,))  # returns: a write that times out is counted, not waited on
        until(lambda: not backend.connected)
        assert backend.unsent >= 20  # each of them (and the reconnect's hello, if it came already)
        assert any(n["v"] == "link" and "stopped taking commands" in n["text"] for n in notes)
        described = backend.describe()
        assert described["unsent"] >= 20
        assert described["bridge_dropped"] == 3
        assert described["connected"] is False
    finally:
        backend.close()


def test_the_real_port_is_opened_with_a_write_timeout():
    master, slave = pty.openpty()
    try:
        backend = SerialBackend(os.ttyname(slave))
        link = backend._open_port(os.ttyname(slave))
        try:
            assert link.write_timeout == WRITE_TIMEOUT  # without one a bridge that stops reading blocks the writer
        finally:
            link.close()
    finally:
        os.close(master)
        os.close(slave)
