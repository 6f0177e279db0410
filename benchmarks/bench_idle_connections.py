"""Idle connections against the page: `senet-pi run` (simulated board) in its own process under a
file limit, and N connections from many loopback addresses that never send a byte.

Run by hand (Linux, `prlimit` from util-linux): `python benchmarks/bench_idle_connections.py
[--connections 1100] [--addresses 50] [--nofile 8192:8192]`. Prints how long `/api/state` takes
before and while they are open, how many the server still holds after 1 s and after 12 s (the
header timeout is 10 s), and how many bytes the server logged.
"""

from __future__ import annotations

import argparse
import http.client
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def state(port: int) -> tuple[object, float]:
    start = time.monotonic()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/state")
        status: object = conn.getresponse().status
        conn.close()
    except OSError as exc:
        status = repr(exc)
    return status, round((time.monotonic() - start) * 1000, 1)


def held(socks: list[socket.socket]) -> int:
    """How many of `socks` the server has not closed."""
    count = 0
    for sock in socks:
        sock.setblocking(False)
        try:
            if sock.recv(1) != b"":
                count += 1
        except BlockingIOError:
            count += 1
        except OSError:
            pass
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=1100)
    parser.add_argument("--addresses", type=int, default=50)
    parser.add_argument("--nofile", default="8192:8192", help="the server's file limit, soft:hard (prlimit)")
    parser.add_argument("--port", type=int, default=18431)
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.connections + 256), hard))
    senet_pi = shutil.which("senet-pi", path=str(Path(sys.executable).parent)) or "senet-pi"
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "server.log"
        argv = ["prlimit", f"--nofile={args.nofile}", senet_pi, "run", "--backend", "sim"]
        argv += ["--page-port", str(args.port), "--journal", str(Path(folder) / "j.sqlite")]
        env = {**os.environ, "XDG_STATE_HOME": folder}
        with open(log, "w") as err:
            server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err, env=env)
        try:
            end = time.monotonic() + 30
            while state(args.port)[0] != 200 and time.monotonic() < end:
                time.sleep(0.2)
            print("/api/state before:", state(args.port))
            socks = []
            for i in range(args.connections):
                sock = socket.socket()
                sock.bind((f"127.0.1.{i % args.addresses + 1}", 0))
                sock.connect(("127.0.0.1", args.port))
                socks.append(sock)
            time.sleep(1)
            print(f"/api/state with {len(socks)} idle connections:", state(args.port))
            print("held by the server after 1 s:", held(socks))
            time.sleep(11)
            print("held after 12 s:", held(socks), "/api/state:", state(args.port))
            for sock in socks:
                sock.close()
        finally:
            server.terminate()
            server.wait(30)
        print("server log:", log.stat().st_size, "bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
