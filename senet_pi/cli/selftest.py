"""`senet-pi selftest`: walk a person through every square and the thrower, and say what works.

On the simulated board the walk drives the mock pins itself (`--auto`, the default there:
nobody can put a piece on a simulated square), which is how the tests check that a switch
stuck open or closed, or a dead line, is reported. On a real board it first says what it
waits for, and a closed standard input counts as "no" rather than a traceback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import SelfTestError
from ..hardware.backend import GpioBackend, SimBackend
from ..rules.board import bit, squares_in

if TYPE_CHECKING:
    from gpiozero import LEDBoard

    from ..hardware.board import ReedSwitchBoard
    from ..hardware.edges import ButtonLine
    from ..hardware.serial_link import SerialBackend
    from ..hardware.sim import SimBoard

STRIP_STEP = 0.4  # seconds each square stays lit for a person to follow
STRIP_WRONG = (
    "not in the S order: check the data line, the level shifter, the 5 V supply and the LEDs' order (Building)"
)


Say = Callable[[str], None]
Ask = Callable[[str], str]


@dataclass
class SelfTestReport:
    """What the walk found."""

    switches: dict[int, str] = field(default_factory=dict)  # square -> "ok" or what went wrong
    lines: list[str] = field(default_factory=list)
    button: str = "not tested"
    leds: dict[int, str] = field(default_factory=dict)
    buzzer: str = "not fitted"
    strip: str = "not fitted"  # the LED strip under the squares: "ok", "not fitted", or what went wrong

    @property
    def ok(self) -> bool:
        return (
            all(v == "ok" for v in self.switches.values())
            and not self.lines
            and self.button == "ok"
            and all(v == "ok" for v in self.leds.values())
            and self.buzzer in ("ok", "not fitted")
            and self.strip in ("ok", "not fitted")
        )

    def summary(self) -> str:
        bad = {sq: what for sq, what in self.switches.items() if what != "ok"}
        lines = [f"switches: {len(self.switches) - len(bad)} of {len(self.switches)} work"]
        lines += [f"  square {sq}: {what}" for sq, what in sorted(bad.items())]
        lines += [f"  {line}" for line in self.lines]
        lines.append(f"button: {self.button}")
        dark = [n for n, v in self.leds.items() if v != "ok"]
        lines.append("stick LEDs: all 4 work" if not dark else f"stick LEDs: {', '.join(map(str, dark))} did not light")
        lines.append(f"buzzer: {self.buzzer}")
        lines.append(f"LED strip: {self.strip}")
        lines.append("all good" if self.ok else "see above for what to check (hardware/README.md, 'Checking it')")
        return "\n".join(lines)


def selftest(
    backend: GpioBackend, say: Say = print, ask: Ask = input, auto: bool = False, timeout: float = 15.0
) -> SelfTestReport:
    """Walk through the lines, every square, the button, the LEDs and the buzzer."""
    board, thrower = backend.board, backend.thrower
    assert board is not None and thrower is not None and thrower.button is not None and thrower.leds is not None
    sim = backend.sim if isinstance(backend, SimBackend) else None
    if auto and sim is None:
        raise SelfTestError("--auto works only on the simulated board (--backend sim)")
    hands = sim if auto else None
    report = SelfTestReport()
    wait = 0.3 if auto else timeout
    if hands:
        say("Self test of the simulated board: it moves its own pieces and presses its own button.")
    else:
        say(
            f"Self test of the {backend.name} board: waiting for a person at the board, up to {timeout:g} s for "
            "each step (Ctrl-C stops)."
        )
    ask = _no_terminal_is_no(ask)
    _check_lines(board, report)
    _check_switches(board, hands, say, wait, report)
    _check_button(thrower.button, hands, say, wait, report)
    _check_leds(thrower.leds, sim if hands else None, ask, report)
    _check_strip(backend, say, ask, report)
    if thrower.buzzer is not None:
        thrower.buzzer.on()
        answer = "y" if hands else ask("Does the buzzer sound? [y/n] ")
        thrower.buzzer.off()
        report.buzzer = "ok" if _yes(answer) else "silent"
    say(report.summary())
    if sim is not None:
        say(simulated_note())
    return report


def simulated_note() -> str:
    """The last line of a self test of the simulated board: what it did not check, said plainly."""
    from ..hardware.backend import on_a_pi

    if on_a_pi():
        return "This checked the simulated board, not the wooden one: run senet-pi selftest without --backend sim."
    return (
        "This checked the simulated board: this machine is not a Raspberry Pi, so no switch, wire or LED of a real "
        "board was checked. Run senet-pi selftest on the Pi that the board is wired to."
    )


def _check_lines(board: ReedSwitchBoard, report: SelfTestReport) -> None:
    """Column lines that read high with no row driven."""
    stuck = board.idle_columns()
    for c in range(5):
        if stuck & (1 << c):
            report.lines.append(f"column line {c + 1} reads high with no row driven: a short or a missing pull-down")


def _check_switches(
    board: ReedSwitchBoard, hands: SimBoard | None, say: Say, wait: float, report: SelfTestReport
) -> None:
    """Every square's switch: open on an empty board, closed under a piece, and open again."""
    say("Take every piece off the board.")
    if hands:
        hands.set_occupied(0)
    _until(lambda: board.read() == 0, wait)
    stuck_closed = board.read()
    for sq in squares_in(stuck_closed):
        report.switches[sq] = "stuck closed: reads a piece on an empty square"
    for sq in range(1, 31):
        if sq not in report.switches:
            report.switches[sq] = _check_switch(board, hands, say, wait, sq, stuck_closed)


def _check_switch(
    board: ReedSwitchBoard, hands: SimBoard | None, say: Say, wait: float, sq: int, stuck_closed: int
) -> str:
    """One square's switch: "ok", or what went wrong with it."""
    say(f"Put a piece on square {sq}.")
    if hands:
        hands.place(sq)
    if not _until(lambda: board.read() & bit(sq), wait):
        return "did not close: check the magnet, the switch and its diode"
    others = board.read() & ~bit(sq) & ~stuck_closed
    say("Take it off again.")
    if hands:
        hands.lift(sq)
    if not _until(lambda: not board.read() & bit(sq), wait):
        return "did not open again: the switch may be stuck"
    if others:
        return f"also closed squares {squares_in(others)}: a missing or reversed diode"
    return "ok"


def _check_button(button: ButtonLine, hands: SimBoard | None, say: Say, wait: float, report: SelfTestReport) -> None:
    """The thrower's button goes down and comes up again."""
    say("Press the thrower's button.")
    if hands:
        hands.press()
    pressed = _until(lambda: button.is_active, wait)
    if hands:
        hands.release()
    released = _until(lambda: not button.is_active, wait)
    report.button = "ok" if pressed and released else ("never pressed" if not pressed else "stuck pressed")


def _check_leds(leds: LEDBoard, sim: SimBoard | None, ask: Ask, report: SelfTestReport) -> None:
    """Each stick LED lights alone: the simulated board's pins say so, a person is asked."""
    for n in range(4):
        leds.value = tuple(i == n for i in range(4))
        answer = (
            ("y" if sim.leds[n] else "n") if sim is not None else ask(f"Is stick LED {n + 1} lit, and only it? [y/n] ")
        )
        report.leds[n + 1] = "ok" if _yes(answer) else "did not light"
    leds.off()


def _check_strip(backend: GpioBackend, say: Say, ask: Ask, report: SelfTestReport) -> None:
    """The LED strip, when the pin map has one: each square lights alone, 1 to 30, so a person sees it
    run in the board's S order; the simulated strip's bytes are read back instead of asking."""
    from ..hardware.strip import FakeSpi, SpiStrip, decode_ws2812, open_spi
    from ..service.lights import Kind

    lights = backend.pinmap.lights
    if lights is None:
        return
    writer, problem = (backend.spi, None) if isinstance(backend, SimBackend) else open_spi()
    if writer is None:
        report.strip = f"cannot be driven: {problem} (no strip fitted? remove [lights] from the pin map)"
        return
    fake = writer if isinstance(writer, FakeSpi) else None
    if fake is None:
        say("Watch the LED strip: each square lights blue alone, from 1 to 30, along the board's S.")
    strip = SpiStrip(writer, None, lights.sticks, lights.ring)
    wrong = []
    try:
        for sq in range(1, 31):
            strip.show({str(sq): Kind.MOVE})
            if fake is not None:
                lit = [n for n, rgb in enumerate(decode_ws2812(fake.frames[-1])) if any(rgb)]
                wrong += [] if lit == [sq - 1] else [sq]
            else:
                time.sleep(STRIP_STEP)
    finally:
        strip.close()  # dark again
    if fake is not None:
        report.strip = "ok" if not wrong else f"squares {wrong} did not light alone"
        say(f"Checked the simulated LED strip (its SPI bytes read back): {report.strip}.")
        return
    answer = ask("Did the squares light one at a time, 1 to 30, in the board's S order? [y/n] ")
    report.strip = "ok" if _yes(answer) else STRIP_WRONG


def _yes(answer: str) -> bool:
    return answer.strip().lower().startswith("y")


def _no_terminal_is_no(ask: Ask) -> Ask:
    """`ask`, answering "n" when standard input is closed (EOF) instead of raising."""

    def asking(question: str) -> str:
        try:
            return ask(question)
        except EOFError:
            return "n"

    return asking


def _until(condition: Callable[[], object], timeout: float) -> bool:
    end = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(0.01)


def link_test(backend: SerialBackend, say: Say = print, wait: float = 5.0) -> bool:
    """The USB bridge's link health: connected, firmware, board, frames dropped."""
    from ..service.core import Service

    backend.start(Service(None), wait=wait)
    info = backend.describe()
    if not info["connected"]:
        say(f"bridge: not connected: {info['problem'] or 'no answer'}")
        return False
    say(
        f"bridge: connected on {info['port'] or 'its USB port'}, firmware {info['firmware']}, board {info['board']}, "
        f"frames dropped {info['dropped']}"
    )
    say("Move a piece or press the button: `senet-pi run --backend serial` shows every event.")
    return True
