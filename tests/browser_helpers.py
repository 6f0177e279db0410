"""What the browser tests share: the served boards they click (a simulated board, or a service
with no backend), waiting for the board, finding squares and pieces on the page, colour contrast
and axe-core's findings. The `browser`, `axe_js` and `plain` fixtures are in tests/conftest.py."""

from __future__ import annotations

import os
import random
import re
import time

from playwright.sync_api import expect
from werkzeug.security import generate_password_hash

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.i18n import gettext
from senet_pi.referee.hands import switch_events
from senet_pi.referee.physical import play_out
from senet_pi.server.serve import start_server, stop_server
from senet_pi.service import Service

CHROMIUM = os.environ.get("SENET_PI_CHROMIUM", "/usr/bin/chromium")
PIN = "1357"


class ManualClock:
    """The referee's clock, moved by the test: a whole game judges each board as soon as every
    click has been sensed, instead of waiting out the settle time in real time at every move."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class LiveBoard:
    """A service on the simulated board, served as `senet-pi run` serves it, on a free local port."""

    def __init__(
        self, variant: str = "secret", seed: int = 1, manual_clock: bool = False, pin: bool = True, journal=None
    ) -> None:
        self.pin = pin
        self.clock = ManualClock() if manual_clock else None
        self.service = Service(journal, variant=variant, settle=0.2, **({"clock": self.clock} if self.clock else {}))
        self.backend = SimBackend(load_pinmap(), rng=random.Random(seed), spin=0, scan_rate=200)
        self.backend.start(self.service)
        self.port = 0
        self.start_server()
        import threading

        self._stop = threading.Event()
        threading.Thread(target=self._tick, daemon=True).start()

    def _tick(self) -> None:  # what `senet-pi run` does: let time pass for the referee
        while not self._stop.wait(0.05):
            self.service.tick()

    def start_server(self) -> None:
        from senet_pi_web import create_app

        app = create_app(
            {
                "SECRET_KEY": "e2e",
                "OPERATOR_PIN_HASH": generate_password_hash(PIN) if self.pin else None,
                "PIN_DELAY": 0.01,
            },
            service=self.service,
            backend=self.backend,
        )
        self.server = start_server(app, "127.0.0.1", self.port)
        self.port = self.server.effective_port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def close(self) -> None:
        self._stop.set()
        stop_server(self.server)
        self.backend.close()


def until(condition, timeout: float = 30.0) -> None:
    """Wait for `condition`; the deadline is a safety net for a loaded machine (two test workers
    and a browser on two cores), never a pace: a sensed click takes milliseconds when idle."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for the board")
        time.sleep(0.005)


def square(page, sq: int):
    return page.locator(f'#board g[data-square="{sq}"]')


def piece_on(page, sq: int, owner: str = ""):
    """The piece drawn on square `sq` (of `owner` when given): pieces lie above the squares, keyed by square."""
    return page.locator(f'#board .piece{".owner-" + owner if owner else ""}[data-on="{sq}"]')


def click_move(page, board: LiveBoard, moves) -> None:
    """Carry out moves by clicking squares as a hand would lift and place the pieces, each click
    sensed by the referee before the next (as a hand is never faster than the scanner)."""
    referee = board.service.referee
    with board.service.lock:  # see locked()
        steps, _, _ = play_out(referee.game, moves)
        events = switch_events(referee.game.occupied(), steps)
    for event in events:
        ((kind, sq),) = event.items()
        square(page, sq).click()
        until(lambda sq=sq, closed=kind == "place": bool(referee.sensed >> sq & 1) == closed)


def locked(service: Service, read):
    """`read()` under the service's lock: the referee tries moves on the game while it judges (in the
    tick and scanner threads), and a read in between saw them (a press seemed lost: the count read
    before it was two too high)."""
    with service.lock:
        return read()


def luminance(rgb: str) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (float(v) for v in re.findall(r"[\d.]+", rgb)[:3])
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


AXE_PACKAGE = "axe-core@4.10.3"
KIOSK = {"width": 1920, "height": 1080}


class PlainBoard:
    """A service with no backend, served as `senet-pi run` serves it: the tests make each state by
    feeding the referee lifts, places and throws themselves, at once and exactly (a simulated
    board's scanner mutes a switch that changes again within moments, as a chattering one)."""

    def __init__(self) -> None:
        from senet_pi_web import create_app

        self.clock = ManualClock()
        self.service = Service(None, variant="secret", settle=0.2, clock=self.clock)
        self.server = start_server(create_app({"SECRET_KEY": "e2e"}, service=self.service), "127.0.0.1", 0)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.effective_port}/"

    def close(self) -> None:
        stop_server(self.server)


def new_game(board, variant: str = "secret", **options) -> None:
    """A new game on the board, its pieces where the game starts, and sensed there."""
    board.service.new_game(variant, **options)
    if isinstance(board, LiveBoard):
        board.backend.sim.set_occupied(board.service.referee.expected)
        until(lambda: board.service.referee.sensed == board.service.referee.expected)
    settle(board)


def open_page(browser, board, lang: str = "en", viewport=None, **options):
    """A new page on `board` in `lang`, once its live stream is up."""
    page = browser.new_page(viewport=viewport or {"width": 1280, "height": 820}, **options)
    page.goto(board.url + f"?lang={lang}")
    expect(page.locator("#link")).to_have_text(gettext("live", lang))
    return page


def axe_violations(page, axe_js: str) -> list[str]:
    """The serious and critical violations axe-core finds on the page as it is now."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(content=axe_js)
    found = page.evaluate("async () => (await axe.run(document, { resultTypes: ['violations'] })).violations")
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:4]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def settle(board) -> None:
    """Let the settle time pass on the board's manual clock, and judge the settled board now."""
    board.clock.now += board.service.settle
    board.service.tick()
