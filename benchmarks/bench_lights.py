"""Lights and voice latency: from a switch change to the strip's new colours, on the simulated board
(the real scanning thread on mock pins, the strip's SPI bytes) and over the USB bridge (the real
firmware under CPython on a pseudo-terminal, its `neopixel` stand-in); and from a verdict to the
first sound espeak-ng makes. Run by hand: `python benchmarks/bench_lights.py [--trials 40]`. Two
rows leave the board still a minute before each lift (`--trials` / 10 lifts each, at least one):
with a move owed (the scanner must not rest) and with a throw awaited (an idle exhibit's first touch).

Targets: the lights follow a lift or a place within 50 ms, the voice starts within 300 ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from firmware_bridge.simulate import SimulatedFirmware
from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.board import REST_AFTER, REST_RATE
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.hardware.serial_link import SerialBackend
from senet_pi.hardware.strip import decode_ws2812
from senet_pi.rules import new_game
from senet_pi.service.core import Service
from senet_pi.service.speech import Speaker, espeak_command, worth_saying
from senet_pi.verdicts import Progress, Verdict

SQUARE, TARGET = 10, 13  # with a throw of 3 waiting, Green's piece on 10 may go to 13 only


def wait_for(condition: Callable[[], bool], limit: float = 5.0) -> None:
    end = time.monotonic() + limit
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the lights never came")
        time.sleep(0.0005)


def jittered(still: float) -> float:
    """`still` and up to a resting scanner's period more, at random: a lift exactly so long after the
    last change would fall at the same point between two resting scans every time."""
    return still + random.uniform(0, 1 / REST_RATE) if still > REST_AFTER else still


def sim_latency(trials: int, still: float = 0.5) -> list[tuple[float, float]]:
    """Seconds from a magnet lifted off the simulated board to the SPI write that lights 13, and
    from the magnet put back half a second later to the write that darkens it: the scan, the
    debounce, the referee, the strip. A throw of 3 waits to be played throughout (a move is owed);
    `still`: seconds the board stands still before each lift (past REST_AFTER the scanner would
    rest, were no move owed). One (lift, place) pair per trial."""
    service = Service(None, variant="secret")
    backend = SimBackend(load_pinmap(), rng=random.Random(1), spin=0)
    backend.start(service)  # the real scanning thread
    service.handle("throw", 3)
    spi = backend.spi
    out = []
    try:
        for _ in range(trials):
            pair = []
            for lift in (True, False):
                time.sleep(
                    jittered(still) if lift else 0.5
                )  # a hand: six flips within 2 s is a chattering switch, muted
                lit_before = spi.written_at
                start = time.monotonic()
                (backend.sim.lift if lift else backend.sim.place)(SQUARE)

                def shown(lift: bool = lift, before: float = lit_before) -> bool:
                    return spi.written_at > before and any(decode_ws2812(spi.frames[-1])[TARGET - 1]) == lift

                wait_for(shown)
                pair.append(spi.written_at - start)
            out.append((pair[0], pair[1]))
    finally:
        backend.close()
    return out


def first_touch_latency(trials: int, still: float = REST_AFTER + 1) -> list[float]:
    """An idle exhibit's first touch: seconds from a magnet lifted off a simulated board that stood
    still for `still` s waiting for a throw (the scanner at rest) to the service's verdict on it
    (`progress`; nothing lights for a piece lifted before the throw). The piece is put back and the
    board settles (the service's ticks run) before the next still time."""
    service = Service(None, variant="secret")
    backend = SimBackend(load_pinmap(), rng=random.Random(1), spin=0)
    heard: list[float] = []

    def hear(verdicts: list[Verdict]) -> None:
        heard.extend(time.monotonic() for v in verdicts if isinstance(v, Progress))

    service.subscribe(hear)
    backend.start(service)
    ticking = threading.Event()

    def tick() -> None:
        while not ticking.wait(0.05):
            service.tick()

    threading.Thread(target=tick, daemon=True).start()
    out = []
    try:
        for _ in range(trials):
            time.sleep(jittered(still))
            before = len(heard)
            start = time.monotonic()
            backend.sim.lift(SQUARE)

            def came(before: int = before) -> bool:
                return len(heard) > before

            wait_for(came)
            out.append(heard[before] - start)
            time.sleep(0.5)
            backend.sim.place(SQUARE)  # put back: the board settles, the game waits for a throw again
    finally:
        ticking.set()
        backend.close()
    return out


def bridge_latency(trials: int) -> list[float]:
    """Seconds from a magnet lifted (firmware side) to the firmware's strip write that lights 13, and back."""
    with tempfile.TemporaryDirectory() as folder:
        firmware = SimulatedFirmware(Path(folder) / "tty", new_game("secret").occupied())
        service = Service(None)
        backend = SerialBackend(str(Path(folder) / "tty"), spin=0)
        backend.start(service, wait=10)
        ticking = threading.Event()

        def tick() -> None:
            while not ticking.wait(0.02):
                service.tick()

        threading.Thread(target=tick, daemon=True).start()
        service.handle("throw", 3)
        out = []
        try:
            for _ in range(trials):
                for lift in (True, False):
                    _, before = firmware.board.strip()
                    start = time.monotonic()
                    (firmware.board.lift if lift else firmware.board.place)(SQUARE)

                    def shown(lift: bool = lift, before: float = before) -> bool:
                        colours, written = firmware.board.strip()
                        return written > before and bool(colours[TARGET - 1]) == lift

                    wait_for(shown)
                    out.append(firmware.board.strip()[1] - start)
                    time.sleep(0.5)  # a hand: six flips within 2 s is a chattering switch, muted
        finally:
            ticking.set()
            backend.close()
            firmware.close()
    return out


def voice_latency(trials: int) -> list[float]:
    """Seconds from a throw's verdict to espeak-ng's first sound (its wav on standard output: the
    first bytes after the header), through the voice's queue."""
    starts: list[float] = []
    heard: list[float] = []
    done = threading.Event()

    def say(text: str) -> None:
        command = espeak_command(text, "en", 80)
        command.insert(-2, "--stdout")
        with subprocess.Popen(command, stdout=subprocess.PIPE) as espeak:
            assert espeak.stdout is not None
            espeak.stdout.read(44 + 2048)  # the wav header, then the first 1024 samples
            heard.append(time.monotonic())
            espeak.stdout.read()
        done.set()

    speaker = Speaker(say)
    service = Service(None, variant="secret")
    service.subscribe(lambda verdicts: [speaker.add("Green throws 3") for _ in worth_saying(verdicts)])
    try:
        for _ in range(trials):
            done.clear()
            starts.append(time.monotonic())
            service.handle("throw", 3)
            done.wait(10)
            service.new_game("secret")  # the next throw is a fresh game's first
    finally:
        speaker.close()
    return [h - s for h, s in zip(heard, starts, strict=True)]


def flat(pairs: list[tuple[float, float]]) -> list[float]:
    """Every lift's and every place's time, in one list."""
    return [t for pair in pairs for t in pair]


def summary(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"| {name} | {statistics.median(times) * 1e3:.1f} ms | {p95 * 1e3:.1f} ms | {max(times) * 1e3:.1f} ms |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30, help="lifts and places (each) per board")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}\n")
    print("| measure | median | p95 | worst | load average (1 min) before, after |")
    print("|---|---:|---:|---:|---|")
    still = max(1, args.trials // 10)  # the rows with a still minute before each lift: a minute a trial
    measures: list[tuple[str, Callable[[], list[float]]]] = [
        ("simulated board: switch change to strip write", lambda: flat(sim_latency(args.trials))),
        ("USB bridge: switch change to strip write", lambda: bridge_latency(args.trials)),
        (
            f"simulated board, {REST_AFTER + 1:g} s still while a move is owed, then a lift",
            lambda: [lift for lift, _ in sim_latency(still, still=REST_AFTER + 1)],
        ),
        (
            f"simulated board waiting for a throw, {REST_AFTER + 1:g} s still, then a lift: to its verdict "
            "(an idle exhibit's first touch)",
            lambda: first_touch_latency(still),
        ),
        ("voice: verdict to espeak-ng's first sound", lambda: voice_latency(max(4, args.trials // 4))),
    ]
    for name, measure in measures:
        before = os.getloadavg()[0]
        times = measure()
        print(f"{summary(name, times)} {before:.1f}, {os.getloadavg()[0]:.1f} |")


if __name__ == "__main__":
    main()
