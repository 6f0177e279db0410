"""The bridge firmware in a process of its own, on a pseudo-terminal, with a simulated board.

`SimulatedFirmware` (simulate.py) runs this file; nothing imports it. This process is the
firmware's, as a Pico would be: its modules are found by their Pico names (`import main`,
`import machine` finds the stand-in beside this file) and `time` gets MicroPython's ticks.
It reads one command a line on standard input and answers each with one line:
`place N`, `lift N`, `set MASK`, `press SECONDS`, `leds`, `strip`, `unplug`, `plug`, `quit`;
`ok [...]` or `error TEXT`. It says `ok ready` once the port is there.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import tty
from pathlib import Path
from types import ModuleType

SIM = Path(__file__).resolve().parent
FIRMWARE = SIM.parent


class Firmware:
    """The firmware on a pty pair; `port` is a stable path (a symlink) that survives unplugging."""

    def __init__(self, machine: ModuleType, port: Path, occupied: int) -> None:
        machine.BOARD = machine.SimBoard()
        self.board = machine.BOARD
        self.board.set_occupied(occupied)
        self.port = port
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._master: int | None = None
        self._slave: int | None = None
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

    def press(self, seconds: float) -> None:
        """Hold the button down for `seconds`, and as long as the firmware takes to read it down
        (and then up) a few times: a finger is never quicker than the scan, however busy the
        machine running this simulation is."""
        self._set_button(True)
        time.sleep(seconds)
        self._set_button(False)

    def _set_button(self, down: bool, reads: int = 4, limit: float = 30.0) -> None:
        board = self.board
        board.button_reads = 0
        board.button_down = down
        end = time.monotonic() + limit
        while board.button_reads < reads and self._thread is not None and self._thread.is_alive():
            if time.monotonic() > end:  # the firmware stopped scanning: say so rather than hang
                raise RuntimeError("the simulated firmware does not read its button")
            time.sleep(0.002)

    def close(self) -> None:
        self.unplug()
        if self.port.is_symlink():
            self.port.unlink()


def answer(firmware: Firmware, verb: str, args: list[str]) -> str:
    """Do one command; what to say back after `ok`."""
    if verb in ("place", "lift", "set"):
        getattr(firmware.board, "set_occupied" if verb == "set" else verb)(int(args[0]))
    elif verb == "press":
        firmware.press(float(args[0]))
    elif verb in ("plug", "unplug"):
        getattr(firmware, verb)()
    elif verb == "leds":
        return " ".join(str(led) for led in firmware.board.leds)
    elif verb == "strip":  # the LED strip: each LED as RRGGBB, then when it was last written
        board = firmware.board
        return " ".join(["%02X%02X%02X" % rgb for rgb in board.strip] + [repr(board.strip_written)])
    else:
        raise ValueError(f"unknown command {verb!r}")
    return ""


def serve(port: Path, occupied: int) -> None:
    """Run the firmware and take commands until `quit` or the end of standard input."""
    sys.path[:0] = [str(SIM), str(FIRMWARE)]  # this process only: the firmware's own module names
    import machine

    machine.micropython_time()
    firmware = Firmware(machine, port, occupied)
    print("ok ready", flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if not words or words[0] == "quit":
                break
            try:
                said = answer(firmware, words[0], words[1:])
            except (ValueError, IndexError, RuntimeError) as exc:
                print(f"error {exc}", flush=True)
            else:
                print(f"ok {said}".rstrip(), flush=True)
    finally:
        firmware.close()
    print("ok", flush=True)


if __name__ == "__main__":
    serve(Path(sys.argv[1]), int(sys.argv[2]))
