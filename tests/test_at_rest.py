"""A board at rest costs little: the page's web stack waits for its first visitor, the ticks slow
down when the table is still, the language switch needs no locale data, threads carry their names.

The figures themselves (memory, share of a core, wake-ups) are measured by hand with
`benchmarks/bench_memory.py idle`; these tests check the behaviour the figures rest on."""

from __future__ import annotations

import email.utils
import http.client
import io
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from senet_pi import i18n
from senet_pi.cli import run
from senet_pi.cli.run import Runner
from senet_pi.fleet.published import Board
from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.server.on_demand import PinOnDisk, exposed, serve_on_demand
from senet_pi.service.core import Service
from tests.cli_helpers import start_board

ROOT = Path(__file__).resolve().parents[1]


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(port: int, path: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
        return answer.status, answer.read()


# ------------------------------------------------------------------ the page on demand


def test_the_page_starts_with_its_first_visitor_and_answers_it(tmp_path, monkeypatch):
    monkeypatch.setenv("SENET_PI_INSTANCE", str(tmp_path))
    board = Board(Service(None))
    page = serve_on_demand(board, "127.0.0.1", 0, {})
    port = page.effective_port
    try:
        assert page.page is None  # bound, not started: nothing imported or made for it yet
        assert page.scheme == "http"
        assert port > 0
        status, body = get(page.effective_port, "/api/state")  # the very first request is answered
        assert status == 200
        assert json.loads(body)["variant"] == board.service.variant
        assert wait_for(lambda: page.page is not None)  # (set once uvicorn says it has started)
        assert get(page.effective_port, "/")[0] == 200  # and the page after it
        assert board.visitor is not None
        assert board.visitor()["enabled"] is False  # the page's own answer now
    finally:
        page.close()
    assert refused(port)
    assert not page.thread.is_alive()


def test_a_page_nobody_opened_stops_at_once_and_lets_go_of_its_port(tmp_path, monkeypatch):
    monkeypatch.setenv("SENET_PI_INSTANCE", str(tmp_path))
    page = serve_on_demand(Board(Service(None)), "127.0.0.1", 0, {})
    port = page.effective_port
    began = time.monotonic()
    page.close()
    assert time.monotonic() - began < 2  # the waiting thread is woken, not timed out
    assert not page.thread.is_alive()
    assert page.page is None
    assert refused(port)


def test_a_taken_port_and_a_certificate_without_its_key_are_said_at_start(tmp_path, monkeypatch):
    monkeypatch.setenv("SENET_PI_INSTANCE", str(tmp_path))
    with socket.create_server(("127.0.0.1", 0)) as taken, pytest.raises(OSError):
        serve_on_demand(Board(Service(None)), "127.0.0.1", taken.getsockname()[1], {})
    with pytest.raises(Exception, match="TLS_CERT but not TLS_KEY"):
        serve_on_demand(Board(Service(None)), "127.0.0.1", 0, {"TLS_CERT": str(tmp_path / "cert.pem")})


def test_run_imports_no_web_stack_until_a_visitor_comes(tmp_path):
    """`senet-pi run` with its page: Flask, uvicorn and asyncio are not imported while nobody has
    connected, yet a question nobody answers is already taken after QUESTION_SECONDS; the first
    visitor gets the page."""
    script = f"""
import json, os, sys, threading, time, urllib.request
from senet_pi.cli import main
sys.stdin = os.fdopen(os.pipe()[0])  # standard input open and silent, as an unused terminal's
args = ["run", "--backend", "sim", "--journal", {str(tmp_path / "j.sqlite")!r}, "--page-port", "{free_port()}"]
threading.Thread(target=main, args=(args,), daemon=True).start()
end = time.monotonic() + 60
while time.monotonic() < end and not any(t.name == "senet-pi page" for t in threading.enumerate()):
    time.sleep(0.05)
time.sleep(0.5)
before = sorted(m for m in ("flask", "jinja2", "uvicorn", "asyncio", "werkzeug") if m in sys.modules)
import gc
page = next(o for o in gc.get_objects() if type(o).__name__ == "LazyPage")
waits = page.board.service.question_seconds  # a question nobody answers is taken before any visit too
with urllib.request.urlopen(f"http://127.0.0.1:{{page.effective_port}}/api/state", timeout=30) as answer:
    status = answer.status
after = sorted(m for m in ("flask", "uvicorn") if m in sys.modules)
print(json.dumps({{"before": before, "status": status, "after": after, "waits": waits}}))
sys.stdout.flush()
os._exit(0)
"""
    (tmp_path / "config.toml").write_text("QUESTION_SECONDS = 45\n", encoding="utf-8")
    env = {"SENET_PI_INSTANCE": str(tmp_path), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    said = json.loads(result.stdout.strip().splitlines()[-1])
    assert said == {"before": [], "status": 200, "after": ["flask", "uvicorn"], "waits": 45.0}, result.stderr


#: What only staff, rare pages or other commands use: a visitor's page and a board at rest import none of it
#: (the manual's Markdown, the staff's statistics, plots and card, QR codes, the config writer, backups,
#: the translations' reader, the endgame tables' numpy, the fleet's MQTT client).
HEAVY = (
    "markdown_it",
    "mdit_py_plugins",
    "senet_pi_web.manual_blocks",
    "senet_pi.service.stats",
    "senet_pi_web.plots",
    "segno",
    "tomlkit",
    "tarfile",
    "babel",
    "numpy",
    "paho",
)


def test_a_visitors_page_imports_nothing_only_staff_or_rare_pages_use(tmp_path):
    """`senet-pi run` with its page, one visitor loading the page and its state: the web stack is
    imported, the modules in HEAVY are not (each is imported where a staff page, a rare page or
    another command first needs it)."""
    script = f"""
import json, os, sys, threading, time, urllib.request
from senet_pi.cli import main
sys.stdin = os.fdopen(os.pipe()[0])
args = ["run", "--backend", "sim", "--journal", {str(tmp_path / "j.sqlite")!r}, "--page-port", "{free_port()}"]
threading.Thread(target=main, args=(args,), daemon=True).start()
end = time.monotonic() + 60
while time.monotonic() < end and not any(t.name == "senet-pi page" for t in threading.enumerate()):
    time.sleep(0.05)
import gc
page = next(o for o in gc.get_objects() if type(o).__name__ == "LazyPage")
statuses = []
for path in ("/", "/static/app.js", "/api/state"):
    with urllib.request.urlopen(f"http://127.0.0.1:{{page.effective_port}}{{path}}", timeout=30) as answer:
        statuses.append(answer.status)
heavy = sorted(m for m in {HEAVY!r} if m in sys.modules or any(k.startswith(m + ".") for k in sys.modules))
print(json.dumps({{"statuses": statuses, "flask": "flask" in sys.modules, "heavy": heavy}}))
sys.stdout.flush()
os._exit(0)
"""
    env = {"SENET_PI_INSTANCE": str(tmp_path), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    said = json.loads(result.stdout.strip().splitlines()[-1])
    assert said == {"statuses": [200, 200, 200], "flask": True, "heavy": []}, result.stderr


def test_before_the_page_starts_a_visitor_is_told_whether_a_pin_is_set(tmp_path):
    config = tmp_path / "config.toml"
    visitor = PinOnDisk(config, exposed("0.0.0.0"))
    assert visitor() == {"enabled": False, "signed_in": False, "needed_for_sim": True}
    config.write_text('OPERATOR_PIN_HASH = "scrypt:1:2:3$salt$hash"\n', encoding="utf-8")
    assert visitor()["enabled"] is True  # `set-pin` while the board runs is seen
    config.write_text('OPERATOR_PIN_HASH = "half written', encoding="utf-8")
    assert visitor()["enabled"] is True  # a config caught half written: the last reading stands
    config.unlink()
    assert visitor()["enabled"] is False
    assert [exposed(host) for host in ("127.0.0.1", "::1", "[::1]", "localhost")] == [False] * 4
    assert [exposed(host) for host in ("0.0.0.0", "192.168.1.20", "senet.local")] == [True] * 3


# ------------------------------------------------------------------ the ticks at rest


class Waits(threading.Event):
    """An Event that notes the timeout of every wait: how often the ticker means to wake."""

    def __init__(self) -> None:
        super().__init__()
        self.timeouts: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.timeouts.append(timeout)
        return super().wait(timeout)


def wait_for(condition, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return False


def test_the_ticks_slow_down_at_rest_and_any_input_wakes_them(monkeypatch):
    monkeypatch.setattr(run, "LIVELY", 0.3)  # at rest after 0.3 s still, not 10 s
    service = Service(None)
    backend = SimBackend(load_pinmap())
    runner = Runner(service, backend, out=io.StringIO())
    waits = Waits()
    runner._stir = waits
    ticks = []
    real_tick = service.tick
    monkeypatch.setattr(service, "tick", lambda: ticks.append(time.monotonic()) or real_tick())
    runner.start()
    try:
        assert wait_for(lambda: run.REST_TICK in waits.timeouts[-3:])  # the table still: slow ticks
        assert waits.timeouts[-1] == run.REST_TICK
        before = len(ticks)
        assert backend.sim is not None
        backend.sim.lift(1)  # a hand on the board: an input, published to the runner
        assert wait_for(lambda: len(ticks) > before)  # ticked again at once, not a rest period later
        assert wait_for(lambda: run.TICK in waits.timeouts[-3:])  # and often while the table is in use
    finally:
        runner.close()
    assert not runner._ticker.is_alive()


def test_the_ticks_at_rest_still_feed_a_short_watchdog_in_time(monkeypatch):
    service = Service(None)
    runner = Runner(service, SimBackend(load_pinmap()), out=io.StringIO())
    monkeypatch.setattr(runner.watchdog, "period", 0.1)  # systemd's WatchdogSec=0.2
    monkeypatch.setattr(run, "LIVELY", 0.0)
    waits = Waits()
    runner._stir = waits
    runner.start()
    try:
        assert wait_for(lambda: len(waits.timeouts) >= 3)
    finally:
        runner.close()
    assert max(t for t in waits.timeouts if t is not None) <= 0.1


# ------------------------------------------------------------------ names


def test_each_language_is_named_and_written_as_babels_locale_data_says():
    from babel import Locale

    assert set(i18n.OWN_NAMES) == set(i18n.LANGUAGES)  # a language added needs its name written out
    for language in i18n.LANGUAGES:
        locale = Locale.parse(language)
        assert i18n.OWN_NAMES[language] == locale.display_name
        assert (language in i18n.RIGHT_TO_LEFT) == (locale.text_direction == "rtl")
        assert i18n.name(language) == locale.display_name
        assert i18n.direction(language) == locale.text_direction


def test_the_boards_threads_carry_their_names_in_the_kernel():
    service = Service(None)
    runner = Runner(service, SimBackend(load_pinmap()), out=io.StringIO())
    runner.start()
    try:
        runner.ready("test")
        comm = Path(f"/proc/self/task/{runner._ticker.native_id}/comm").read_text().strip()
        assert comm == "ticks"
        names = {Path(f"/proc/self/task/{t.native_id}/comm").read_text().strip() for t in threading.enumerate()}
        assert "scanner" in names
    finally:
        runner.close()


def test_a_board_at_rest_keeps_only_threads_that_have_work():
    """The scanner, the ticks and the hints' thread: no gpiozero hold thread waking 10 times a
    second for the thrower's button (its press is timed by the thrower), nothing else polling."""
    from gpiozero.mixins import HoldThread

    before = set(threading.enumerate())
    runner = Runner(Service(None), SimBackend(load_pinmap()), out=io.StringIO())
    runner.start()
    try:
        added = set(threading.enumerate()) - before
        assert not [t for t in added if isinstance(t, HoldThread)]
        names = {t.name for t in added}
        assert (
            {"senet-pi scanner", "senet-pi ticks"} <= names <= {"senet-pi coach", "senet-pi scanner", "senet-pi ticks"}
        )
    finally:
        runner.close()


def test_the_page_asks_glibc_for_few_malloc_arenas():
    from senet_pi.server.serve import few_arenas

    assert few_arenas()  # glibc (Raspberry Pi OS, Debian): mallopt takes M_ARENA_MAX


def test_the_page_servers_loop_wakes_once_a_second_and_stops_at_once(tmp_path, monkeypatch):
    from senet_pi.server.serve import CalmServer, start_server, stop_server
    from senet_pi_web import create_app

    passes: list[int] = []
    real_on_tick = CalmServer.on_tick

    async def on_tick(self, counter: int) -> bool:
        passes.append(counter)
        return await real_on_tick(self, counter)

    monkeypatch.setattr(CalmServer, "on_tick", on_tick)
    server = start_server(create_app({"SECRET_KEY": "x"}, service=Service(None)))
    time.sleep(1.5)
    assert len(passes) == 1  # its first pass only: with nobody connected the loop rests (uvicorn's: 15)
    time.sleep(6)  # the date a resting server gives its next answer must not be this old
    connection = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10)
    try:
        connection.request("GET", "/api/state")
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 200
        dated = email.utils.parsedate_to_datetime(answer.getheader("Date", "")).timestamp()
        assert abs(dated - time.time()) < 2.5  # dated afresh when the connection came, not 6 s before
        time.sleep(2.5)  # the connection kept open (keep-alive): a pass each second
        assert 3 <= len(passes) <= 6  # uvicorn's own loop: 25 in 2.5 s
        assert all(counter % 10 == 0 for counter in passes)  # each pass dates the answers, as uvicorn does each second
    finally:
        connection.close()
    monkeypatch.setattr(server.server, "period", 60.0)  # a wait stop_server could only end by waking it
    time.sleep(1.5)  # the loop is in its long wait now
    stop_server(server, timeout=10)
    assert not server.thread.is_alive()
    assert not server.server.force_exit  # stopped gracefully: woken, not given up on


def test_an_english_page_is_drawn_without_babels_extractor(tmp_path):
    """English has no catalogue, so the page's texts for its scripts are "{}" and Babel (with the
    email, zipfile and time-zone modules its extractor brings) is never imported; a German page
    still gets its scripts' texts."""
    script = """
import json, sys
from senet_pi_web import create_app
from senet_pi.service.core import Service
client = create_app({"TESTING": True, "SECRET_KEY": "x"}, service=Service(None)).test_client()
english = client.get("/").get_data(as_text=True)
quiet = "babel" not in sys.modules
german = client.get("/?lang=de").get_data(as_text=True)
print(json.dumps({"english": english, "quiet": quiet, "german": german, "loaded": "babel" in sys.modules}))
"""
    env = {"SENET_PI_INSTANCE": str(tmp_path), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    said = json.loads(result.stdout.strip().splitlines()[-1])
    assert said["quiet"] is True, result.stderr
    assert '<script id="texts" type="application/json">{}</script>' in said["english"]
    german_texts = said["german"].split('<script id="texts" type="application/json">')[1].split("</script>")[0]
    assert json.loads(german_texts)  # the scripts' own texts, in German
    assert said["loaded"] is True  # (read from the German catalogue, with Babel)


def test_the_page_gives_back_what_its_first_requests_freed(tmp_path, monkeypatch):
    from senet_pi.server import on_demand, serve

    given: list[float] = []
    monkeypatch.setattr(on_demand, "SETTLE", 0.2)
    monkeypatch.setattr(serve, "give_back", lambda: given.append(time.monotonic()) or True)
    monkeypatch.setenv("SENET_PI_INSTANCE", str(tmp_path))
    page = serve_on_demand(Board(Service(None)), "127.0.0.1", 0, {})
    try:
        assert get(page.effective_port, "/api/state")[0] == 200
        assert wait_for(lambda: len(given) == 1)
        time.sleep(0.5)
        assert len(given) == 1  # once, after the first visit's burst, not at every request
    finally:
        page.close()
    assert serve.few_arenas() is True  # (the same C library: glibc, where malloc_trim exists)


def unit_python_environment() -> dict[str, str]:
    """The PYTHON* settings senet-pi.service gives the board's interpreter."""
    found: dict[str, str] = {}
    for line in (ROOT / "exhibit" / "senet-pi.service").read_text().splitlines():
        if line.startswith("Environment=PYTHON"):
            key, value = line.removeprefix("Environment=").split("=", 1)
            found[key] = value
    return found


def test_the_board_plays_and_serves_its_page_as_the_service_unit_runs_python(tmp_path):
    """The unit runs Python without docstrings or asserts (the memory of a board at rest), its
    compiled modules in a cache of their own: the board judges moves and serves every file of its
    page so, and the modules it ran were compiled that way, into that cache."""
    python = unit_python_environment()
    assert python["PYTHONOPTIMIZE"] == "2"
    cache = tmp_path / "cache"
    port = free_port()
    env = {
        "SENET_PI_INSTANCE": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "PATH": "/usr/bin:/bin",
        **python,
        "PYTHONPYCACHEPREFIX": str(cache),  # the unit's /var/cache/senet-pi/python, here
    }
    service = start_board(tmp_path / "j.sqlite", port, env)
    try:
        static = sorted(p.name for p in (ROOT / "web" / "static").iterdir() if p.is_file())
        for path in ["/", "/hardware", "/api/state", *(f"/static/{name}" for name in static)]:
            assert get(port, path)[0] == 200, path
        squares = json.loads(get(port, "/api/state")[1])["squares"]
        assert squares["11"]["owner"] == "B"  # the page shows the move
        assert "10" not in squares
    finally:
        service.kill()
        _, errors = service.communicate(timeout=10)
    assert "Traceback" not in errors, errors
    compiled = [p.name for p in cache.rglob("*.pyc")]
    assert any(name.startswith("core.") for name in compiled)  # senet_pi's own, among them
    assert compiled
    assert all(".opt-2." in name for name in compiled), compiled
