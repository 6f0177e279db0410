"""Idle connections against the page: `senet-pi run` (simulated board) in its own process under a
file limit, and N connections from many loopback addresses that never send a byte.

Run by hand (Linux, `prlimit` from util-linux): `python benchmarks/bench_idle_connections.py
[--connections 1100] [--addresses 50] [--nofile 8192:8192]`. Prints how long `/api/state` takes
before and while they are open, how many the server still holds after 1 s and after 12 s (the
header timeout is 10 s), and how many bytes the server logged.

`--slow-bodies`: each connection instead sends the headers of a sign-in with `Content-Length: 100`
and no body (the page reads a sign-in's body); prints how long `/`, a static file and `/api/state`
take while they are held (the target: within 2 s), and how many are cut off after the body timeout.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def state(port: int, path: str = "/api/state") -> tuple[object, float]:
    start = time.monotonic()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", path)
        status: object = conn.getresponse().status
        conn.close()
    except OSError as exc:
        status = repr(exc)
    return status, round((time.monotonic() - start) * 1000, 1)


def sign_in_head(port: int) -> bytes:
    """A sign-in's headers with its session cookie and CSRF token, announcing a body of 100 bytes."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/op/csrf")
    response = conn.getresponse()
    cookie = (response.getheader("Set-Cookie") or "").split(";")[0]
    token = json.loads(response.read())["csrf"]
    conn.close()
    return (
        "POST /api/op/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Cookie: {cookie}\r\nX-CSRF-Token: {token}\r\nContent-Length: 100\r\n\r\n"
    ).encode()


def held(socks: list[socket.socket]) -> int:
    """How many of `socks` the server has not closed (an answer it sent, a 408, is read past)."""
    count = 0
    for sock in socks:
        sock.setblocking(False)
        try:
            while sock.recv(65536):
                pass
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
    parser.add_argument("--slow-bodies", action="store_true", help="send a sign-in's headers and no body")
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.connections + 256), hard))
    senet_pi = shutil.which("senet-pi", path=str(Path(sys.executable).parent)) or "senet-pi"
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "server.log"
        argv = ["prlimit", f"--nofile={args.nofile}", senet_pi, "run", "--backend", "sim"]
        argv += ["--page-port", str(args.port), "--journal", str(Path(folder) / "j.sqlite")]
        env = {**os.environ, "XDG_STATE_HOME": folder, "SENET_PI_INSTANCE": folder}
        if args.slow_bodies:  # a PIN, so the page reads a sign-in's body
            subprocess.run([senet_pi, "set-pin", "--pin", "123456"], env=env, check=True, capture_output=True)
        with open(log, "w") as err:
            server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err, env=env)
        try:
            end = time.monotonic() + 30
            while state(args.port)[0] != 200 and time.monotonic() < end:
                time.sleep(0.2)
            print("/api/state before:", state(args.port))
            head = sign_in_head(args.port) if args.slow_bodies else b""
            socks = []
            for i in range(args.connections):
                sock = socket.socket()
                sock.bind((f"127.0.1.{i % args.addresses + 1}", 0))
                sock.connect(("127.0.0.1", args.port))
                sock.sendall(head)
                socks.append(sock)
            time.sleep(1)
            kind = "slow-body" if args.slow_bodies else "idle"
            for path in ("/api/state", "/", "/static/style.css"):
                print(f"{path} with {len(socks)} {kind} connections:", state(args.port, path))
            print("held by the server after 1 s:", held(socks))
            time.sleep(11)
            print("held after 12 s:", held(socks), "/api/state:", state(args.port))
            for sock in socks:
                sock.close()
        finally:
            server.terminate()
            server.wait(30)
        print("server log:", log.stat().st_size, "bytes")
        for line in log.read_text().splitlines()[:5]:
            print("  ", line[:200])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
