"""Talking to systemd from `senet-pi run`: READY=1, STATUS=, STOPPING=1 and the watchdog's WATCHDOG=1.

This is sd_notify(3)'s socket protocol with the standard library (one datagram per message to the
AF_UNIX socket named in `$NOTIFY_SOCKET`, a leading '@' meaning the abstract namespace), so the
exhibit needs no C library or extra package for it. Without `$NOTIFY_SOCKET` (not started by a
`Type=notify` unit) every call does nothing. The watchdog is fed only by `Watchdog.beat()`, which
the runner calls after a tick completed and the scanner moved on: a hung tick, lock or scanner
stops the feeding, and systemd restarts the service after `WatchdogSec`.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Mapping


class Notifier:
    """sd_notify for one process: `send("READY=1")`; a no-op when `$NOTIFY_SOCKET` is unset."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        self.address: str | None = None
        if address.startswith("@"):
            self.address = "\0" + address[1:]  # the abstract namespace (what systemd itself uses)
        elif address.startswith("/"):
            self.address = address
        # WATCHDOG_USEC is systemd's WatchdogSec; WATCHDOG_PID, when set, names the process meant to feed it.
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        meant_for_us = not pid or (pid.isdigit() and int(pid) == os.getpid())
        self.watchdog_usec = int(usec) if usec.isdigit() and int(usec) > 0 and meant_for_us else 0
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()  # the ticks, the listeners (page threads) and the main thread all send

    @property
    def enabled(self) -> bool:
        """Whether systemd is listening (the process runs under a Type=notify unit)."""
        return self.address is not None

    def send(self, *lines: str) -> bool:
        """Send one message (lines joined by newlines); False when not under systemd or it failed.
        A lost message is never an error here: systemd itself then says what it missed."""
        if self.address is None:
            return False
        with self._lock:
            try:
                if self._sock is None:
                    self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
                    self._sock.settimeout(1.0)  # a stalled systemd must not hang the tick that reports
                self._sock.sendto("\n".join(lines).encode("utf-8", "replace"), self.address)
            except OSError:
                return False
            return True

    def close(self) -> None:
        """Close the socket; a later send opens it again."""
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None


class Watchdog:
    """Feeds systemd's watchdog at half its period, and only while the service makes progress.

    `progress` (optional) returns a counter that must have moved since the last feed, e.g. the
    scanner's scan count: the ticks can go on while the scanner thread is stuck in a read."""

    def __init__(
        self,
        notifier: Notifier,
        progress: Callable[[], int | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.notifier = notifier
        self.period = notifier.watchdog_usec / 2_000_000  # seconds between feeds; 0 = no watchdog
        self._progress = progress
        self._clock = clock
        self._last_feed = float("-inf")
        self._last_progress: int | None = None

    def beat(self) -> bool:
        """Called after each completed tick; sends WATCHDOG=1 when one is due. True if it sent."""
        if not self.period or self._clock() - self._last_feed < self.period:
            return False
        if self._progress is not None:
            now = self._progress()
            if now is not None and now == self._last_progress:
                return False  # the scanner has not scanned since the last feed: let systemd see it
            self._last_progress = now
        self._last_feed = self._clock()
        return self.notifier.send("WATCHDOG=1")


def scan_counter(backend: object) -> Callable[[], int | None]:
    """A progress counter for `Watchdog`: the scan count of the backend's scanner, None without one
    (the serial backend's bridge scans on the Pico, and its link reconnects by itself)."""

    def scans() -> int | None:
        board = getattr(backend, "board", None)
        return getattr(board, "scans", None)

    return scans


class Keepalive:
    """While a start works (the journal opened, a damaged one set aside), tell systemd it is alive:
    EXTEND_TIMEOUT_USEC every `period` seconds, so TimeoutStartSec counts from the last sign of life,
    not from the start; `stop()` once READY=1 is near. A no-op when not under systemd."""

    def __init__(self, notifier: Notifier, period: float = 10.0) -> None:
        self.notifier = notifier
        self.period = period
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, status: str) -> Keepalive:
        if self.notifier.enabled:
            self._beat(status)
            self._thread = threading.Thread(target=self._run, args=(status,), name="senet-pi start", daemon=True)
            self._thread.start()
        return self

    def _beat(self, status: str) -> None:
        self.notifier.send(f"STATUS={status}", f"EXTEND_TIMEOUT_USEC={int(self.period * 3 * 1_000_000)}")

    def _run(self, status: str) -> None:
        while not self._done.wait(self.period):
            self._beat(status)

    def stop(self) -> None:
        """No more signs of life from here (the runner's READY=1 follows); its socket closed."""
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        self.notifier.close()
