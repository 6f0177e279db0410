"""A real Mosquitto (Debian's `mosquitto`) on a free loopback port for the fleet's tests, and a
paho subscriber that records what it hears."""

from __future__ import annotations

import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as mqtt

from senet_pi.fleet.client import disconnect

MOSQUITTO = os.environ.get("SENET_PI_MOSQUITTO") or shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate: Callable[[], object], timeout: float = 5.0, step: float = 0.02) -> object:
    """`predicate()` once it is truthy; AssertionError after `timeout` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"not within {timeout} s")
        time.sleep(step)


def make_certificates(folder: Path) -> Path:
    """A throwaway CA (ca.crt) and a server certificate for 127.0.0.1 signed by it, made with openssl."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder)

    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=senet-pi test CA")
    run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.crt", "-days", "1", "-extfile", "san.ext")  # fmt: skip
    return folder / "ca.crt"


class Mosquitto:
    """One broker process with a temporary config; `stop()` and `start()` again keep its port.
    `use_config(text)`: run it with a configuration of the test's own (its listener replaced)."""

    def __init__(self, folder: Path, *, passwords: dict[str, str] | None = None, tls: bool = False) -> None:
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        # `user`: as root, mosquitto would otherwise drop to the user `mosquitto`, who cannot read tmp_path
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", f"user {getpass.getuser()}"]
        if passwords:
            pwfile = folder / "passwords"
            pwfile.write_text("")
            for user, password in passwords.items():
                subprocess.run(["mosquitto_passwd", "-b", str(pwfile), user, password], check=True)
            lines += ["allow_anonymous false", f"password_file {pwfile}"]
        else:
            lines.append("allow_anonymous true")
        if tls:  # a CA of the test's own and a certificate for 127.0.0.1 signed by it
            self.ca_file = make_certificates(folder)
            lines += [f"cafile {self.ca_file}", f"certfile {folder / 'server.crt'}", f"keyfile {folder / 'server.key'}"]
        self.config = folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")

    def use_config(self, text: str) -> None:
        lines = [line for line in text.splitlines() if not line.startswith("listener ")]
        head = [f"listener {self.port} 127.0.0.1", "persistence false", f"user {getpass.getuser()}"]
        self.config.write_text("\n".join(head + lines) + "\n")

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

        def accepting() -> bool:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
            except OSError:
                return False
            return True

        wait_until(accepting, 5.0)

    def kill(self) -> None:
        """The broker crashes: SIGKILL, so it says nothing (no last wills) on its way out."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(5)
        self.proc = None


@dataclass
class Heard:
    topic: str
    payload: bytes
    retain: bool
    qos: int

    def json(self) -> object:
        return json.loads(self.payload)


class Ear:
    """A paho subscriber recording every message on `topics` (retained ones included)."""

    def __init__(self, port: int, *topics: str, user: str | None = None, password: str | None = None) -> None:
        self.heard: list[Heard] = []
        self._lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        if user:
            self.client.username_pw_set(user, password)
        self.client.on_message = self._on_message
        subscribed = threading.Event()
        self.client.on_connect = lambda c, *_: c.subscribe([(t, 1) for t in topics])
        self.client.on_subscribe = lambda *_: subscribed.set()
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert subscribed.wait(5), "the test's subscriber could not subscribe"

    def _on_message(self, _client, _userdata, message) -> None:
        with self._lock:
            self.heard.append(Heard(message.topic, bytes(message.payload), bool(message.retain), message.qos))

    def on(self, topic: str) -> list[Heard]:
        with self._lock:
            return [h for h in self.heard if h.topic == topic]

    def on_prefix(self, prefix: str) -> list[Heard]:
        with self._lock:
            return [h for h in self.heard if h.topic.startswith(prefix)]

    def last(self, topic: str, timeout: float = 5.0, where: Callable[[Heard], bool] = lambda h: True) -> Heard:
        """The latest message on `topic` that `where` accepts, waiting for one."""

        def found() -> Heard | None:
            matching = [h for h in self.on(topic) if where(h)]
            return matching[-1] if matching else None

        return wait_until(found, timeout)  # type: ignore[return-value]

    def close(self) -> None:
        disconnect(self.client)


def stop_group(proc: subprocess.Popen, log, grace: float) -> None:
    """Stop a program started in a session of its own (and its children): SIGTERM, then SIGKILL
    after `grace` seconds; its log closed."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)
    log.close()
