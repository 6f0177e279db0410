"""How soon the exhibit screen shows the board with its pieces, on a slow machine.
Run by hand: `python benchmarks/bench_first_draw.py` (`--runs 6 --throttle 6`).

The page is served as `senet-pi run` serves it (simulated board, loopback, a free port) and opened
at kiosk size (1920x1080) in Debian's chromium, its CPU slowed `--throttle` times through the
DevTools protocol (Emulation.setCPUThrottlingRate: a rough Raspberry Pi stand-in). A script put in
before the page's own records `performance.now()` when the first piece appears on #board (built),
and again once the frame with it has been painted (a message posted from the next animation frame
runs after that frame's paint), and the browser's own first contentful paint when the board was
already built by then (the board the server draws in the page): the time from the start of the
navigation to the board on the screen. The median of `--runs` loads is printed (each load in a fresh
context: no cache), with the
min and max, and beside it the same loads unslowed (1x, taken in turn with the slowed ones, so both
see the same load on a shared machine); and the bytes the page's requests carried (gzipped).
`--lang de` or `ar` opens the page in that language. `--against REV` (e.g. `main`) loads the page
alternately with its script and style sheet as they are and as they were at that git revision
(served in their place through Playwright's routing): on a machine shared with other work the two are
then timed under the same load, load for load (a page that carries its style sheet in itself, as
the status page now does, keeps its own: only its script is swapped). `--also URL` does the same with a page
served elsewhere, whole (its HTML, scripts and styles): another checkout's `senet-pi run
--page-port 8081 --journal /tmp/other.jsonl`, say, loaded in turn with this one.
`--cpu` adds, per round and page, one more load unslowed and traced: the CPU time the page's main
thread spent in its tasks from the navigation's commit to its painting of the first frame shown.
On a machine shared with other work the times above swing with its load; this figure (CPU time,
not time waited) hardly does.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
from collections import Counter
from pathlib import Path

from playwright.sync_api import sync_playwright

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.server.serve import start_server, stop_server
from senet_pi.service.core import Service
from senet_pi_web import create_app

CHROMIUM = os.environ.get("SENET_PI_CHROMIUM", "/usr/bin/chromium")

#: Notes the moment the first piece is on the main board, and the moment the frame showing it is painted.
WATCH = """
new MutationObserver((changes, observer) => {
  if (!document.querySelector("#board .piece")) return;
  window.boardDrawnAt = performance.now();
  observer.disconnect();
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => { window.boardPaintedAt = performance.now(); };
    channel.port2.postMessage(0);
  });
}).observe(document, { childList: true, subtree: true });
"""


#: When the board was first on the screen: the first contentful paint when the board was built before
#: it (a board drawn by the server in the page), else the frame after it was built. The browser stamps
#: that paint itself, while the message WATCH posts may wait behind the scripts run after the paint.
ON_SCREEN = """() => {
  const fcp = performance.getEntriesByName("first-contentful-paint")[0];
  return fcp && fcp.startTime >= window.boardDrawnAt ? fcp.startTime : window.boardPaintedAt;
}"""


#: The bytes the page's requests carried (as sent: compressed) and how many, the live stream left out.
CARRIED = """() => {
  const all = [performance.getEntriesByType("navigation")[0], ...performance.getEntriesByType("resource")]
    .filter((e) => e && !e.name.includes("/api/events"));
  return [all.reduce((sum, e) => sum + (e.encodedBodySize || 0) + 300, 0), all.length];  // ~300 B of headers each
}"""


def main_thread_cpu(trace: bytes, url: str) -> float:
    """The CPU time (ms) the renderer's main thread spent in its tasks from the commit of `url` (the
    task that began parsing it) to the end of its painting of the frame first shown with content,
    from a DevTools trace. Its end is that paint's, not the frame's presentation: the tasks run
    while a busy machine presents it (the scripts, by then) are not the first paint's work."""
    events = [
        e for e in json.loads(trace)["traceEvents"] if e.get("ph") == "X" or e.get("name") == "firstContentfulPaint"
    ]
    parses = [e for e in events if e.get("name") == "ParseHTML" and url in json.dumps(e.get("args"))]
    main = Counter((e["pid"], e["tid"]) for e in parses).most_common(1)[0][0]
    shown = max(e["ts"] for e in events if e.get("name") == "firstContentfulPaint" and e["pid"] == main[0])
    on_main = [e for e in events if (e["pid"], e["tid"]) == main]
    painted = max(e["ts"] + e.get("dur", 0) for e in on_main if e["name"] == "Paint" and e["ts"] < shown)
    tasks = sorted((e for e in on_main if e["name"] == "ThreadControllerImpl::RunTask"), key=lambda e: e["ts"])
    first = min(e["ts"] for e in parses)
    start = max((t["ts"] for t in tasks if t["ts"] <= first), default=first)  # the task the parse began in
    total, end = 0.0, 0.0
    for task in tasks:  # top-level tasks only: one nested in another is counted with it
        if start <= task["ts"] < painted and task["ts"] >= end:
            total += task.get("tdur", task.get("dur", 0)) / 1000
            end = task["ts"] + task.get("dur", 0)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--throttle", type=float, default=6.0)
    parser.add_argument("--lang", default="en", choices=["en", "de", "ar"])
    parser.add_argument("--against", metavar="REV", help="also time the page's script and styles of this git revision")
    parser.add_argument("--also", metavar="URL", help="also time the page served at URL (another checkout's), in turn")
    parser.add_argument(
        "--cpu", action="store_true", help="also trace an unslowed load: main-thread CPU before the first paint"
    )
    args = parser.parse_args()
    service = Service(None, variant="secret")
    backend = SimBackend(load_pinmap(), rng=random.Random(1), spin=0, scan_rate=200)
    backend.start(service)
    server = start_server(create_app({"SECRET_KEY": "bench"}, service=service, backend=backend), "127.0.0.1", 0)
    base = f"http://127.0.0.1:{server.effective_port}/"
    url = f"{base}?lang={args.lang}"
    versions: dict[str, dict[str, str]] = {"now": {}}
    if args.against:  # both served through the same routing, so neither pays for it alone
        static = Path(__file__).resolve().parent.parent / "web" / "static"
        versions["now"] = {name: (static / name).read_text(encoding="utf-8") for name in ("app.js", "style.css")}
        versions[args.against] = {
            name: subprocess.run(
                ["git", "show", f"{args.against}:web/static/{name}"], check=True, capture_output=True, text=True
            ).stdout
            for name in ("app.js", "style.css")
        }
    urls = {version: url for version in versions}
    if args.also:
        versions[args.also] = {}
        urls[args.also] = f"{args.also.rstrip('/')}/?lang={args.lang}"
    rates = [args.throttle] + ([1.0] if args.throttle != 1 else [])  # the unslowed figure beside it
    built: dict[tuple[str, float], list[float]] = {(v, r): [] for v in versions for r in rates}
    painted: dict[tuple[str, float], list[float]] = {(v, r): [] for v in versions for r in rates}
    shown: dict[tuple[str, float], list[float]] = {(v, r): [] for v in versions for r in rates}
    cpu: dict[str, list[float]] = {v: [] for v in versions}
    load_before = os.getloadavg()[0]
    carried: dict[str, tuple[int, int]] = {}  # each version's (bytes on the wire, requests), its last load
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            for _ in range(args.runs + 1):  # the first load warms the server and the disk cache: not counted
                for (version, files), rate in ((v, r) for v in versions.items() for r in rates):
                    context = browser.new_context(viewport={"width": 1920, "height": 1080})
                    page = context.new_page()
                    for name, body in files.items():
                        kind = "text/css" if name.endswith(".css") else "text/javascript"
                        page.route(f"{base}static/{name}", _serve(body, kind))
                    cdp = context.new_cdp_session(page)
                    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
                    page.add_init_script(WATCH)
                    page.goto(urls[version])
                    page.wait_for_function(
                        "() => window.boardPaintedAt !== undefined"
                        " && performance.getEntriesByName('first-contentful-paint').length",
                        timeout=60_000,
                    )
                    at_built, at_painted = page.evaluate("() => [window.boardDrawnAt, window.boardPaintedAt]")
                    built[(version, rate)].append(at_built)
                    painted[(version, rate)].append(at_painted)
                    shown[(version, rate)].append(page.evaluate(ON_SCREEN))
                    wire, requests = page.evaluate(CARRIED)
                    carried[version] = (wire, requests)
                    context.close()
                if args.cpu:
                    for version, files in versions.items():
                        cpu[version].append(_traced(browser, base, urls[version], files))
            browser.close()
    finally:
        stop_server(server)
        backend.close()
    load = os.getloadavg()[0]
    print(
        f"board at 1920x1080 ({args.lang}), from the start of the navigation;"
        f" load average {load_before:.1f} before, {load:.1f} after\n"
    )
    print("| page | what | loads | CPU slowed | median ms | min ms | max ms |\n|---|---|---|---|---|---|---|")
    for version in versions:
        for rate in rates:
            for what, times in (
                ("first piece built", built[(version, rate)][1:]),
                ("frame with it painted", painted[(version, rate)][1:]),
                ("first paint with it", shown[(version, rate)][1:]),
            ):
                median, fastest, slowest = statistics.median(times), min(times), max(times)
                cells = [version, what, len(times), f"{rate:g}x"]
                cells += [f"{median:.0f}", f"{fastest:.0f}", f"{slowest:.0f}"]
                print("| " + " | ".join(str(c) for c in cells) + " |")
    print()
    if args.cpu:
        for version, times in cpu.items():
            times = times[1:]
            print(
                f"{version}: main-thread CPU from the commit to the first paint, unslowed:"
                f" median {statistics.median(times):.1f} ms ({min(times):.1f}-{max(times):.1f}, {len(times)} loads)"
            )
        print()
    for version, (wire, requests) in carried.items():  # another revision's files come through the routing: plain
        print(f"{version}: {requests} requests, {wire / 1024:.1f} KB on the wire (the live stream not counted)")


def _traced(browser, base: str, url: str, files: dict[str, str]) -> float:
    """One unslowed load of `url`, traced: its main thread's CPU time before the first paint."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    for name, body in files.items():
        page.route(f"{base}static/{name}", _serve(body, "text/css" if name.endswith(".css") else "text/javascript"))
    browser.start_tracing(page=page, categories=["devtools.timeline", "toplevel"])
    page.goto(url)
    page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint').length", timeout=60_000)
    page.wait_for_timeout(200)  # the paint's trace events are written
    trace = browser.stop_tracing()
    context.close()
    return main_thread_cpu(trace, url.split("?")[0])


def _serve(body: str, kind: str):
    """A route handler answering with `body` (an older script or style sheet)."""
    return lambda route: route.fulfill(status=200, body=body, content_type=kind)


if __name__ == "__main__":
    main()
