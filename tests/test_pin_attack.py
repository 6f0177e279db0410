"""The operator PIN against a guesser with many addresses. Wrong PINs are limited
across all addresses as well as per address, a new PIN has at least 6 digits (or is a passphrase),
and a signed-in operator keeps working during the attack."""

from __future__ import annotations

import http.client
import random
import ssl

import pytest

from senet_pi.errors import PinError, SenetError
from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.server.serve import set_pin, start_server, stop_server
from senet_pi.service.core import Service
from senet_pi_web import create_app
from senet_pi_web.pin import GLOBAL_FAILURES
from tests.web_helpers import FAST_HASH, PIN, Operator, make_certificate


@pytest.fixture
def app():
    service = Service(None)
    backend = SimBackend(load_pinmap(), rng=random.Random(4), spin=0)
    backend.start(service, scan=False)
    yield create_app(
        {"TESTING": True, "SECRET_KEY": "t", "OPERATOR_PIN_HASH": FAST_HASH, "PIN_DELAY": 60.0},
        service=service,
        backend=backend,
    )
    backend.close()


def guesser(app, address: str) -> Operator:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return Operator(client)


def test_wrong_pins_from_many_addresses_are_limited_across_all_of_them(app):
    answers = [guesser(app, f"10.0.{n // 250}.{n % 250 + 1}").login("000000").status_code for n in range(200)]
    assert answers.count(401) == GLOBAL_FAILURES  # checked, each one wrong
    assert answers.count(429) == 200 - GLOBAL_FAILURES  # refused unchecked: the budget is spent
    late = guesser(app, "10.9.9.9").login(PIN)  # even the right PIN waits while the attack lasts
    assert late.status_code == 429
    assert "Retry-After" in late.headers


def test_a_signed_in_operator_keeps_working_during_the_attack(app):
    operator = guesser(app, "192.168.1.20")
    assert operator.login(PIN).status_code == 200
    for n in range(60):
        guesser(app, f"10.1.0.{n + 1}").login("123456")
        assert operator.post("resync").status_code == 200  # an operator's action, between the guesses
    assert operator.client.get("/api/state").json["operator"]["signed_in"] is True


@pytest.mark.parametrize("weak", ["1234", "12345", "abc", "short pass", "pässword-with-umlaut"])
def test_a_new_pin_has_at_least_six_digits_or_is_a_passphrase(tmp_path, weak):
    with pytest.raises(PinError):
        set_pin(weak, tmp_path)
    assert set_pin("123456", tmp_path).read_text().count("OPERATOR_PIN_HASH") == 1
    assert "OPERATOR_PIN_HASH" in set_pin("river of reeds 1850", tmp_path).read_text()


def test_a_passphrase_signs_in_on_the_page(tmp_path):
    path = set_pin("river of reeds 1850", tmp_path)
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "PIN_FILE": path, "PIN_DELAY": 0.0}, service=Service(None))
    op = Operator(app.test_client())
    assert op.login("river of reeds 1850").status_code == 200


# ------------------------------------------------------------------ HTTPS for staff on the museum's Wi-Fi


def test_with_a_certificate_the_page_is_https_and_its_session_cookie_is_secure(tmp_path):
    cert, key = make_certificate(tmp_path)
    config = {"TESTING": True, "SECRET_KEY": "t", "TLS_CERT": str(cert), "TLS_KEY": str(key)}
    server = start_server(create_app(config, service=Service(None)), "127.0.0.1", 0, workers=2)
    try:
        assert server.scheme == "https"
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        conn = http.client.HTTPSConnection("127.0.0.1", server.effective_port, timeout=20, context=context)
        conn.request("GET", "/api/op/csrf")
        answer = conn.getresponse()
        assert answer.status == 200
        assert "Secure" in (answer.getheader("Set-Cookie") or "")
        conn.close()
    finally:
        stop_server(server)


def test_a_certificate_that_cannot_be_used_is_one_line_at_start(tmp_path):
    cert, _ = make_certificate(tmp_path)
    config = {"TESTING": True, "SECRET_KEY": "t", "TLS_CERT": str(cert), "TLS_KEY": str(tmp_path / "missing.key")}
    with pytest.raises(SenetError, match="cannot use the HTTPS certificate"):
        start_server(create_app(config, service=Service(None)), "127.0.0.1", 0, workers=2)
