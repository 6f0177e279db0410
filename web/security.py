"""Browser security for every answer: the Host header is checked and the headers that keep the
page from being framed, sniffed or fed someone else's script are set.

DNS rebinding: a page on another site can make a visitor's browser resolve its own name to
the Pi's address and then read the API as if it were that site. The browser still sends the
attacker's name in `Host`, so only names this service knows are served: localhost, any IP
address written as such (a browser that typed the address is not being rebound), the machine's
own name (`hall-1`, `hall-1.local`: an attacker's site cannot be reached under it), the
`--host` the page listens on, and the names in the instance config's `HOSTS` (and
`SERVER_NAME`). Links built from the request (the /hands QR codes) therefore only ever carry a known name.
"""

from __future__ import annotations

import ipaddress
import socket

from flask import Flask, Response, current_app, request

from senet_pi.i18n import Text
from senet_pi.server import listening

from .errors import BadInput

#: No inline script or style, nothing from another origin, never inside a frame.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
LOCAL_NAMES = {"localhost", "localhost.", "127.0.0.1", "::1"}
WILDCARDS = {"", "0.0.0.0", "::"}


def _hostname(host: str) -> str:
    """The name in a Host header without its port; IPv6 literals lose their brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def own_names() -> set[str]:
    """This machine's own names as a visitor types them: its host name, the short one, and the short
    one in `.local` (what Raspberry Pi OS announces by mDNS), each also with a final dot."""
    full = socket.gethostname().strip().lower().rstrip(".")
    short = full.split(".", 1)[0]
    names = {full, short, f"{short}.local"} if short else set()
    return names | {f"{name}." for name in names}


def known_host(host: str) -> bool:
    """Whether `host` (a Host header) names this service: localhost, an IP address, the machine's own
    name, --host or HOSTS."""
    name = _hostname(host)
    if not name or not name.isascii():
        return False
    if name in LOCAL_NAMES or _is_ip(name) or name in own_names():
        return True
    hosts = current_app.config.get("HOSTS") or ()
    if isinstance(hosts, str):  # HOSTS = "senet.local" in config.toml: one name, not its letters
        hosts = [hosts]
    configured = {str(h).lower() for h in hosts} if isinstance(hosts, list | tuple | set) else set()
    listen = str(current_app.config.get("LISTEN_HOST") or "").lower()
    if listen not in WILDCARDS:
        configured.add(listen)
    if current_app.config.get("SERVER_NAME"):  # Flask's own name for the site is one of ours too
        configured.add(_hostname(str(current_app.config["SERVER_NAME"])))
    return name in configured


def exposed() -> bool:
    """True when the page listens beyond this machine (not only on a loopback address)."""
    return listening.exposed(str(current_app.config.get("LISTEN_HOST") or "127.0.0.1"))


def _check_host() -> None:
    if not known_host(request.host):
        raise BadInput(
            Text(
                "unknown Host header: this service answers to localhost, its IP addresses, "
                "its machine's name and the names listed in HOSTS in its config.toml"
            )
        )


def _headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")  # the hands' links carry their secret
    response.headers.setdefault("X-Frame-Options", "DENY")  # frame-ancestors for older browsers
    return response


def init_app(app: Flask) -> None:
    """Check the Host of every request and add the security headers to every answer."""
    app.before_request(_check_host)
    app.after_request(_headers)
