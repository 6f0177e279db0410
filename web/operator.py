"""Operator actions behind a PIN: new game, undo, a throw or a move entered by hand, answers, resync.

The PIN is set at install (`senet-pi set-pin`) and stored only as a hash; with none set the
actions are disabled, not open. Every action is a JSON POST carrying the session's CSRF
token in `X-CSRF-Token`.

A PIN guesser cannot starve the service: one PIN is checked at a time (a check costs scrypt's
32 MiB and a good part of a second), an attempt while another is being checked, or from a
client locked out after wrong PINs, is answered at once with 429 and Retry-After, and no
request thread ever sleeps. Sessions are revocable: the session cookie only names a sign-in
kept here, which logout forgets and which a new PIN hash (`senet-pi set-pin`, read again
from config.toml when it changes) makes void, so a copied cookie stops working.
"""

from __future__ import annotations

import functools
import math
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, cast

from flask import Blueprint, Response, jsonify, request, session
from flask.typing import ResponseReturnValue
from werkzeug.security import check_password_hash

from senet_pi.errors import SenetError
from senet_pi.events import Answer, Input, MoveEntry, Resync, Throw, Undo
from senet_pi.i18n import Text, joined
from senet_pi.rules import RULESETS

from .errors import BadInput, error, json_body, message_of, square_from
from .signin import guard, is_operator
from .state import for_page, refusals, services, state

P = ParamSpec("P")  # the parameters of a view `operator_required` wraps

bp = Blueprint("operator", __name__, url_prefix="/api/op")

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


def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def csrf_ok() -> bool:
    """Whether the request carries this session's CSRF token in `X-CSRF-Token`."""
    sent = request.headers.get("X-CSRF-Token", "")
    expected = session.get("csrf")
    # compared as bytes: compare_digest refuses a str with non-ASCII characters (a header may carry any)
    return bool(sent) and isinstance(expected, str) and secrets.compare_digest(sent.encode(), expected.encode())


def operator_check() -> tuple[Response, int] | None:
    """Why this request may not act as the operator (an error answer), or None when it may."""
    if not guard().pin_hash:
        return error(403, Text("operator actions are disabled: set a PIN with `senet-pi set-pin`"))
    if not csrf_ok():
        return error(403, Text("missing or wrong CSRF token (reload the page)"))
    if not is_operator():
        return error(401, Text("sign in with the operator PIN first"))
    return None


def operator_required(view: Callable[P, ResponseReturnValue]) -> Callable[P, ResponseReturnValue]:
    """Like flaskr's login_required: a PIN must be set, the session signed in, the CSRF token sent."""

    @functools.wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> ResponseReturnValue:
        refused = operator_check()
        if refused is not None:
            return refused
        return view(*args, **kwargs)

    return wrapped


@bp.get("/csrf")
def csrf() -> Response:
    return jsonify({"csrf": csrf_token()})


@bp.post("/login")
def login() -> ResponseReturnValue:
    if not guard().pin_hash:
        return error(403, Text("operator actions are disabled: set a PIN with `senet-pi set-pin`"))
    if not csrf_ok():
        return error(403, Text("missing or wrong CSRF token (reload the page)"))
    pin = json_body().get("pin")
    if not isinstance(pin, str) or not pin.isascii() or len(pin) > 64:
        raise BadInput(Text("send the PIN as a string of digits: {example}", example='{"pin": "1234"}'))
    outcome, wait = guard().check(request.remote_addr or "?", pin)
    if outcome == "ok":
        guard().sign_out(session.get("operator"))
        session["operator"] = guard().sign_in()
        return jsonify({"signed_in": True})
    if outcome == "disabled":
        return error(403, Text("operator actions are disabled: set a PIN with `senet-pi set-pin`"))
    if outcome == "busy":
        return error(429, Text("another PIN is being checked: try again in a moment"), retry_after=wait)
    if outcome == "locked":
        return error(
            429, Text("too many wrong PINs: try again in {seconds} s", seconds=math.ceil(wait)), retry_after=wait
        )
    return error(401, Text("wrong PIN: try again in {seconds} s", seconds=math.ceil(wait)), retry_after=wait)


@bp.post("/logout")
def logout() -> Response:
    guard().sign_out(session.pop("operator", None))
    return jsonify({"signed_in": False})


def _handled(entry: Input) -> tuple[Response, int]:
    service, _ = services()
    handled = service.handle(entry)
    verdicts = for_page(handled)  # the players by name
    refused = refusals(handled)  # Texts, translated by jsonify
    if refused:  # the referee's reason as the message every /api error carries
        return jsonify({"error": joined(refused), "verdicts": verdicts, "state": state()}), 422
    return jsonify({"verdicts": verdicts, "state": state()}), 200


@bp.post("/new_game")
@operator_required
def new_game() -> ResponseReturnValue:
    data = json_body()
    service, _backend = services()
    variant = data.get("variant", service.variant)
    if not isinstance(variant, str) or variant not in RULESETS:
        raise BadInput(Text("variant must be one of {variants}", variants=", ".join(RULESETS)))
    players = data.get("players", 2)
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise BadInput(Text("options must be a JSON object"))
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 8:
        raise BadInput(Text("players must be a whole number of players, e.g. 2"))
    try:
        verdicts = service.new_game(variant, players, options)
    except (SenetError, TypeError, ValueError, RecursionError) as exc:  # options the rule set cannot use
        raise BadInput(
            Text("cannot start {variant} with these options: {reason}", variant=variant, reason=message_of(exc))
        ) from None
    return jsonify({"verdicts": for_page(verdicts), "state": state()})


@bp.post("/undo")
@operator_required
def undo() -> ResponseReturnValue:
    return _handled(Undo())


@bp.post("/resync")
@operator_required
def resync() -> ResponseReturnValue:
    return _handled(Resync())


@bp.post("/throw")
@operator_required
def throw() -> ResponseReturnValue:
    value = json_body().get("value")
    service, _ = services()
    try:
        service.parse_throw(value)
    except (SenetError, TypeError, ValueError) as exc:
        raise BadInput(message_of(exc)) from None
    return _handled(Throw(value))


@bp.post("/move")
@operator_required
def move() -> ResponseReturnValue:
    data = json_body()
    from_sq, to_sq = square_from(data, "from"), square_from(data, "to", allow_off=True)
    by = data.get("by", 0)
    if isinstance(by, bool) or not isinstance(by, int) or not 0 <= by <= 12:
        raise BadInput(Text("by must be a die or dice sum from 1 to 12"))
    return _handled(MoveEntry(from_sq, to_sq, by))


@bp.post("/answer")
@operator_required
def answer() -> ResponseReturnValue:
    """Staff answer the open question; `question` (its id, as for `/api/answer`) keeps a late tap
    from answering a newer question it never saw."""
    data = json_body()
    choice, asked = data.get("answer"), data.get("question")
    if asked is not None and (isinstance(asked, bool) or not isinstance(asked, int)):
        raise BadInput(Text("question must be the question's id, a whole number"))
    service, _ = services()
    with service.lock:  # the question cannot change between the check and the answer
        question = service.question()
        if question is None:
            return error(409, Text("there is no question to answer"))
        if asked is not None and asked != question["id"]:
            return error(409, Text("that question is no longer open"))
        if isinstance(choice, bool) or not isinstance(choice, int | str):
            raise BadInput(Text("answer with an option's number or its text"))
        options = cast(list[str], question["options"])
        if choice not in options and not (isinstance(choice, int) and 0 <= choice < len(options)):
            listed, shown = joined(options, ", "), repr(choice)[:40]
            raise BadInput(Text("{choice} is not one of the options: {options}", choice=shown, options=listed))
        return _handled(Answer(choice))
