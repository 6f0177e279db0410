"""How soon the exhibit screen shows the board with its pieces, on a slow machine.
Run by hand: `python benchmarks/bench_first_draw.py` (`--runs 7 --throttle 6`).

The page is served as `senet-pi run` serves it (simulated board, loopback, a free port) and opened
at kiosk size (1920x1080) in Debian's chromium, its CPU slowed `--throttle` times through the
DevTools protocol (Emulation.setCPUThrottlingRate: a rough Raspberry Pi stand-in). A script put in
before the page's own records `performance.now()` when the first piece appears on #board: the
time from the start of the navigation to the board drawn. The median of `--runs` loads is printed
(each load in a fresh context: no cache), with the min and max.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics

from playwright.sync_api import sync_playwright

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.page import start_server, stop_server
from senet_pi.service import Service
from senet_pi_web import create_app

CHROMIUM = os.environ.get("SENET_PI_CHROMIUM", "/usr/bin/chromium")

#: Notes the moment the first piece is drawn on the main board.
WATCH = """
new MutationObserver((changes, observer) => {
  if (document.querySelector("#board .piece")) { window.boardDrawnAt = performance.now(); observer.disconnect(); }
}).observe(document, { childList: true, subtree: true });
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--throttle", type=float, default=6.0)
    args = parser.parse_args()
    service = Service(None, variant="secret")
    backend = SimBackend(load_pinmap(), rng=random.Random(1), spin=0, scan_rate=200)
    backend.start(service)
    server = start_server(create_app({"SECRET_KEY": "bench"}, service=service, backend=backend), "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.effective_port}/"
    times: list[float] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            for _ in range(args.runs + 1):  # the first load warms the server and the disk cache: not counted
                context = browser.new_context(viewport={"width": 1920, "height": 1080})
                page = context.new_page()
                cdp = context.new_cdp_session(page)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.throttle})
                page.add_init_script(WATCH)
                page.goto(url)
                page.wait_for_function("() => window.boardDrawnAt !== undefined", timeout=30_000)
                times.append(page.evaluate("() => window.boardDrawnAt"))
                context.close()
            browser.close()
    finally:
        stop_server(server)
        backend.close()
    counted = times[1:]
    print("board drawn at 1920x1080, from the start of the navigation to the first piece on #board\n")
    print("| loads | CPU slowed | median ms | min ms | max ms |\n|---|---|---|---|---|")
    median, fastest, slowest = statistics.median(counted), min(counted), max(counted)
    print(f"| {len(counted)} | {args.throttle:g}x | {median:.0f} | {fastest:.0f} | {slowest:.0f} |")


if __name__ == "__main__":
    main()
