"""The operator PIN's server side, a module of its own below the blueprints: the current hash
(read again from config.toml when it changes), one check at a time, lockouts and sign-ins.

`operator` (which signs in and out), `signin` and `shared` (which hold the app's guard) import
it; it imports no view, so no blueprint module imports another to reach it.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path

from werkzeug.security import check_password_hash

MAX_LOCKOUT = 300.0  # seconds: the longest a client waits after many wrong PINs
MAX_CLIENTS = 4096  # clients whose wrong PINs are remembered (the oldest are forgotten first)
MAX_SESSIONS = 64  # operator sign-ins kept at once (the oldest is signed out first)
GLOBAL_FAILURES = 20  # wrong PINs allowed across all addresses in GLOBAL_WINDOW (many addresses, one guesser)
GLOBAL_WINDOW = 600.0  # seconds
SIGN_IN_HOURS = 12.0  # a sign-in lasts this long on the monotonic clock (a wall-clock jump changes nothing)


class PinGuard:
    """The server side of the operator PIN: the current hash, one check at a time, lockouts, sign-ins."""

    def __init__(
        self,
        pin_hash: str | None,
        pin_file: Path | None,
        first_lockout: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.first_lockout = first_lockout
        self.clock = clock
        self._hash = pin_hash
        self._file = pin_file
        self._seen: tuple[int, int, int] | None = None  # the file's stat when last read: read on first use
        self._checking = threading.Lock()  # held while scrypt runs: one check at a time
        self._lock = threading.Lock()
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()  # client: (wrong PINs, locked until)
        self._recent: deque[float] = deque()  # when the last wrong PINs came, from any address
        self._sessions: OrderedDict[str, str] = OrderedDict()  # sign-in id: the PIN hash it signed in with
        self._until: dict[str, float] = {}  # sign-in id: when it ends, on `clock` (monotonic)

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self._file.stat() if self._file is not None else None
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_ctime_ns, st.st_size) if st is not None else None

    @property
    def pin_hash(self) -> str | None:
        """The PIN hash in force, read again from config.toml whenever that file changes."""
        if self._file is not None:
            seen = self._stat()
            if seen != self._seen:
                import tomllib

                try:
                    loaded = tomllib.loads(self._file.read_text(encoding="utf-8")).get("OPERATOR_PIN_HASH")
                except (OSError, ValueError):
                    loaded = None  # unreadable: no PIN is in force rather than an old one
                with self._lock:
                    self._seen, self._hash = seen, loaded if isinstance(loaded, str) and loaded else None
        return self._hash

    def locked_for(self, client: str, now: float) -> float:
        """Seconds `client` must still wait before its next PIN is checked (0 = may try now): its own
        lockout, or everyone's once GLOBAL_FAILURES wrong PINs came in GLOBAL_WINDOW from any addresses
        (a guesser with many addresses gets no more tries than one; signed-in operators are not asked)."""
        with self._lock:
            _, until = self._failures.get(client, (0, 0.0))
            while self._recent and self._recent[0] <= now - GLOBAL_WINDOW:
                self._recent.popleft()
            everyone = self._recent[0] + GLOBAL_WINDOW - now if len(self._recent) >= GLOBAL_FAILURES else 0.0
        return max(0.0, until - now, everyone)

    def wrong(self, client: str, now: float) -> float:
        """Count a wrong PIN; returns the lockout it earns: doubling from the first, at most MAX_LOCKOUT."""
        with self._lock:
            count = self._failures.pop(client, (0, 0.0))[0] + 1
            lockout: float = min(self.first_lockout * 2.0 ** min(count - 1, 30), MAX_LOCKOUT)
            self._failures[client] = (count, now + lockout)
            self._recent.append(now)
            while len(self._recent) > GLOBAL_FAILURES:
                self._recent.popleft()
            while len(self._failures) > MAX_CLIENTS:
                self._failures.popitem(last=False)
        return lockout

    def check(self, client: str, pin: str) -> tuple[str, float]:
        """Check `pin` for `client` without ever waiting. Returns (outcome, seconds): ("ok", 0),
        ("wrong", the lockout earned), ("locked", left of it), ("busy", 1: another check is running)
        or ("disabled", 0: no PIN set)."""
        now = self.clock()
        wait = self.locked_for(client, now)
        if wait > 0:
            return "locked", wait
        pin_hash = self.pin_hash
        if pin_hash is None:
            return "disabled", 0.0
        if not self._checking.acquire(blocking=False):
            return "busy", 1.0
        try:
            ok = check_password_hash(pin_hash, pin)
        finally:
            self._checking.release()
        if not ok:
            return "wrong", self.wrong(client, self.clock())
        with self._lock:
            self._failures.pop(client, None)
        return "ok", 0.0

    def sign_in(self) -> str:
        """A new sign-in id tied to the PIN hash in force."""
        sid = secrets.token_urlsafe(24)
        with self._lock:
            self._sessions[sid] = self._hash or ""
            self._until[sid] = self.clock() + SIGN_IN_HOURS * 3600
            while len(self._sessions) > MAX_SESSIONS:
                self._until.pop(self._sessions.popitem(last=False)[0], None)
        return sid

    def signed_in(self, sid: object) -> bool:
        """Whether `sid` is a sign-in still in force: not logged out and made with the current PIN."""
        if not isinstance(sid, str):
            return False
        current = self.pin_hash
        with self._lock:
            lasting = self._until.get(sid, 0.0) > self.clock()
            return current is not None and lasting and self._sessions.get(sid) == current

    def sign_out(self, sid: object) -> None:
        with self._lock:
            if isinstance(sid, str):
                self._sessions.pop(sid, None)
                self._until.pop(sid, None)
