"""The service: one referee and its journal, fed by the board, the thrower and the page.

Every input is written to the journal before it is judged; on start the service resumes
the game in progress by judging the journaled inputs again, which gives back the same
state because the referee uses no clock or randomness of its own. Listeners (the
terminal, the page) receive each verdict as it is decided.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping

from .errors import SenetError
from .journal import Journal
from .referee import GUIDANCE_DELAY, SETTLE_TIME, Referee
from .rules import Game, find_ruleset
from .verdicts import Verdict

Listener = Callable[[list[Verdict]], None]


class Service:
    """The running referee with its journal. Thread-safe: inputs may come from any thread."""

    def __init__(
        self,
        journal: Journal | None = None,
        *,
        variant: str = "secret",
        players: int = 2,
        options: Mapping[str, object] | None = None,
        settle: float = SETTLE_TIME,
        guidance_delay: float = GUIDANCE_DELAY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.journal = journal
        self.settle = settle
        self.guidance_delay = guidance_delay
        self._clock = clock
        self.lock = threading.RLock()  # held while a batch of inputs is judged; readers take it too
        self._listeners: list[Listener] = []
        self.notes: list[str] = []  # said once at start: a damaged journal set aside, a game resumed
        if journal is not None and journal.damaged:
            self.notes.append(journal.damaged)
        self._journal_trouble: str | None = None
        self._next_retry = 0.0
        try:
            record = journal.game_in_progress() if journal is not None else None
            if record is not None:
                self._resume(record.id, record.variant, record.players, record.options, record.position)
        except (SenetError, ValueError, TypeError, KeyError, IndexError, RecursionError) as exc:
            # A row the referee cannot resume from: damage, said once, set aside, a clean start.
            assert journal is not None
            journal.start_over(f"cannot resume its game in progress: {type(exc).__name__}: {exc}")
            self.notes = [n for n in self.notes if not n.startswith("resumed")] + [str(journal.damaged)]
            record = None
        if record is None:
            self._start(variant, players, dict(options or {}))

    # ------------------------------------------------------------------ games

    def _start(self, variant: str, players: int, options: dict, position: dict | None = None) -> None:
        self._begin(find_ruleset(variant)(players, options, position), players, position)

    def _begin(self, game: Game, players: int, position: dict | None = None) -> None:
        self.referee = Referee(game, settle=self.settle, guidance_delay=self.guidance_delay)
        self.game_id = self.journal.start_game(game.name, players, game.options, position) if self.journal else 0
        self.seq = 0
        self.history: list[Verdict] = []
        self._origin = self._clock()

    def _resume(self, game_id: int, variant: str, players: int, options: dict, position: dict | None) -> None:
        assert self.journal is not None
        game = find_ruleset(variant)(players, options, position)
        self.referee = Referee(game, settle=self.settle, guidance_delay=self.guidance_delay)
        self.game_id = game_id
        events = self.journal.events(game_id)
        regenerated: list[Verdict] = []
        for event in events:
            regenerated += self.referee.apply(event.kind, event.value, event.ms / 1000)
        regenerated = json.loads(json.dumps(regenerated))
        stored = self.journal.verdicts(game_id)
        if events and len(stored) < len(regenerated) and regenerated[: len(stored)] == stored:
            # Stopped between writing an input and its verdicts: write the verdicts now.
            self.journal.record_verdicts(game_id, events[-1].seq, regenerated[len(stored) :])
        self.seq = len(events)
        self.history = regenerated
        last_ms = events[-1].ms if events else 0
        self._origin = self._clock() - last_ms / 1000  # the game's clock goes on from where it stopped
        moves = sum(1 for kind, _ in self.referee.game.actions if kind == "move")
        self.notes.append(f"resumed game {game_id} ({variant}) after {len(events)} inputs and {moves} moves")

    def new_game(self, variant: str, players: int = 2, options: Mapping[str, object] | None = None) -> list[Verdict]:
        """End the current game (if it is still open) and start another, possibly of another rule set.

        The new game is built (its rule set, players and options checked) before the current one is
        ended, so a refused new game changes nothing, not even after a restart."""
        with self.lock:
            game = find_ruleset(variant)(players, dict(options or {}), None)  # raises before anything changed
            if self.journal is not None:
                self.journal.end_game(self.game_id, self.referee.game.winner_id)
            self._begin(game, players)
            verdicts: list[Verdict] = [
                {"v": "new_game", "variant": self.referee.game.name, "to_move": self.referee.game.to_move_id}
            ]
            self.history = list(verdicts)
            self._publish(verdicts)
            return verdicts

    # ------------------------------------------------------------------ inputs

    def now_ms(self) -> int:
        """Milliseconds since the game started, on this service's clock."""
        return round((self._clock() - self._origin) * 1000)

    def handle(self, kind: str, value: object = True) -> list[Verdict]:
        """Journal one input, judge it, journal and publish the verdicts."""
        with self.lock:
            ms = self.now_ms()
            if self.journal is not None:
                self.journal.record_event(self.game_id, self.seq, ms, kind, value)
            verdicts = self.referee.apply(kind, value, ms / 1000)
            self._after(verdicts)
            self._check_journal()
            return verdicts

    def tick(self) -> list[Verdict]:
        """Let time pass: judge a settled board, give guidance that is due. Call it often (every 50 ms)."""
        with self.lock:
            ms = self.now_ms()
            verdicts = self.referee.apply("tick", True, ms / 1000)  # as replay judges the journaled tick
            if verdicts and self.journal is not None:
                self.journal.record_event(self.game_id, self.seq, ms, "tick", True)
            if verdicts:
                self._after(verdicts)
            elif self.journal is not None and self.journal.pending and self._clock() >= self._next_retry:
                self._next_retry = self._clock() + 1.0  # the disk was full: try again, once a second while idle
                self.journal.flush()
            self._check_journal()
            return verdicts

    @property
    def journal_trouble(self) -> str | None:
        """Why the journal cannot write now ("journal cannot write: disk full ..."), or None."""
        return self._journal_trouble

    def _check_journal(self) -> None:
        """Tell the listeners when the journal stops being able to write, and when it has caught up."""
        if self.journal is None:
            return
        trouble = self.journal.trouble
        was, self._journal_trouble = self._journal_trouble, trouble
        if (trouble is None) == (was is None):
            return  # no news: only the count of held writes changed
        if trouble is not None:
            self._publish([{"v": "journal", "text": trouble + "; the game goes on"}])
        elif was is not None:
            self._publish([{"v": "journal", "text": "the journal caught up: every held write is saved"}])

    def _after(self, verdicts: list[Verdict]) -> None:
        if self.journal is not None:
            self.journal.record_verdicts(self.game_id, self.seq, verdicts)
            if any(v["v"] == "win" for v in verdicts):
                self.journal.end_game(self.game_id, self.referee.game.winner_id)
        self.seq += 1
        self.history += verdicts
        self._publish(verdicts)

    def note(self, verdict: Verdict) -> None:
        """Tell the listeners something that is not a decision of the game (a faulty switch, an
        offer on the thrower): shown, not journaled."""
        with self.lock:
            self._publish([verdict])

    def throw_blocked(self) -> str | None:
        """Why the thrower's button should be refused now, or None."""
        with self.lock:
            return self.referee.throw_blocked()

    # ------------------------------------------------------------------ listeners

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every batch of verdicts; returns a function that unsubscribes."""
        with self.lock:
            self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _publish(self, verdicts: list[Verdict]) -> None:
        for listener in list(self._listeners):
            listener(verdicts)

    def status(self) -> dict[str, object]:
        """The referee's status for the page, with the game's id."""
        with self.lock:
            return {"game": self.game_id, **self.referee.status(), "journal": self._journal_trouble}

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()
