"""Make the documentation's screenshots in docs/images/: the exhibit screen at kiosk size during a game
(kiosk.png), a phone (phone.png), an illegal move (illegal.png), a win (win.png), the set-the-board mode
after an idle reset (setup.png), the board's lights for a lifted piece and for a fix (lights-move.png,
lights-fix.png); the official 7-inch touchscreen, 800x480, during a game (seven-inch.png)
and with the referee's question for the table (question.png); the exhibit's set-the-board overlay at
800x480 (seven-inch-setup.png) and 1366x768 (laptop-setup.png); the kiosk in the dark theme (kiosk-dark.png).
Run from the checkout: `.venv/bin/python scripts/screenshot.py [FOLDER [NAME...]]`.

Each scene is a service on its own board, played by the rules through the referee (lifts and places
as hands make them, the settle time passed on a clock the script moves), served as `senet-pi run`
serves it and photographed in Debian's chromium (`SENET_PI_CHROMIUM` for another), motion reduced."""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from senet_pi.referee.hands import switch_events
from senet_pi.referee.physical import play_out
from senet_pi.server.serve import start_server, stop_server
from senet_pi.service.core import Service
from senet_pi_web import create_app

CHROMIUM = os.environ.get("SENET_PI_CHROMIUM", "/usr/bin/chromium")
KIOSK = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
SEVEN_INCH = {"width": 800, "height": 480}  # the official Raspberry Pi touchscreen
SMALL_LAPTOP = {"width": 1366, "height": 768}
EXHIBIT = {"EXHIBIT": True}


class Clock:
    """The referee's clock, moved by the script: each move is judged at once, not after real time."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def board() -> tuple[Service, Clock]:
    clock = Clock()
    return Service(None, variant="secret", settle=0.2, clock=clock), clock


def settle(service: Service, clock: Clock) -> None:
    clock.now += service.settle
    service.tick()


def play(service: Service, clock: Clock, moves) -> None:
    """Carry out `moves` as hands lift and place the pieces, then let the board settle."""
    referee = service.referee
    steps, _, _ = play_out(referee.game, moves)
    for event in switch_events(referee.game.occupied(), steps):
        ((kind, sq),) = event.items()
        service.handle(kind, sq)
    settle(service, clock)


def exchange(service: Service, clock: Clock) -> None:
    """B 10-13 with a 3, then A's 4 takes 9 to 13 (P4): the game under way, the exchange just made."""
    service.handle("throw", 3)
    play(service, clock, [m for (m,) in service.referee.game.move_sequences() if m.from_sq == 10])
    service.handle("throw", 4)
    play(service, clock, [m for (m,) in service.referee.game.move_sequences() if m.from_sq == 9])


def illegal(service: Service, clock: Clock) -> None:
    """A throw of 3, and the piece on 10 put on 14 (P3): the referee's warning and its fix."""
    service.handle("throw", 3)
    service.handle("lift", 10)
    service.handle("place", 14)
    settle(service, clock)


def lifted(service: Service, clock: Clock) -> None:
    """A throw of 3 and Green's piece on 10 in the hand: the board glows where it may go (13)."""
    service.handle("throw", 3)
    service.handle("lift", 10)


def win(service: Service, clock: Clock) -> None:
    """A whole game played at random by the rules, to its end."""
    rng = random.Random(3)
    game = service.referee.game
    for _ in range(2000):
        if game.is_over:
            return
        service.handle("throw", game.random_throw(rng))
        if game.pending is not None and not game.is_over:
            play(service, clock, rng.choice(game.move_sequences()))
    raise SystemExit("screenshot: the game did not end")


def question(service: Service, clock: Clock) -> None:
    """Two pieces lifted together and put back: the referee asks the table whether they were swapped."""
    for kind, sq in (("lift", 9), ("lift", 10), ("place", 9), ("place", 10)):
        service.handle(kind, sq)
    settle(service, clock)


def idle_reset(service: Service, clock: Clock) -> None:
    """A game left half played, then a new one (what the idle reset starts): the board to set."""
    exchange(service, clock)
    service.handle("throw", 2)
    play(service, clock, service.referee.game.move_sequences()[0])
    left = service.snapshot().to_json()["sensed"]  # the pieces where the last visitors left them
    service.new_game("secret")
    service.handle("sense", left)  # the switches still see them there
    settle(service, clock)


#: name: (how the board gets there, the window, what the page shows once it is drawn, config, theme)
SCENES: dict[str, tuple[Callable[[Service, Clock], None], dict[str, int], str, dict[str, object], str]] = {
    "kiosk": (exchange, KIOSK, "#board .piece", {}, "light"),
    "kiosk-dark": (exchange, KIOSK, "#board .piece", {}, "dark"),
    "phone": (exchange, PHONE, "#board .piece", {}, "light"),
    "illegal": (illegal, LAPTOP, "#compare:not([hidden])", {}, "light"),
    "win": (win, KIOSK, "#turn.won", {}, "light"),
    "setup": (idle_reset, KIOSK, "#setup:not([hidden])", {}, "light"),
    "seven-inch": (exchange, SEVEN_INCH, "#board .piece", {}, "light"),
    "question": (question, SEVEN_INCH, "#question button.answer", {}, "light"),
    "seven-inch-setup": (idle_reset, SEVEN_INCH, "#attract-setup:not([hidden])", EXHIBIT, "light"),
    "laptop-setup": (idle_reset, SMALL_LAPTOP, "#attract-setup:not([hidden])", EXHIBIT, "light"),
    "lights-move": (lifted, LAPTOP, "#board rect.glow", {}, "light"),
    "lights-fix": (illegal, LAPTOP, "#board rect.glow", {}, "light"),
}
#: The scenes photographed as the board alone: what the lights under the squares show.
BOARD_ONLY = ("lights-move", "lights-fix")


def shoot(browser, name: str, folder: Path) -> Path:
    make, viewport, ready, config, theme = SCENES[name]
    service, clock = board()
    make(service, clock)
    server = start_server(create_app({"SECRET_KEY": "screenshot", **config}, service=service), "127.0.0.1", 0)
    try:
        page = browser.new_page(viewport=viewport, reduced_motion="reduce", color_scheme=theme)
        page.goto(f"http://127.0.0.1:{server.effective_port}/")
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator(ready).first).to_be_visible()
        out = folder / f"{name}.png"
        (page.locator("#board") if name in BOARD_ONLY else page).screenshot(path=str(out))
        page.close()
        return out
    finally:
        stop_server(server)


def main(folder: Path, names: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            for name in names or list(SCENES):
                print(f"screenshot: wrote {shoot(browser, name, folder)}")
        finally:
            browser.close()


if __name__ == "__main__":
    args = sys.argv[1:]
    main(Path(args[0]) if args else Path(__file__).resolve().parents[1] / "docs" / "images", args[1:])
