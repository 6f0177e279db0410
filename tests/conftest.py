"""The fixtures test modules share: games, gpiozero's mock pins, the page's app and an operator,
journals made once, an MQTT broker, and the browser tests' chromium and axe-core. Plain helpers
(classes and functions a test calls) are in the tests/*_helpers.py modules; no test module imports
another (tests/test_style.py checks)."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from werkzeug.security import generate_password_hash

from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.rules import Game, new_game
from senet_pi.service import Service
from senet_pi.service.journal import Journal
from senet_pi_web import create_app
from tests.journal_helpers import INPUTS, ScriptClock, feed, play
from tests.web_helpers import PIN, Operator

ROOT = Path(__file__).resolve().parent.parent

# No timing in tests (deadline=None). Every run (CI or a newcomer's) replays the same examples, so a
# green suite stays green; SENET_PI_EXPLORE=1 explores new random examples each run, to look for bugs.
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("dev"), derandomize=True, print_blob=True)
settings.load_profile("dev" if os.environ.get("SENET_PI_EXPLORE") else "ci")


@pytest.fixture
def secret() -> Game:
    return new_game("secret")


@pytest.fixture
def houses() -> Game:
    return new_game("houses")


@pytest.fixture
def mock_factory():
    """gpiozero's MockFactory as the default pin factory, restored afterwards (as gpiozero's own tests do)."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    saved = Device.pin_factory
    Device.pin_factory = MockFactory()
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def pinmap():
    return load_pinmap()


# ------------------------------------------------------------------ the page, through Flask's test client


@pytest.fixture
def sim_service():
    """A service on the simulated board (its scanner not started), and the board: closed afterwards."""
    service = Service(None, variant="secret")
    backend = SimBackend(load_pinmap(), rng=random.Random(4), spin=0)
    backend.start(service, scan=False)
    yield service, backend
    backend.close()


@pytest.fixture
def app(sim_service):
    """The page's app on `sim_service`, with an operator PIN (PIN) and a short wait after a wrong one."""
    service, backend = sim_service
    return create_app(
        {"TESTING": True, "OPERATOR_PIN_HASH": generate_password_hash(PIN), "PIN_DELAY": 0.01, "SECRET_KEY": "t"},
        service=service,
        backend=backend,
    )


@pytest.fixture
def client(app):
    """Flask's test client for `app`."""
    return app.test_client()


@pytest.fixture
def operator(client):
    """An operator on `client`, not signed in yet."""
    return Operator(client)


# ------------------------------------------------------------------ journals made once a module


@pytest.fixture(scope="module")
def two_games_made(tmp_path_factory) -> tuple[Path, int, int]:
    """A journal with a game played and abandoned and a second in progress (made once: each write
    is synced); with the inputs of each."""
    path = tmp_path_factory.mktemp("two") / "j.sqlite"
    clock = ScriptClock()
    service = Service(Journal(path), clock=clock)
    feed(service, clock, INPUTS[:60])
    first = service.seq
    service.new_game("secret")
    play(service, clock, INPUTS[:80])
    second = service.seq
    service.close()
    return path, first, second


@pytest.fixture
def two_games(two_games_made):
    """Copies the journal of `two_games_made` to a path; returns the inputs of each game."""
    made, first, second = two_games_made

    def copy(path: Path) -> tuple[int, int]:
        for suffix in ("", "-mark"):
            shutil.copy(f"{made}{suffix}", f"{path}{suffix}")
        return first, second

    return copy


# ------------------------------------------------------------------ the fleet's broker


@pytest.fixture(name="mosquitto")
def mosquitto_fixture(tmp_path):
    """A broker on a free loopback port, anonymous allowed; stopped after the test."""
    from mqtt_helpers import MOSQUITTO, Mosquitto

    if not Path(MOSQUITTO).exists():
        pytest.fail("the fleet's tests need Debian's mosquitto (scripts/test installs it)")
    broker = Mosquitto(tmp_path)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


# ------------------------------------------------------------------ the browser tests


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium driven by Playwright, one for each module."""
    from playwright.sync_api import sync_playwright

    from tests.browser_helpers import CHROMIUM

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def axe_js() -> str:
    """axe-core's script from the npm registry, installed once under .ci/node."""
    from tests.browser_helpers import AXE_PACKAGE
    from tests.npm_helpers import npm_install

    target = ROOT / ".ci" / "node"
    script = target / "node_modules" / "axe-core" / "axe.min.js"
    npm_install(AXE_PACKAGE, script, "the accessibility tests")
    return script.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def plain():
    """A service with no backend, served on a free port, one for each module (see PlainBoard)."""
    from tests.browser_helpers import PlainBoard

    board = PlainBoard()
    yield board
    board.close()
