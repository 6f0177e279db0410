"""The service: one referee and its journal, fed by the board, the thrower and the page.

Every input is written to the journal before it is judged; on start the service resumes
the game in progress by judging the journaled inputs again, which gives back the same
state because the referee uses no clock or randomness of its own. Listeners (the
terminal, the page) receive each verdict as it is decided. Beside it: the resume on start
(restart.py), the journal's dates (stamps.py), a question nobody answers (questions.py) and
what it shows (view.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar, cast

from ..errors import QuestionClosed, SenetError
from ..events import Answer, CardAction, Input, MoveEntry, Sense, Tick, written
from ..events import Throw as ThrowInput
from ..referee import GUIDANCE_DELAY, SETTLE_TIME, Referee
from ..rules import Game, find_ruleset
from ..rules.board import squares_in
from ..rules.text import Text, joined
from ..rules.throws import RandomSource, Throw
from ..verdicts import Idle, Illegal, JournalNews, NewGame, Refused, Verdict, Win
from .idle import IdleReset, hand_expected
from .journal import EventRecord, GameRecord, Journal
from .lights import Lights, LightSettings, Memory, shown
from .nojournal import NoJournal
from .questions import QUESTION_SECONDS, Assumed, Waiting, likelier
from .restart import Restart
from .resume import judge_row, read_row, rejudge
from .stamps import CLOCK_JUMP, Dates, NoDates
from .view import HISTORY_KINDS, HandView, View, hand_of, setup_step, view_of

__all__ = [
    "CLOCK_JUMP",
    "HISTORY_KINDS",
    "NOT_A_PERSON",
    "QUESTION_SECONDS",
    "Assumed",
    "Press",
    "QuestionClosed",
    "Service",
    "likelier",
    "setup_step",
]

#: The inputs that are not a person's doing: the backend's reading of the board at start, time.
NOT_A_PERSON = ("tick", "sense")


Listener = Callable[[list[Verdict]], None]
T = TypeVar("T")


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
        lights: LightSettings | None = None,
    ) -> None:
        """`idle_minutes`: an exhibit's idle reset (IdleReset), None = never reset by itself. `wall`:
        the clock the journal's dates come from, watched for being set (a jump). `question_seconds`:
        how long a question waits before its likelier answer is taken (None = it waits for people).
        `lights`: which lights under the squares show (config.toml's LIGHTS_* settings)."""
        self.light_settings = lights or LightSettings()
        self._memory = Memory()  # what the lights need that only the verdicts said
        self.lights: Lights = {}  # the lights on show, as `lights.shown` derives them at each batch
        self.question_seconds = question_seconds
        self._waiting = Waiting(clock)  # how long the open question has waited with the board still
        self.assumed: Assumed | None = None  # an answer taken for nobody, open to change until the next input
        self.journal = journal
        self._log: Journal | NoJournal = journal if journal is not None else NoJournal()
        self.notes: list[str] = []  # said once at start: a damaged journal set aside, a game resumed
        self._dates: Dates | NoDates = Dates(journal, wall, self.notes) if journal is not None else NoDates()
        self.settle = settle
        self.guidance_delay = guidance_delay
        self._clock = clock
        self.idle = IdleReset(idle_minutes, clock)
        self.lock = threading.RLock()  # held while a batch of inputs is judged; readers take it too
        self._listeners: list[Listener] = []
        if self._log.damaged:
            self.notes.append(self._log.damaged)
        if journal is not None:  # every start: a damaged journal set aside whose games are not back yet
            self.notes.extend(journal.history_out())
        migrated = getattr(self._log, "migrated", None)  # a schema brought up to date: where the copy before is
        if migrated:
            self.notes.append(str(migrated))
        self._journal_trouble: str | None = None
        self._next_retry = 0.0
        self.resume_notes: list[Text] = []  # what the page says about the resume, while that game is on
        if self._log.notice:
            self.notes.append(str(self._log.notice))
            self.resume_notes.append(Text("the journal may have lost its last writes: {why}", why=self._log.notice))
        try:
            record = self._log.game_in_progress()
        except SenetError as exc:
            # The games table itself does not decode: damage, said once, set aside, a clean start.
            self._log.start_over(f"cannot resume its game in progress: {type(exc).__name__}: {exc}")
            self.notes.append(str(self._log.damaged))
            record = None
        if journal is None or record is None or not self._resume(journal, record):
            self._start(variant, players, dict(options or {}))
        self._resumed_game = self.game_id
        self._dates.settle(force=True)  # dates an earlier run wrote before the clock was set

    # ------------------------------------------------------------------ games

    def _start(
        self, variant: str, players: int, options: dict[str, object], position: dict[str, object] | None = None
    ) -> None:
        self._begin(find_ruleset(variant)(players, options, position), players, position)

    def _begin(self, game: Game, players: int, position: dict[str, object] | None = None) -> None:
        self.referee = Referee(game, settle=self.settle, guidance_delay=self.guidance_delay)
        self._remember(game.name, players, dict(game.options), position, [], {})
        self.game_id = self._log.start_game(game.name, players, game.options, position)
        self._dates.stamp(self.game_id, "started")
        self.seq = 0
        self.history: list[Verdict] = []
        self._origin = self._clock()
        self.idle.started_over()

    def _remember(
        self,
        variant: str,
        players: int,
        options: dict[str, object],
        position: dict[str, object] | None,
        inputs: list[EventRecord],
        skipped: dict[int, list[Verdict]],
    ) -> None:
        """Keep what it takes to judge this game again from its start: its set-up, the inputs so far
        and those it went on without (a referee that fails on one is rebuilt without it)."""
        self._setup = (variant, players, options, position)
        self._inputs = list(inputs)
        self._skipped = dict(skipped)

    def _referee_for(
        self, variant: str, players: int, options: dict[str, object], position: dict[str, object] | None
    ) -> Referee:
        """A fresh referee for a game's set-up, with this service's timings."""
        game = find_ruleset(variant)(players, options, position)
        return Referee(game, settle=self.settle, guidance_delay=self.guidance_delay)

    def _fresh_referee(self) -> Referee:
        return self._referee_for(*self._setup)

    def _resume(self, journal: Journal, record: GameRecord) -> bool:
        """Take up the journal's game in progress (restart.py); False when not even its start could
        be set up (a new game starts)."""
        resumed = Restart(journal, self._referee_for, self.notes).resume(record, self.resume_notes)
        if resumed is None:
            return False
        self.referee, self.game_id = resumed.referee, resumed.game_id
        self._remember(record.variant, record.players, record.options, record.position, resumed.events, resumed.skipped)
        self.seq = len(resumed.events)
        self.history = resumed.history
        self._origin = self._clock() - resumed.last_ms / 1000  # the game's clock goes on from where it stopped
        if any(event.kind not in NOT_A_PERSON for event in resumed.events):
            self.idle.touched()  # someone played it before the restart: idle from now, not fresh
        return True

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
            self._log.end_game(self.game_id, self.referee.game.winner_id)
            self._dates.stamp(self.game_id, "ended")
            old = self.referee
            self._begin(game, players)
            verdicts = [*lead, NewGame(self.referee.game.name, self.referee.game.to_move_id)]
            self.history = list(verdicts)
            self._publish(verdicts)
            if keep_board and old.sensing and old.sensed != self.referee.expected:
                # The pieces stay where they were: the new game's referee is told the board as it
                # stands (journaled like the backend's own report), so the setup fixes are real.
                # Only for the idle reset: a new game asked for by hand still assumes the setup.
                verdicts += self.handle(Sense(tuple(squares_in(old.sensed))))
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
        came in (a typed `events.Input`) is judged as it is; one by name (tests, scripts) is read
        here, and refused as the referee refuses it when it does not read."""
        if isinstance(kind, str):
            entry, name = None, kind
        else:
            entry = kind
            name, value = written(kind)
        with self.lock:
            self._keep_assumed()
            if name not in NOT_A_PERSON:
                self.idle.touched()
            ms = self.now_ms()
            record = EventRecord(self.seq, ms, name, value)
            self._log.record_event(self.game_id, self.seq, ms, name, value)
            self._inputs.append(record)
            try:
                verdicts = judge_row(self.referee, record, read_row(record) if entry is None else entry)
            except Exception as exc:  # any failure of the referee: this input costs only itself
                verdicts = self._failed(name, exc)
            self._after(verdicts)
            self._watch_question()
            self._check_journal()
            return verdicts

    def tick(self) -> list[Verdict]:
        """Let time pass: judge a settled board, give guidance that is due. Call it often (every 50 ms)."""
        with self.lock:
            self._dates.watch()
            if self.idle.due(self.referee.game):
                self._keep_assumed()
                return self._idle_reset()
            ms = self.now_ms()
            verdicts = self.referee.take(Tick(), ms / 1000)  # as replay judges the journaled tick
            if verdicts:
                self._keep_assumed()
            elif self._question_due():
                return self._take_likelier()
            if verdicts:
                self._log.record_event(self.game_id, self.seq, ms, "tick", True)
                self._inputs.append(EventRecord(self.seq, ms, "tick", True))
                self._after(verdicts)
                self._watch_question()
            elif self._log.pending and self._clock() >= self._next_retry:
                self._next_retry = self._clock() + 1.0  # the disk was full: try again, once a second while idle
                self._log.flush()
            self._check_journal()
            return verdicts

    # ------------------------------------------------------------------ a question nobody answers

    def _watch_question(self) -> None:
        """Note when the open question was asked; hands on the board start its wait again."""
        self._waiting.watch(self.referee)

    def _question_due(self) -> bool:
        """Whether the open question has waited `question_seconds` with the board still."""
        return self._waiting.due(self.referee, self.question_seconds)

    def _take_likelier(self) -> list[Verdict]:
        """Answer the question nobody answered with its likelier reading, and keep what it takes to
        give another answer instead until the next input (`change_answer`)."""
        question = self.referee.question
        assert question is not None
        waited = self._waiting.taken()
        shown = question.verdict().json()
        choice = likelier(question, self.referee.game)
        saved = self.referee.snapshot()
        ms = self.now_ms()
        verdicts = self.referee.take(Answer(choice), ms / 1000)
        self.assumed = Assumed(shown, choice, waited, saved, self.seq, ms, len(self.history), verdicts)
        self._inputs.append(EventRecord(self.seq, ms, "answer", choice))
        self.seq += 1
        self.history += verdicts
        self._publish(verdicts)  # journaled once it stands (`_keep_assumed`): the journal stays in order
        return verdicts

    def _keep_assumed(self) -> None:
        """The chance to change a taken answer ends with the next input: journal it as an answer."""
        assumed, self.assumed = self.assumed, None
        if assumed is not None:
            self._log.record_event(self.game_id, assumed.seq, assumed.ms, "answer", assumed.chosen)
            self._log.record_verdicts(self.game_id, assumed.seq, assumed.verdicts)

    def change_answer(self, question_id: int, choice: int) -> list[Verdict]:
        """Another answer to the question the service answered for nobody, given before the next
        input: the referee is put back as it was with the question open and answers `choice`.
        QuestionClosed when there is no such answer to change (or `choice` is not an option)."""
        with self.lock:
            assumed = self.assumed
            if assumed is None or assumed.question.get("id") != question_id:
                raise QuestionClosed(Text("that question is no longer open"))
            options = list(cast(list[str], assumed.question.get("options") or []))
            if isinstance(choice, bool) or not 0 <= choice < len(options):
                raise QuestionClosed(Text("choose one of the options: {options}", options=joined(options, ", ")))
            self.assumed = None
            self.idle.touched()
            self.referee.restore(assumed.saved)
            del self.history[assumed.history :]
            del self._inputs[-1]
            verdicts = self.referee.take(Answer(choice), assumed.ms / 1000)
            self._inputs.append(EventRecord(assumed.seq, assumed.ms, "answer", choice))
            self._log.record_event(self.game_id, assumed.seq, assumed.ms, "answer", choice)
            self._log.record_verdicts(self.game_id, assumed.seq, verdicts)
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
        self._log.record_note(f"failed:{self.game_id}:{self.seq}", f"game {self.game_id}: {text}")
        return verdicts

    @property
    def journal_trouble(self) -> str | None:
        """Why the journal cannot write now ("journal cannot write: disk full ..."), or None."""
        return self._journal_trouble

    def _check_journal(self) -> None:
        """Tell the listeners when the journal stops being able to write, and when it has caught up."""
        trouble = self._log.trouble
        was, self._journal_trouble = self._journal_trouble, trouble
        if (trouble is None) == (was is None):
            return  # no news: only the count of held writes changed
        if trouble is not None:
            self._publish([JournalNews(trouble + "; the game goes on")])
        elif was is not None:
            self._publish([JournalNews("the journal caught up: every held write is saved")])

    def _after(self, verdicts: list[Verdict]) -> None:
        self._log.record_verdicts(self.game_id, self.seq, verdicts)
        if any(isinstance(v, Win) for v in verdicts):
            self._log.end_game(self.game_id, self.referee.game.winner_id)
            self._dates.stamp(self.game_id, "ended")
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
                    return Press(verdicts=self.handle(CardAction("pass", True)))
                return self._refuse(Text("in the card game, play a card from your hand's page"))
            blocked = self.referee.throw_blocked()
            if blocked is not None:
                unseen = self.referee.unseen_move()
                if unseen is not None:  # the button confirms the move the board cannot show (M5's bounce)
                    return Press(verdicts=self.handle(MoveEntry(unseen.from_sq, unseen.to_sq, unseen.by)))
                return self._refuse(Text("the thrower is not taking a throw: {why}", why=blocked))
            throw = game.roll(rng)
            verdicts = self.handle(ThrowInput(list(throw.value) if isinstance(throw.value, tuple) else throw.value))
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
    def hand_expected(self) -> bool:
        """Whether the game waits for a hand on the board (a move, a fix, an answer), not for the
        button: what a board's switch scanner is told after every batch (`idle.hand_expected`)."""
        with self.lock:
            return hand_expected(self.referee)

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

    def snapshot(self) -> View:
        """The game, the board and the referee's open business, all taken at one moment under the
        lock: what the page and the terminal show (`View.to_json()` for the page's JSON)."""
        with self.lock:
            return view_of(
                self.referee,
                game_id=self.game_id,
                history=self.history,
                question=self._waiting.view(self.referee, self.question_seconds),
                assumed=self.assumed.view() if self.assumed is not None else None,
                journal=self._journal_trouble,  # "journal cannot write: disk full ..." or None
                # what the resume found (a game not resumed to its end, a changed record), for its game only
                journal_notes=self.resume_notes if self.game_id == self._resumed_game else [],
                touched=not self.idle.fresh,  # a person did something since the game began
                lights=self.lights,
            )

    def light_looks(self) -> dict[str, dict[str, str]]:
        """How each kind of light shows with this board's settings: {kind: {"colour": "#RRGGBB", "pattern": ...}}."""
        return self.light_settings.looks()

    def hand(self, player: str) -> HandView | None:
        """One player's view of their cards in the card game (K10), or None when `player` holds no
        hand here (not a player, or not a card game)."""
        with self.lock:
            return hand_of(self.referee.game, player)

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
        """Work out the lights for this batch, then tell every listener (under the lock)."""
        self._memory = self._memory.took(verdicts)
        self.lights = shown(self.referee, self._memory, self.light_settings)
        for listener in list(self._listeners):
            listener(verdicts)

    def close(self) -> None:
        with self.lock:
            self._keep_assumed()
        self._log.close()
