"""`senet-pi run`: the service with its board, thrower and journal, and the terminal beside it.

Verdicts and prompts are printed as they happen. Lines typed on standard input (or read
from `--script`) drive the simulated board's mock pins (`lift 10`, `place 13`, `press`) and
the operator's actions (`throw 3`, `enter 10 13`, `undo`, `answer 1`...); `help` lists them.
"""

from __future__ import annotations

import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol, TextIO

from ..errors import CommandError, InvalidThrowError, SenetError
from ..events import Answer, MoveEntry, Resync, Throw, Undo
from ..hardware.backend import Backend, SimBackend
from ..hardware.serial_link import SerialBackend
from ..hardware.sim import SimBoard
from ..i18n import DEFAULT
from ..rules.board import OFF, ROWS, bit, mask
from ..service.core import Service
from ..verdicts import Verdict
from .status import in_ram
from .systemd import Notifier, Watchdog, scan_counter
from .terminal import describe

TICK = 0.05  # seconds between the service's ticks while the table is in use (settle and guidance timing)
#: Seconds between ticks at rest: nothing on the board has changed for LIVELY seconds. What is
#: due then (a question unanswered, an idle exhibit's reset, the disk retried) is due in tens of
#: seconds or minutes, so a second is soon enough, and the board wakes once a second, not 20
#: times: each wake-up of a Pi idling all day costs more than the tick's own work. Any input or
#: verdict (a switch, a press, the page, the computer) wakes the ticks at once and makes them fast again.
REST_TICK = 1.0
LIVELY = 10.0
HAND_PACE = 0.1  # seconds a simulated hand takes for one lift or place
MAX_WAIT_MS = 600_000  # `wait` at most ten minutes: a script's pause, not a way to stop the terminal
MAX_HOLD = 60.0  # seconds the button can be held (5 s offers a new game; longer changes nothing)

HELP = """\
commands (one per line):
  lift N | place N | slide F T     move a piece on the simulated board (F T: lift F, place T)
  press | hold SECONDS             the thrower's button (hold 2 = offer undo, hold 5 = offer new game)
  throw V                          enter a throw made with real sticks (modern: throw 3 5)
  enter F T [BY]                   enter a move by hand (T may be off)
  answer N | undo | resync         answer the referee's question, take back a move, let the board win
  new [RULESET] [PLAYERS]          start a new game
  wait MS | status | help | quit"""


class Closeable(Protocol):
    """Something the runner closes when it stops (the voice)."""

    def close(self) -> None: ...


@dataclass
class Runner:
    """Ties the service, a backend and a text console together."""

    service: Service
    backend: Backend
    out: TextIO | None = None  # None: the standard output of the moment (not the one at import)
    language: str = DEFAULT  # the language verdicts are printed in (--language, else the config's LANGUAGE)

    def __post_init__(self) -> None:
        if self.out is None:
            self.out = sys.stdout
        self._stop = threading.Event()
        self._stir = threading.Event()  # set by an input or verdict (and by close): tick now, and often
        self._stirred = time.monotonic()  # when the table was last in use
        self._lock = threading.Lock()
        self._ticker = threading.Thread(target=self._tick, name="senet-pi ticks", daemon=True)
        self._unsubscribe: Callable[[], None] = self.service.subscribe(self._print)
        self.notifier = Notifier()  # systemd's Type=notify; does nothing when not under systemd
        self.watchdog = Watchdog(self.notifier, scan_counter(self.backend))
        self.voice: Closeable | None = None  # the board's voice (cli/voice.py), when SPEAK = true

    def start(self) -> None:
        for note in self.service.notes:
            self.say(f"note: {note}")
        journal = self.service.journal
        fstype = in_ram(journal.path.parent) if journal is not None else None
        if journal is not None and fstype:
            self.say(
                f"note: the journal {journal.path} is on {fstype}, in RAM: every game in it is lost at power off "
                "(give --journal a path on the SD card or a USB disk)"
            )
        if isinstance(self.backend, SerialBackend):
            self.backend.start(self.service, wait=5.0)
        else:
            self.backend.start(self.service)
        self._ticker.start()
        self.say(self.board_text())

    def _tick(self) -> None:
        """Tick until closed: every TICK while the table is in use, every REST_TICK at rest (at most
        the watchdog's period); an error in one tick is said, never the end of the ticks."""
        period = self.watchdog.period
        rest = min(REST_TICK, period) if period else REST_TICK
        while not self._stop.is_set():
            lively = time.monotonic() - self._stirred < LIVELY
            self._stir.wait(TICK if lively else rest)
            self._stir.clear()
            if self._stop.is_set():
                break
            try:
                self.service.tick()
            except Exception as exc:  # a bug of ours must not stop settling and guidance
                self.say(f"!! internal error in a tick (the game goes on): {type(exc).__name__}: {exc}")
            else:
                self.watchdog.beat()  # only after a tick that returned: a hung tick starves the watchdog

    def ready(self, status: str) -> None:
        """Tell systemd the board and the page are up (READY=1), with a status line."""
        self.name_threads()
        self.notifier.send("READY=1", f"STATUS={status}")

    @staticmethod
    def name_threads() -> None:
        """Give each thread its Python name in the kernel too, so `top -H`, `ps -L` and the idle
        benchmark say which one wakes the board ("scanner", "ticks"), not "python" for all."""
        for thread in threading.enumerate():
            name = thread.name.removeprefix("senet-pi ").encode("ascii", "replace")[:15]  # the kernel keeps 15
            try:
                with open(f"/proc/self/task/{thread.native_id}/comm", "wb") as comm:
                    comm.write(name)
            except OSError:
                pass  # not Linux, or the thread has ended: its name is only a help

    def _print(self, verdicts: list[Verdict]) -> None:
        """Say the verdicts; every input publishes (verdicts or none), so this also wakes the ticks."""
        self._stirred = time.monotonic()
        if not self._stir.is_set():
            self._stir.set()
        for verdict in verdicts:
            line = describe(verdict, self.language)
            if line:
                self.say(line)
        if verdicts and self.notifier.enabled:  # `systemctl status` shows the game's latest line
            service = self.service
            self.notifier.send(f"STATUS={service.variant}: {service.to_move} to play; {len(service.history)} verdicts")

    def say(self, text: str) -> None:
        with self._lock:
            print(text, file=self.out, flush=True)

    # ------------------------------------------------------------------ commands

    def command(self, line: str) -> bool:
        """Carry out one line; False when it asks to quit. CommandError for a line that makes no sense.

        Complexity: one table of the terminal's verbs, each a few lines, read top to bottom as `help` lists them."""
        words = shlex.split(line, comments=True)
        if not words:
            return True
        verb, args = words[0].lower(), words[1:]
        sim = self.backend.sim if isinstance(self.backend, SimBackend) else None
        if verb in ("quit", "exit"):
            return False
        if verb == "help":
            self.say(HELP)
        elif verb == "status":
            self.say(self.board_text())
        elif verb == "wait":
            time.sleep(_number(args, 0, "wait MS", MAX_WAIT_MS) / 1000)
            self.service.tick()  # judge what is due now, not at the ticker's next turn: a script prints in order
        elif verb in ("lift", "place", "slide", "press", "hold"):
            if sim is None:
                raise CommandError(f"'{verb}' works the simulated board; this is the {self.backend.name} backend")
            if verb in ("slide", "lift", "place"):  # a hand cannot do these: said, not silently nothing
                _check_hand(sim, verb, args)
            if verb == "slide":
                sim.lift(_square(args, 0))
                time.sleep(HAND_PACE)
                sim.place(_square(args, 1))
                time.sleep(HAND_PACE)
            elif verb in ("lift", "place"):
                getattr(sim, verb)(_square(args, 0))
                time.sleep(HAND_PACE)  # a hand is never faster: the scanner sees every change
            else:
                sim.press()
                time.sleep(0.05 if verb == "press" else _number(args, 0, "hold SECONDS", MAX_HOLD))
                sim.release()
        elif verb == "throw":
            if not args:
                raise CommandError("throw needs a value, e.g. throw 3 (modern: throw 3 5)")
            values = [_whole(args, i, "throw V", 0, 99) for i in range(len(args))]
            value = self.service.throw_from_numbers(values)
            try:
                self.service.parse_throw(value)  # a throw this rule set cannot make is said, never journaled
            except InvalidThrowError as exc:
                raise CommandError(str(exc)) from None
            self.service.handle(Throw(value))
        elif verb == "enter":
            to = OFF if len(args) > 1 and args[1].lower() == "off" else _square(args, 1)
            by = _whole(args, 2, "enter F T BY (a die or dice sum from 0 to 12)", 0, 12) if len(args) > 2 else 0
            self.service.handle(MoveEntry(_square(args, 0), to, by))
        elif verb == "answer":
            if not args:
                raise CommandError("answer needs the option's number or text")
            text = " ".join(args)
            if len(text) > 200:
                raise CommandError("answer with an option's number or its text (at most 200 characters)")
            choice = _whole(args, 0, "answer N", 0, 99) if args[0].isdigit() else text
            self.service.handle(Answer(choice))
        elif verb in ("undo", "resync"):
            self.service.handle(Undo() if verb == "undo" else Resync())
        elif verb == "new":
            # any whole number: the rule set says which counts it plays (and refuses the rest, unjournaled)
            players = _whole(args, 1, "new RULESET PLAYERS", 0, 10**15) if len(args) > 1 else self.service.players
            self.service.new_game(args[0] if args else self.service.variant, players)
            if sim is not None:
                self._set_up_pieces(sim)
            self.say(self.board_text())
        else:
            raise CommandError(f"unknown command {verb!r}; type help")
        return True

    def _set_up_pieces(self, sim: SimBoard) -> None:
        """Wait until the scanner has seen the simulated pieces where the new game starts (`sim`
        puts them there itself when it hears of the new game): a `lift` right after `new` must
        find the piece it lifts."""
        expected = self.service.expected
        board = self.backend.board if isinstance(self.backend, SimBackend) else None
        end = time.monotonic() + 5.0
        while board is not None and board.occupied != expected:
            if time.monotonic() > end:
                raise CommandError("the simulated board's scanner did not see the new game's pieces")
            time.sleep(0.01)

    def feed(self, lines: Iterable[str], echo: bool = False) -> bool:
        """Carry out lines until one says quit (then True); errors are printed, never raised."""
        for line in lines:
            if echo and line.strip() and not line.lstrip().startswith("#"):
                self.say(f"> {line.rstrip()}")
            try:
                if not self.command(line):
                    return True
            except (SenetError, ValueError) as exc:
                self.say(f"error: {exc}")
            except Exception as exc:  # a line nothing foresaw: said, and the service goes on
                self.say(f"error: cannot carry out {line.strip()[:60]!r}: {type(exc).__name__}: {exc}"[:300])
        return False

    def board_text(self) -> str:
        """The board as three rows in playing order, with each piece's owner and the sensed switches."""
        view = self.service.snapshot().to_json()
        squares, sensed_squares = view["squares"], view["sensed"]
        assert isinstance(squares, dict) and isinstance(sensed_squares, list)  # the snapshot's JSON shapes
        owners = {int(sq): str(piece["owner"]) for sq, piece in squares.items()}
        sensed = mask(sensed_squares)
        pending = view["throw"]
        start = "throw" if view["turn_starts_with"] == "throw" else "play a card"
        lines = [f"{view['variant']}: {view['to_move']} to " + ("move" if pending is not None else start)]
        if pending is not None:
            lines[0] += f" (throw {tuple(pending) if isinstance(pending, list) else pending})"
        for n, row in enumerate(ROWS):
            squares = list(row) if n != 1 else list(reversed(row))
            cells = []
            for sq in squares:
                mark = owners.get(sq, ".")
                if bool(sensed & bit(sq)) != (sq in owners):
                    mark = "?"  # the switch and the game disagree
                cells.append(f"{sq:>2}{mark}")
            lines.append(" ".join(cells))
        return "\n".join(lines)

    def close(self) -> None:
        self.notifier.send("STOPPING=1", "STATUS=stopping")
        self._stop.set()
        self._stir.set()
        if self._ticker.is_alive():
            self._ticker.join(timeout=2)
        self._unsubscribe()
        if self.voice is not None:
            self.voice.close()
        self.backend.close()
        self.service.close()
        self.notifier.close()


def _check_hand(sim: SimBoard, verb: str, args: list[str]) -> None:
    """CommandError for a lift from an empty square or a place on an occupied one."""
    lifts = [_square(args, 0)] if verb in ("lift", "slide") else []
    places = [_square(args, 1 if verb == "slide" else 0)] if verb in ("place", "slide") else []
    for square in lifts:
        if not sim.magnets & bit(square):
            raise CommandError(f"square {square} holds no piece to lift")
    for square in places:
        if sim.magnets & bit(square) and square not in lifts:
            raise CommandError(f"square {square} already holds a piece: lift it first")


def _square(args: list[str], i: int) -> int:
    if len(args) <= i or not (args[i].isascii() and args[i].isdigit()) or not 1 <= int(args[i]) <= 30:
        raise CommandError("a square is a number from 1 to 30")
    return int(args[i])


def _number(args: list[str], i: int, usage: str, most: float) -> float:
    """A finite number from 0 to `most`, else CommandError: `inf`, `nan` and 1e400 never reach a sleep."""
    try:
        value = float(args[i])
    except (IndexError, ValueError):
        raise CommandError(f"usage: {usage}") from None
    if not 0 <= value <= most:  # False for nan too
        raise CommandError(f"usage: {usage} (a number from 0 to {most:g})")
    return value


def _whole(args: list[str], i: int, usage: str, least: int, most: int) -> int:
    """A whole number from `least` to `most`, written in digits (no 1e30, no inf), else CommandError."""
    text = args[i] if len(args) > i else ""
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(most)) or not least <= int(text) <= most:
        raise CommandError(f"usage: {usage}: a whole number from {least} to {most}")
    return int(text)
