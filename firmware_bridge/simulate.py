"""The bridge firmware running on this computer, on a pseudo-terminal, with a simulated board.

`python -m firmware_bridge.simulate` prints the port to give `senet-pi run --backend serial
--port PORT`, then takes `lift N`, `place N`, `press`, `hold S`, `unplug`, `plug` and `quit`
on standard input. The firmware is the real one (main.py, bridge.py, codec.py...) under a
stand-in `machine` module (sim/machine.py) that models the diode matrix, in a process of its
own (sim/process.py): importing this module, or using `SimulatedFirmware`, changes nothing
in the calling process (no `sys.path`, `sys.modules` or `time` patches).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Self

HERE = Path(__file__).resolve().parent
PROCESS = HERE / "sim" / "process.py"


class SimulatedBoard:
    """The simulated firmware's board, worked from this process: magnets and the stick LEDs."""

    def __init__(self, firmware: SimulatedFirmware) -> None:
        self._firmware = firmware

    def place(self, square: int) -> None:
        """Put a magnet on `square` (done when this returns)."""
        self._firmware._ask(f"place {int(square)}")

    def lift(self, square: int) -> None:
        """Take the magnet off `square`."""
        self._firmware._ask(f"lift {int(square)}")

    def set_occupied(self, mask: int) -> None:
        """Set every magnet at once."""
        self._firmware._ask(f"set {int(mask)}")

    @property
    def leds(self) -> list[int]:
        """The four stick LEDs as the firmware drives them (1 lit, 0 dark)."""
        return [int(v) for v in self._firmware._ask("leds").split()]

    def strip(self) -> tuple[list[int], float]:
        """The LED strip as the firmware last wrote it (each LED 0xRRGGBB), and when (time.monotonic())."""
        *colours, written = self._firmware._ask("strip").split()
        return [int(c, 16) for c in colours], float(written)


class SimulatedFirmware:
    """The firmware in a child process on a pty pair; `port` is a stable path (a symlink) that
    survives unplugging. `board` moves magnets; `press`, `unplug`, `plug` work the bridge."""

    def __init__(self, port: str | Path, occupied: int = 0) -> None:
        self.port = Path(port)
        self.board = SimulatedBoard(self)
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = subprocess.Popen(
            [sys.executable, str(PROCESS), str(self.port), str(int(occupied))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        try:
            self._answer()  # "ok ready": the port is there and the firmware runs
        except BaseException:
            self.close()
            raise

    def _answer(self) -> str:
        assert self._process is not None and self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the simulated firmware stopped (exit status {self._process.wait()})")
        status, _, said = line.strip().partition(" ")
        if status != "ok":
            raise ValueError(f"the simulated firmware refused: {said}")
        return said

    def _ask(self, command: str) -> str:
        """Send one command to the firmware's process and wait until it is done; its answer."""
        with self._lock:
            if self._process is None or self._process.stdin is None:
                raise RuntimeError("the simulated firmware is closed")
            self._process.stdin.write(command + "\n")
            self._process.stdin.flush()
            return self._answer()

    def plug(self) -> None:
        """Connect the cable: a new pty behind the same port path, and the firmware starts again."""
        self._ask("plug")

    def unplug(self) -> None:
        """Pull the cable: the firmware stops and the host's port goes away."""
        self._ask("unplug")

    def press(self, seconds: float = 0.1) -> None:
        """Hold the thrower's button down for `seconds` (done when this returns)."""
        self._ask(f"press {float(seconds)}")

    @property
    def closed(self) -> bool:
        return self._process is None

    def close(self) -> None:
        """Stop the firmware and its process, remove the port; safe to call twice."""
        with self._lock:
            process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.poll() is None and process.stdin is not None:
                process.stdin.write("quit\n")
                process.stdin.flush()
                process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        finally:
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()
            if self.port.is_symlink():
                self.port.unlink()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def cli() -> None:
    """The simulator for a person: commands on standard input, the port printed to use."""
    from senet_pi.rules import new_game

    port = Path(os.environ.get("SENET_PI_SIM_PORT", "/tmp/senet-pi-bridge"))
    firmware = SimulatedFirmware(port, new_game("secret").occupied())
    print(f"simulated bridge on {port}: senet-pi run --backend serial --port {port}", flush=True)
    print("commands: lift N, place N, press, hold SECONDS, unplug, plug, quit", flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            verb, args = words[0], words[1:]
            if verb in ("lift", "place") and args and args[0].isdigit():
                getattr(firmware.board, verb)(int(args[0]))
            elif verb == "press":
                firmware.press()
            elif verb == "hold" and args:
                firmware.press(float(args[0]))
            elif verb == "unplug":
                firmware.unplug()
            elif verb == "plug":
                firmware.plug()
            elif verb == "quit":
                break
            else:
                print("?", line.strip(), flush=True)
    finally:
        firmware.close()


if __name__ == "__main__":
    cli()
