"""JSON errors for the API: a clear message and the right 4xx, never a traceback.

`init_app` registers the handlers: under `/api` every error (404, 405, 413, a 500 that got
through) is JSON `{"error": message}`; bad input raised as `BadInput` anywhere is a 400.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)


class BadInput(ValueError):
    """A request the API cannot use; becomes a 400 with this message."""


def error(status: int, message: str, retry_after: float | None = None) -> tuple[Response, int]:
    """A JSON error answer; `retry_after` (seconds) adds the Retry-After header 429 and 503 want."""
    response = jsonify({"error": message})
    if retry_after is not None:
        response.headers["Retry-After"] = str(max(1, round(retry_after + 0.499)))
    return response, status


def json_body() -> dict:
    """The request's JSON object; raises BadInput with a clear message otherwise."""
    if not request.is_json:
        raise BadInput("send JSON (Content-Type: application/json)")
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # the decoder gives up on very deep nesting: that is bad input, not a crash
        raise BadInput("the JSON body is nested too deeply") from None
    if not isinstance(data, dict):
        raise BadInput('the body must be a JSON object, e.g. {"square": 12}')
    return data


def square_from(data: dict, key: str = "square", allow_off: bool = False) -> int:
    """A square 1-30 from `data[key]` (31 for "off" when allowed); BadInput otherwise."""
    value = data.get(key)
    if allow_off and value == "off":
        return 31
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 30:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise BadInput(f"{key} must be a square from 1 to 30" + (' or "off"' if allow_off else "") + f", not {shown}")
    return value


def _is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def _http_error(exc: HTTPException) -> Response | HTTPException | tuple[Response, int]:
    """Under /api an HTTP error is JSON with its message; pages keep Flask's HTML error."""
    if not _is_api():
        return exc
    response, status = error(exc.code or 500, exc.description or exc.name)
    for name in ("Allow", "Retry-After"):  # 405 says what is allowed
        if name in exc.get_response().headers:
            response.headers[name] = exc.get_response().headers[name]
    return response, status


def _bad_input(exc: BadInput) -> tuple[Response, int]:
    return error(400, str(exc))


def _unexpected(exc: Exception) -> Response | tuple[Response, int]:
    """A bug: logged with its traceback here, a one-line JSON message to the client under /api."""
    if isinstance(exc, HTTPException):
        return _http_error(exc)
    log.exception("internal error answering %s %s", request.method, request.path)
    if not _is_api():
        return Response("internal error: the service logged the details\n", 500, mimetype="text/plain")
    return error(500, "internal error: the service logged the details")


def init_app(app: Flask) -> None:
    """Register the error handlers (as flaskr's `init_app` wires the database)."""
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(BadInput, _bad_input)
    app.register_error_handler(Exception, _unexpected)
