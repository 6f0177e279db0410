"""USB bridge link: events a second the link carries, and the time from a switch change on the
firmware side to the host's event, over a pseudo-terminal. Run by hand: `python benchmarks/bench_bridge.py`.

The firmware is the real one under CPython (the stand-in `machine` models the matrix); the
latency includes its debounce (3 scans at 200 a second), as it would on a Pico.
"""

from __future__ import annotations

import os
import platform
import statistics
import tempfile
import threading
import time
import tty
from pathlib import Path

import serial

from firmware_bridge import codec
from firmware_bridge.simulate import SimulatedFirmware
from senet_pi.hardware.serial_link import SerialBackend
from senet_pi.rules import new_game
from senet_pi.service.core import Service
from senet_pi.verdicts import Progress, Settled


def throughput(frames: int = 20_000) -> float:
    """Change frames a second from one end of a pty to the decoder at the other."""
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    port = serial.Serial(os.ttyname(slave), timeout=0.2)
    payload = b"".join(codec.encode(i, "C", (i % 30 + 1, i & 1)) for i in range(frames))
    got = 0
    decoder = codec.Decoder()

    def send() -> None:
        view = memoryview(payload)
        while view:
            n = os.write(master, view[:4096])
            view = view[n:]

    start = time.perf_counter()
    threading.Thread(target=send, daemon=True).start()
    while got < frames:
        got += len(decoder.feed(port.read(4096)))
    elapsed = time.perf_counter() - start
    port.close()
    os.close(master)
    os.close(slave)
    return frames / elapsed


def latency(trials: int = 60) -> list[float]:
    """Seconds from a magnet placed (firmware side) to the host's `progress` verdict for it."""
    with tempfile.TemporaryDirectory() as folder:
        firmware = SimulatedFirmware(Path(folder) / "tty", new_game("secret").occupied())
        service = Service(None)
        seen = threading.Event()
        service.subscribe(
            lambda verdicts: seen.set() if any(isinstance(v, Progress | Settled) for v in verdicts) else None
        )
        backend = SerialBackend(str(Path(folder) / "tty"), spin=0)
        backend.start(service, wait=10)
        out = []
        for n in range(trials):
            square = 20 + n % 5
            seen.clear()
            start = time.perf_counter()
            firmware.board.place(square)
            seen.wait(5)
            out.append(time.perf_counter() - start)
            firmware.board.lift(square)
            time.sleep(0.1)
            service.tick()
            time.sleep(0.5)
            service.referee.tick(service.referee.now + 1)  # let the board settle back
        backend.close()
        firmware.close()
    return out


def main() -> None:
    print(f"Python {platform.python_version()} on {platform.machine()}, pseudo-terminal\n")
    rate = throughput()
    times = sorted(latency())
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    print("| measure | figure |")
    print("|---|---:|")
    print(f"| change events carried per second | {rate:,.0f} |")
    print(f"| switch change to host event, median | {statistics.median(times) * 1e3:.1f} ms |")
    print(f"| switch change to host event, p99 | {p99 * 1e3:.1f} ms |")


if __name__ == "__main__":
    main()
