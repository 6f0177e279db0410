"""The `serial` backend: a Pico under the board scans it and sends clean events over USB serial.

The host finds the bridge by its USB ids (or takes `--port`), reads frames with the one codec
the firmware also runs (`firmware_bridge/codec.py`), and trusts nothing it cannot check: a
frame that fails its CRC, or a gap in the sequence numbers, makes it ask for a snapshot, and
change events are ignored until the snapshot arrives, so a damaged byte never becomes a move.
When the cable is pulled it reconnects by itself; the snapshot then tells the referee how
the board stands (resume, or ask for the board to be fixed).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from firmware_bridge import codec

from ..events import Lift, Place, Sense
from ..rules.throws import RandomSource, default_random
from ..service.core import Service
from ..verdicts import Link, Verdict
from .backend import Backend, ThrowerControl
from .strip import glow_frame, palette_frames
from .thrower import PressTimer, Sticks

#: The Raspberry Pi Pico's USB ids when it runs MicroPython.
PICO_VID, PICO_PID = 0x2E8A, 0x0005
BAUD = 115200
KNOWN_PROTOCOLS = (1,)
SILENT_AFTER = 3.5  # seconds without a frame (the bridge's heartbeat comes every second): the link is down
WRITE_TIMEOUT = 0.5  # seconds a frame to the bridge may wait to be written: a bridge that stops reading


def find_bridge() -> str | None:
    """The serial port of a connected Pico running the bridge, by its USB ids."""
    from serial.tools import list_ports

    for port in list_ports.comports():
        if port.vid == PICO_VID and port.pid == PICO_PID:
            return port.device
    return None


class Port(Protocol):
    """What the backend needs of an open serial port (pyserial's `Serial`, or a test's fake)."""

    def read(self, size: int = 1) -> bytes: ...
    def write(self, data: bytes, /) -> int | None: ...
    def close(self) -> None: ...


class SerialSticks(Sticks):
    """The stick LEDs on the bridge, worked by LED commands."""

    def __init__(self, link: SerialBackend) -> None:
        self.link = link

    def show(self, faces: Sequence[int]) -> None:
        self.link.command("L", (sum(1 << i for i, f in enumerate(faces) if f),))

    def _pattern(self, masks: Sequence[int], step: float, end: int | None = None) -> None:
        def run() -> None:
            for mask in masks:
                self.link.command("L", (mask,))
                time.sleep(step)
            if end is not None:
                self.link.command("L", (end,))

        threading.Thread(target=run, daemon=True).start()

    def refuse(self) -> None:
        self._pattern([15, 0] * 3, 0.08, 0)

    def bonus(self) -> None:
        self._pattern([9, 0] * 2, 0.15, 0)

    def offer(self) -> None:
        self._pattern([15, 0] * 12, 0.4, 0)


class _Down(Exception):
    """This connection to the bridge is no use any more (silent, or not taking commands): reconnect."""


class SerialBackend(Backend):
    """The board and the thrower on a USB bridge (a Pico, or the simulated firmware on a pty)."""

    name = "serial"

    def __init__(
        self,
        port: str | None = None,
        *,
        rng: RandomSource | None = None,
        spin: float = 0.6,
        clock: Callable[[], float] = time.monotonic,
        retry: float = 1.0,
        open_port: Callable[[str], Port] | None = None,
        silent_after: float = SILENT_AFTER,
    ) -> None:
        import serial

        self.port = port
        self.retry = retry
        self.silent_after = silent_after
        self._open_port: Callable[[str], Port] = open_port or (
            lambda p: serial.serial_for_url(p, baudrate=BAUD, timeout=0.05, write_timeout=WRITE_TIMEOUT)
        )
        self._clock = clock
        self.control = ThrowerControl(SerialSticks(self), rng or default_random(), spin, clock)
        self.service: Service | None = None
        self._serial: Port | None = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.connected = False
        self.firmware: str | None = None
        self.board_id: str | None = None
        self.dropped = 0  # frames lost or damaged on the way in
        self.unsent = 0  # frames to the bridge never written: the link was down, or a write timed out
        self.bridge_dropped = 0  # frames the bridge says it could not send (its heartbeat's count)
        self._broken: str | None = None  # why the writer gave up on this connection (the reader reconnects)
        self.reconnects = 0
        self.problem: str | None = None
        self._expected: int | None = None
        self._resyncing = True
        self._button = PressTimer(clock)
        self._sent = 0
        self._lit: str | None = None  # the last `G` frame sent on this connection
        self._unsubscribe_lights: Callable[[], None] | None = None

    # ------------------------------------------------------------------ the link

    def start(self, service: Service, wait: float = 0.0) -> None:
        """Connect (and keep reconnecting) in a background thread; `wait` seconds for the first hello."""
        self.service = service
        self.control.attach(service)
        self._unsubscribe_lights = service.subscribe(self._square_lights)
        self._thread = threading.Thread(target=self._run, name="senet-pi bridge", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + wait
        while wait and not self.connected and time.monotonic() < deadline:
            time.sleep(0.02)

    def _run(self) -> None:
        while not self._stop.is_set():
            port = self.port or find_bridge()
            if port is None:
                self._set_problem("no bridge found: plug the Pico in, or give --port")
                self._stop.wait(self.retry)
                continue
            try:
                link = self._open_port(port)
            except Exception as exc:
                self._set_problem(f"cannot open {port}: {exc}")
                self._stop.wait(self.retry)
                continue
            self._serial = link
            self._expected = None
            self._resyncing = True
            self._broken = None
            decoder = codec.Decoder()
            self.command("Q")  # hello, please: the bridge answers with its version and a snapshot
            heard = time.monotonic()
            try:
                while not self._stop.is_set():
                    data = link.read(1)  # waits (up to the timeout) for a byte
                    waiting = getattr(link, "in_waiting", 0)
                    if data and waiting:
                        data += link.read(waiting)  # then takes what is there
                    if data:
                        heard = time.monotonic()
                        before = decoder.bad
                        for frame in decoder.feed(data):
                            self._frame(*frame)
                        self.dropped += decoder.bad - before
                    elif time.monotonic() - heard > self.silent_after:
                        raise _Down(f"the bridge fell silent (no heartbeat for {self.silent_after:g} s); reconnecting")
                    if self._broken is not None:
                        raise _Down(self._broken)
            except _Down as down:
                self.problem = str(down)
                self._lost(str(down))
            except Exception as exc:
                self._lost(f"the link to the bridge dropped ({type(exc).__name__}); reconnecting")
            finally:
                self._close_serial()
            self._stop.wait(self.retry)

    def _lost(self, text: str) -> None:
        if self.connected:
            self.connected = False
            self.reconnects += 1
            if self.service is not None:
                self.service.note(Link(False, text))

    def _set_problem(self, text: str) -> None:
        if text != self.problem:
            self.problem = text
            if self.service is not None:
                self.service.note(Link(False, text))

    def _close_serial(self) -> None:
        link, self._serial = self._serial, None
        if link is not None:
            with contextlib.suppress(Exception):  # a port that is already gone
                link.close()

    def command(self, kind: str, fields: Sequence[object] = ()) -> None:
        """Send one command frame to the bridge. While the link is down, or when the write times out
        (a bridge that stopped reading), the frame is counted in `unsent`, never waited on; a failed
        write also marks this connection broken, so the reader reconnects."""
        link = self._serial
        if link is None or self._broken is not None:
            self.unsent += 1
            return
        with self._write_lock:
            frame = codec.encode(self._sent, kind, fields)
            self._sent += 1
            try:
                link.write(frame)  # bounded by WRITE_TIMEOUT
            except Exception as exc:
                self.unsent += 1
                self._broken = f"the bridge stopped taking commands ({type(exc).__name__}); reconnecting"

    # ------------------------------------------------------------------ frames from the bridge

    def _frame(self, seq: int, kind: str, fields: list[str]) -> None:
        if self._expected is not None and seq != self._expected and kind != "H":
            self.dropped += (seq - self._expected) & 0xFFFF
            self._resyncing = True
            self.command("R")  # a gap: something was lost; the board as it stands, please
        self._expected = (seq + 1) & 0xFFFF
        try:
            getattr(self, f"_on_{kind}", self._on_unknown)(fields)
        except (ValueError, IndexError):
            self.dropped += 1

    def _on_H(self, fields: list[str]) -> None:
        info = dict(field.split("=", 1) for field in fields if "=" in field)
        protocol = int(info.get("proto", "0"))
        if protocol not in KNOWN_PROTOCOLS:
            self.problem = (
                f"the bridge runs firmware {info.get('fw', '?')} speaking protocol {protocol}, which this "
                f"senet-pi does not know (it knows {', '.join(map(str, KNOWN_PROTOCOLS))}): put the firmware "
                "from this senet-pi's firmware_bridge/ on the Pico (see its README)"
            )
            self.connected = False
            if self.service is not None:
                self.service.note(Link(False, self.problem))
            self._stop.set()
            return
        self.firmware, self.board_id = info.get("fw"), info.get("board")
        self.problem = None
        self._resyncing = True
        was, self.connected = self.connected, True
        self._send_palette()  # before anything is lit: a `G` frame names the palette's indexes
        if not was and self.service is not None:
            self.service.note(Link(True, f"bridge {self.board_id} firmware {self.firmware}"))

    def _on_S(self, fields: list[str]) -> None:
        occupied = codec.occupancy_from_hex(fields[0])
        self._resyncing = False
        if self.service is not None:
            self.service.handle(Sense(tuple(sq for sq in range(1, 31) if occupied >> sq & 1)))

    def _on_C(self, fields: list[str]) -> None:
        square, closed = int(fields[0]), int(fields[1])
        if not 1 <= square <= 30 or closed not in (0, 1):
            raise ValueError("not a change")
        if self._resyncing or self.service is None:
            return  # a snapshot is on its way and will say how the board stands
        self.service.handle(Place(square) if closed else Lift(square))

    def _on_B(self, fields: list[str]) -> None:
        if int(fields[0]):
            self._button.down()
        else:
            self._button.up(self.control.press, self.control.held)

    def _on_K(self, fields: list[str]) -> None:
        int(fields[0])  # uptime: the bridge is alive
        if len(fields) > 1:
            self.bridge_dropped = int(fields[1])  # what the bridge could not send, by its own count

    def _on_E(self, fields: list[str]) -> None:
        if self.service is not None:
            self.service.note(Link(self.connected, "bridge: " + ",".join(fields)))

    def _on_unknown(self, fields: list[str]) -> None:
        self.dropped += 1

    # ------------------------------------------------------------------ for the page and selftest

    def press(self) -> None:
        self.control.press()

    def describe(self) -> dict[str, object]:
        sensed = self.service.sensed if self.service is not None else 0
        return {
            "backend": self.name,
            "port": self.port,
            "connected": self.connected,
            "firmware": self.firmware,
            "board": self.board_id,
            "dropped": self.dropped,
            "unsent": self.unsent,
            "bridge_dropped": self.bridge_dropped,
            "reconnects": self.reconnects,
            "problem": self.problem,
            "switches": [sq for sq in range(1, 31) if sensed >> sq & 1],
            "leds": [],
            "faults": [self.problem] if self.problem else [],
        }

    def _square_lights(self, verdicts: list[Verdict]) -> None:
        """The strip under the squares shows the service's lights (service/lights.py): a `G` frame
        whenever they change; the palette (`V` frames) first on each connection."""
        service = self.service
        if service is None or not self.connected:
            return
        frame = glow_frame(service.lights)
        if frame != self._lit:
            self._lit = frame
            self.command("G", (frame,))

    def _send_palette(self) -> None:
        """The looks of every kind, with this board's colours and brightness cap, then the lights."""
        if self.service is None:
            return
        for fields in palette_frames(self.service.light_settings):
            self.command("V", fields)
        self._lit = None
        self._square_lights([])

    def close(self) -> None:
        self._stop.set()
        if self._unsubscribe_lights is not None:
            self._unsubscribe_lights()
            self._unsubscribe_lights = None
        self.control.detach()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=3)
        self._close_serial()
