"""Answers compressed with gzip for a browser that accepts it: the page, its script and style sheet,
the JSON. On a Pi's network (or a phone's) the first draw waits on these bytes: 97.7 KB unpacked.

Python's own gzip: one function, not a dependency. Static files are compressed once per version
(their ETag) and kept; the live stream, ranges and answers without a body are left as they are."""

from __future__ import annotations

import gzip
from functools import lru_cache

from flask import Flask, Response, request

#: What is worth compressing (text); images other than SVG and the event stream are not.
KINDS = frozenset(
    {"text/html", "text/css", "text/javascript", "application/javascript", "application/json", "image/svg+xml"}
)
MIN_BYTES = 600  # smaller answers gain less than the header costs


@lru_cache(maxsize=64)
def _packed(tag: str, body: bytes) -> bytes:
    """A static file's bytes compressed, kept per version (`tag`: its ETag and path)."""
    return gzip.compress(body, compresslevel=9, mtime=0)


def _compress(response: Response) -> Response:
    if response.status_code != 200 or (response.is_streamed and not response.direct_passthrough):
        return response  # the live stream, and answers whose body comes later, go as they are
    if response.mimetype not in KINDS or "Content-Encoding" in response.headers:
        return response
    response.vary.add("Accept-Encoding")  # caches keep the packed and the plain answer apart
    if "gzip" not in request.headers.get("Accept-Encoding", "").lower():
        return response
    static = response.direct_passthrough  # a file sent by send_file (the static folder)
    response.direct_passthrough = False
    source = response.response
    body = response.get_data()  # read whole: the file it came from is closed now, not left to the server
    if static and hasattr(source, "close"):
        source.close()
    if len(body) < MIN_BYTES:
        return response
    etag, weak = response.get_etag()
    if static and etag:
        packed = _packed(f"{request.path}:{etag}", body)
    else:
        packed = gzip.compress(body, compresslevel=6, mtime=0)
    response.set_data(packed)
    response.headers["Content-Encoding"] = "gzip"
    if etag:  # another body, another tag: a cache never serves one as the other
        response.set_etag(etag + "-gzip", weak=bool(weak))
    return response


def _tags_as_sent() -> None:
    """A browser asks again with the packed file's tag: the file's own tag is what the server checks,
    so an unchanged file is answered 304 (no body) rather than sent and packed again."""
    asked = request.environ.get("HTTP_IF_NONE_MATCH")
    if asked and '-gzip"' in asked:
        request.environ["HTTP_IF_NONE_MATCH"] = asked.replace('-gzip"', '"')


def init_app(app: Flask) -> None:
    """Compress every answer worth it."""
    app.before_request(_tags_as_sent)
    app.after_request(_compress)
