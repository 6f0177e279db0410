#!/usr/bin/env python3
"""Inside the gpio-sim virtual machine: a gpio-sim chip wired as the board's pin map says, and a
person's hands on it, while the real `senet-pi` runs on it through lgpio and gpiozero's lgpio factory.

Run by `tests/gpiosim/init` (the machine's first process) as root, with the system's Python and its
standard library only; it writes `report.json` into the payload folder for tests/test_gpio_sim.py.

    hand.py PAYLOAD [STEP ...]    steps: lines selftest faults game rest (default: all)

The chip: gpio-sim through configfs, one bank of 58 lines as a Pi 4's gpiochip0, its line offsets
the BCM numbers. The reed switch matrix is the one thing a line's pull cannot be: a column reads
high only while its row is driven and the switch at their crossing is closed. The module built by
scripts/gpio-sim carries that (tests/gpiosim/matrix.patch): its parameters name the row and column
lines, and `matrix_closed` (a bit per switch, row-major) is the pieces on the board, written here as
a hand puts them down. The button is a plain input line, pulled down (pressed) and up (released).
"""

from __future__ import annotations

import itertools
import json
import os
import pwd
import random
import re
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

CONFIGFS = Path("/sys/kernel/config/gpio-sim")
PARAMS = Path("/sys/module/gpio_sim/parameters")
LINES = 58  # a Pi 4's gpiochip0 (pinctrl-bcm2711)
USER = "pi"  # a Pi OS user in the group gpio, as a hobbyist's
VENV = Path("/opt/senet-pi")
HAND = 0.4  # seconds a hand takes between being told and doing it
T0 = time.monotonic()


def say(line: str) -> None:
    """A progress line on the machine's console (the host keeps it in console.log)."""
    print(f"hand [{time.monotonic() - T0:6.1f}]: {line}", flush=True)


class Chip:
    """The gpio-sim chip: its lines' pulls and values through sysfs, the matrix through the module."""

    def __init__(self, pinmap: dict[str, dict[str, object]]) -> None:
        matrix = pinmap["matrix"]
        self.rows = [int(p) for p in matrix["rows"]]
        self.columns = [int(p) for p in matrix["columns"]]
        thrower = pinmap["thrower"]
        self.button = int(thrower["button"])
        self.leds = [int(p) for p in thrower["leds"]]
        buzzer = thrower.get("buzzer")
        self.buzzer = int(buzzer) if buzzer is not None else None
        self.closed = 0
        self.sysfs = Path()
        self.dev = ""

    def make(self) -> None:
        """Load the module with the matrix's lines, make the chip live, and give its device to the
        group gpio as Raspberry Pi OS's udev rule does (root:gpio, 0660)."""
        rows = ",".join(map(str, self.rows))
        cols = ",".join(map(str, self.columns))
        subprocess.run(["modprobe", "gpio-sim", f"matrix_rows={rows}", f"matrix_columns={cols}"], check=True)
        if not CONFIGFS.exists():
            subprocess.run(["mount", "-t", "configfs", "none", "/sys/kernel/config"], check=True)
        dev = CONFIGFS / "pi"
        (dev / "bank0").mkdir(parents=True)
        (dev / "bank0" / "num_lines").write_text(str(LINES))
        (dev / "bank0" / "label").write_text("pinctrl-bcm2711")
        (dev / "live").write_text("1")
        chip = (dev / "bank0" / "chip_name").read_text().strip()
        self.sysfs = Path("/sys/devices/platform") / (dev / "dev_name").read_text().strip() / chip
        self.dev = f"/dev/{chip}"
        os.chown(self.dev, 0, _gid("gpio"))
        os.chmod(self.dev, 0o660)
        say(f"gpio-sim chip {chip} ({LINES} lines) live at {self.sysfs}; {self.dev} root:gpio 0660")

    def pull(self, line: int, up: bool) -> None:
        (self.sysfs / f"sim_gpio{line}" / "pull").write_text("pull-up" if up else "pull-down")

    def value(self, line: int) -> int:
        return int((self.sysfs / f"sim_gpio{line}" / "value").read_text())

    def pulled(self, line: int) -> str:
        return (self.sysfs / f"sim_gpio{line}" / "pull").read_text().strip()

    def switches(self, closed: int) -> None:
        """Set which switches are closed: bit (square - 1), the matrix's row-major order (row r holds
        squares 5r+1..5r+5, hardware/README.md)."""
        self.closed = closed
        (PARAMS / "matrix_closed").write_text(str(closed))

    def place(self, square: int) -> None:
        self.switches(self.closed | 1 << (square - 1))

    def lift(self, square: int) -> None:
        self.switches(self.closed & ~(1 << (square - 1)))

    def set_squares(self, squares: list[int]) -> None:
        self.switches(sum(1 << (s - 1) for s in squares))

    def press(self, hold: float = 0.25) -> None:
        """A thumb on the button (between the GPIO and ground: pressed reads low), then off it."""
        self.pull(self.button, up=False)
        time.sleep(hold)
        self.pull(self.button, up=True)

    def lit(self) -> list[int]:
        return [self.value(p) for p in self.leds]


def _gid(name: str) -> int:
    import grp

    return grp.getgrnam(name).gr_gid


class Program:
    """A command run as the user `pi`, its output read as it comes (like a person at a terminal)."""

    def __init__(self, args: list[str], cwd: str = "/home/pi") -> None:
        user = pwd.getpwnam(USER)
        env = {"PATH": f"{VENV}/bin:/usr/bin:/bin", "HOME": user.pw_dir, "PYTHONUNBUFFERED": "1", "LANG": "C.UTF-8"}
        self.args = args
        self.proc = subprocess.Popen(
            args, cwd=cwd, env=env, user=USER, group="pi", extra_groups=["gpio"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.out = ""
        self.read_to = 0
        self._lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        while chunk := os.read(self.proc.stdout.fileno(), 4096):
            with self._lock:
                self.out += chunk.decode(errors="replace")
                self._lock.notify_all()
        with self._lock:
            self._lock.notify_all()

    def expect(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        """The next match of `pattern` in what the program said since the last match; RuntimeError
        (with the output) when it does not come."""
        end = time.monotonic() + timeout
        with self._lock:
            while True:
                found = re.compile(pattern, re.M).search(self.out, self.read_to)
                if found:
                    self.read_to = found.end()
                    return found
                left = end - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._lock.wait(0.2)):
                    raise RuntimeError(f"{' '.join(self.args[:2])}: no {pattern!r} within {timeout:.0f} s; said:\n"
                                       f"{self.out[-3000:]}")  # fmt: skip
                self._lock.wait(min(left, 0.5))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def finish(self, timeout: float = 60) -> int:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        time.sleep(0.2)  # the reader's last chunk
        return code


def senet(*args: str) -> list[str]:
    return [f"{VENV}/bin/senet-pi", *args]


# ---------------------------------------------------------------------------------------- steps


def step_lines(chip: Chip, payload: Path) -> dict[str, object]:
    """lgpio, as the user pi, reads a line the simulator pulls and drives one the simulator reads:
    the chip, the group and lgpio's notification folder work before senet-pi is asked anything."""
    probe = (
        "import lgpio, sys\n"
        "h = lgpio.gpiochip_open(0)\n"
        "info = lgpio.gpio_get_chip_info(h)\n"
        f"lgpio.gpio_claim_input(h, {chip.button}, lgpio.SET_PULL_NONE)\n"
        f"lgpio.gpio_claim_output(h, {chip.leds[0]}, 1)\n"
        "print('chip', info[2], info[3], 'lines', info[1], end=' ')\n"
        f"print('button reads', lgpio.gpio_read(h, {chip.button}), flush=True)\n"
        "sys.stdin.readline()\n"
        f"print('button reads', lgpio.gpio_read(h, {chip.button}), flush=True)\n"
        f"lgpio.gpio_write(h, {chip.leds[0]}, 0)\n"
        "print('led written 0', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    chip.pull(chip.button, up=True)
    prog = Program([f"{VENV}/bin/python", "-c", probe])
    first = prog.expect(r"^chip (\S+) (\S+) lines (\d+) button reads (\d)$")
    led_high = chip.value(chip.leds[0])
    chip.pull(chip.button, up=False)
    prog.send("")
    low = prog.expect(r"^button reads (\d)$").group(1)
    prog.expect(r"^led written 0$")
    led_low = chip.value(chip.leds[0])
    prog.send("")
    code = prog.finish()
    chip.pull(chip.button, up=True)
    return {"chip": first.group(1), "label": first.group(2), "lines": int(first.group(3)),
            "pulled_up_reads": int(first.group(4)), "pulled_down_reads": int(low),
            "driven_high_seen": led_high, "driven_low_seen": led_low, "exit": code, "said": prog.out}  # fmt: skip


SELFTEST_PROMPTS = (
    r"Take every piece off the board\.|Put a piece on square (?P<put>\d+)\.|Take it off again\."
    r"|Press the thrower's button\.|Is stick LED (?P<led>\d) lit, and only it\? \[y/n\] "
    r"|Does the buzzer sound\? \[y/n\] |Did the squares light[^\n]*\[y/n\] "
    r"|^(?P<end>all good|see above for what to check)"
)


def selftest(chip: Chip, pinmap: Path, held: int | None = None) -> dict[str, object]:
    """`senet-pi selftest --backend gpio`, a person doing what it says: pieces on and off, the
    button, and honest answers about the LEDs and the buzzer read from the simulated lines.
    `held`: a square whose switch stays closed throughout (a magnet stuck under it)."""
    base = 0 if held is None else 1 << (held - 1)
    chip.switches(base)
    chip.pull(chip.button, up=True)
    prog = Program(senet("selftest", "--backend", "gpio", "--pinmap", str(pinmap)))
    square = 0
    while True:
        m = prog.expect(SELFTEST_PROMPTS, timeout=300)  # the first comes after a start under emulation
        said = m.group(0)
        if m.group("end"):
            break
        time.sleep(HAND)
        if said.startswith("Take every"):
            chip.switches(base)
        elif m.group("put"):
            square = int(m.group("put"))
            chip.place(square)
        elif said.startswith("Take it off"):
            chip.switches(chip.closed & ~(1 << (square - 1)) | base)
        elif said.startswith("Press"):
            chip.press()
        elif m.group("led"):
            n = int(m.group("led"))
            prog.send("y" if chip.lit() == [int(i == n - 1) for i in range(4)] else "n")
        elif said.startswith("Does the buzzer"):
            prog.send("y" if chip.buzzer is not None and chip.value(chip.buzzer) else "n")
        else:
            prog.send("n")
    code = prog.finish()
    chip.switches(0)
    return {"exit": code, "said": prog.out}


class Game:
    """`senet-pi run --backend gpio`: pieces moved with a hand's timing, verdicts read as printed."""

    port = 8080  # the page's, inside the machine

    def __init__(self, chip: Chip, pinmap: Path, journal: str) -> None:
        self.chip = chip
        chip.set_squares(list(range(1, 11)))  # the opening, set up before the board starts
        chip.pull(chip.button, up=True)
        self.prog = Program(senet("run", "--backend", "gpio", "--pinmap", str(pinmap), "--journal", journal,
                                  "--ruleset", "secret", "--page-port", str(self.port)))  # fmt: skip
        self.prog.expect(r"^the page: http", timeout=300)  # a start under emulation
        self.holders: dict[int, str] = {}

    def state(self) -> dict[str, object]:
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/state", timeout=30) as answer:
            return dict(json.load(answer))

    def throw(self) -> tuple[str, int, list[int]]:
        """Press the button; the throw as printed, and the stick LEDs it lit."""
        self.chip.press()
        m = self.prog.expect(r"^([A-D]) throws (\d)$", timeout=30)
        time.sleep(0.3)
        return m.group(1), int(m.group(2)), self.chip.lit()

    def hand(self, *moves: tuple[str, int]) -> None:
        for verb, square in moves:
            time.sleep(HAND)
            (self.chip.lift if verb == "lift" else self.chip.place)(square)

    def settle(self) -> None:
        """Wait for the board to match the game again (the settle time, and scans), then for
        the page to say so."""
        time.sleep(1.5)

    def play(self) -> dict[str, object]:
        """Throws until each of a plain move, an illegal move put right, and an exchange was judged."""
        seen: dict[str, object] = {"throws": [], "verdicts": []}
        done: set[str] = set()
        for _ in range(24):
            if done >= {"move", "illegal", "exchange"}:
                break
            player, value, leds = self.throw()
            seen["throws"].append({"player": player, "value": value, "leds": leds})
            state = self.state()
            for _ in range(10):  # the page's state follows the terminal's line within a tick (or the turn passed)
                if state.get("throw") == value:
                    break
                time.sleep(0.5)
                state = self.state()
            moves = [tuple(m) for m in state.get("moves") or []]
            holders = {int(k): v for k, v in dict(state["holders"]).items()}
            if not moves:
                continue
            kind, verdict = self.move_once(moves, holders, player, done)
            done.add(kind)
            seen["verdicts"].append({"kind": kind, "said": verdict})
        seen["done"] = sorted(done)
        return seen

    def move_once(
        self, moves: list[tuple[int, ...]], holders: dict[int, str], player: str, done: set[str]
    ) -> tuple[str, str]:
        exchanges = [m for m in moves if m[1] in holders and holders[m[1]] != player]
        plain = [m for m in moves if m[1] not in holders and m[1] <= 30]
        if exchanges and "exchange" not in done:
            start, end = exchanges[0][:2]
            self.hand(("lift", end), ("lift", start), ("place", end))
            said = self.prog.expect(rf"^{player} moves {start} -> {end}; [A-D]'s piece {end} -> {start} \(exchange\)$")
            self.hand(("place", start))
            self.prog.expect(r"^the board matches the game$")
            return "exchange", said.group(0)
        start, end = (plain or moves)[0][:2]
        wrong = next((s for s in range(end + 1, 31) if s not in holders), None)
        if "illegal" not in done and wrong is not None and end <= 30:
            self.hand(("lift", start), ("place", wrong))
            refused = self.prog.expect(rf"^!! .*{wrong}.*$").group(0)
            self.hand(("lift", wrong), ("place", end))
            moved = self.prog.expect(rf"^{player} moves {start} -> {end}")
            return "illegal", f"{refused}\n{moved.group(0)}"
        self.hand(("lift", start), ("place", end))
        return "move", self.prog.expect(rf"^{player} moves {start} -> {end}.*$").group(0)

    def chatter(self, square: int, seconds: float = 4.0, seed: int = 54) -> dict[str, object]:
        """A reed switch that chatters (a cracked glass, or a magnet at the edge of its pull): its contacts
        make and break by themselves, irregularly, each state lasting a few milliseconds to a few tens
        (here 2-40 ms, drawn from a seeded generator), for `seconds`, then it lets go open. The
        scanner reads it at its own moments, so it sees random states, not a square wave it can keep
        up with or fall behind; the debouncer counts those that stand for two scans running."""
        rng = random.Random(seed)
        flips = 0
        t = time.monotonic()
        while time.monotonic() - t < seconds:
            (self.chip.lift if self.chip.closed >> (square - 1) & 1 else self.chip.place)(square)
            flips += 1
            time.sleep(rng.uniform(0.002, 0.04))
        self.chip.lift(square)
        said = self.prog.expect(rf"^.*switch {square} is chattering.*$", timeout=30).group(0)
        faults = self.state().get("backend", {}).get("faults")
        steady = self.prog.expect(rf"^.*switch {square} is steady again.*$", timeout=30).group(0)
        return {"said": said, "page_faults": faults, "steady": steady, "flips": flips}

    def chatter_probe(self, square: int, half: float = 0.15, seconds: float = 3.0) -> dict[str, object]:
        """The first chatter tried (2026-12-06: a flip every 0.15 s for 3 s went unnamed), with the
        scanner watched from outside every 20 ms: how often it scanned, and what it waited in when not."""
        pid = self.prog.proc.pid
        tid = next(t.name for t in Path(f"/proc/{pid}/task").iterdir() if _task(pid, t.name, "comm") == "scanner")
        samples: list[tuple[float, int, str, str]] = []
        stop = threading.Event()

        def watch() -> None:
            while not stop.wait(0.02):
                status = _task(pid, tid, "status")
                switches = _woken(status)
                samples.append((time.monotonic(), switches, _task(pid, tid, "wchan"),
                                _task(pid, tid, "syscall").split(" ")[0]))  # fmt: skip

        watcher = threading.Thread(target=watch, daemon=True)
        said_from = len(self.prog.out)
        flips: list[float] = []
        watcher.start()
        t = time.monotonic()
        while time.monotonic() - t < seconds:
            for act in (self.chip.place, self.chip.lift):
                act(square)
                flips.append(round(time.monotonic() - t, 3))
                time.sleep(half)
        time.sleep(4)  # what the referee says after it, and the quiet (2 s) that clears a chatter
        stop.set()
        watcher.join()
        said = self.prog.out[said_from:]
        self.prog.read_to = len(self.prog.out)
        stalls: dict[str, float] = {}  # the longest stretch the scanner's switch count stood still, by where it waited
        for (t0, n0, _, _), (t1, n1, wchan, call) in itertools.pairwise(samples):
            if n1 == n0:
                key = f"{wchan} (syscall {call})"
                stalls[key] = round(max(stalls.get(key, 0), t1 - t0), 3)
        span = samples[-1][0] - samples[0][0] if len(samples) > 1 else 0
        return {"half": half, "flips": flips, "said": said, "named": f"switch {square} is chattering" in said,
                "scanner_wakeups_per_s": round((samples[-1][1] - samples[0][1]) / span, 1) if span else None,
                "samples": len(samples), "where_it_waited": stalls}  # fmt: skip

    def close(self) -> str:
        self.prog.send("quit")
        self.prog.finish()
        return self.prog.out


def game(chip: Chip, pinmap: Path) -> dict[str, object]:
    g = Game(chip, pinmap, "/home/pi/game.sqlite")
    try:
        report = g.play()
        empty = next(s for s in range(30, 10, -1) if s not in {int(k) for k in dict(g.state()["holders"])})
        report["chatter_probe"] = g.chatter_probe(empty)
        report["chatter"] = g.chatter(empty)
    finally:
        report_out = g.close()
    report["said"] = report_out
    return report


# ---------------------------------------------------------------------------------------- rest


def _task(pid: int, tid: str, name: str) -> str:
    try:
        return (Path(f"/proc/{pid}/task/{tid}") / name).read_text().strip()
    except OSError:
        return ""


def _woken(status: str) -> int:
    """A thread's voluntary context switches from its /proc status: each one a sleep that ended."""
    return sum(int(line.split()[1]) for line in status.splitlines() if line.startswith("voluntary_ctxt_switches"))


def cpu_and_wakeups(pid: int, seconds: float) -> dict[str, object]:
    """A process's share of one core and each thread's wake-ups a second (its voluntary context
    switches, from /proc: a sleep ended, not a preemption), by name and by thread: its id, and where
    it waits (wchan, and its system call's number; arm64: 73 ppoll, 72 pselect6, 63 read, 98 futex,
    115 clock_nanosleep)."""

    def sample() -> tuple[float, dict[str, tuple[str, int]]]:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        threads: dict[str, tuple[str, int]] = {}
        for task in Path(f"/proc/{pid}/task").iterdir():
            name, status = _task(pid, task.name, "comm"), _task(pid, task.name, "status")
            switches = _woken(status)
            threads[task.name] = (name, switches)
        return ticks / os.sysconf("SC_CLK_TCK"), threads

    t0, (cpu0, th0) = time.monotonic(), sample()
    time.sleep(seconds)
    t1, (cpu1, th1) = time.monotonic(), sample()
    span = t1 - t0
    per_thread = []
    wake: dict[str, float] = {}
    for tid, (name, switches) in th1.items():
        rate = round((switches - th0.get(tid, (name, 0))[1]) / span, 1)
        wake[name] = round(wake.get(name, 0) + rate, 1)
        per_thread.append({"tid": int(tid), "name": name, "wakeups": rate, "wchan": _task(pid, tid, "wchan"),
                           "syscall": _task(pid, tid, "syscall").split(" ")[0]})  # fmt: skip
    per_thread.sort(key=lambda t: -float(t["wakeups"]))
    return {"cpu_percent": round(100 * (cpu1 - cpu0) / span, 2), "wakeups": wake, "threads": per_thread,
            "wakeups_total": round(sum(wake.values()), 1), "seconds": round(span, 1)}  # fmt: skip


SCAN_COST = """
import sys, time
from senet_pi.hardware.backend import GpioBackend, SimBackend
from senet_pi.hardware.pinmap import load_pinmap
pinmap = load_pinmap(sys.argv[1])
for name, make in (("gpio", GpioBackend), ("sim", SimBackend)):
    backend = make(pinmap)
    board = backend.board
    board.read()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(500):
        board.read()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(name, "ms per scan", round(cpu / 500 * 1000, 3), round(wall / 500 * 1000, 3), flush=True)
    backend.close()
"""


EDGES_PROBE = """
import sys
from gpiozero import DigitalInputDevice, InputDevice
if sys.argv[2] == "edges":  # a DigitalInputDevice watches its pin from the start, a handler or none
    button = DigitalInputDevice(int(sys.argv[1]), pull_up=True, bounce_time=0.02)
    button.when_activated = lambda: None
else:
    button = InputDevice(int(sys.argv[1]), pull_up=True)
print("watching", sys.argv[2], flush=True)
sys.stdin.readline()
"""


def lgpio_probe(chip: Chip, how: str, seconds: float = 15) -> dict[str, object]:
    """A button on gpiozero's lgpio factory, as senet-pi had it up to 2026-12-06 (`edges`: a
    DigitalInputDevice with a handler on its presses) or only read (`read`: an InputDevice): which
    thread wakes, and how often."""
    chip.pull(chip.button, up=True)
    prog = Program([f"{VENV}/bin/python", "-c", EDGES_PROBE, str(chip.button), how])
    prog.expect(rf"^watching {how}$", timeout=300)
    time.sleep(2)
    found = cpu_and_wakeups(prog.proc.pid, seconds)
    prog.finish()
    say(f"lgpio probe {how}: {found}")
    return found


def rest(chip: Chip, pinmap: Path, seconds: float = 30) -> dict[str, object]:
    """A board at rest (no page, nobody playing), through real GPIO calls and on gpiozero's mock;
    and one scan's cost on each (CPU and wall milliseconds, 500 scans)."""
    found: dict[str, object] = {}
    asked = "from senet_pi.hardware.board import REST_AFTER; print(REST_AFTER)"
    rest_after = float(subprocess.run([f"{VENV}/bin/python", "-c", asked], capture_output=True, text=True,
                                      check=True).stdout)  # fmt: skip
    found["rest_after"] = rest_after
    chip.set_squares(list(range(1, 11)))
    prog = Program([f"{VENV}/bin/python", "-c", SCAN_COST, str(pinmap)])
    for _ in range(2):
        m = prog.expect(r"^(gpio|sim) ms per scan (\S+) (\S+)$", timeout=300)
        found[f"scan_{m.group(1)}"] = {"cpu_ms": float(m.group(2)), "wall_ms": float(m.group(3))}
    prog.finish()
    for backend in ("gpio", "sim"):
        chip.set_squares(list(range(1, 11)))
        prog = Program(senet("run", "--backend", backend, "--pinmap", str(pinmap), "--page-port", "0",
                             "--journal", f"/home/pi/rest-{backend}.sqlite", "--ruleset", "secret"))  # fmt: skip
        prog.expect(r"to throw$", timeout=300)
        time.sleep(rest_after + 5)  # settled: the scanner rests after REST_AFTER s without a change
        found[backend] = cpu_and_wakeups(prog.proc.pid, seconds)
        prog.send("quit")
        prog.finish()
        say(f"at rest on {backend}: {found[backend]}")
    for how in ("edges", "read"):
        found[f"lgpio_{how}"] = lgpio_probe(chip, how)
    with open("/proc/loadavg") as f:
        found["loadavg"] = f.read().split()[:3]
    return found


# ---------------------------------------------------------------------------------------- main


def main(argv: list[str]) -> int:
    payload = Path(argv[1])
    steps = argv[2:] or ["lines", "selftest", "faults", "game", "rest"]
    pinmap_file = payload / "pinmap.toml"
    pinmap = tomllib.loads(pinmap_file.read_text())
    # The strip is driven over SPI, which gpio-sim cannot be: the walk and the game use the pin map
    # without [lights]; the fault step uses the whole one, to see the missing SPI named.
    no_lights = Path("/home/pi/pinmap-no-lights.toml")
    no_lights.write_text(re.sub(r"(?ms)^\[lights\].*?(?=^\[|\Z)", "", pinmap_file.read_text()))
    os.chown(no_lights, pwd.getpwnam(USER).pw_uid, _gid("pi"))
    chip = Chip(pinmap)
    report: dict[str, object] = {"uname": os.uname().release}
    chip.make()
    actions: dict[str, Callable[[], dict[str, object]]] = {
        "lines": lambda: step_lines(chip, payload),
        "selftest": lambda: selftest(chip, no_lights),
        "faults": lambda: selftest(chip, pinmap_file, held=7),
        "game": lambda: game(chip, no_lights),
        "rest": lambda: rest(chip, no_lights),
    }
    for name in steps:
        t = time.monotonic()
        say(f"step {name}")
        try:
            report[name] = {**actions[name](), "seconds": round(time.monotonic() - t, 1)}
        except Exception as exc:  # the report says what failed; the host's test fails on it
            report[name] = {"error": f"{type(exc).__name__}: {exc}", "seconds": round(time.monotonic() - t, 1)}
        say(f"step {name} done in {time.monotonic() - t:.0f} s")
        (payload / "report.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
