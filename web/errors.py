"""JSON errors for the API: a clear message and the right 4xx, never a traceback.

`init_app` registers the handlers: under `/api` every error (404, 405, 413, a 500 that got
through) is JSON `{"error": message}`; bad input raised as `BadInput` anywhere is a 400. Every
message is a `Text`, said in the request's language when it is sent (tests/test_i18n.py checks
that none in web/ is a bare string).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from senet_pi.errors import BadInput
from senet_pi.i18n import Text

log = logging.getLogger(__name__)


def message_of(exc: BaseException, limit: int = 300) -> str:
    """An exception's message for a JSON error: the `Text` it carries, kept whole so that it is
    said in the request's language, else its words cut to `limit` characters."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Text) else str(exc)[:limit]


def error(status: int, message: str, retry_after: float | None = None) -> tuple[Response, int]:
    """A JSON error answer; `retry_after` (seconds) adds the Retry-After header 429 and 503 want."""
    response = jsonify({"error": message})
    if retry_after is not None:
        response.headers["Retry-After"] = str(max(1, round(retry_after + 0.499)))
    return response, status


def json_body() -> dict[str, Any]:
    """The request's JSON object; raises BadInput with a clear message otherwise."""
    if not request.is_json:
        raise BadInput(Text("send JSON (Content-Type: application/json)"))
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # the decoder gives up on very deep nesting: that is bad input, not a crash
        raise BadInput(Text("the JSON body is nested too deeply")) from None
    if not isinstance(data, dict):
        raise BadInput(Text("the body must be a JSON object, e.g. {example}", example='{"square": 12}'))
    return data


def square_from(data: Mapping[str, object], key: str = "square", allow_off: bool = False) -> int:
    """A square 1-30 from `data[key]` (31 for "off" when allowed); BadInput otherwise."""
    value = data.get(key)
    if allow_off and value == "off":
        return 31
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 30:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        if allow_off:
            raise BadInput(Text('{key} must be a square from 1 to 30 or "off", not {value}', key=key, value=shown))
        raise BadInput(Text("{key} must be a square from 1 to 30, not {value}", key=key, value=shown))
    return value


def _is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def _http_error(exc: HTTPException) -> Response | HTTPException | tuple[Response, int]:
    """Under /api an HTTP error is JSON with its message; pages keep Flask's HTML error."""
    if not _is_api():
        return exc
    response, status = error(exc.code or 500, _http_message(exc))
    for name in ("Allow", "Retry-After"):  # 405 says what is allowed
        if name in exc.get_response().headers:
            response.headers[name] = exc.get_response().headers[name]
    return response, status


def _http_message(exc: HTTPException) -> Text:
    """Werkzeug's English description, said as a `Text` of ours for the codes the API meets."""
    if exc.code == 404:
        return Text("there is nothing at {path}", path=request.path)
    if exc.code == 405:
        return Text("{path} does not take {method}", path=request.path, method=request.method)
    if exc.code == 413:
        return Text("the request is too large")
    return Text("the request was refused ({status})", status=f"{exc.code} {exc.name}")


def _bad_input(exc: BadInput) -> tuple[Response, int]:
    return error(400, message_of(exc))


def _unexpected(exc: Exception) -> Response | HTTPException | tuple[Response, int]:
    """A bug: logged with its traceback here, a one-line JSON message to the client under /api."""
    if isinstance(exc, HTTPException):
        return _http_error(exc)
    log.exception("internal error answering %s %s", request.method, request.path)
    if not _is_api():
        return Response("internal error: the service logged the details\n", 500, mimetype="text/plain")
    return error(500, Text("internal error: the service logged the details"))


def init_app(app: Flask) -> None:
    """Register the error handlers (as flaskr's `init_app` wires the database)."""
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(BadInput, _bad_input)
    app.register_error_handler(Exception, _unexpected)
