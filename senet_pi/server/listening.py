"""The page's listening socket and its certificate, checked before anything is served: what both
the page served at once (`serve`) and the page started by its first visitor (`on_demand`) need,
kept apart from uvicorn so that a board whose page nobody opened never imports it."""

from __future__ import annotations

import ipaddress
import socket

from ..errors import SenetError


def listen(host: str, port: int) -> socket.socket:
    """The page's listening socket on host:port (OSError at once for a taken port or a bad address).

    TCP_NODELAY is set here because asyncio sets it only on sockets whose proto says TCP, not these:
    without it Nagle holds an answer's body for the client's delayed ACK, 40 ms. Accepted
    connections inherit it from the listening socket."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.create_server((host, port), family=family, backlog=1024)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def check_tls(cert: str, key: str) -> None:
    """SenetError, one line, for a certificate or key that cannot be used (said before serving)."""
    import ssl

    if not key:
        raise SenetError("the config names TLS_CERT but not TLS_KEY: give both for HTTPS, or neither")
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise SenetError(f"cannot use the HTTPS certificate {cert} with the key {key}: {exc}") from None


def exposed(host: str) -> bool:
    """True when a page listening on `host` is reachable beyond this machine (not a loopback address)."""
    listen_host = (host or "127.0.0.1").strip("[]").lower()
    if listen_host in ("localhost", "localhost."):
        return False
    try:
        return not ipaddress.ip_address(listen_host).is_loopback
    except ValueError:
        return True  # a name: it may resolve to anything
