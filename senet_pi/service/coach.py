"""Hints for the page: the best move with its chance, and what a move cost.

Every decision a person faces (a throw waiting, more than one legal move) is analysed on a
thread of its own as soon as it arises, with the opponent's hint (`senet_pi.service.hint`:
exact where the solved tables reach, else the strongest level's search, bounded in nodes), on a
copy of the game taken when the throw came. So the page's "hint" button usually finds the
answer ready, and once the move is made its cost is known: more than `LITTLE` below the best
move's chance and the page says "this move lost 9 % of your chances: 24-26 kept them". Nothing
here holds the service's lock while it searches, and the request that asks waits at most a
moment (the live stream never waits at all). In the card game the copy has every hidden card
dealt anew before it is analysed, the mover's own hand too: the hint and the move's cost are
shown on the shared screen to anyone, so they are worked out from public information only (the
cards played and the pieces), never from a hand that screen does not show.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..rules import Game
from ..rules.board import square_name
from ..rules.text import Text
from ..verdicts import Moved, NewGame, Verdict
from .core import Service

#: A move that cost less than this (a chance to win, 0-1) is not remarked on.
LITTLE = 0.03
#: Analyses kept (one per decision): the page asks only about the latest few.
KEPT = 32

Key = tuple[int, int]  # game id, actions played when the decision came (an undo comes back to the same)
Analyser = Callable[[Game], dict[str, Any]]


@dataclass(frozen=True)
class Advice(Verdict):
    """What a person's move cost (said, never journaled): the page shows it and reads it out."""

    v: ClassVar[str] = "advice"
    text: str
    player: str


#: Nodes the page's analysis of one decision may search (the strongest level's search, on the budget
#: the README's figures suggest for a Raspberry Pi 4 to answer within about a second; the tables'
#: exact values are read, not searched, so where they reach the hint is exact whatever the budget).
PAGE_BUDGET = 6_000


def engine_analyser(tables: object | None = None, budget: int = PAGE_BUDGET) -> Analyser:
    """The opponent's hint for a position: the mover's chance and, with a value waiting, each legal
    move's, best first (as `senet-pi hint` gives it), with each move's squares for the page's arrow."""

    def analyse(game: Game) -> dict[str, Any]:
        from dataclasses import replace

        from ..opponent.players import Computer
        from .hint import Hinter

        hinter = Hinter(tables)  # type: ignore[arg-type]  # the tables or their lazy stand-in (seat.TablesWhenNeeded)
        top = hinter.computer.level  # the strongest level, on the page's budget
        hinter.computer = Computer(replace(top, budget=min(top.budget, budget)), tables)  # type: ignore[arg-type]  # the same stand-in for the tables, as above
        mover = game.player_ids.index(game.mover_id)
        out: dict[str, Any] = {"player": game.player_ids[mover]}
        if game.pending is None:
            win, exact = hinter.chance(game, mover)
            out.update(win=round(win, 4), exact=exact, moves=[])
            return out
        legal = {str(m): m for m in game.legal_moves()}
        moves, exact = hinter.moves(game)
        listed = [
            {"move": text, "from": legal[text].from_sq, "to": square_name(legal[text].to_sq), "win": round(v, 4)}
            for text, v in moves
            if text in legal
        ]
        best = listed[0]["win"] if listed else round(hinter.chance(game, mover)[0], 4)
        throw = game.pending
        out.update(throw=list(throw) if isinstance(throw, tuple) else throw, win=best, exact=exact, moves=listed)
        return out

    return analyse


def public_copy(game: Game, seed: int) -> Game:
    """A copy of `game` holding only what the shared screen shows: in the card game every hidden
    card (the mover's hand too) dealt anew from the cards nobody has seen, by `seed`."""
    copy = game.copy(history=False)
    if game.turn_starts_with == "card":
        copy.redeal_unseen(None, random.Random(seed))
    return copy


class Coach:
    """Analyses the people's decisions off the service's threads, keeps the answers, and says what a
    move cost. `step()` analyses what is waiting (tests call it); `start()` runs it on a thread."""

    def __init__(
        self,
        service: Service,
        analyser: Analyser,
        computer_seats: Callable[[], Mapping[str, int]] = dict,
        little: float = LITTLE,
    ) -> None:
        self.service = service
        self.analyse = analyser
        self.computer_seats = computer_seats
        self.little = little
        self._done: OrderedDict[Key, dict[str, Any]] = OrderedDict()
        self._waiting: OrderedDict[Key, Game] = OrderedDict()
        self._moved: list[tuple[Key, str, str]] = []  # (decision, move made, player) whose cost is owed
        self._cond = threading.Condition()
        self._stop = False
        self._thread: threading.Thread | None = None
        self.lost: dict[str, object] | None = None  # the last person's move that cost more than a little
        self.errors: list[str] = []
        self._unsubscribe = service.subscribe(self._verdicts)
        with service.lock:
            service.read(self._watch)

    # ------------------------------------------------------------------ what the service does

    def _key(self, game: Game) -> Key:
        return (self.service.game_id, len(game.actions))

    def _watch(self, game: Game) -> Key | None:
        """Queue the position for analysis when it is a person's decision (called under the service's lock)."""
        if game.is_over or game.pending is None:
            return None
        mover = game.mover_id
        if mover in self.computer_seats() or len(game.legal_moves()) < 2:
            return None
        return self._queue(game)

    def _queue(self, game: Game) -> Key:
        key = self._key(game)
        with self._cond:
            if key not in self._done and key not in self._waiting:
                self._waiting[key] = public_copy(game, key[1])
                self._cond.notify_all()
        return key

    def _verdicts(self, verdicts: list[Verdict]) -> None:
        """On every batch (under the service's lock): note a person's move to rate, queue the next decision."""
        if any(isinstance(v, NewGame) for v in verdicts):
            with self._cond:
                self.lost = None
        for v in verdicts:
            if not isinstance(v, Moved) or v.player in self.computer_seats():
                continue
            actions = self.service.read(lambda game: game.actions)
            at = max((i for i, (kind, _) in enumerate(actions) if kind == "move"), default=-1)
            if at < 0:
                continue
            made = actions[at][1]  # the decision was taken with `at` actions played
            with self._cond:
                self._moved.append(((self.service.game_id, at), str(made), str(v.player)))
                self._cond.notify_all()
        self.service.read(self._watch)

    # ------------------------------------------------------------------ analysing

    def step(self) -> bool:
        """Analyse the oldest decision waiting, then rate the moves whose analysis is known. Returns
        whether there was anything to analyse."""
        with self._cond:
            job = next(iter(self._waiting.items()), None)
        did = False
        if job is not None:
            key, game = job
            try:
                result = self.analyse(game)
            except Exception as exc:  # a bug of ours costs the hint, never the game
                result = {"error": f"{type(exc).__name__}: {exc}"[:200]}
            with self._cond:
                self._waiting.pop(key, None)
                self._done[key] = result
                while len(self._done) > KEPT:
                    self._done.popitem(last=False)
                self._cond.notify_all()
            did = True
        self._rate()
        return did

    def _rate(self) -> None:
        """Say what each person's move cost, once its decision is analysed."""
        said: list[Advice] = []
        with self._cond:
            keep = []
            for key, made, player in self._moved:
                found = self._done.get(key)
                if found is None:
                    if key in self._waiting:
                        keep.append((key, made, player))
                    continue
                advice = self._cost(found, made, player, key)
                if advice is not None:
                    said.append(advice)
            self._moved = keep
        for advice in said:
            self.service.note(advice)

    def _cost(self, found: dict[str, Any], made: str, player: str, key: Key) -> Advice | None:
        moves = found.get("moves") or []
        values = {m["move"]: m["win"] for m in moves}
        if made not in values or not moves:
            return None
        best = moves[0]
        lost = best["win"] - values[made]
        if lost <= self.little or best["move"] == made:
            with self._cond:
                self.lost = None
            return None
        text = Text(
            "this move lost {lost} % of your chances: {best} kept them", lost=round(lost * 100), best=best["move"]
        )
        self.lost = {
            "game": key[0],
            "player": player,
            "move": made,
            "best": {"move": best["move"], "from": best["from"], "to": best["to"], "win": best["win"]},
            "lost": round(lost, 4),
            "text": text,
        }
        return Advice(text, player)

    # ------------------------------------------------------------------ asked by the page

    def hint(self, timeout: float = 2.0) -> dict[str, Any] | None:
        """The analysis of the position on the board now, waiting at most `timeout` seconds for it;
        None while it is still being worked out (ask again), {"over": true} when the game is over."""
        service = self.service
        key = service.read(lambda game: None if game.is_over else self._queue(game))
        if key is None:
            return {"over": True}
        with self._cond:
            self._cond.wait_for(lambda: key in self._done or self._stop, timeout)
            found = self._done.get(key)
        return None if found is None else {**found, "game": key[0]}

    def view(self) -> dict[str, object]:
        """What the page shows: the cost of the last person's move, when it cost more than a little."""
        lost = self.lost
        return {"lost": lost if lost is not None and lost["game"] == self.service.game_id else None}

    # ------------------------------------------------------------------ the thread

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="senet-pi coach", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stop or bool(self._waiting) or bool(self._moved), 1.0)
                if self._stop:
                    return
            try:
                self.step()
            except Exception as exc:  # never the end of the hints' thread
                self.errors.append(f"{type(exc).__name__}: {exc}"[:200])

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        unsubscribe, self._unsubscribe = self._unsubscribe, lambda: None
        unsubscribe()
