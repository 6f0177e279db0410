"""Who answers the table's questions, measured over HTTP as a phone on the network meets it. Run by
hand: `python benchmarks/bench_answers.py` (`--seconds 10`). Needs an address besides loopback.

A served game (no backend) on every address asks "Were they swapped?"; then (1) a phone that has
not joined (a session and its CSRF token, as the page has) answers once: its status and time;
(2) the same client sends answers as fast as one connection can for `--seconds`: how many of each
status, and how many were carried out; (2b) the same, with a new session and CSRF token for every
answer (a client dropping its cookie); (3) a second phone joins with the code the exhibit's own
screen gets from `/api/join` and answers: its status and time (both phones are this machine's one
address, so the second waits for the allowance the first used up to refill).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import time
from collections import Counter

from senet_pi.server.serve import start_server, stop_server
from senet_pi.service import Service
from senet_pi_web import create_app
from senet_pi_web.door import BURST, PER_SECOND


class Clock:
    """The referee's clock, moved here: the question is asked without waiting out the settle time."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def lan_address() -> str:
    """This machine's address besides loopback (a UDP socket only picks a route: nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))
        return str(s.getsockname()[0])


class Page:
    """One client with a session and its CSRF token, on one connection."""

    def __init__(self, host: str, port: int) -> None:
        self.connection = http.client.HTTPConnection(host, port)
        self.connection.request("GET", "/api/op/csrf")
        response = self.connection.getresponse()
        csrf = json.loads(response.read())["csrf"]
        cookie = (response.getheader("Set-Cookie") or "").split(";")[0]
        self.headers = {"Cookie": cookie, "X-CSRF-Token": csrf, "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: object = None) -> tuple[int, dict[str, object]]:
        self.connection.request(method, path, None if body is None else json.dumps(body), self.headers)
        response = self.connection.getresponse()
        data = json.loads(response.read() or b"{}")
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.headers["Cookie"] = cookie.split(";")[0]
        return response.status, data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    clock = Clock()
    service = Service(None, variant="secret", settle=0.2, clock=clock)
    app = create_app({"SECRET_KEY": "bench", "LISTEN_HOST": "0.0.0.0"}, service=service)
    server = start_server(app, "0.0.0.0", 0)
    port, lan = server.effective_port, lan_address()
    try:
        for kind, square in (("lift", 9), ("lift", 10), ("place", 9), ("place", 10)):
            service.handle(kind, square)
        clock.now += 0.3
        service.tick()
        question = service.question()
        assert question is not None
        body = {"question": question["id"], "answer": 0}
        phone = Page(lan, port)
        started = time.perf_counter()
        status, data = phone.call("POST", "/api/answer", body)
        print(f"a phone not joined: {status} {data.get('error')!r} in {(time.perf_counter() - started) * 1000:.0f} ms")
        counts: Counter[int] = Counter()
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            counts[phone.call("POST", "/api/answer", body)[0]] += 1
        print(f"one client for {args.seconds:g} s: {dict(sorted(counts.items()))}; carried out: {counts[200]}")
        time.sleep(BURST / PER_SECOND)  # this machine's address: its allowance refills
        dropped: Counter[int] = Counter()
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:  # a new session and CSRF token every time: the cookie dropped
            dropped[Page(lan, port).call("POST", "/api/answer", body)[0]] += 1
        said = dict(sorted(dropped.items()))
        print(f"dropping its cookie each time, {args.seconds:g} s: {said}; carried out: {dropped[200]}")
        time.sleep(BURST / PER_SECOND)  # the second phone has this machine's address too: its allowance refills
        code = Page("127.0.0.1", port).call("GET", "/api/join")[1]["code"]
        joined = Page(lan, port)
        print(f"joining with the screen's code: {joined.call('POST', '/api/join', {'code': code})[0]}")
        started = time.perf_counter()
        status, _ = joined.call("POST", "/api/answer", body)
        took = (time.perf_counter() - started) * 1000
        print(f"the phone that joined answers: {status} in {took:.0f} ms; open: {service.question() is not None}")
        print(f"load average {os.getloadavg()[0]:.1f}")
    finally:
        stop_server(server)
        service.close()


if __name__ == "__main__":
    main()
