"""What the tests of the page's routes share: the operator's PIN and a cheap hash of it, an operator
signing in with the session's CSRF token, and a self-signed certificate. The `sim_service`, `app`,
`client` and `operator` fixtures are in tests/conftest.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

from werkzeug.security import generate_password_hash

PIN = "246813"


# A cheap hash for tests that sign in many times (the real one is scrypt, as set-pin makes it).
FAST_HASH = generate_password_hash(PIN, method="pbkdf2:sha256:1000")


class Operator:
    """Like flaskr's AuthActions: sign in and act with the session's CSRF token."""

    def __init__(self, client) -> None:
        self.client = client
        self.csrf = client.get("/api/op/csrf").json["csrf"]

    def login(self, pin: str = PIN):
        return self.client.post("/api/op/login", json={"pin": pin}, headers={"X-CSRF-Token": self.csrf})

    def post(self, action: str, body: dict | None = None, csrf: bool = True):
        headers = {"X-CSRF-Token": self.csrf} if csrf else {}
        return self.client.post(f"/api/op/{action}", json=body or {}, headers=headers)


def sign_in(client, pin: str) -> None:
    """Sign `client` in as the operator with `pin`, through the API as the page does."""
    csrf = client.get("/api/op/csrf").json["csrf"]
    assert client.post("/api/op/login", json={"pin": pin}, headers={"X-CSRF-Token": csrf}).status_code == 200


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate, as install.sh makes one (openssl)."""
    cert, key = folder / "tls.crt", folder / "tls.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=senet.local",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key
