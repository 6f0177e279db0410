"""JSON errors for the API: a clear message and the right 4xx, never a traceback."""

from __future__ import annotations

from flask import Response, jsonify, request


def error(status: int, message: str) -> tuple[Response, int]:
    return jsonify({"error": message}), status


def json_body() -> dict:
    """The request's JSON object; raises BadInput with a clear message otherwise."""
    if not request.is_json:
        raise BadInput("send JSON (Content-Type: application/json)")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadInput('the body must be a JSON object, e.g. {"square": 12}')
    return data


def square_from(data: dict, key: str = "square", allow_off: bool = False) -> int:
    value = data.get(key)
    if allow_off and value == "off":
        return 31
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 30:
        raise BadInput(f"{key} must be a square from 1 to 30" + (' or "off"' if allow_off else "") + f", not {value!r}")
    return value


class BadInput(ValueError):
    """A request the API cannot use; becomes a 400 with this message."""
