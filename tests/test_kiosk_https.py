"""HTTPS for staff, the exhibit's kiosk: it finds the page's address itself. With
TLS_CERT set the page answers only over TLS on its port; the kiosk session probes the port and opens
https:// with that one certificate's key trusted (a self-signed certificate, and a screen nobody can
click through a warning on), or keeps http:// when the page is plain. Nothing set by hand."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from senet_pi.server.serve import start_server, stop_server
from senet_pi.service.core import Service
from senet_pi_web import create_app
from tests.web_helpers import make_certificate

SESSION = Path(__file__).resolve().parent.parent / "exhibit" / "kiosk-session"


def fake_chromium(folder: Path) -> Path:
    """A `chromium` on PATH that writes the arguments it was given, one a line, and exits."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    script = bin_dir / "chromium"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{folder}/args"\n')
    script.chmod(0o755)
    return bin_dir


def run_session(folder: Path, url: str, wait: int = 5) -> list[str]:
    env = {
        **os.environ,
        "PATH": f"{fake_chromium(folder)}:{os.environ['PATH']}",
        "HOME": str(folder),
        "SENET_PI_URL": url,
        "SENET_PI_KIOSK_WAIT": str(wait),
    }
    subprocess.run(["sh", str(SESSION)], env=env, check=True, timeout=60)
    return (folder / "args").read_text().splitlines()


def spki_pin(cert: Path) -> str:
    """The certificate's key as Chromium pins it, worked out here from the PEM by Python and openssl."""
    der = subprocess.run(
        ["openssl", "x509", "-in", str(cert), "-pubkey", "-noout"], check=True, capture_output=True
    ).stdout
    key = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=der, check=True, capture_output=True)
    return base64.b64encode(hashlib.sha256(key.stdout).digest()).decode()


@pytest.fixture
def https_page(tmp_path):
    cert, key = make_certificate(tmp_path)
    config = {"TESTING": True, "SECRET_KEY": "t", "TLS_CERT": str(cert), "TLS_KEY": str(key)}
    server = start_server(create_app(config, service=Service(None)), "127.0.0.1", 0, workers=2)
    yield server, cert
    stop_server(server)


def test_with_https_the_kiosk_opens_https_and_trusts_only_its_own_certificate(tmp_path, https_page):
    server, cert = https_page
    port = server.effective_port
    args = run_session(tmp_path, f"http://127.0.0.1:{port}/")  # the unit's default, as installed
    assert args[-1] == f"https://127.0.0.1:{port}/"
    assert f"--ignore-certificate-errors-spki-list={spki_pin(cert)}" in args
    assert "--kiosk" in args
    assert not any(a.startswith("--ignore-certificate-errors=") or a == "--ignore-certificate-errors" for a in args)


@pytest.mark.browser
def test_chromium_opens_the_https_page_with_the_kiosks_pin_and_no_other_exception(tmp_path, https_page):
    from playwright.sync_api import sync_playwright

    server, _cert = https_page
    args = run_session(tmp_path, f"http://127.0.0.1:{server.effective_port}/")
    pin = next(a for a in args if a.startswith("--ignore-certificate-errors-spki-list="))
    chromium = os.environ.get("SENET_PI_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=chromium, args=["--no-sandbox", pin]
        )
        try:
            page = browser.new_page()
            page.goto(args[-1])  # no ignore_https_errors: only the pinned key makes this load
            page.wait_for_selector("#board .piece")
        finally:
            browser.close()


def test_a_plain_page_keeps_http_and_pins_nothing(tmp_path):
    server = start_server(create_app({"TESTING": True, "SECRET_KEY": "t"}, service=Service(None)), "127.0.0.1", 0)
    port = server.effective_port
    try:
        args = run_session(tmp_path, f"http://127.0.0.1:{port}/")
    finally:
        stop_server(server)
    assert args[-1] == f"http://127.0.0.1:{port}/"
    assert not any("spki" in a for a in args)


def test_with_no_page_yet_the_kiosk_waits_then_opens_the_address_as_given(tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = run_session(tmp_path, f"http://127.0.0.1:{port}/", wait=1)
    assert args[-1] == f"http://127.0.0.1:{port}/"


def test_the_kiosk_installs_openssl_to_find_its_address():
    script = (SESSION.parent / "install.sh").read_text()
    kiosk_packages = next(line for line in script.splitlines() if "xinit" in line and "packages+=" in line)
    assert "openssl" in kiosk_packages  # the kiosk probes the page's port with openssl s_client


def session_with_xrandr(folder: Path, xrandr: str) -> list[str]:
    """The session's Chromium arguments with `xrandr` on PATH being the given shell script."""
    fake_chromium(folder)
    (folder / "bin" / "xrandr").write_text(f"#!/bin/sh\n{xrandr}\n")
    (folder / "bin" / "xrandr").chmod(0o755)
    env = {**os.environ, "PATH": f"{folder / 'bin'}:{os.environ['PATH']}", "HOME": str(folder),
           "SENET_PI_URL": "http://127.0.0.1:9/", "SENET_PI_KIOSK_WAIT": "0"}  # fmt: skip
    subprocess.run(["sh", str(SESSION)], env=env, check=True, timeout=60)
    return (folder / "args").read_text().splitlines()


def test_the_window_covers_the_whole_screen_as_xrandr_reports_it(tmp_path):
    """X runs Chromium with no window manager, so --kiosk alone leaves a window in a corner: the
    session sizes it to the screen (turned, when SCREEN_ROTATE turned it)."""
    args = session_with_xrandr(tmp_path, 'echo "Screen 0: minimum 320 x 200, current 800 x 1280, maximum 8192 x 8192"')
    assert "--window-position=0,0" in args
    assert "--window-size=800,1280" in args


def test_with_no_size_from_xrandr_the_window_is_left_to_chromium(tmp_path):
    args = session_with_xrandr(tmp_path, 'echo "Can\'t open display" >&2; exit 1')
    assert not any(a.startswith("--window") for a in args)
    assert args[-1] == "http://127.0.0.1:9/"
