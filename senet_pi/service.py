"""The service: one referee and its journal, fed by the board, the thrower and the page.

Every input is written to the journal before it is judged; on start the service resumes
the game in progress by judging the journaled inputs again, which gives back the same
state because the referee uses no clock or randomness of its own. Listeners (the
terminal, the page) receive each verdict as it is decided.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from . import dates, wallclock
from .errors import SenetError
from .events import Input, written
from .idle import IdleReset
from .journal import EventRecord, Journal
from .referee import GUIDANCE_DELAY, SETTLE_TIME, Referee
from .referee.core import Saved
from .resume import Rejudged, failed_inputs, first_difference, rejudge
from .rules import Game, find_ruleset
from .rules.board import square_name, squares_in
from .rules.text import Text, joined
from .rules.throws import RandomSource, Throw
from .verdicts import (
    Forfeit,
    Idle,
    Illegal,
    JournalNews,
    Moved,
    NewGame,
    Refused,
    Resynced,
    Thrown,
    Undone,
    Verdict,
    Win,
)

#: The verdicts the page lists as the game's history.
HISTORY_KINDS = (Moved, Forfeit, Win, Undone, NewGame, Resynced)

#: The inputs that are not a person's doing: the backend's reading of the board at start, time.
NOT_A_PERSON = ("tick", "sense")

#: A change this large (seconds) between the wall clock and the monotonic clock is the clock being set.
CLOCK_JUMP = 60.0

#: Seconds an open question waits for the people at the table before the likelier answer is taken.
QUESTION_SECONDS = 20.0


Listener = Callable[[list[Verdict]], None]
T = TypeVar("T")


class QuestionClosed(SenetError, ValueError):
    """An answer to a question that is not open (answered already, withdrawn) or not an option."""


@dataclass
class Assumed:
    """An answer the service took for a question nobody answered in time: which, and what it takes
    to give another one instead (the referee as it was with the question open)."""

    question: dict[str, object]  # the question as the page showed it (id, kind, text, options)
    chosen: int  # the option taken
    seconds: float  # how long nobody answered
    saved: Saved  # the referee's snapshot() with the question still open
    seq: int  # the input the answer is (journaled once the chance to change it is over)
    ms: int
    history: int  # len(history) before its verdicts
    verdicts: list[Verdict]


def likelier(question: object, game: Game) -> int:
    """The option a question's likelier reading is: each piece back where it was ("put back", the
    first option of "swap" and "back"), the first way of playing that fits ("which": best first),
    the piece the game had on the square ("whose"), and for pieces set out as at the start a new game
    only once the game is won ("keep" while it is being played)."""
    kind = getattr(question, "kind", "")
    options = list(getattr(question, "options", []) or [])
    if kind == "new_game" and len(options) > 1:
        return 0 if game.is_over else 1  # after a win the pieces set out are the next game; else the game goes on
    if kind == "whose":
        pieces = list(getattr(question, "pieces", []) or [])
        here = game.piece_at(int(getattr(question, "square", 0) or 0))
        if here in pieces:
            return pieces.index(here)
    return 0


@dataclass(frozen=True)
class Press:
    """What a press of the thrower's button did: the throw to show on the sticks, or why it was
    refused (the sticks then say no), with the verdicts it gave."""

    throw: Throw | None = None
    refused: str | None = None
    verdicts: list[Verdict] = field(default_factory=list)


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
        idle_minutes: float | None = None,
        wall: Callable[[], float] = lambda: time.time(),
        question_seconds: float | None = None,
    ) -> None:
        """`idle_minutes`: an exhibit's idle reset (IdleReset), None = never reset by itself. `wall`:
        the clock the journal's dates come from, watched for being set (a jump). `question_seconds`:
        how long a question waits before its likelier answer is taken (None = it waits for people)."""
        self.question_seconds = question_seconds
        self._asked: tuple[object, float, int] | None = None  # the open question, since when, the board then
        self.assumed: Assumed | None = None  # an answer taken for nobody, open to change until the next input
        self.journal = journal
        self._wall = wall
        self._wall_offset = wall() - time.monotonic()
        self._stamped: list[tuple[int, str]] = []  # dates written on this wall clock since it last jumped
        self._boot = wallclock.boot_id()  # dates written before the clock is set are kept with it (dates.py)
        self._synced: bool | None = None
        self._dates_checked = -1e9
        self.settle = settle
        self.guidance_delay = guidance_delay
        self._clock = clock
        self.idle = IdleReset(idle_minutes, clock)
        self.lock = threading.RLock()  # held while a batch of inputs is judged; readers take it too
        self._listeners: list[Listener] = []
        self.notes: list[str] = []  # said once at start: a damaged journal set aside, a game resumed
        if journal is not None and journal.damaged:
            self.notes.append(journal.damaged)
        self._journal_trouble: str | None = None
        self._next_retry = 0.0
        self.resume_notes: list[Text] = []  # what the page says about the resume, while that game is on
        if journal is not None and getattr(journal, "notice", None):
            self.notes.append(str(journal.notice))
            self.resume_notes.append(Text("the journal may have lost its last writes: {why}", why=journal.notice))
        try:
            record = journal.game_in_progress() if journal is not None else None
        except SenetError as exc:
            # The games table itself does not decode: damage, said once, set aside, a clean start.
            assert journal is not None
            journal.start_over(f"cannot resume its game in progress: {type(exc).__name__}: {exc}")
            self.notes.append(str(journal.damaged))
            record = None
        resumed = record is not None and self._resume(
            record.id, record.variant, record.players, record.options, record.position, record.started
        )
        if not resumed:
            self._start(variant, players, dict(options or {}))
        self._resumed_game = self.game_id
        self._settle_dates(force=True)  # dates an earlier run wrote before the clock was set

    # ------------------------------------------------------------------ games

    def _start(self, variant: str, players: int, options: dict, position: dict | None = None) -> None:
        self._begin(find_ruleset(variant)(players, options, position), players, position)

    def _begin(self, game: Game, players: int, position: dict | None = None) -> None:
        self.referee = Referee(game, settle=self.settle, guidance_delay=self.guidance_delay)
        self._remember(game.name, players, dict(game.options), position, [], {})
        self.game_id = self.journal.start_game(game.name, players, game.options, position) if self.journal else 0
        self._stamp(self.game_id, "started")
        self.seq = 0
        self.history: list[Verdict] = []
        self._origin = self._clock()
        self.idle.started_over()

    def _remember(
        self,
        variant: str,
        players: int,
        options: dict,
        position: dict | None,
        inputs: list[EventRecord],
        skipped: dict[int, list[dict]],
    ) -> None:
        """Keep what it takes to judge this game again from its start: its set-up, the inputs so far
        and those it went on without (a referee that fails on one is rebuilt without it)."""
        self._setup = (variant, players, options, position)
        self._inputs = list(inputs)
        self._skipped = dict(skipped)

    def _fresh_referee(self) -> Referee:
        variant, players, options, position = self._setup
        game = find_ruleset(variant)(players, options, position)
        return Referee(game, settle=self.settle, guidance_delay=self.guidance_delay)

    def _resume(
        self, game_id: int, variant: str, players: int, options: dict, position: dict | None, started: float
    ) -> bool:
        """Judge the game in progress again. Whatever the referee fails on costs only the inputs from
        that one on: the game's record is kept as it was and ended, and the inputs it could
        judge go on as a new game. False when not even its start could be set up (a new game starts)."""
        assert self.journal is not None

        def make() -> Referee:
            game = find_ruleset(variant)(players, options, position)
            return Referee(game, settle=self.settle, guidance_delay=self.guidance_delay)

        try:
            make()
            events, unreadable = self.journal.readable_events(game_id)
        except Exception as exc:  # a record its own rule set refuses: kept, ended, and a new game starts
            why = f"its start cannot be set up: {type(exc).__name__}: {exc}"[:200]
            self.resume_notes.append(self._unresumable(game_id, 0, why))
            return False
        total = self.journal.game(game_id).events
        stored = self.journal.verdicts_by_event(game_id)
        skipped = failed_inputs(stored)
        judged = rejudge(make, events, unreadable, skipped)
        self.referee = judged.referee
        events = judged.events
        regenerated = [v for verdicts in judged.verdicts for v in verdicts]
        if judged.failure is not None:
            self.game_id = self._carry_on(game_id, variant, players, options, position, started, judged)
            note = self._unresumable(game_id, len(events), judged.failure, total, self.game_id)
            self.resume_notes.append(note)
        else:
            self.game_id = game_id
            differs = first_difference(judged, stored)
            if differs is not None:
                text = Text(
                    "the journal's record of game {game} differs from what the referee decides now, from "
                    "input {input} on (changed in place, or judged differently since): the game goes on as judged now",
                    game=game_id,
                    input=differs + 1,
                )
                self.journal.record_note(f"differs:{game_id}", str(text))
                self.notes.append(str(text))
                self.resume_notes.append(text)
            elif events and not stored.get(events[-1].seq) and judged.verdicts[-1]:
                # Stopped between writing an input and its verdicts: write the verdicts now.
                self.journal.record_verdicts(game_id, events[-1].seq, judged.verdicts[-1])
        self._remember(
            variant, players, options, position, events, {e.seq: skipped[e.seq] for e in events if e.seq in skipped}
        )
        self.seq = len(events)
        self.history = regenerated
        last_ms = events[-1].ms if events else 0
        self._origin = self._clock() - last_ms / 1000  # the game's clock goes on from where it stopped
        moves = sum(1 for kind, _ in self.referee.game.actions if kind == "move")
        self.notes.append(f"resumed game {game_id} ({variant}) after {len(events)} inputs and {moves} moves")
        if any(event.kind not in NOT_A_PERSON for event in events):
            self.idle.touched()  # someone played it before the restart: idle from now, not fresh
        return True

    def _carry_on(
        self,
        game_id: int,
        variant: str,
        players: int,
        options: dict,
        position: dict | None,
        started: float,
        judged: Rejudged,
    ) -> int:
        """End the game that cannot be resumed (its record stays as it was) and journal the inputs the
        referee could judge, with their verdicts, as a new game that goes on from there."""
        assert self.journal is not None
        self.journal.end_game(game_id, None)
        new_id = self.journal.start_game(variant, players, options, position, started=started)
        self.journal.record_carried(game_id, new_id)  # one game in the statistics, not an abandoned one and another
        for old, column, boot, mono, _written in self.journal.pending_dates():
            if old == game_id and column == "started":  # its start not yet sure: nor is the copy's
                self.journal.record_pending_date(new_id, "started", boot, mono)
        for seq, (event, verdicts) in enumerate(zip(judged.events, judged.verdicts, strict=True)):
            self.journal.record_event(new_id, seq, event.ms, event.kind, event.value)
            self.journal.record_verdicts(new_id, seq, verdicts)
        return new_id

    def _unresumable(self, game_id: int, judged: int, why: str, total: int = 0, new_id: int = 0) -> Text:
        """Say (terminal, journal for `senet-pi status`) that a game could not be resumed, and how far."""
        assert self.journal is not None
        if new_id:
            text = Text(
                "game {game} could not be resumed past input {input} of {total} ({why}): its record is kept "
                "as it was, and the game goes on from there as game {new}",
                game=game_id,
                input=judged,
                total=total,
                why=why,
                new=new_id,
            )
        else:
            self.journal.end_game(game_id, None)
            text = Text("game {game} could not be resumed ({why}): its record is kept as it was", game=game_id, why=why)
        self.journal.record_note(f"unresumable:{game_id}", str(text))
        self.notes.append(str(text))
        return text

    def new_game(self, variant: str, players: int = 2, options: Mapping[str, object] | None = None) -> list[Verdict]:
        """End the current game (if it is still open) and start another, possibly of another rule set.

        The new game is built (its rule set, players and options checked) before the current one is
        ended, so a refused new game changes nothing, not even after a restart."""
        return self._new_game(variant, players, options, [])

    def _new_game(
        self,
        variant: str,
        players: int,
        options: Mapping[str, object] | None,
        lead: list[Verdict],
        keep_board: bool = False,
    ) -> list[Verdict]:
        with self.lock:
            game = find_ruleset(variant)(players, dict(options or {}), None)  # raises before anything changed
            self._keep_assumed()
            if self.journal is not None:
                self.journal.end_game(self.game_id, self.referee.game.winner_id)
                self._stamp(self.game_id, "ended")
            old = self.referee
            self._begin(game, players)
            verdicts = [*lead, NewGame(self.referee.game.name, self.referee.game.to_move_id)]
            self.history = list(verdicts)
            self._publish(verdicts)
            if keep_board and old.sensing and old.sensed != self.referee.expected:
                # The pieces stay where they were: the new game's referee is told the board as it
                # stands (journaled like the backend's own report), so the setup fixes are real.
                # Only for the idle reset: a new game asked for by hand still assumes the setup.
                verdicts += self.handle("sense", squares_in(old.sensed))
            return verdicts

    def _idle_reset(self) -> list[Verdict]:
        """Nobody played for the idle time: save the game (abandoned, or won as it was) and start
        another of the same rule set, players and options (a card game gets a fresh deck)."""
        game = self.referee.game
        minutes = float(self.idle.minutes or 0)
        idle = Idle(
            Text(
                "nobody played for {minutes} minutes: game {game} is saved and a new game begins",
                minutes=f"{minutes:g}",
                game=self.game_id,
            ),
            self.game_id,
            minutes,
        )
        chance = game.seeded_options(0)  # what the rule set leaves to chance (the card game's deck): drawn anew
        options = {k: v for k, v in game.options.items() if k not in chance}
        return self._new_game(game.name, game.players, options, [idle], keep_board=True)

    # ------------------------------------------------------------------ inputs

    def now_ms(self) -> int:
        """Milliseconds since the game started, on this service's clock."""
        return round((self._clock() - self._origin) * 1000)

    def handle(self, kind: str | Input, value: object = True) -> list[Verdict]:
        """Journal one input, judge it, journal and publish the verdicts. An input read where it
        came in (a typed `events.Input`) is judged as it is; one by name is read by the referee."""
        entry = None if isinstance(kind, str) else kind
        if entry is not None:
            kind, value = written(entry)
        with self.lock:
            self._keep_assumed()
            if kind not in NOT_A_PERSON:
                self.idle.touched()
            ms = self.now_ms()
            if self.journal is not None:
                self.journal.record_event(self.game_id, self.seq, ms, kind, value)
            self._inputs.append(EventRecord(self.seq, ms, kind, value))
            try:
                if entry is not None:
                    verdicts = self.referee.take(entry, ms / 1000)
                else:
                    verdicts = self.referee.apply(kind, value, ms / 1000)
            except Exception as exc:  # any failure of the referee: this input costs only itself
                verdicts = self._failed(kind, exc)
            self._after(verdicts)
            self._watch_question()
            self._check_journal()
            return verdicts

    def tick(self) -> list[Verdict]:
        """Let time pass: judge a settled board, give guidance that is due. Call it often (every 50 ms)."""
        with self.lock:
            self._watch_wall_clock()
            if self.idle.due(self.referee.game):
                self._keep_assumed()
                return self._idle_reset()
            ms = self.now_ms()
            verdicts = self.referee.apply("tick", True, ms / 1000)  # as replay judges the journaled tick
            if verdicts:
                self._keep_assumed()
            elif self._question_due():
                return self._take_likelier()
            if verdicts and self.journal is not None:
                self.journal.record_event(self.game_id, self.seq, ms, "tick", True)
            if verdicts:
                self._inputs.append(EventRecord(self.seq, ms, "tick", True))
                self._after(verdicts)
                self._watch_question()
            elif self.journal is not None and self.journal.pending and self._clock() >= self._next_retry:
                self._next_retry = self._clock() + 1.0  # the disk was full: try again, once a second while idle
                self.journal.flush()
            self._check_journal()
            return verdicts

    # ------------------------------------------------------------------ a question nobody answers

    def _watch_question(self) -> None:
        """Note when the open question was asked; hands on the board start its wait again."""
        question = self.referee.question
        if question is None:
            self._asked = None
        elif self._asked is None or self._asked[0] is not question or self._asked[2] != self.referee.sensed:
            self._asked = (question, self._clock(), self.referee.sensed)

    def _question_due(self) -> bool:
        """Whether the open question has waited `question_seconds` with the board still."""
        self._watch_question()
        if self._asked is None or self.question_seconds is None:
            return False
        return self._clock() - self._asked[1] >= self.question_seconds - 1e-6  # a clock summed in steps

    def _take_likelier(self) -> list[Verdict]:
        """Answer the question nobody answered with its likelier reading, and keep what it takes to
        give another answer instead until the next input (`change_answer`)."""
        question = self.referee.question
        assert question is not None and self._asked is not None
        waited = self._clock() - self._asked[1]
        self._asked = None
        shown = question.verdict().json()
        choice = likelier(question, self.referee.game)
        saved = self.referee.snapshot()
        ms = self.now_ms()
        verdicts = self.referee.apply("answer", choice, ms / 1000)
        self.assumed = Assumed(shown, choice, waited, saved, self.seq, ms, len(self.history), verdicts)
        self._inputs.append(EventRecord(self.seq, ms, "answer", choice))
        self.seq += 1
        self.history += verdicts
        self._publish(verdicts)  # journaled once it stands (`_keep_assumed`): the journal stays in order
        return verdicts

    def _keep_assumed(self) -> None:
        """The chance to change a taken answer ends with the next input: journal it as an answer."""
        assumed, self.assumed = self.assumed, None
        if assumed is not None and self.journal is not None:
            self.journal.record_event(self.game_id, assumed.seq, assumed.ms, "answer", assumed.chosen)
            self.journal.record_verdicts(self.game_id, assumed.seq, assumed.verdicts)

    def change_answer(self, question_id: int, choice: int) -> list[Verdict]:
        """Another answer to the question the service answered for nobody, given before the next
        input: the referee is put back as it was with the question open and answers `choice`.
        QuestionClosed when there is no such answer to change (or `choice` is not an option)."""
        with self.lock:
            assumed = self.assumed
            if assumed is None or assumed.question.get("id") != question_id:
                raise QuestionClosed(Text("that question is no longer open"))
            options = list(assumed.question.get("options") or [])  # type: ignore[call-overload]
            if isinstance(choice, bool) or not 0 <= choice < len(options):
                raise QuestionClosed(Text("choose one of the options: {options}", options=joined(options, ", ")))
            self.assumed = None
            self.idle.touched()
            self.referee.restore(assumed.saved)
            del self.history[assumed.history :]
            del self._inputs[-1]
            verdicts = self.referee.apply("answer", choice, assumed.ms / 1000)
            self._inputs.append(EventRecord(assumed.seq, assumed.ms, "answer", choice))
            if self.journal is not None:
                self.journal.record_event(self.game_id, assumed.seq, assumed.ms, "answer", choice)
                self.journal.record_verdicts(self.game_id, assumed.seq, verdicts)
            self.history += verdicts
            self._publish(verdicts)
            self._check_journal()
            return verdicts

    def _failed(self, kind: str, exc: Exception) -> list[Verdict]:
        """The referee failed on the input just journaled: the game goes on as it was
        before it. The input stays in the journal with a `journal` verdict saying so, which a resume
        reads as "went on without it"; the referee, perhaps changed half way, is judged afresh."""
        text = Text(
            "input {input} ({kind}) could not be judged ({why}): the game goes on as it was before it",
            input=self.seq + 1,
            kind=kind,
            why=f"{type(exc).__name__}: {exc}"[:200],
        )
        verdicts: list[Verdict] = [JournalNews(text)]
        self._skipped[self.seq] = list(verdicts)
        self.referee = rejudge(self._fresh_referee, self._inputs, None, self._skipped).referee
        if self.journal is not None:
            self.journal.record_note(f"failed:{self.game_id}:{self.seq}", f"game {self.game_id}: {text}")
        return verdicts

    def _stamp(self, game: int, column: str) -> None:
        """A date just written for `game`: moved with the clock when it jumps in this run; and while
        timesyncd has not yet set the clock, kept with this boot's monotonic time, so a later run
        can still put it right (or say it cannot be known) after a restart or a power cut."""
        if self.journal is None:
            return
        self._synced = wallclock.clock_synced()
        if self._synced is False and self._boot is not None:
            self.journal.record_pending_date(game, column, self._boot, time.monotonic())
        else:
            self._stamped.append((game, column))

    def _settle_dates(self, force: bool = False) -> None:
        """Put right the dates written before the clock was set, once it is (see senet_pi.dates);
        looked at once a second at most, and at once when the clock jumps or becomes synchronised."""
        if self.journal is None:
            return
        now = time.monotonic()
        if not force and now - self._dates_checked < 1.0:
            return
        self._dates_checked = now
        synced, was = wallclock.clock_synced(), self._synced
        self._synced = synced
        if force or (synced and not was):
            try:
                dates.settle(self.journal, self._boot, self._wall() - now, synced, CLOCK_JUMP)
            except (SenetError, sqlite3.Error, ValueError, TypeError) as exc:  # a damaged old row: dates wait
                if force:
                    self.notes.append(f"dates written before the clock was set not checked: {exc}"[:200])

    def _watch_wall_clock(self) -> None:
        """The wall clock was set (it moved against the monotonic clock by more than CLOCK_JUMP, as on a
        Pi without a real-time clock when the network sets it): the dates this service wrote on the
        old clock move with it, so a game begun before the jump is counted on its real day."""
        offset = self._wall() - time.monotonic()
        delta = offset - self._wall_offset
        if abs(delta) <= CLOCK_JUMP:
            self._settle_dates()  # timesyncd may call the clock set without a jump (it was right)
            return
        self._wall_offset = offset
        if self.journal is not None:
            for game, column in dict.fromkeys(self._stamped):
                self.journal.shift_time(game, column, delta)
        self._stamped.clear()
        self._settle_dates(force=True)  # and those kept with this boot's monotonic time

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
            self._publish([JournalNews(trouble + "; the game goes on")])
        elif was is not None:
            self._publish([JournalNews("the journal caught up: every held write is saved")])

    def _after(self, verdicts: list[Verdict]) -> None:
        if self.journal is not None:
            self.journal.record_verdicts(self.game_id, self.seq, verdicts)
            if any(isinstance(v, Win) for v in verdicts):
                self.journal.end_game(self.game_id, self.referee.game.winner_id)
                self._stamp(self.game_id, "ended")
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

    def press(self, rng: RandomSource | None = None) -> Press:
        """The thrower's button was pressed: throw for the player to move, or do what a press means
        now (confirm a move the board cannot show, decline the card game's optional move), or refuse
        and say why. Decided under the lock, so the game cannot change between the check and the throw."""
        with self.lock:
            self._keep_assumed()
            self.idle.touched()  # the button, even when the press is refused
            game = self.referee.game
            if game.turn_starts_with == "card":  # the button confirms "no more moves" (K9)
                if game.phase == "residue":
                    return Press(verdicts=self.handle("pass"))
                return self._refuse(Text("in the card game, play a card from your hand's page"))
            blocked = self.referee.throw_blocked()
            if blocked is not None:
                unseen = self.referee.unseen_move()
                if unseen is not None:  # the button confirms the move the board cannot show (M5's bounce)
                    return Press(verdicts=self.handle("move", [unseen.from_sq, unseen.to_sq, unseen.by]))
                return self._refuse(Text("the thrower is not taking a throw: {why}", why=blocked))
            throw = game.roll(rng)
            verdicts = self.handle("throw", list(throw.value) if isinstance(throw.value, tuple) else throw.value)
            refused = [v.reason for v in verdicts if isinstance(v, Illegal)]
            if refused:
                return Press(refused=joined(refused), verdicts=verdicts)
            return Press(throw=throw, verdicts=verdicts)

    def _refuse(self, text: str) -> Press:
        """A press refused before anything was judged: said to the listeners, not journaled."""
        verdict = Refused(text)
        self._publish([verdict])
        return Press(refused=text, verdicts=[verdict])

    def throw_from_numbers(self, values: list[int]) -> object:
        """A throw typed as numbers (`throw 3`, `throw 3 5` for dice) as this game's rule set takes it."""
        with self.lock:
            return self.referee.game.throw_from_numbers(values)

    def parse_throw(self, raw: object) -> object:
        """`raw` as a throw of this game's rule set, or InvalidThrowError saying what it throws."""
        with self.lock:
            return self.referee.game.parse_throw(raw)

    # ------------------------------------------------------------------ what it shows

    @property
    def variant(self) -> str:
        """The name of the current game's rule set."""
        with self.lock:
            return self.referee.game.name

    @property
    def to_move(self) -> str:
        """The id of the player to move in the current game."""
        with self.lock:
            return self.referee.game.to_move_id

    @property
    def players(self) -> int:
        """How many play the current game."""
        with self.lock:
            return self.referee.game.players

    @property
    def expected(self) -> int:
        """The squares that should hold a piece now (a mask), where the simulated pieces are set."""
        with self.lock:
            return self.referee.expected

    @property
    def sensed(self) -> int:
        """The squares the switches sense now (a mask)."""
        with self.lock:
            return self.referee.sensed

    def read(self, look: Callable[[Game], T]) -> T:
        """`look(game)` under the lock, for what reads the game in progress without changing it (the
        computer and the hints: they look ahead on `game.copy()`, never on the game)."""
        with self.lock:
            return look(self.referee.game)

    def question(self) -> dict[str, object] | None:
        """The referee's open question (its id, kind, text and options), or None."""
        with self.lock:
            question = self.referee.question
            return question.verdict().json() if question is not None else None

    def _question_for_page(self, question: object) -> object:
        """The open question with the option taken if nobody answers, and in how many seconds from now."""
        if not isinstance(question, dict) or self.referee.question is None:
            return question
        if self.question_seconds is None:
            return question
        since = self._asked[1] if self._asked is not None and self._asked[0] is self.referee.question else self._clock()
        left = max(0.0, self.question_seconds - (self._clock() - since))
        return {
            **question,
            "likelier": likelier(self.referee.question, self.referee.game),
            "wait": self.question_seconds,
            "left": round(left, 1),
        }

    def snapshot(self) -> dict[str, object]:
        """The game, the board and the referee's open business, all taken at one moment under the
        lock: what the page and the terminal show. Plain JSON-ready data."""
        with self.lock:
            referee = self.referee
            game = referee.game
            status = referee.status().as_dict()
            squares: dict[str, object] = {}
            for sq in game.board():
                owner, mark = game.piece_at(sq) or ("", None)
                squares[str(sq)] = {"owner": owner, "dots": mark}
            throws = [v for v in self.history if isinstance(v, Thrown)]
            legal = [" then ".join(str(m) for m in seq) for seq in game.move_sequences()]
            moves = game.legal_moves() if game.pending is not None and game.winner_id is None else []
            kind = game.throw_kind
            out: dict[str, object] = {
                "game": self.game_id,
                "variant": game.name,
                "players": list(game.player_ids),
                "to_move": game.to_move_id,
                "turn_starts_with": game.turn_starts_with,
                "throw": list(game.pending) if isinstance(game.pending, tuple) else game.pending,
                "last_throw": throws[-1].value if throws else None,
                "throws": {
                    "kind": kind.name,
                    "zero": getattr(kind, "zero", None),
                    "counted": getattr(kind, "counted", None),
                },
                "squares": squares,
                "off": dict(zip(game.player_ids, game.off, strict=True)),
                "scores": game.scores(),
                "winner": game.winner_id,
                "prompt": status["prompt"],
                # every step still owed by hand, in order (the prompt is the first): the page works out
                # from them which piece really stands where on the wooden board meanwhile
                "owed": [
                    {"player": s.player, "from": square_name(s.from_sq), "to": square_name(s.to_sq)}
                    for s in referee.steps_left
                ],
                # whose piece stands on each sensed square as the hands' evidence tells (None: not known),
                # and the squares whose piece is in a hand, with its owner: the wooden board, not the game's
                "holders": {str(sq): referee.attempt.holder(sq) for sq in status["sensed"]},
                "in_hand": {str(sq): referee.attempt.owners.get(sq) for sq in squares_in(referee.attempt.in_hand())},
                "warning": status["warning"],
                "question": self._question_for_page(status["question"]),
                # an answer taken for nobody (its question, the option taken): open to change until the next input
                "assumed": (
                    {**self.assumed.question, "chosen": self.assumed.chosen, "seconds": round(self.assumed.seconds)}
                    if self.assumed is not None
                    else None
                ),
                "in_progress": status["in_progress"],
                "journal": self._journal_trouble,  # "journal cannot write: disk full ..." or None
                # what the resume found (a game not resumed to its end, a changed record), for its game only
                "journal_notes": list(self.resume_notes) if self.game_id == self._resumed_game else [],
                "switch_faults": status["faults"],  # squares whose switch the referee judges stuck
                "sensed": status["sensed"],
                "expected": status["expected"],
                "legal": legal,
                # the single moves the throw waiting to be played allows, [from, to] ("off" past 30)
                "moves": [[m.from_sq, square_name(m.to_sq)] for m in moves],
                "history": [v.json() for v in self.history if isinstance(v, HISTORY_KINDS)][-40:],
                "touched": not self.idle.fresh,  # a person did something since the game began
                "setup": setup_step(game, referee),
            }
            cards = game.cards()
            if cards is not None:  # the card game (K10): both hands on the main page only if open
                hands: dict[str, list[str]] = cards["hands"]  # type: ignore[assignment]
                out["cards"] = {
                    "stack": cards["stack"],
                    "discard": cards["discard"][-6:],  # type: ignore[index]
                    "dead": len(cards["dead"]),  # type: ignore[arg-type]
                    "hands": hands if game.options.get("open_hands") else None,
                    "counts": {pid: len(h) for pid, h in hands.items()},
                    "phase": game.phase,
                }
            return out

    def hand(self, player: str) -> dict[str, object] | None:
        """One player's view of their cards in the card game (K10), or None when `player` holds no
        hand here (not a player, or not a card game)."""
        with self.lock:
            game = self.referee.game
            if game.turn_starts_with != "card" or player not in game.player_ids:
                return None
            to_move = game.to_move_id == player
            cards = game.hand(player)
            return {
                "player": player,
                "cards": cards,
                "playable": [c for c in cards if to_move and game.playable(c)],
                "your_turn": to_move and game.phase == "play" and game.pending is None,
                "residue": to_move and game.phase == "residue",
                "moving": to_move and game.phase == "play" and game.pending is not None,
                "to_move": game.to_move_id,
                "winner": game.winner_id,
            }

    def card_players(self) -> list[str]:
        """The players who hold a hand of cards in the current game (none outside the card game)."""
        with self.lock:
            game = self.referee.game
            return list(game.player_ids) if game.turn_starts_with == "card" else []

    def hand_seed(self) -> str:
        """What makes a hand's secret link change with every game: the game's id and its deck's seed."""
        with self.lock:
            return f"{self.game_id}:{self.referee.game.options.get('shuffle_seed', '')}"

    # ------------------------------------------------------------------ listeners

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every batch of verdicts; returns a function that unsubscribes."""
        with self.lock:
            self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _publish(self, verdicts: list[Verdict]) -> None:
        for listener in list(self._listeners):
            listener(verdicts)

    def close(self) -> None:
        with self.lock:
            self._keep_assumed()
        if self.journal is not None:
            self.journal.close()


def setup_step(game: Game, referee: Referee) -> dict[str, object] | None:
    """While a new game's board differs from its starting setup: the one next fix, pieces off the
    squares that should be empty first, then the missing ones, lowest square first, and how many
    fixes are left. None once the game is under way or the board is set up."""
    if game.actions or game.is_over:
        return None
    missing, extra = referee.differences()
    if not missing and not extra:
        return None
    if extra:
        square, action, text = extra[0], "remove", Text("take the piece off square {square}", square=extra[0])
    else:
        square, action, text = missing[0], "place", Text("put a piece on square {square}", square=missing[0])
    return {"action": action, "square": square, "text": text, "left": len(missing) + len(extra)}
