"""Memory of the idle service: does RSS stay flat? Two ways, both run by hand.

`python benchmarks/bench_memory.py accelerated [--seconds 3600] [--unbounded]` drives the simulated
board's scanner (50 scans a second) and the service's ticks (20 a second) in one thread, as fast
as they go, for `--seconds` of *simulated* time, and prints RSS every simulated 10 minutes.
`--unbounded` uses gpiozero's plain MockPin (whose history of states grows without bound) for comparison.

`python benchmarks/bench_memory.py real [--seconds 600]` starts `senet-pi run --backend sim` (page
on, a fresh journal, standard input held open) and reads its RSS every 30 s of wall time, then
fits a line after the first minute and extrapolates it to an hour.

`python benchmarks/bench_memory.py idle [--seconds 30] [--page [--visit]] [--mqtt URL] [--repeat N] [--plain]`
is a board at rest: `senet-pi run --backend sim` with no page (unless `--page`: served, never
opened; `--visit`: one visitor loads it, then leaves), nobody playing, measured once the scanner rests
(REST_AFTER + 2 s, a minute): its share of one core (user + system time from /proc over `--seconds`), its RSS, and
what wakes it: each thread's context switches a second and its share of a core (from
/proc/PID/task), by the name the board gives it. `--repeat N`: N boards in turn, then medians.
The board's Python runs as senet-pi.service runs it (its PYTHON* settings, read from the unit;
its compiled modules in a cache the runs share, made by the first); `--plain`: as `senet-pi run`
typed by hand runs, to compare. Before and after the boards, the share of a core an empty thread
waking 10 times a second takes (a wake-up's cost on a virtual machine varies over the day).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from senet_pi.hardware.board import REST_AFTER

ROOT = Path(__file__).resolve().parents[1]


def rss_kb(pid: int | str = "self") -> int:
    """Resident set size in kB, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def accelerated(seconds: float, unbounded: bool) -> None:
    from senet_pi.hardware.backend import SimBackend
    from senet_pi.hardware.board import SCAN_RATE
    from senet_pi.hardware.pinmap import load_pinmap
    from senet_pi.service.core import Service

    if unbounded:  # what the sim factory made before: plain MockPins, every state kept
        from gpiozero.pins.mock import MockFactory, MockPin

        from senet_pi.hardware import sim

        sim.BoundedMockPin.clear_states = MockPin.clear_states  # type: ignore[method-assign]
        sim.sim_factory = MockFactory  # type: ignore[assignment]
    t = [0.0]
    clock = lambda: t[0]  # noqa: E731
    with tempfile.TemporaryDirectory() as folder:
        from senet_pi.service.journal import Journal

        service = Service(Journal(Path(folder) / "j.sqlite"), clock=clock)
        backend = SimBackend(load_pinmap(), clock=clock)
        backend.start(service, scan=False)
        assert backend.board is not None
        start, began = rss_kb(), time.perf_counter()
        print(f"simulated 0 min: RSS {start} kB")
        per_tick = round(SCAN_RATE / 20)
        for n in range(1, round(seconds * SCAN_RATE) + 1):
            t[0] += 1 / SCAN_RATE
            backend.board.scan_once(t[0])
            if n % per_tick == 0:
                service.tick()
            if n % round(600 * SCAN_RATE) == 0:
                print(f"simulated {n / SCAN_RATE / 60:.0f} min: RSS {rss_kb()} kB")
        end = rss_kb()
        backend.close()
        service.close()
    wall = time.perf_counter() - began
    print(
        f"{seconds / 3600:.2f} simulated hours in {wall:.0f} s: RSS {start} -> {end} kB "
        f"({(end - start) / (seconds / 3600):+.0f} kB per simulated hour)"
    )


def real(seconds: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, SENET_PI_INSTANCE=folder, PYTHONPATH=str(ROOT))
        cmd = [sys.executable, "-m", "senet_pi", "run", "--backend", "sim", "--journal", f"{folder}/j.sqlite"]
        cmd += ["--page-port", "18087"]
        child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
        samples: list[tuple[float, int]] = []
        began = time.monotonic()
        try:
            while (now := time.monotonic() - began) <= seconds:
                samples.append((now, rss_kb(child.pid)))
                print(f"{now:5.0f} s: RSS {samples[-1][1]} kB", flush=True)
                time.sleep(30)
        finally:
            child.terminate()
            child.wait(10)
    fit = [(x, y) for x, y in samples if x >= 60]
    n = len(fit)
    mx, my = sum(x for x, _ in fit) / n, sum(y for _, y in fit) / n
    slope = sum((x - mx) * (y - my) for x, y in fit) / max(sum((x - mx) ** 2 for x, _ in fit), 1e-9)
    print(
        f"{seconds / 60:.0f} real minutes: RSS {samples[0][1]} -> {samples[-1][1]} kB; after the first minute "
        f"{slope * 1000:+.2f} B/s, i.e. {slope * 3600:+.0f} kB per hour extrapolated"
    )


def _threads(pid: int) -> dict[str, tuple[int, float]]:
    """Each of the process's threads, by tid and name (the board names them in the kernel too):
    its context switches (voluntary and not: each wake-up is one) and its CPU seconds."""
    out: dict[str, tuple[int, float]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            status = dict(line.split(":", 1) for line in (task / "status").read_text().splitlines() if ":" in line)
            cpu = _cpu_seconds(pid, task.name)
        except OSError:
            continue
        switches = int(status["voluntary_ctxt_switches"]) + int(status["nonvoluntary_ctxt_switches"])
        out[f"{task.name} {status['Name'].strip()}"] = (switches, cpu)
    return out


def _cpu_seconds(pid: int, tid: str | None = None) -> float:
    """User + system CPU seconds of the process, from /proc (clock ticks); of one of its threads from
    its schedstat (nanoseconds: a thread at rest uses less than a tick a second)."""
    if tid:
        return int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0]) / 1e9
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(pid: int, port: int, within: float = 60.0) -> None:
    """Wait until the board listens on `port` (read from /proc, without connecting: a connection
    would be its first visitor), at most `within` seconds: a loaded machine starts it slower."""
    wanted = f":{port:04X} "
    began = time.monotonic()
    while time.monotonic() - began < within:
        for table in ("tcp", "tcp6"):
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
                    fields = line.split()
                    if (fields[1] + " ").endswith(wanted) and fields[3] == "0A":  # 0A: LISTEN
                        return
        time.sleep(0.1)
    raise RuntimeError(f"the board did not listen on port {port} within {within:.0f} s")


def _visit(port: int) -> None:
    """One visitor: the page, its style, script and state, as a browser first loads them; then gone."""
    for path in ("/", "/static/style.css", "/static/app.js", "/api/state"):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
            answer.read()


@dataclass
class Idle:
    cpu: float  # % of one core
    rss: float  # MiB
    wakes: dict[str, float]  # wake-ups a second, by thread
    shares: dict[str, float]  # % of one core, by thread


def unit_python(cache: str) -> dict[str, str]:
    """The PYTHON* settings exhibit/senet-pi.service gives the board, its module cache at `cache`."""
    found = {}
    for line in (ROOT / "exhibit" / "senet-pi.service").read_text().splitlines():
        if line.startswith("Environment=PYTHON"):
            key, value = line.removeprefix("Environment=").split("=", 1)
            found[key] = value
    return found | ({"PYTHONPYCACHEPREFIX": cache} if "PYTHONPYCACHEPREFIX" in found else {})


def compile_ahead(python: dict[str, str]) -> None:
    """Compile the standard library and the venv into the unit's module cache with the installers'
    own exhibit/compile-ahead, then the checkout the boards run from (without that, each board
    compiles at start and keeps ~4 MiB more)."""
    cache = python["PYTHONPYCACHEPREFIX"]
    subprocess.run([str(ROOT / "exhibit" / "compile-ahead"), sys.executable, cache], check=True)
    subprocess.run(
        [sys.executable, "-OO", "-m", "compileall", "-q", "-j", "0", "-x", "/(tests|build|docs)/", str(ROOT)],
        env=dict(os.environ, **python),
        stdout=subprocess.DEVNULL,
        check=False,
    )


def idle_once(seconds: float, page: bool, mqtt: str | None, visit: bool = False, python: dict | None = None) -> Idle:
    """One board started, left alone until its scanner rests (REST_AFTER + 2 s), then measured;
    its interpreter with the settings `python` (PYTHONOPTIMIZE...) added to this one's environment."""
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, SENET_PI_INSTANCE=folder, PYTHONPATH=str(ROOT), **(python or {}))
        if (
            python
        ):  # as the unit: its compiled modules are written (a board compiling them at every start keeps ~2 MiB more)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        port = _free_port() if page else 0  # a free port: other runs may share the machine
        cmd = [sys.executable, "-m", "senet_pi", "run", "--backend", "sim", "--journal", f"{folder}/j.sqlite"]
        cmd += ["--page-port", str(port)]
        if mqtt:
            cmd += ["--mqtt", mqtt, "--board", "bench-idle"]
        child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, cwd=folder)
        try:
            time.sleep(3)
            if page:
                _listening(child.pid, port)  # under load a board takes longer than 3 s to start
            if visit:
                _visit(port)
                time.sleep(5)  # a visit keeps the ticks quick for 10 s (LIVELY), as any input does
            time.sleep(REST_AFTER - 1)  # started, imported, settled, and the scanner resting
            cpu0, wall0, threads0 = _cpu_seconds(child.pid), time.monotonic(), _threads(child.pid)
            time.sleep(seconds)
            cpu1, wall1, threads1 = _cpu_seconds(child.pid), time.monotonic(), _threads(child.pid)
            rss = rss_kb(child.pid)
        finally:
            child.terminate()
            child.wait(10)
    span = wall1 - wall0
    zero = (0, 0.0)
    wakes = {name: (n - threads0.get(name, zero)[0]) / span for name, (n, _) in threads1.items()}
    shares = {name: 100 * (c - threads0.get(name, zero)[1]) / span for name, (_, c) in threads1.items()}
    return Idle(100 * (cpu1 - cpu0) / span, rss / 1024, wakes, shares)


REFERENCE = """
import threading, time
stop = threading.Event()
def loop():
    while not stop.wait(0.1):
        pass
threading.Thread(target=loop, daemon=True).start()
time.sleep(%r)
"""


def reference(seconds: float) -> float:
    """The share of a core an empty Python thread waking 10 times a second takes here, now: on a
    virtual machine a wake-up's cost varies several times over the day, so the boards' figures are
    read beside it."""
    child = subprocess.Popen([sys.executable, "-c", REFERENCE % (seconds + 3)])
    try:
        time.sleep(2)
        cpu0, wall0 = _cpu_seconds(child.pid), time.monotonic()
        time.sleep(seconds)
        cpu1, wall1 = _cpu_seconds(child.pid), time.monotonic()
    finally:
        child.kill()
        child.wait(10)
    return 100 * (cpu1 - cpu0) / (wall1 - wall0)


def idle(
    seconds: float, page: bool, mqtt: str | None, visit: bool = False, repeat: int = 1, plain: bool = False
) -> None:
    """`repeat` boards one after another: each one's figures, then the medians (CPU time is what a
    busy machine disturbs most; memory hardly at all)."""
    what = ("page, one visit then none" if visit else "page, never opened") if page else "no page"
    cache = tempfile.TemporaryDirectory()  # the unit's module cache, shared by the runs
    python = {} if plain else unit_python(cache.name)
    if python.get("PYTHONPYCACHEPREFIX"):  # compiled ahead, as the installers do
        compile_ahead(python)
    print(f"python as {'typed by hand' if plain else 'senet-pi.service runs it'}: {python or 'no settings'}")
    runs: list[Idle] = []
    calm = reference(seconds)
    print(f"reference: an empty thread waking 10 times a second takes {calm:.2f} % of a core here now", flush=True)
    for n in range(repeat):
        load = os.getloadavg()[0]
        run = idle_once(seconds, page, mqtt, visit, python)
        runs.append(run)
        print(
            f"run {n + 1}: idle for {seconds:.0f} s ({what}{', mqtt' if mqtt else ''}, load {load:.1f}): "
            f"{run.cpu:.2f} % of a core, RSS {run.rss:.1f} MiB",
            flush=True,
        )
        for name, rate in sorted(run.wakes.items(), key=lambda kv: -kv[1]):
            tid, _, thread = name.partition(" ")
            print(f"  {rate:6.1f} wake-ups/s  {run.shares[name]:5.2f} % of a core  thread {thread} ({tid})")
        print(f"  {sum(run.wakes.values()):6.1f} wake-ups/s in all")
    if repeat > 1:
        print(
            f"median of {repeat}: {statistics.median(r.cpu for r in runs):.2f} % of a core "
            f"(min {min(r.cpu for r in runs):.2f}), RSS {statistics.median(r.rss for r in runs):.1f} MiB, "
            f"{statistics.median(sum(r.wakes.values()) for r in runs):.1f} wake-ups/s"
        )
    print(f"reference again: {reference(seconds):.2f} % of a core (before the boards: {calm:.2f} %)")
    cache.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["accelerated", "real", "idle"])
    parser.add_argument("--page", action="store_true", help="idle: serve the page too")
    parser.add_argument("--mqtt", metavar="URL", help="idle: publish the board on this broker")
    parser.add_argument("--visit", action="store_true", help="idle, --page: one visitor loads the page first")
    parser.add_argument("--repeat", type=int, default=1, help="idle: boards measured one after another (medians)")
    parser.add_argument("--seconds", type=float, help="simulated (accelerated) or wall (real) seconds")
    parser.add_argument("--unbounded", action="store_true", help="accelerated: gpiozero's plain MockPins, to compare")
    parser.add_argument("--plain", action="store_true", help="idle: Python as typed by hand, not as the unit runs it")
    args = parser.parse_args()
    if args.mode == "accelerated":
        accelerated(args.seconds or 3600, args.unbounded)
    elif args.mode == "idle":
        idle(args.seconds or 30, args.page, args.mqtt, args.visit, max(1, args.repeat), args.plain)
    else:
        real(args.seconds or 600)


if __name__ == "__main__":
    main()
