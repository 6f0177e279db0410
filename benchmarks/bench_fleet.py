"""The fleet on a broker: what one board adds with the broker on, and how many boards one
dashboard follows live. Run by hand: `python benchmarks/bench_fleet.py` (`--boards 100
--seconds 20`; `--quick` for a short run). Needs Debian's `mosquitto`.

A Mosquitto is started on a free loopback port (anonymous, no persistence), then:
1. one board: `senet-pi run` (simulated board, no page) as a child process, without and then
   with `--mqtt`: its memory (VmRSS) once started, and its CPU (user + system, from /proc)
   while idle for `--idle` seconds and while `--presses` presses are played through its stdin;
2. the dashboard: `senet-pi fleet` as a child process with a PIN, signed in over HTTP and its
   live stream open; `--boards` simulated boards, each its own paho client with a last will,
   publish `online` and then a state (a real board's `GET /api/state`, with the send time in it)
   about once a second each, for `--seconds`. The latency from a board's publish to the
   dashboard's live stream saying it: p50, p99, max; the dashboard's CPU and memory meanwhile.

`--flap SECONDS` measures only this: a board (in this process) on a broker that is up 3 s and
down 3 s for SECONDS: the share of the time the board is connected, and of the broker's up time.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from werkzeug.security import generate_password_hash

SENET_PI = shutil.which("senet-pi", path=str(Path(sys.executable).parent)) or "senet-pi"
PIN = "1357"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def wait_port(port: int, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def start_broker(folder: Path) -> tuple[subprocess.Popen, int]:
    import getpass

    port = free_port()
    conf = folder / "mosquitto.conf"
    conf.write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nuser {getpass.getuser()}\n"
        "max_queued_messages 10000\n"
    )
    proc = subprocess.Popen(
        [shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(conf)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_port(port)
    return proc, port


def one_board(folder: Path, url: str | None, idle: float, presses: int) -> dict[str, float]:
    """A `senet-pi run` child: its memory once started, CPU idle and CPU for `presses` presses."""
    env = {**os.environ, "SENET_PI_INSTANCE": str(folder / "instance")}
    journal = folder / f"j-{time.monotonic_ns()}.db"
    args = [SENET_PI, "run", "--journal", str(journal), "--page-port", "0"]
    if url:
        args += ["--mqtt", url, "--board", "bench"]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, env=env)
    assert proc.stdin is not None
    time.sleep(3.0)  # started, connected, the first state published
    rss = rss_mib(proc.pid)
    cpu0 = cpu_seconds(proc.pid)
    time.sleep(idle)
    cpu1 = cpu_seconds(proc.pid)
    proc.stdin.write(b"press\nwait 10\n" * presses + b"wait 500\n")
    proc.stdin.flush()
    window = 1.0 + presses * 0.1  # a press takes 0.05 s of the simulated hand, then 10 ms of waiting
    time.sleep(window)
    cpu2 = cpu_seconds(proc.pid)
    idle_rate = (cpu1 - cpu0) / idle
    rss_after = rss_mib(proc.pid)
    proc.stdin.write(b"quit\n")
    proc.stdin.close()
    proc.wait(30)
    return {
        "rss": rss,
        "rss_after": rss_after,
        "idle_cpu_pct": 100 * (cpu1 - cpu0) / idle,
        "cpu_per_press_ms": 1000 * max(0.0, cpu2 - cpu1 - idle_rate * window) / presses,  # beyond the idle ticks
    }


def sample_state() -> dict:
    """A real board's `GET /api/state` answer, as boards publish it."""
    from senet_pi.service.core import Service
    from senet_pi_web import create_app

    app = create_app({"TESTING": True}, service=Service(None))
    return app.test_client().get("/api/state").get_json()


def dashboard(folder: Path, port: int, broker: int) -> subprocess.Popen:
    instance = folder / "fleet-instance"
    instance.mkdir()
    hashed = generate_password_hash(PIN, method="pbkdf2:sha256:1000")
    (instance / "config.toml").write_text(f'OPERATOR_PIN_HASH = "{hashed}"\nSECRET_KEY = "bench"\n')
    env = {**os.environ, "SENET_PI_INSTANCE": str(instance)}
    proc = subprocess.Popen(
        [SENET_PI, "fleet", "--mqtt", f"mqtt://127.0.0.1:{broker}", "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    wait_port(port)
    return proc


def sign_in(port: int) -> str:
    """The session cookie of a signed-in operator."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/api/op/csrf")
    answer = conn.getresponse()
    cookie = answer.getheader("Set-Cookie", "").split(";")[0]
    csrf = json.loads(answer.read())["csrf"]
    body = json.dumps({"pin": PIN})
    headers = {"Cookie": cookie, "X-CSRF-Token": csrf, "Content-Type": "application/json"}
    conn.request("POST", "/api/op/login", body, headers)
    answer = conn.getresponse()
    answer.read()
    assert answer.status == 200, answer.status
    return answer.getheader("Set-Cookie", cookie).split(";")[0]


def follow(port: int, cookie: str, latencies: list[float], stop: threading.Event) -> None:
    """Read the dashboard's live stream; each board event's state carries its send time."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/fleet/api/events", headers={"Cookie": cookie})
    answer = conn.getresponse()
    assert answer.status == 200, answer.status
    event = None
    while not stop.is_set():
        line = answer.readline().decode()
        if not line:
            break
        if line.startswith("event: "):
            event = line[7:].strip()
        elif line.startswith("data: ") and event == "board":
            view = json.loads(line[6:])
            prompt = view.get("prompt") or ""
            if prompt.startswith("sent "):
                latencies.append(time.time() - float(prompt[5:]))
    conn.close()


def simulate(broker: int, boards: int, seconds: float, state: dict) -> int:
    """`boards` paho clients, each publishing its status and then a state about once a second."""
    clients = []
    for n in range(boards):
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"sim-{n}")
        client.will_set(f"senet-pi/sim-{n}/status", "offline", qos=1, retain=True)
        client.connect("127.0.0.1", broker)
        client.loop_start()
        client.publish(f"senet-pi/sim-{n}/status", "online", qos=1, retain=True)
        clients.append(client)
    sent = 0
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        round_start = time.monotonic()
        for n, client in enumerate(clients):
            payload = json.dumps({**state, "prompt": f"sent {time.time()}", "to_move": "AB"[n % 2]})
            client.publish(f"senet-pi/sim-{n}/state", payload, qos=1, retain=True)
            sent += 1
            time.sleep(max(0.0, (round_start + (n + 1) / boards) - time.monotonic()))  # spread over the second
    for client in clients:
        client.disconnect()
        client.loop_stop()
    return sent


def flapping(folder: Path, seconds: float, period: float = 3.0) -> None:
    """The board's connected share while the broker flaps `period` s up, `period` s down."""
    from senet_pi.fleet import FleetSettings, parse_broker_url
    from senet_pi.fleet.on_run import start_board
    from senet_pi.service.core import Service
    from senet_pi_web import create_app

    broker, port = start_broker(folder)
    service = Service(None)
    app = create_app({"TESTING": True}, service=service)
    publisher = start_board(service, None, FleetSettings(parse_broker_url(f"mqtt://127.0.0.1:{port}"), "flap"), app)
    samples = up_samples = connected = connected_up = 0
    began = time.monotonic()
    try:
        while (elapsed := time.monotonic() - began) < seconds:
            up = int(elapsed // period) % 2 == 0
            if up and broker.poll() is not None:
                broker = subprocess.Popen(broker.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            elif not up and broker.poll() is None:
                broker.terminate()
                broker.wait(5)
            samples += 1
            up_samples += up
            connected += publisher.connected
            connected_up += publisher.connected and up
            time.sleep(0.05)
    finally:
        publisher.close(0.5)
        if broker.poll() is None:
            broker.terminate()
            broker.wait(5)
    print(
        f"a broker flapping {period:g} s up / {period:g} s down for {seconds:g} s: the board was connected "
        f"{100 * connected / samples:.0f} % of the time, {100 * connected_up / max(up_samples, 1):.0f} % of the "
        "broker's up time"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="a short run: 10 boards, 3 s, 2 s idle, 20 presses")
    parser.add_argument("--flap", type=float, metavar="SECONDS", help="only: a board on a broker flapping 3 s/3 s")
    args = parser.parse_args()
    if args.flap:
        with tempfile.TemporaryDirectory() as tmp:
            flapping(Path(tmp), args.flap)
        return
    if args.quick:
        args.boards, args.seconds, args.idle, args.presses = 10, 3.0, 2.0, 20
    print(f"{platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        broker, port = start_broker(folder)
        try:
            without = one_board(folder, None, args.idle, args.presses)
            with_mqtt = one_board(folder, f"mqtt://127.0.0.1:{port}", args.idle, args.presses)
            print("one board (senet-pi run, simulated, no page):")
            for name, r in (("without --mqtt", without), ("with --mqtt", with_mqtt)):
                print(
                    f"  {name:<15} RSS {r['rss']:.1f} MiB (after the presses {r['rss_after']:.1f}), "
                    f"idle CPU {r['idle_cpu_pct']:.2f} %, {r['cpu_per_press_ms']:.2f} ms CPU a press"
                )
            print(
                f"  the broker adds {with_mqtt['rss'] - without['rss']:+.1f} MiB, "
                f"{with_mqtt['idle_cpu_pct'] - without['idle_cpu_pct']:+.2f} % idle CPU, "
                f"{with_mqtt['cpu_per_press_ms'] - without['cpu_per_press_ms']:+.2f} ms a press"
            )

            web = free_port()
            proc = dashboard(folder, web, port)
            try:
                cookie = sign_in(web)
                latencies: list[float] = []
                stop = threading.Event()
                reader = threading.Thread(target=follow, args=(web, cookie, latencies, stop), daemon=True)
                reader.start()
                time.sleep(0.5)
                rss0, cpu0 = rss_mib(proc.pid), cpu_seconds(proc.pid)
                sent = simulate(port, args.boards, args.seconds, sample_state())
                time.sleep(1.0)
                rss1, cpu1 = rss_mib(proc.pid), cpu_seconds(proc.pid)
                stop.set()
                print(f"the dashboard (senet-pi fleet) following {args.boards} boards for {args.seconds:g} s:")
                print(f"  {sent} states published, {len(latencies)} said on the live stream")
                if latencies:
                    print(
                        f"  board -> live stream: p50 {1000 * percentile(latencies, 50):.0f} ms, "
                        f"p99 {1000 * percentile(latencies, 99):.0f} ms, max {1000 * max(latencies):.0f} ms"
                    )
                print(
                    f"  dashboard CPU {100 * (cpu1 - cpu0) / args.seconds:.1f} % of one core, "
                    f"RSS {rss0:.1f} -> {rss1:.1f} MiB"
                )
            finally:
                proc.terminate()
                proc.wait(10)
        finally:
            broker.terminate()
            broker.wait(10)


if __name__ == "__main__":
    main()
