"""The page's Flask class: Flask with the page's own table of file types for its static files.

Why: Flask asks Python's `mimetypes` for a static file's type, and its first answer reads the
system's whole table (`/etc/mime.types`, about 2,000 types, 0.2-0.4 MiB that the board then keeps
for good). The page serves only its own scripts and styles, so it names their types itself: the
same on every machine, and nothing read from the system.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from flask import Flask, Response, send_from_directory

#: The types of the files in the static folder, by suffix; any other file is sent as bytes.
STATIC_TYPES = {
    ".css": "text/css",
    ".js": "text/javascript",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/vnd.microsoft.icon",
    ".woff2": "font/woff2",
}


class PageApp(Flask):
    """A Flask app whose static files are typed by `STATIC_TYPES`, never the system's table."""

    def send_static_file(self, filename: str) -> Response:
        """A file of the static folder, with its type from `STATIC_TYPES`."""
        kind = STATIC_TYPES.get(PurePosixPath(filename).suffix.lower(), "application/octet-stream")
        folder = self.static_folder or ""
        return send_from_directory(folder, filename, max_age=self.get_send_file_max_age(filename), mimetype=kind)
