"""The LED strip under the squares: WS2812B / SK6812 driven from the Pi's SPI MOSI, or by the USB bridge.

On the Pi's own pins the strip's one-wire signal is made by SPI: at 2.4 MHz one SPI bit lasts
417 ns, so each WS2812 bit is three SPI bits, `110` for a one (high 833 ns, low 417 ns) and `100`
for a zero (high 417 ns, low 833 ns), inside the datasheet's windows (T0H 400 +/- 150 ns, T1H
800 +/- 150 ns, a bit 1.25 us +/- 600 ns); the line rests low after the last byte for the reset
(more than 280 us, which the newer WS2812B need). The bytes go to `/dev/spidev0.0` through
Debian's `python3-spidev` (a venv made with --system-site-packages sees it, as it sees
python3-lgpio): it sets the clock with the ioctl a plain write() cannot, and needs no compiler.

`SpiStrip` is a device like the switch board: it takes a writer (`SpidevWriter` on a Pi, a
`FakeSpi` in the simulation and the tests) and shows the service's lights, redrawing the
patterns 50 times a second and writing only when the bytes change. The patterns are the
firmware's (`firmware_bridge/glow.py`), so the Pico and the Pi light a strip alike.
"""

from __future__ import annotations

import errno
import importlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from firmware_bridge.glow import INDEXES, PLACES, Glow, next_change

from ..service.lights import LETTERS, Kind, Lights, LightSettings

SPI_HZ = 2_400_000
#: Only a card (exhibit/build-image) has this file. Its SPI comes from the card's own device-tree
#: overlay, named in config.txt on its boot partition, not from raspi-config (docs: The card).
CARD_MANIFEST = Path("/usr/share/senet-pi-card/manifest")
ONE, ZERO = 0b110, 0b100  # a WS2812 bit as three SPI bits
RESET_BYTES = 90  # 90 x 8 bits at 417 ns = 300 us low: a reset for every WS2812B and SK6812
PAINT = 0.02  # seconds between redraws of the patterns that change all the time (pulse, wave)
EDGE = 0.001  # seconds past a blinking pattern's edge to redraw at (never a hair before it)
#: Each kind's index in the palette the strip (and the bridge's `V` frames) use, in the vocabulary's order.
INDEX = {kind: INDEXES[n] for n, kind in enumerate(Kind)}


def glow_frame(lights: Lights) -> str:
    """The lights as a `G` frame's 32 places: squares 1-30, the sticks, the button; "0" is dark."""
    places = [str(sq) for sq in range(1, 31)] + ["sticks", "button"]
    return "".join(INDEX[Kind(lights[p])] if p in lights else "0" for p in places)


def palette_frames(settings: LightSettings) -> list[tuple[str, str, str]]:
    """The `V` frames for every kind: index, colour (RRGGBB, scaled by the brightness cap), pattern letter."""
    out = []
    for kind, index in INDEX.items():
        look = settings.look(kind)
        rgb = int(look.colour, 16)
        scaled = [(rgb >> shift & 0xFF) * settings.brightness // 100 for shift in (16, 8, 0)]
        out.append((index, "".join(f"{c:02X}" for c in scaled), LETTERS[look.pattern]))
    return out


def ws2812_bytes(colours: Sequence[tuple[int, int, int]]) -> bytes:
    """The SPI bytes for a strip showing `colours` (r, g, b each): a zero byte to start low, each LED
    in the WS2812's order (green, red, blue; most significant bit first), three SPI bits a bit, then
    the reset."""
    bits = 0
    count = 0
    for r, g, b in colours:
        for byte in (g, r, b):
            for shift in range(7, -1, -1):
                bits = bits << 3 | (ONE if byte >> shift & 1 else ZERO)
                count += 3
    data = bits.to_bytes(count // 8, "big") if count else b""
    return bytes(1) + data + bytes(RESET_BYTES)


class SpiWriter(Protocol):
    """What the strip needs of an SPI device: write bytes, close."""

    def write(self, data: bytes) -> None: ...
    def close(self) -> None: ...


class _SpiDev(Protocol):
    """What the strip uses of python3-spidev's `SpiDev` (the library has no types of its own)."""

    max_speed_hz: int
    mode: int

    def open(self, bus: int, device: int) -> None: ...
    def writebytes2(self, data: bytes) -> None: ...
    def close(self) -> None: ...


class SpidevWriter:
    """`/dev/spidev<bus>.<device>` through Debian's python3-spidev, at 2.4 MHz, mode 0."""

    def __init__(self, bus: int = 0, device: int = 0) -> None:
        spidev = importlib.import_module("spidev")  # Debian's python3-spidev: see docs/building.md
        self.spi: _SpiDev = spidev.SpiDev()
        self.spi.open(bus, device)
        self.spi.max_speed_hz = SPI_HZ
        self.spi.mode = 0

    def write(self, data: bytes) -> None:
        self.spi.writebytes2(data)  # any length: split into the driver's buffers

    def close(self) -> None:
        self.spi.close()


def open_spi(bus: int = 0, device: int = 0) -> tuple[SpiWriter | None, str | None]:
    """The Pi's SPI device for the strip, or None and why not (the board runs on without its lights)."""
    try:
        return SpidevWriter(bus, device), None
    except ImportError:
        return None, "python3-spidev is not installed: sudo apt install python3-spidev (see Building)"
    except OSError as exc:
        return None, f"cannot open /dev/spidev{bus}.{device} ({exc.strerror or exc}): {_spi_advice(exc)}"


def _spi_advice(exc: OSError) -> str:
    """What opens the strip's SPI here: the group `spi` when the device is there but refused; for a
    missing one, on a card its overlay's line and file on SENET-BOOT (a card has no raspi-config),
    anywhere else Raspberry Pi OS's SPI setting."""
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "join the group spi (sudo adduser $USER spi, then log in again; see Troubleshooting)"
    if exc.errno == errno.ENOENT and CARD_MANIFEST.exists():
        return (
            "on the card, SENET-BOOT must keep config.txt's line dtoverlay=senet-pi-spi"
            " and overlays/senet-pi-spi.dtbo (see The card)"
        )
    return "turn SPI on (see Building)"


class FakeSpi:
    """An SPI device for the simulated board and the tests: keeps what was written, and when."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.frames: list[bytes] = []
        self.written_at = 0.0
        self._clock = clock
        self.closed = False

    def write(self, data: bytes) -> None:
        self.frames = [*self.frames[-9:], bytes(data)]
        self.written_at = self._clock()

    def close(self) -> None:
        self.closed = True


def decode_ws2812(data: bytes) -> list[tuple[int, int, int]]:
    """The colours an SPI byte stream shows on a WS2812 strip: the inverse of `ws2812_bytes`, for the
    tests and the simulated board's page (a three-bit group that is neither 110 nor 100 is an error)."""
    body = data[1 : len(data) - RESET_BYTES]
    value = int.from_bytes(body, "big")
    groups = len(body) * 8 // 3
    bits = []
    for n in range(groups - 1, -1, -1):
        group = value >> (3 * n) & 0b111
        if group not in (ONE, ZERO):
            raise ValueError(f"SPI bits {group:03b} are no WS2812 bit")
        bits.append(1 if group == ONE else 0)
    out = []
    for n in range(0, len(bits) - 23, 24):
        g, r, b = (int("".join(map(str, bits[n + k : n + k + 8])), 2) for k in (0, 8, 16))
        out.append((r, g, b))
    return out


class SpiStrip:
    """The strip under the squares on an SPI writer: shows a service's lights with its settings."""

    def __init__(
        self, writer: SpiWriter, settings: LightSettings | None = None, sticks: int = 4, ring: int = 0
    ) -> None:
        self.writer = writer
        self.glow = Glow(sticks, ring)
        for index, colour, letter in palette_frames(settings or LightSettings()):
            self.glow.define(index, colour, letter)
        self._written: bytes | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()  # set by `show` and `close`: the thread reckons its sleep again
        self._thread: threading.Thread | None = None
        self._started = False  # start() was called: patterns are redrawn while they move
        self._origin = time.monotonic()

    @property
    def leds(self) -> int:
        return 30 + self.glow.sticks + self.glow.ring

    def show(self, lights: Mapping[str, str]) -> None:
        """Show `lights` now (the hand is waiting), then keep their patterns going while any moves."""
        with self._lock:
            self.glow.show(glow_frame(dict(lights)))
        self.paint()
        self._wake.set()  # a thread asleep until an old pattern's edge reckons again with these
        self._animate()

    def moving(self) -> bool:
        """Whether a light shows a pattern that changes with time (anything lit but steady)."""
        with self._lock:
            return any(ch != "0" and self.glow.looks[ch][3] != "S" for ch in set(self.glow.shown))

    def now_ms(self) -> int:
        """The patterns' clock: milliseconds since the strip was made."""
        return int((time.monotonic() - self._origin) * 1000)

    def next_redraw(self, ms: int) -> float | None:
        """Seconds from `ms` until the lights on show may look different: the next edge of a blinking
        pattern (the thread sleeps until then), PAINT while a pulse or wave runs, None if all are steady."""
        with self._lock:
            waits = [next_change(self.glow.looks[ch][3], ms) for ch in set(self.glow.shown) if ch != "0"]
        moving = [w for w in waits if w is not None]
        if not moving:
            return None
        return PAINT if min(moving) == 0 else min(moving) / 1000

    def paint(self) -> None:
        """Write the strip's bytes at this moment if they differ from what it shows."""
        with self._lock:
            data = ws2812_bytes(self.glow.colours(self.now_ms()))
            if data == self._written:
                return
            self._written = data
            self.writer.write(data)

    def start(self) -> None:
        """Redraw the patterns from now on until `close`: in a thread only while a pattern moves, so
        a board at rest (steady or dark lights) wakes for nothing."""
        self._started = True
        self._animate()

    def _animate(self) -> None:
        """A thread that redraws the moving patterns, started if none runs; it ends when none moves."""
        if not self._started or self._stop.is_set() or not self.moving():
            return
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return

            def run() -> None:  # wakes at the patterns' edges (a chase: 8 times a second), not every frame
                while (wait := self.next_redraw(self.now_ms())) is not None:
                    self._wake.wait(wait + EDGE)  # or sooner: new lights (`show`), or `close`
                    self._wake.clear()
                    if self._stop.is_set():
                        return
                    self.paint()

            self._thread = threading.Thread(target=run, name="senet-pi strip", daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1)
        with self._lock:
            dark = ws2812_bytes([(0, 0, 0)] * self.leds)
            if self._written not in (None, dark):
                self.writer.write(dark)  # a stopped board leaves no light on
        self.writer.close()


__all__ = [
    "PLACES",
    "SPI_HZ",
    "FakeSpi",
    "SpiStrip",
    "SpidevWriter",
    "decode_ws2812",
    "glow_frame",
    "palette_frames",
    "ws2812_bytes",
]
