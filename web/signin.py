"""Who is the operator: the app's PIN guard and whether this session is signed in.

Beneath both `state` (which shows it) and `operator` (which signs in and out), so neither
imports the other.
"""

from __future__ import annotations

from flask import current_app, session

from .pin import PinGuard
from .shared import shared_of


def guard() -> PinGuard:
    """This app's PinGuard (made by create_app)."""
    return shared_of(current_app).pin_guard


def is_operator() -> bool:
    """Whether this request's session is a sign-in still in force."""
    return guard().signed_in(session.get("operator"))
