"""systemd's side of `senet-pi run`: READY=1, WATCHDOG=1 while the ticks and the scanner
go on, none once they hang, and a supervisor playing systemd's part restarts the hung service."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from senet_pi.cli.systemd import Keepalive, Notifier, Watchdog

ROOT = Path(__file__).resolve().parents[1]
WATCHDOG_USEC = 400_000  # WatchdogSec=0.4 here (the unit's is 10 s): fed every 0.2 s

#: `senet-pi run` with one seam for the test: once the flag file exists, the next tick blocks for
#: good (a hung lock or scanner read), after saying so in the `hung` file. Nothing else differs.
HANGING_RUN = """
import sys, threading
from pathlib import Path
from senet_pi import service
flag, hung = Path(sys.argv[1]), Path(sys.argv[2])
real_tick = service.Service.tick
def tick(self):
    if flag.exists():
        hung.touch()
        threading.Event().wait()
    return real_tick(self)
service.Service.tick = tick
from senet_pi.cli.command import main
sys.exit(main(sys.argv[3:]))
"""


class FakeSystemd:
    """The notify socket of a Type=notify unit: a datagram socket in tmp that collects messages."""

    def __init__(self, tmp_path: Path) -> None:
        self.path = str(tmp_path / "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)

    def next(self, timeout: float) -> str | None:
        """The next message, or None when none came within `timeout` seconds."""
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(4096).decode()
        except TimeoutError:
            return None

    def wait_for(self, line: str, timeout: float = 30.0) -> list[str]:
        """Messages until one holding `line`; fails if it does not come within `timeout`."""
        seen: list[str] = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            message = self.next(end - time.monotonic())
            if message is None:
                break
            seen.append(message)
            if line in message.split("\n"):
                return seen
        pytest.fail(f"no {line} from the service within {timeout} s; got {seen}")

    def drain(self) -> list[str]:
        self.sock.setblocking(False)
        out = []
        try:
            while True:
                out.append(self.sock.recv(4096).decode())
        except BlockingIOError:
            return out

    def close(self) -> None:
        self.sock.close()


def start_service(tmp_path: Path, notify: FakeSystemd) -> subprocess.Popen:
    (tmp_path / "instance").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "NOTIFY_SOCKET": notify.path,
        "WATCHDOG_USEC": str(WATCHDOG_USEC),
        "SENET_PI_INSTANCE": str(tmp_path / "instance"),
        "PYTHONPATH": str(ROOT),
    }
    env.pop("WATCHDOG_PID", None)  # the unit's ExecStart process is the one that feeds it
    args = [str(tmp_path / "hang"), str(tmp_path / "hung")]
    args += ["run", "--backend", "sim", "--journal", str(tmp_path / "j.sqlite"), "--page-port", "0"]
    return subprocess.Popen(
        [sys.executable, "-c", HANGING_RUN, *args],
        env=env,
        stdin=subprocess.PIPE,  # kept open: the service waits for commands, as under systemd it waits for a signal
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def wait_for_file(path: Path, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < end, f"{path.name} did not appear within {timeout} s"
        time.sleep(0.01)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)
    if proc.stdin:
        proc.stdin.close()
    if proc.stderr:
        proc.stderr.close()


def test_ready_then_watchdog_pings_and_none_once_the_tick_loop_hangs(tmp_path: Path) -> None:
    notify = FakeSystemd(tmp_path)
    proc = start_service(tmp_path, notify)
    try:
        seen = notify.wait_for("READY=1")
        assert any(line.startswith("STATUS=sim board") for m in seen for line in m.split("\n"))
        # While it started: alive, with more time asked for, before READY=1 (a big journal, a recovery).
        assert any(line.startswith("EXTEND_TIMEOUT_USEC=") for line in seen[0].split("\n"))
        for _ in range(3):  # fed again and again while the ticks go on
            notify.wait_for("WATCHDOG=1", timeout=10)
        (tmp_path / "hang").touch()
        wait_for_file(tmp_path / "hung")  # the tick thread is now blocked for good
        notify.drain()  # pings sent before the hang (each is queued when sent)
        # Five watchdog periods without a single ping: systemd would now kill and restart it.
        assert notify.next(timeout=5 * WATCHDOG_USEC / 1e6) is None
        assert proc.poll() is None, "the process is still there: only the watchdog can tell it is hung"
    finally:
        stop(proc)
        notify.close()


def test_a_supervisor_like_systemd_restarts_the_hung_service_and_it_comes_back(tmp_path: Path) -> None:
    """What WatchdogSec= and Restart= do, played by the test: no ping within the period -> SIGABRT,
    then start it again; the new process reports READY=1 and is fed again."""
    notify = FakeSystemd(tmp_path)
    proc = start_service(tmp_path, notify)
    restarted = None
    try:
        notify.wait_for("READY=1")
        notify.wait_for("WATCHDOG=1", timeout=10)
        (tmp_path / "hang").touch()
        wait_for_file(tmp_path / "hung")
        notify.drain()
        while (message := notify.next(timeout=WATCHDOG_USEC / 1e6)) is not None:
            assert "WATCHDOG=1" not in message.split("\n")
        proc.send_signal(signal.SIGABRT)  # systemd's WatchdogSignal= default
        assert proc.wait(timeout=10) != 0  # a failure, so Restart=on-failure applies too
        (tmp_path / "hang").unlink()
        restarted = start_service(tmp_path, notify)
        notify.wait_for("READY=1")
        notify.wait_for("WATCHDOG=1", timeout=10)
    finally:
        stop(proc)
        if restarted is not None:
            stop(restarted)
        notify.close()


def test_stopping_is_sent_on_a_clean_shutdown(tmp_path: Path) -> None:
    notify = FakeSystemd(tmp_path)
    proc = start_service(tmp_path, notify)
    try:
        notify.wait_for("READY=1")
        assert proc.stdin is not None
        proc.stdin.write(b"quit\n")
        proc.stdin.flush()
        notify.wait_for("STOPPING=1")
        assert proc.wait(timeout=10) == 0
    finally:
        stop(proc)
        notify.close()


def test_without_notify_socket_nothing_is_sent() -> None:
    notifier = Notifier({"WATCHDOG_USEC": "1000000"})
    assert not notifier.enabled
    assert notifier.send("READY=1") is False
    assert Watchdog(notifier).beat() is False


def test_an_abstract_socket_name_starts_with_a_nul(tmp_path: Path) -> None:
    name = f"senet-pi-test-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind("\0" + name)
    try:
        notifier = Notifier({"NOTIFY_SOCKET": "@" + name})
        assert notifier.send("READY=1", "STATUS=up")
        assert server.recv(100) == b"READY=1\nSTATUS=up"
        notifier.close()
    finally:
        server.close()


def test_watchdog_pid_of_another_process_means_no_watchdog_here() -> None:
    other = Notifier({"NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": str(os.getpid() + 1)})
    ours = Notifier({"NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": str(os.getpid())})
    assert other.watchdog_usec == 0
    assert Watchdog(other).period == 0
    assert Watchdog(ours).period == 1.0  # half of WatchdogSec, as sd_watchdog_enabled(3) advises


def test_a_stuck_scanner_stops_the_feeding_even_while_the_ticks_go_on(tmp_path: Path) -> None:
    sock_path = str(tmp_path / "n.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(sock_path)
    server.setblocking(False)
    now = [0.0]
    scans = [0]
    notifier = Notifier({"NOTIFY_SOCKET": sock_path, "WATCHDOG_USEC": "1000000"})
    dog = Watchdog(notifier, progress=lambda: scans[0], clock=lambda: now[0])
    try:
        assert dog.beat()  # the first beat feeds
        now[0] += 0.1
        scans[0] += 5
        assert not dog.beat()  # not yet due (every 0.5 s)
        now[0] += 0.5
        assert dog.beat()  # due, and the scanner moved on
        now[0] += 0.6
        assert not dog.beat()  # due, but no scan since the last feed: a stuck scanner
        scans[0] += 1
        assert dog.beat()
        assert server.recv(100) == b"WATCHDOG=1"
    finally:
        notifier.close()
        server.close()


def test_a_start_that_works_long_keeps_asking_for_more_time_until_stopped(tmp_path: Path) -> None:
    notify = FakeSystemd(tmp_path)
    try:
        keepalive = Keepalive(Notifier({"NOTIFY_SOCKET": notify.path}), period=0.05).start("starting")
        first, second = notify.next(5), notify.next(5)
        keepalive.stop()
        for message in (first, second):
            assert message is not None
            assert "STATUS=starting" in message
            assert "EXTEND_TIMEOUT_USEC=150000" in message.split("\n")
        notify.drain()
        assert notify.next(0.3) is None  # nothing once stopped
    finally:
        notify.close()
