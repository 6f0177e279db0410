"""Session cookies that a wall-clock jump does not void.

A Pi without a real-time clock boots with its clock years behind and jumps when the network sets
it. Flask's cookie sessions check their age against the wall clock, so that jump signed every
operator out (and a jump backwards made every cookie "from the future"). Here the cookie's
signature is still checked, but not its wall-clock age: what a session may do is decided on the
server, where sign-ins expire on the monotonic clock (`PinGuard`), which no clock setting moves.
"""

from __future__ import annotations

from flask import Flask, Request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from itsdangerous import BadSignature


class LastingSessions(SecureCookieSessionInterface):
    """Flask's signed cookie sessions, without the wall-clock age check."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        serializer = self.get_signing_serializer(app)
        if serializer is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        try:
            return self.session_class(serializer.loads(value))  # signed by us; its age is the server's business
        except BadSignature:
            return self.session_class()
