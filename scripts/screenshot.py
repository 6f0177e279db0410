"""Make the README's screenshot (docs/screenshot.png): the page during a game, the referee prompting
the exchange it decided (P4). Run from the checkout: `.venv/bin/python scripts/screenshot.py [OUT]`.

It serves the simulated board as `senet-pi run` does, moves the magnets as hands would, and
photographs the page in Debian's chromium (`SENET_PI_CHROMIUM` for another) at 1280 x 760."""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.page import start_server, stop_server
from senet_pi.service import Service
from senet_pi_web import create_app

CHROMIUM = os.environ.get("SENET_PI_CHROMIUM", "/usr/bin/chromium")


def wait_for(condition, timeout: float = 10.0) -> None:
    """Wait until `condition()` holds (the scanner and the referee run in their own threads)."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise SystemExit("screenshot: the simulated board did not get there in time")
        time.sleep(0.01)


def play_to_the_exchange(service: Service, backend: SimBackend) -> None:
    """B 10-13 with a 3, then A's 4 takes 9 to 13: A's piece is down, B's is still in the hand."""
    sim, referee = backend.sim, service.referee

    def hand(action: str, sq: int) -> None:
        getattr(sim, action)(sq)
        wait_for(lambda: bool(referee.sensed >> sq & 1) == (action == "place"))

    service.handle("throw", 3)
    hand("lift", 10)
    hand("place", 13)
    wait_for(lambda: referee.game.pending is None)
    service.handle("throw", 4)
    hand("lift", 13)
    hand("lift", 9)
    hand("place", 13)
    wait_for(lambda: service.snapshot()["prompt"] is not None)


def main(out: Path) -> None:
    service = Service(None, variant="secret", settle=0.2)
    backend = SimBackend(load_pinmap(), rng=random.Random(1), spin=0, scan_rate=200)
    backend.start(service)
    server = start_server(create_app({"SECRET_KEY": "screenshot"}, service=service, backend=backend), "127.0.0.1", 0)
    stop = threading.Event()
    threading.Thread(target=lambda: [service.tick() for _ in iter(lambda: stop.wait(0.05), True)], daemon=True).start()
    try:
        play_to_the_exchange(service, backend)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 760}, reduced_motion="reduce")
            page.goto(f"http://127.0.0.1:{server.effective_port}/")
            expect(page.locator("#link")).to_have_text("live")
            expect(page.locator("#message")).to_contain_text("(exchange, P4)")
            page.screenshot(path=str(out))
            browser.close()
    finally:
        stop.set()
        stop_server(server)
        backend.close()
    print(f"screenshot: wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "docs" / "screenshot.png")
