"""The computer at a real board: it throws on its turn, chooses its move and says it; a
person carries the move out, and the referee checks it like any other.

The board cannot move pieces, so the computer's move is a request: a `prompt` with its squares
(the terminal prints it, the page draws an arrow, the USB bridge lights the two squares). A
legal move other than the chosen one made for the computer is taken back with the referee's own
undo (journaled as an `undo` input, so replay and resume judge it alike) and the choice is shown
again: the computer's move is the one to play. The card game's cards are the computer's to play
itself (the hands live in software); it never looks at a hand it may not see: its copy of the
game has the cards it cannot see dealt anew (`Game.redeal_unseen`) before it decides.

Who holds each seat is journaled per game (`Journal.record_seats`), so `senet-pi games` and
`export` say who played, and a restarted service gives the computer its seats back.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ..errors import SeatError
from ..events import CardAction, Undo, read_input
from ..opponent.levels import ALONE_LEVEL, LEVEL_RANGE, level_names
from ..rules import Game, Move
from ..rules.board import square_name
from ..rules.core import PLAYER_IDS
from ..rules.text import Text
from ..verdicts import Idle, NewGame, Prompt, Refused, Verdict
from .core import Service

if TYPE_CHECKING:
    from ..opponent.tables import Tables

#: Seconds the computer waits before it throws, so people see the board settle and whose turn it is.
PAUSE = 1.0


def parse_seats(text: str, level: int) -> dict[str, int]:
    """`"B"` or `"B,C"` (the seats the computer takes) at `level`, as {player id: level}; SeatError
    for anything else ("none" or "" for no seat)."""
    check_level(level)
    if not isinstance(text, str):
        raise SeatError("the computer's seats are player letters, e.g. B or B,C")
    words = [w.strip().upper() for w in text.replace(" ", ",").split(",") if w.strip()]
    if words in ([], ["NONE"]):
        return {}
    wrong = [w for w in words if w not in PLAYER_IDS]
    if wrong:
        raise SeatError(f"{wrong[0]!r} is not a seat: the computer takes A, B, C or D (e.g. --computer B)")
    return dict.fromkeys(words, level)


def check_level(level: object) -> int:
    """`level` if it is one a person can choose, else SeatError naming the valid ones."""
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVEL_RANGE:
        raise SeatError(f"the computer's level must be {level_names()}, not {level!r}")
    return level


def who(level: int | None) -> str:
    """How the journal names a seat's player: "human" or "computer N"."""
    return "human" if level is None else f"computer {level}"


@dataclass(frozen=True)
class Choice:
    """What the computer decided at one moment of one game: the move a person must carry out."""

    game: int
    at: int  # how many actions the game had when the move was chosen (the decision's place)
    player: str
    move: Move

    def text(self, several: bool) -> Text:
        to = square_name(self.move.to_sq)
        if several:  # more than one computer seat: say which
            return Text(
                "The computer ({player}) plays {from_sq} → {to}: move its piece",
                player=self.player,
                from_sq=self.move.from_sq,
                to=to,
            )
        return Text("The computer plays {from_sq} → {to}: move its piece", from_sq=self.move.from_sq, to=to)


Chooser = Callable[[Game, int, int], Move]


def engine_chooser(tables: Tables | None = None) -> Chooser:
    """The opponent's levels, seeded by the decision's place so a game replays the same choices."""

    def choose(game: Game, level: int, seed: int) -> Move:
        from ..opponent.players import LEVELS, Computer

        return Computer(LEVELS[level], tables, seed=seed).choose(game)

    return choose


def engine_card_turn(tables: Tables | None = None) -> Callable[[Game, int, int], tuple[str, object]]:
    """The card the level plays (or an exchange, or a pass), decided on the game given (whose unseen
    cards the caller has dealt anew)."""

    def decide(game: Game, level: int, seed: int) -> tuple[str, object]:
        from ..opponent.players import LEVELS, Computer

        before = len(game.actions)
        Computer(LEVELS[level], tables, seed=seed).card_turn(game)
        kind, value = game.actions[before] if len(game.actions) > before else ("pass", True)
        return kind, value

    return decide


class ComputerPlayer:
    """Plays the seats the computer holds in a service's games. `step()` does what is due now (tests
    call it); `start()` runs it on a thread woken by every verdict."""

    def __init__(
        self,
        service: Service,
        seats: Mapping[str, int] | None = None,
        *,
        throw: Callable[[], object] | None = None,
        tables: Tables | None = None,
        pause: float = PAUSE,
        clock: Callable[[], float] = time.monotonic,
        chooser: Chooser | None = None,
        card_turn: Callable[[Game, int, int], tuple[str, object]] | None = None,
    ) -> None:
        """`throw`: how the computer throws (the backend's thrower, so its sticks light; default a press
        of the service's button). `seats`: {player id: level}; None = as the journal recorded for the
        game in progress (a restart), else nobody."""
        self.service = service
        self._throw = throw or (lambda: service.press())
        self.tables = tables
        self._choose = chooser or engine_chooser(tables)
        self._card_turn = card_turn or engine_card_turn(tables)
        self.pause = pause
        self._clock = clock
        self._lock = threading.Lock()
        self.choice: Choice | None = None
        self._turn_since: tuple[tuple[int, int], float] | None = None  # when the computer's throw became due
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._playing = False  # start() was called: the thread runs whenever the computer holds a seat
        self._thread_lock = threading.Lock()
        self.errors: list[str] = []
        recorded = self._recorded() if seats is None else None
        self.seats: dict[str, int] = dict(recorded if recorded is not None else seats or {})
        self.default = dict(seats or {})  # what an exhibit's idle reset goes back to (a visitor's choice ends)
        self._record()
        self._unsubscribe = service.subscribe(self._verdicts)

    # ------------------------------------------------------------------ seats and the journal

    def _recorded(self) -> dict[str, int] | None:
        """The seats journaled for the game in progress (its last word for each seat), or None."""
        journal = self.service.journal
        if journal is None:
            return None
        seats = journal.seats(self.service.game_id)
        if not seats:
            return None
        out = {}
        for pid, entries in seats.items():
            last = entries[-1] if entries else "human"
            if last.startswith("computer ") and last[9:].isdigit():
                level = int(last[9:])
                if level in LEVEL_RANGE:
                    out[pid] = level
        return out

    def set_seats(self, seats: Mapping[str, int]) -> None:
        """The computer takes these seats (and leaves the others) from now on, in this game and the next."""
        for pid, level in seats.items():
            if pid not in PLAYER_IDS or level not in LEVEL_RANGE:
                raise SeatError(f"no seat {pid!r} at level {level!r}")
        with self.service.lock:
            with self._lock:
                self.seats = dict(seats)
                self.choice = None
            self._record()
        self._need_thread()
        self._wake.set()

    def _record(self) -> None:
        """Journal who holds each seat of the game in progress: at its start, and whenever it changes
        (a seat's entries read "human", then "computer 3"). A game nobody gave the computer is not written."""
        journal = self.service.journal
        if journal is None:
            return
        with self.service.lock:
            game_id, players = self.service.game_id, self.service.read(lambda game: game.player_ids)
            had = journal.seats(game_id) or {}
            if not had and not any(pid in self.seats for pid in players):
                return
            now = {pid: who(self.seats.get(pid)) for pid in players}
            merged = {pid: list(had.get(pid, [])) for pid in players}
            for pid, entry in now.items():
                if not merged[pid] or merged[pid][-1] != entry:
                    merged[pid].append(entry)
            if merged != had:
                journal.record_seats(game_id, merged)

    def view(self) -> dict[str, object]:
        """What the page shows: the seats, and the move the computer waits for a person to carry out."""
        with self.service.lock:
            with self._lock:
                seats, choice = dict(self.seats), self.choice
            now = self._now()
        out: dict[str, object] = {"seats": seats, "move": None, "tables": self._table_problems()}
        if choice is not None and (choice.game, choice.at) == now:  # not yet carried out
            out["move"] = {
                "player": choice.player,
                "from": choice.move.from_sq,
                "to": square_name(choice.move.to_sq),
                "text": choice.text(len(seats) > 1),
            }
        return out

    def _table_problems(self) -> list[object]:
        """Each endgame table refused by a check, in words (the page, `status` and the fleet show them)."""
        problems = getattr(self.tables, "problems", None)
        return [p["text"] for p in problems()] if problems is not None else []

    # ------------------------------------------------------------------ playing

    def _verdicts(self, verdicts: list[Verdict]) -> None:
        if any(isinstance(v, Idle) for v in verdicts):  # nobody played for a while: the next visitor starts afresh
            with self._lock:
                self.seats = dict(self.default)
            self._need_thread()
        if any(isinstance(v, NewGame) for v in verdicts):
            with self._lock:
                self.choice = None
            self._record()
        self._wake.set()

    def _now(self) -> tuple[int, int]:
        """The game in progress and how many actions it has had: the place of a decision."""
        return self.service.read(lambda game: (self.service.game_id, len(game.actions)))

    def step(self) -> bool:
        """Do what is due now: take back a wrong move made for the computer, throw, choose a move, or
        play a card. Returns whether it did something. Never holds the service's lock while it searches."""
        service = self.service
        with service.lock:  # decided and begun at one moment of the game
            task = service.read(self._task)
            if task[0] == "back":
                return self._take_back(task[1])
            if task[0] == "pass":
                service.handle(CardAction("pass", True))
                return True
        if task[0] == "none":
            return False
        if task[0] == "throw":
            self._throw()
            return True
        _, key, mover, level, seed, view = task
        if task[0] == "card":
            kind, value = self._card_turn(view, level, seed)
            with service.lock:
                if self._now() != key:
                    return False
                service.handle(read_input(kind, value))  # the engine's action, read as it comes in
            return True
        move = self._choose(view, level, seed)
        with service.lock:
            if self._now() != key:
                return False  # the game moved on while it thought: decide again from there
            choice = Choice(key[0], key[1], mover, move)
            with self._lock:
                self.choice = choice
            text = choice.text(len(self.seats) > 1)
            service.note(Prompt(text, mover, move.from_sq, square_name(move.to_sq)))
        return True

    def _task(self, game: Game) -> tuple[Any, ...]:
        """What is due in `game` (read under the service's lock): ("none",), ("back", move), ("pass",),
        ("throw",), or ("card" | "move", place, mover, level, seed, a copy to decide on)."""
        if game.is_over or not self.seats:
            return ("none",)
        actions = game.actions
        key = (self.service.game_id, len(actions))
        wrong = self._wrong_move(game, actions)
        if wrong is not None:
            return ("back", wrong)
        mover = game.mover_id
        level = self.seats.get(mover)
        if level is None:
            self._turn_since = None
            return ("none",)
        seed = key[0] * 100_003 + key[1]
        if game.pending is None and game.turn_starts_with != "card":
            if self.service.throw_blocked() is not None:
                self._turn_since = None
                return ("none",)
            if self._turn_since is None or self._turn_since[0] != key:
                self._turn_since = (key, self._clock())
            if self._clock() - self._turn_since[1] < self.pause:
                return ("none",)
            self._turn_since = None
            return ("throw",)
        if game.pending is not None:
            current = self.choice
            if current is not None and (current.game, current.at) == key:
                return ("none",)  # chosen: a person is to carry it out
            if not game.legal_moves():
                return ("pass",) if game.phase == "residue" else ("none",)
        view = game.copy(history=False)
        if game.turn_starts_with == "card":  # the cards it cannot see, dealt anew: it never reads them
            view.redeal_unseen(mover, random.Random(seed))
        return ("card" if game.pending is None else "move", key, mover, level, seed, view)

    def _wrong_move(self, game: Game, actions: list[tuple[str, object]]) -> Move | None:
        """The legal move made for the computer instead of the one it chose, while it can still be taken back."""
        choice = self.choice
        if choice is None or choice.game != self.service.game_id or len(actions) <= choice.at:
            return None
        kind, made = actions[choice.at]
        if kind != "move" or not isinstance(made, Move):
            return None
        if (made.from_sq, made.to_sq) == (choice.move.from_sq, choice.move.to_sq):
            with self._lock:
                self.choice = None  # carried out as chosen
            return None
        if actions[-1][0] != "move" or len(actions) != choice.at + 1:
            with self._lock:  # thrown since (or more moves): it stands, as the referee's undo would say
                self.choice = None
            return None
        return made

    def _take_back(self, made: Move) -> bool:
        """Say that the move was not the computer's, and take it back with the referee's undo: the
        referee then guides the piece back and the computer's move is shown again."""
        choice = self.choice
        assert choice is not None
        text = Text(
            "{made} is not the computer's move: it plays {from_sq} → {to}. Put the piece back and play that",
            made=str(made),
            from_sq=choice.move.from_sq,
            to=square_name(choice.move.to_sq),
        )
        self.service.note(Refused(text))
        self.service.handle(Undo())
        return True

    # ------------------------------------------------------------------ the thread

    def start(self) -> None:
        """Play on a thread of its own, woken by every verdict (and every 0.2 s for the pause while it
        holds a seat). The thread starts with the computer's first seat: a board where nobody plays
        the computer has none (it would wake five times a second for nothing)."""
        self._playing = True
        self._need_thread()

    def _need_thread(self) -> None:
        """Start the thread, once, if `start()` asked for one and the computer holds a seat."""
        with self._thread_lock:
            if self._playing and self._thread is None and self.seats and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="senet-pi computer", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(0.2 if self.seats else None)  # no seat: nothing is due until a verdict or a seat
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                for _ in range(8):  # what is due now, a few steps at most (a refused action is not retried at once)
                    if self._stop.is_set() or not self.step():
                        break
            except Exception as exc:  # a bug of ours must not stop the game: said once per kind
                why = f"{type(exc).__name__}: {exc}"[:200]
                if why not in self.errors:
                    self.errors.append(why)
                    self.service.note(Refused(Text("the computer could not play: {why}", why=why)))
                self._stop.wait(1.0)

    def close(self) -> None:
        """Stop playing (twice is harmless)."""
        self._stop.set()
        self._wake.set()
        with self._thread_lock:
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        unsubscribe, self._unsubscribe = self._unsubscribe, lambda: None
        unsubscribe()


def backend_thrower(service: Service, backend: object) -> Callable[[], object]:
    """The computer's throw on the board's own thrower, so its sticks light as for a press; a plain
    press of the service's button where the backend has no thrower."""
    control = getattr(backend, "control", None)

    def throw() -> object:
        rng = getattr(control, "rng", None)
        press = service.press(rng)
        sticks = getattr(control, "sticks", None)
        if press.throw is not None and sticks is not None:
            faces = press.throw.faces if len(press.throw.faces) == 4 else (1, 1, 1, 1)
            sticks.show(faces)
        return press

    return throw


def seats_from_config(config: Mapping[str, Any], computer: str | None, level: int | None) -> dict[str, int] | None:
    """The seats `senet-pi run` gives the computer: --computer/--level, else the config's COMPUTER and
    COMPUTER_LEVEL; None when neither names any (then the journal's record for a resumed game holds)."""
    if level is not None:
        check_level(level)  # also when it only sets the exhibit's "play alone" level
    text = computer if computer is not None else config.get("COMPUTER")
    if text is None:
        return None
    lvl = level if level is not None else config.get("COMPUTER_LEVEL", 3)
    return parse_seats(str(text), lvl)


class AtTheBoard:
    """The computer's seats and the page's hints for one running service (`senet-pi run`)."""

    def __init__(self, player: ComputerPlayer, coach: object, alone_level: int = ALONE_LEVEL) -> None:
        self.player = player
        self.coach = coach
        self.alone_level = alone_level

    def attach(self, board: Any) -> None:
        """Give a board's shared objects (`senet_pi.fleet.published.Board`, or a page made by
        `senet_pi_web.create_app`, which holds one) the computer, the hints and the alone level."""
        shared = getattr(board, "extensions", None)  # a Flask app: its shared value holds the board
        if shared is not None:
            board = shared["senet"].board
        board.computer, board.coach, board.alone_level = self.player, self.coach, self.alone_level

    def close(self) -> None:
        self.player.close()
        self.coach.close()  # type: ignore[attr-defined]  # the coach is typed by its view; every coach closes


class TablesWhenNeeded:
    """The opponent's tables, read at their first use (which imports numpy, about 13 MB): a board
    at rest, with nobody playing the computer or being given hints, does without them."""

    def __init__(self) -> None:
        self._tables: Tables | None = None

    def __getattr__(self, name: str) -> object:
        if self._tables is None:
            from ..opponent.tables import Tables
            from .rebuild import rebuild_in_background

            self._tables = Tables(build=False, rebuild=rebuild_in_background)  # a refused table is rebuilt
        return getattr(self._tables, name)

    def problems(self) -> list[dict[str, object]]:
        """The refused tables (none while no table was read: numpy stays unloaded)."""
        return self._tables.problems() if self._tables is not None else []


def start_computer(
    service: Service,
    backend: object,
    seats: Mapping[str, int] | None,
    alone_level: int = ALONE_LEVEL,
    tables: Tables | None = None,
    pause: float = PAUSE,
) -> AtTheBoard:
    """Start the computer (on the seats given, else those journaled for the game in progress) and the
    hints' analysis, each on a thread of its own. Tables are read where built (`senet-pi solve`),
    never built here: a missing table costs exactness, not minutes at the board."""
    from .coach import Coach, engine_analyser

    if tables is None:  # a stand-in with the tables' methods, reading them at first use
        tables = cast("Tables", TablesWhenNeeded())
    player = ComputerPlayer(service, seats, throw=backend_thrower(service, backend), tables=tables, pause=pause)
    coach = Coach(service, engine_analyser(tables), lambda: player.seats)
    player.start()
    coach.start()
    return AtTheBoard(player, coach, alone_level)
