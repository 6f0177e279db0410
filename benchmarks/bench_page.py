"""The page under a crowd: many live pages open at once, and how `/api/state` answers meanwhile.
Run by hand: `python benchmarks/bench_page.py` (`--clients 200 --requests 1000`; `--quick`).

`senet-pi run` (simulated board) is started as a child process on a free loopback port, as a
museum runs it. Then, from this process, on 127.0.0.1 only:
1. `--clients` live streams (`GET /api/events`) are opened and each reads its first state;
   the server's memory (VmRSS) before and after gives the cost of an idle page;
2. `--requests` `GET /api/state` go out from 4 threads over keep-alive connections while every
   stream stays open, and a throw every 0.5 s sends an update to all of them: the latency p50,
   p99 and max, and how long an update takes to reach the last open page;
3. half the streams are closed: the time until the server has let go of their sockets
   (its open file descriptors, from /proc);
4. a PIN guesser: `--guessers` threads post wrong PINs as fast as they are answered for
   `--guess-seconds` (the PIN is hashed with scrypt, 32 MiB a check, as `set-pin` does), while
   `/api/state` is timed again and the server's peak memory watched.
Everything is bounded (`--seconds` for the whole run) and it stops by itself.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from senet_pi.server.serve import set_pin


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class Streams:
    """Many live pages as raw sockets, read by one selector thread that counts the events."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.selector = selectors.DefaultSelector()
        self.socks: list[socket.socket] = []
        self.seen: dict[socket.socket, bytes] = {}
        self.counts: dict[socket.socket, int] = {}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)

    def open(self, n: int) -> None:
        request = f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAccept: text/event-stream\r\n\r\n"
        for _ in range(n):
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
            sock.sendall(request.encode())
            sock.setblocking(False)
            with self.lock:
                self.socks.append(sock)
                self.seen[sock] = b""
                self.counts[sock] = 0
                self.selector.register(sock, selectors.EVENT_READ)
        if not self.thread.is_alive():
            self.thread.start()

    def _read(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.selector.select(0.1):
                sock = key.fileobj
                try:
                    data = sock.recv(65536)
                except OSError:
                    data = b""
                with self.lock:
                    if sock not in self.seen:
                        continue
                    if not data:
                        self.selector.unregister(sock)
                        continue
                    tail = self.seen[sock][-32:] + data
                    self.counts[sock] += tail.count(b"event: ") - self.seen[sock][-32:].count(b"event: ")
                    self.seen[sock] = tail

    def events(self) -> list[int]:
        with self.lock:
            return [self.counts[s] for s in self.socks]

    def close(self, n: int) -> None:
        with self.lock:
            gone, self.socks = self.socks[:n], self.socks[n:]
            for sock in gone:
                self.selector.unregister(sock)
                del self.seen[sock], self.counts[sock]
                sock.close()


def guess_pins(pid: int, port: int, guessers: int, seconds: float) -> tuple[dict[int, int], int, list[float]]:
    """Wrong PINs from `guessers` threads, each with its own session; returns the answers by status,
    the server's peak RSS (KiB) and /api/state latencies (ms) meanwhile."""
    answers: dict[int, int] = {}
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def guesser(n: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/api/op/csrf")
        response = conn.getresponse()
        token = json.loads(response.read())["csrf"]
        cookie = response.getheader("Set-Cookie", "").split(";")[0]
        headers = {"Content-Type": "application/json", "X-CSRF-Token": token, "Cookie": cookie}
        while time.monotonic() < end:
            conn.request("POST", "/api/op/login", body=json.dumps({"pin": f"{n:04d}"}), headers=headers)
            response = conn.getresponse()
            response.read()
            with lock:
                answers[response.status] = answers.get(response.status, 0) + 1
        conn.close()

    threads = [threading.Thread(target=guesser, args=(n,)) for n in range(guessers)]
    for t in threads:
        t.start()
    peak, during = 0, []
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while time.monotonic() < end:
        start = time.perf_counter()
        conn.request("GET", "/api/state")
        conn.getresponse().read()
        during.append((time.perf_counter() - start) * 1000)
        peak = max(peak, rss_kib(pid))
        time.sleep(0.01)
    for t in threads:
        t.join()
    return answers, peak, during


def wait_for(condition, timeout: float, what: str) -> float:
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.01)
    return time.monotonic() - start


def state_latencies(port: int, total: int, threads: int = 4) -> list[float]:
    out: list[float] = []
    lock = threading.Lock()

    def worker(count: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        for _ in range(count):
            start = time.perf_counter()
            conn.request("GET", "/api/state")
            response = conn.getresponse()
            response.read()
            mine.append(time.perf_counter() - start)
            if response.status != 200:
                raise SystemExit(f"/api/state answered {response.status}")
        conn.close()
        with lock:
            out.extend(mine)

    workers = [threading.Thread(target=worker, args=(total // threads,)) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return out


def press(port: int) -> None:
    """The page's throw button: with the session's CSRF token, as the page sends it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/op/csrf")
    answer = conn.getresponse()
    cookie = (answer.getheader("Set-Cookie") or "").split(";")[0]
    token = json.loads(answer.read())["csrf"]
    headers = {"Content-Length": "0", "Cookie": cookie, "X-CSRF-Token": token}
    conn.request("POST", "/api/sim/press", body=b"", headers=headers)
    conn.getresponse().read()
    conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200, help="live pages to open (default 200)")
    parser.add_argument("--requests", type=int, default=1000, help="GET /api/state to time (default 1000)")
    parser.add_argument("--throws", type=int, default=10, help="updates sent to every page and timed (default 10)")
    parser.add_argument("--guessers", type=int, default=24, help="threads guessing the PIN (default 24)")
    parser.add_argument("--guess-seconds", type=float, default=10, help="how long they guess (default 10)")
    parser.add_argument("--seconds", type=float, default=180, help="stop after this long whatever happens")
    parser.add_argument("--quick", action="store_true", help="20 clients, 100 requests")
    args = parser.parse_args()
    if args.quick:
        args.clients, args.requests, args.throws, args.guessers, args.guess_seconds = 20, 100, 2, 4, 2
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.clients * 2 + 256)), hard))
    deadline = threading.Timer(args.seconds, lambda: os._exit(3))  # bounded, whatever happens
    deadline.daemon = True  # and never what keeps it running once done
    deadline.start()

    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, SENET_PI_INSTANCE=tmp)
        set_pin("135791", Path(tmp))  # the operator PIN, hashed as `senet-pi set-pin` does
        server = subprocess.Popen(
            [sys.executable, "-m", "senet_pi", "run", "--backend", "sim", "--page-port", str(port),
             "--journal", str(Path(tmp) / "journal.sqlite")],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
        )  # fmt: skip
        try:
            return measure(server, port, args)
        finally:
            server.stdin.write(b"quit\n")  # as a person stops run: it stops its page and exits
            server.stdin.close()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def measure(server: subprocess.Popen, port: int, args: argparse.Namespace) -> int:
    def answers() -> bool:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/api/state")
            return conn.getresponse().status == 200
        except OSError:
            return False

    wait_for(answers, 30, "the page to answer")
    state_latencies(port, 40)  # warm up
    rss_before, fds_before = rss_kib(server.pid), open_fds(server.pid)

    streams = Streams(port)
    opened = time.monotonic()
    streams.open(args.clients)
    wait_for(lambda: min(streams.events()) >= 1, 60, "every stream's first state")
    open_time = time.monotonic() - opened
    time.sleep(1.0)  # let the server settle before reading its memory
    rss_open = rss_kib(server.pid)

    stop = threading.Event()
    delivery: list[float] = []

    def thrower() -> None:  # a throw every 0.5 s: every open page gets an update
        while not stop.wait(0.5):
            before = [c for c in streams.events()]
            start = time.monotonic()
            press(port)
            try:
                wait_for(lambda b=before: all(a > x for a, x in zip(streams.events(), b, strict=False)), 10, "fan-out")
            except SystemExit:
                continue
            delivery.append(time.monotonic() - start)

    throwing = threading.Thread(target=thrower, daemon=True)
    throwing.start()
    latencies = state_latencies(port, args.requests)
    wait_for(lambda: len(delivery) >= args.throws, args.throws * 2 + 10, f"{args.throws} updates")
    stop.set()
    throwing.join()

    half = args.clients // 2
    fds_open = open_fds(server.pid)
    closed = time.monotonic()
    streams.close(half)
    freed = wait_for(lambda: open_fds(server.pid) <= fds_open - half, 30, "the server to free closed streams")
    streams.close(args.clients)
    streams.stop.set()
    guessing = guess_pins(server.pid, port, args.guessers, args.guess_seconds)

    per_client = (rss_open - rss_before) / args.clients
    ms = [x * 1000 for x in latencies]
    print(f"senet-pi page server, {platform.python_implementation()} {platform.python_version()}, "
          f"{platform.machine()}, {os.cpu_count()} cores; loopback, the server in its own process\n")  # fmt: skip
    print("| measure | value |")
    print("|---|---|")
    print(f"| live streams open at once | {args.clients} (all got their first state in {open_time:.2f} s) |")
    print(f"| `GET /api/state` with them open ({len(ms)} requests, 4 threads) | "
          f"p50 {percentile(ms, 50):.1f} ms, p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms |")  # fmt: skip
    if delivery:
        print(f"| an update reaching every open page ({len(delivery)} throws) | "
              f"median {percentile(delivery, 50) * 1000:.0f} ms, worst {max(delivery) * 1000:.0f} ms |")  # fmt: skip
    print(f"| server memory: idle / with {args.clients} streams | "
          f"{rss_before / 1024:.1f} MiB / {rss_open / 1024:.1f} MiB |")  # fmt: skip
    print(f"| memory per idle live page | {per_client:.1f} KiB |")
    print(f"| {half} pages closed: sockets freed by the server after | {freed:.2f} s |")
    answers, peak, during = guessing
    print(
        f"| PIN guessing: {args.guessers} threads for {args.guess_seconds:.0f} s | "
        + ", ".join(f"{n} answered {code}" for code, n in sorted(answers.items()))
        + " |"
    )
    print(f"| server memory at its peak while guessed at | {peak / 1024:.1f} MiB |")
    print(f"| `GET /api/state` meanwhile ({len(during)} requests) | "
          f"p50 {percentile(during, 50):.1f} ms, p99 {percentile(during, 99):.1f} ms |")  # fmt: skip
    del closed, fds_before
    if server.poll() is not None:
        print(server.stderr.read().decode(), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
