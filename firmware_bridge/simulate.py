"""The bridge firmware running on this computer, on a pseudo-terminal, with a simulated board.

`python -m firmware_bridge.simulate` prints the port to give `senet-pi run --backend serial
--port PORT`, then takes `lift N`, `place N`, `press`, `hold S`, `unplug`, `plug` and `quit`
on standard input. The firmware is the real one (main.py, bridge.py, codec.py...) under a
stand-in `machine` module (sim/machine.py) that models the diode matrix.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import tty
from pathlib import Path

HERE = Path(__file__).resolve().parent


class SimulatedFirmware:
    """The firmware on a pty pair; `port` is a stable path (a symlink) that survives unplugging."""

    def __init__(self, port: str | Path, occupied: int = 0) -> None:
        if str(HERE) not in sys.path:
            sys.path.insert(0, str(HERE))
        from sim import machine

        sys.modules["machine"] = machine
        machine.BOARD = machine.SimBoard()
        self.board = machine.BOARD
        self.board.set_occupied(occupied)
        self.port = Path(port)
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._master: int | None = None
        self.plug()

    def plug(self) -> None:
        """Connect the cable: a new pty behind the same port path, and the firmware starts again."""
        import main

        master, slave = os.openpty()
        tty.setraw(slave)
        tty.setraw(master)
        if self.port.is_symlink() or self.port.exists():
            self.port.unlink()
        self.port.symlink_to(os.ttyname(slave))
        self._slave = slave
        self._master = master
        stop = threading.Event()
        self._stop = stop
        reader = os.fdopen(os.dup(master), "rb", buffering=0)
        writer = os.fdopen(os.dup(master), "wb", buffering=0)

        def run() -> None:
            try:
                main.main(reader, writer, running=lambda: not stop.is_set())
            except OSError:
                pass  # unplugged mid-write
            finally:
                reader.close()
                writer.close()

        self._thread = threading.Thread(target=run, name="simulated firmware", daemon=True)
        self._thread.start()

    def unplug(self) -> None:
        """Pull the cable: the firmware stops and the host's port goes away."""
        if self._stop is not None:
            self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def press(self, seconds: float = 0.1) -> None:
        self.board.button_down = True
        time.sleep(seconds)
        self.board.button_down = False

    def close(self) -> None:
        self.unplug()
        if self.port.is_symlink():
            self.port.unlink()


def cli() -> None:
    port = Path(os.environ.get("SENET_PI_SIM_PORT", "/tmp/senet-pi-bridge"))
    sys.path.insert(0, str(HERE.parent))
    from senet_pi.rules import new_game

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
