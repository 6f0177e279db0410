"""Backends: where the switch changes and button presses come from.

A backend owns the devices of one kind of board and feeds a `Service`. Subclasses must
implement `start(service)` and `close()`; they may override `describe()` (what the page
and `selftest` show about the link). The service and the referee see only inputs.
"""

from __future__ import annotations

import shlex
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, Unpack

from ..errors import BackendError
from ..events import Lift, NewGame, Place, Sense, Undo
from ..rules.text import Text
from ..rules.throws import RandomSource, default_random
from ..service.core import Service
from ..verdicts import Bonus, Offer, Refused, Switch, Verdict
from .board import SCAN_RATE, ReedSwitchBoard
from .debounce import SwitchFault
from .pinmap import PinMap, load_pinmap
from .strip import FakeSpi, SpiStrip, SpiWriter, open_spi
from .thrower import VERY_LONG_PRESS, Sticks, StickThrower

if TYPE_CHECKING:
    from gpiozero.pins import Factory

OFFER_TIME = 10.0  # seconds to confirm an undo or new game offered by a long press


class BackendOptions(TypedDict, total=False):
    """The options every kind of board takes: the sticks' randomness, their tumble, the clock."""

    rng: RandomSource | None
    spin: float
    clock: Callable[[], float]


class GpioOptions(BackendOptions, total=False):
    """The options of the boards on gpiozero devices: those, and how often the switches are scanned."""

    scan_rate: float


NO_PINS = "the gpio backend found no GPIO pins: {cause}; {fix}"
#: Off a Pi there is nothing to install: another board is the answer.
OFF_A_PI = "use --backend sim for the simulated board, or --backend serial for a board on the USB bridge"
#: On a Pi without a pin library: the commands that install one into the Python running senet-pi
#: (lgpio's wheel from PyPI, or Debian's python3-lgpio seen by a venv made with --system-site-packages).
INSTALL_PINS = (
    "install the pin library: {python} -m pip install lgpio rpi-lgpio "
    "(or sudo apt install python3-lgpio, for a venv made with --system-site-packages), or use --backend sim"
)


class Backend:
    """A board that feeds a service. `start` wires it up; `close` releases everything, twice safely."""

    name = "none"

    def start(self, service: Service) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def describe(self) -> dict[str, object]:
        return {"backend": self.name}

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ThrowerControl:
    """What the thrower's gestures mean for the game, whatever board the button is on.

    A short press throws, or confirms an offer, or is refused with a signal (never queued);
    a long press offers an undo (1.5-4 s) or a new game (4 s or more), unless `gestures` is
    off (the instance config's THROWER_GESTURES; an exhibit turns it off, staff use the page)."""

    #: Whether a long press offers an undo or a new game; set from the instance config.
    gestures: bool = True

    def __init__(self, sticks: Sticks | None, rng: RandomSource, spin: float, clock: Callable[[], float]) -> None:
        self.sticks = sticks
        self.rng = rng
        self.spin = spin
        self._clock = clock
        self.service: Service | None = None
        self._offer: NewGame | Undo | None = None  # the input a short press confirms
        self._offer_until = 0.0
        self._unsubscribe: Callable[[], None] | None = None

    def attach(self, service: Service) -> None:
        self.service = service
        self._unsubscribe = service.subscribe(self._verdicts)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def press(self) -> None:
        service, sticks = self.service, self.sticks
        if service is None or sticks is None:
            return
        if self._offer is not None and self._clock() < self._offer_until:
            offer, self._offer = self._offer, None
            service.handle(offer)
            return
        self._offer = None
        press = service.press(self.rng)
        if press.throw is None:
            if press.refused is not None:
                sticks.refuse()
            return
        faces = press.throw.faces if len(press.throw.faces) == 4 else (1, 1, 1, 1)  # dice are shown on the page
        if self.spin:
            threading.Thread(target=sticks.throw_pattern, args=(faces, self.spin), daemon=True).start()
        else:
            sticks.show(faces)

    def held(self, seconds: float) -> None:
        if self.service is None or self.sticks is None:
            return
        if not self.gestures:  # a long press is just a press that took its time
            self.service.note(Refused(Text("long presses are switched off here: staff use the page")))
            return
        self._offer = NewGame() if seconds >= VERY_LONG_PRESS else Undo()
        self._offer_until = self._clock() + OFFER_TIME
        self.sticks.offer()
        offer = (
            Text("press the button again within 10 s to start a new game")
            if isinstance(self._offer, NewGame)
            else Text("press the button again within 10 s to undo the last move")
        )
        self.service.note(Offer(offer))

    def _verdicts(self, verdicts: list[Verdict]) -> None:
        if self.sticks is not None and any(isinstance(v, Bonus) for v in verdicts):
            self.sticks.bonus()


class GpioBackend(Backend):
    """The reed switch matrix and the stick thrower on gpiozero devices (a Pi's pins by default)."""

    name = "gpio"

    def __init__(
        self,
        pinmap: PinMap | None = None,
        *,
        pin_factory: Factory | None = None,
        rng: RandomSource | None = None,
        scan_rate: float = SCAN_RATE,
        spin: float = 0.6,
        clock: Callable[[], float] = time.monotonic,
        spi: SpiWriter | None = None,
    ) -> None:
        self.pinmap = pinmap or load_pinmap()
        self.strip: SpiStrip | None = None
        self.strip_problem: str | None = None  # why the pin map's strip cannot be driven (no SPI, no spidev)
        self._spi = spi
        self.rng = rng or default_random()
        self.spin = spin
        self._clock = clock
        self.board: ReedSwitchBoard | None = None
        self.thrower: StickThrower | None = None
        self.control: ThrowerControl | None = None
        self._unexpect: Callable[[], None] | None = None  # unsubscribes the board's `expect_hand`
        try:
            if pin_factory is None:
                pin_factory = _default_pin_factory()
            self.board = ReedSwitchBoard(
                self.pinmap.rows, self.pinmap.columns, scan_rate=scan_rate, pin_factory=pin_factory, clock=clock
            )
            self.thrower = StickThrower(
                self.pinmap.button, self.pinmap.leds, self.pinmap.buzzer, pin_factory=pin_factory, clock=clock
            )
        except Exception:
            self.close()  # safe on a half-built backend, so the first error is the one reported
            raise
        self.service: Service | None = None
        self.faults: dict[int, SwitchFault] = {}
        self.control = ThrowerControl(self.thrower, self.rng, spin, clock)

    def start(self, service: Service, scan: bool = True) -> None:
        """Feed `service`: tell it how the board stands now, then scan (in a thread unless `scan` is
        False, when the caller calls `board.scan_once()`) and listen to the button."""
        assert self.board is not None and self.thrower is not None
        self.service = service
        self.board.when_placed = lambda square: service.handle(Place(square))
        self.board.when_lifted = lambda square: service.handle(Lift(square))
        self.board.when_fault = self._fault
        self.thrower.when_pressed = self.press
        self.thrower.when_held = self.held
        assert self.control is not None
        self.control.attach(service)
        self._start_strip(service, scan)
        board = self.board  # the scanner rests early only while the game waits for the button
        self._unexpect = service.subscribe(lambda verdicts: board.expect_hand(service.hand_expected))
        sensed = self.board.occupied  # the board as it stands (and: this board has sensors)
        service.handle(Sense(tuple(sq for sq in range(1, 31) if sensed >> sq & 1)))
        if scan:
            self.board.start()

    def _start_strip(self, service: Service, animate: bool) -> None:
        """The strip under the squares, when the pin map has one: it shows the service's lights."""
        lights = self.pinmap.lights
        if lights is None or not service.light_settings.on:
            return
        if self._spi is None:
            self._spi, self.strip_problem = open_spi()
        if self._spi is None:
            return
        strip = self.strip = SpiStrip(self._spi, service.light_settings, lights.sticks, lights.ring)
        service.subscribe(lambda verdicts: strip.show(service.lights))
        strip.show(service.lights)
        if animate:
            strip.start()

    # ------------------------------------------------------------------ the button

    def press(self) -> None:
        """A short press of the thrower's button (see ThrowerControl.press); a hand comes next, so
        the scanner leaves its rest."""
        if self.board is not None:
            self.board.wake()
        if self.control is not None:
            self.control.press()

    def held(self, seconds: float) -> None:
        if self.control is not None:
            self.control.held(seconds)

    def _fault(self, fault: SwitchFault) -> None:
        if fault.cleared:
            self.faults.pop(fault.square, None)
        else:
            self.faults[fault.square] = fault
        if self.service is not None:
            self.service.note(Switch(fault.square, None if fault.cleared else fault.kind, fault.text))

    def describe(self) -> dict[str, object]:
        board = self.board
        return {
            "backend": self.name,
            "switches": [sq for sq in range(1, 31) if board and board.occupied >> sq & 1],
            "leds": list(self.thrower.leds.value) if self.thrower and self.thrower.leds else [],
            # the strip the pin map names but the Pi cannot drive, with the command that fixes it
            "faults": [f.text for f in self.faults.values()] + [f"lights: {p}" for p in [self.strip_problem] if p],
            "strip": self.strip_problem or ("ok" if self.strip is not None else "none"),
        }

    def close(self) -> None:
        if self.control is not None:
            self.control.detach()
        unexpect, self._unexpect = self._unexpect, None
        if unexpect is not None:
            unexpect()
        strip, self.strip = self.strip, None
        if strip is not None:
            strip.close()
        for device in (self.board, self.thrower):
            if device is not None:
                device.close()
        self.board = self.thrower = None


class SimBackend(GpioBackend):
    """The same devices on gpiozero's MockFactory, wired like the real matrix by a `SimBoard`."""

    name = "sim"

    def __init__(
        self, pinmap: PinMap | None = None, *, occupied: int | None = None, **kwargs: Unpack[GpioOptions]
    ) -> None:
        from .sim import SimBoard, sim_factory

        pinmap = pinmap or load_pinmap()
        self.sim = SimBoard(pinmap, sim_factory(), occupied or 0)
        self._preset = occupied
        self._unfollow: Callable[[], None] | None = None
        self.spi = FakeSpi()  # the simulated board's strip: its bytes, as a Pi's SPI would send them
        super().__init__(pinmap, pin_factory=self.sim.factory, spi=self.spi, **kwargs)

    def start(self, service: Service, scan: bool = True) -> None:
        from .sim import follow_new_games

        if self._preset is None:  # the simulated pieces stand where the game says
            self.sim.set_occupied(service.expected)
            assert self.board is not None
            self.board.take_reading()
        self._unfollow = follow_new_games(self.sim, service)  # and go back to the start at a new game
        super().start(service, scan)

    def close(self) -> None:
        unfollow, self._unfollow = self._unfollow, None
        if unfollow is not None:
            unfollow()
        super().close()

    def describe(self) -> dict[str, object]:
        """The board's view, and the simulated magnets with their move count: where the pieces
        really are (a stuck switch aside), and how new that is beside the page's own clicks."""
        moves, pieces = self.sim.pieces()
        return {**super().describe(), "pieces": pieces, "moves": moves}


def _default_pin_factory() -> Factory:
    """gpiozero's own choice of pin factory (lgpio on a Pi), quietly: off a Pi, one BackendError
    naming the cause and the fix instead of a warning per library tried and gpiozero's error."""
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory, PinFactoryFallback

    from .pinaccess import lgpio_work_dir, pin_access_problem

    lgpio_work_dir()  # `sudo -u senet senet-pi selftest` from a folder senet may not write
    causes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PinFactoryFallback)
        try:
            Device.ensure_pin_factory()  # keeps a factory already chosen (GPIOZERO_PIN_FACTORY, tests)
            factory = Device.pin_factory
            assert factory is not None  # ensure_pin_factory() sets one or raises
            return factory
        except BadPinFactory:
            causes = [str(w.message).removeprefix("Falling back from ") for w in caught]
    lgpio = next((c for c in causes if c.startswith("lgpio:")), "lgpio: not loaded")
    if not on_a_pi():
        raise BackendError(NO_PINS.format(cause="this is not a Raspberry Pi", fix=OFF_A_PI))
    denied = pin_access_problem()
    if denied:  # the library is there; the user's groups are not (yet)
        raise BackendError(f"the gpio backend cannot open the pins: {denied}")
    fix = INSTALL_PINS.format(python=shlex.quote(sys.executable))
    raise BackendError(NO_PINS.format(cause=f"no pin library loads ({lgpio})", fix=fix))


def on_a_pi() -> bool:
    """Whether this machine is a Raspberry Pi (its device tree says so)."""
    try:
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False
