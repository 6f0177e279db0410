"""A serial port that plays given bytes to the host's serial backend, and a service on that
backend once the bridge has said hello: the USB bridge without a Pico or a pseudo-terminal."""

from __future__ import annotations

import threading
import time

from firmware_bridge import codec
from senet_pi.hardware.serial_link import SerialBackend
from senet_pi.rules import new_game
from senet_pi.service import Service
from tests.journal_helpers import ScriptClock


def until(condition, timeout: float = 10.0, seen=None) -> None:
    """Wait for `condition`; on time-out say what `seen()` shows (the last verdicts, say)."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("timed out" + (f"; the last verdicts: {seen()}" if seen else ""))
        time.sleep(0.01)


class FakePort:
    """A serial port that delivers given bytes, then nothing; records what the host writes."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.written: list[bytes] = []
        self.drained = threading.Event()  # the reader came back for more after the last byte

    def read(self, n: int) -> bytes:
        chunk, self.data = self.data[:n], self.data[n:]
        if not chunk:
            self.drained.set()  # every frame before this read has been handled
            time.sleep(0.01)
        return chunk

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def close(self) -> None:
        pass


def frames(*items) -> bytes:
    return b"".join(codec.encode(seq, kind, fields) for seq, kind, fields in items)


START = codec.occupancy_hex(new_game("secret").occupied())


def bridged_service() -> tuple[FakePort, ScriptClock, Service, SerialBackend]:
    """A service on a serial backend whose bridge said hello and sent the starting board, on a
    script clock, started and done resyncing; the caller closes the backend."""
    port = FakePort(frames((0, "H", ("proto=1", "fw=0.1.0", "board=x")), (1, "S", (START, 0))))
    clock = ScriptClock()
    service = Service(None, clock=clock)
    backend = SerialBackend("fake", open_port=lambda _: port, retry=5)
    backend.start(service, wait=2)
    try:
        until(lambda: not backend._resyncing)
    except BaseException:
        backend.close()
        raise
    return port, clock, service, backend
