"""The game in progress taken up again on start: its journaled inputs judged anew, and when the
referee fails on one, the game's record kept as it was and ended, and the inputs it could judge
carried on as a new game (senet_pi.service.resume does the judging)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..referee import Referee
from ..rules.text import Text
from ..verdicts import Verdict
from .journal import EventRecord, GameRecord, Journal
from .resume import Rejudged, failed_inputs, first_difference, rejudge

#: Builds a referee for a game's set-up: its rule set, players, options and starting position.
MakeReferee = Callable[[str, int, dict[str, object], "dict[str, object] | None"], Referee]


@dataclass
class Resumed:
    """A game taken up again: its referee, its id (a new one when it was carried on), the inputs it
    judged and those it went on without, the verdicts they gave, and when its last input came."""

    referee: Referee
    game_id: int
    events: list[EventRecord]
    skipped: dict[int, list[Verdict]]
    history: list[Verdict]
    last_ms: int
    moves: int
    said: list[Text] = field(default_factory=list)  # what the page says about it while the game is on


class Restart:
    """Takes up the journal's game in progress; says what it found in `notes` (the terminal, once)."""

    def __init__(self, journal: Journal, make: MakeReferee, notes: list[str]) -> None:
        self._journal = journal
        self._make = make
        self._notes = notes

    def resume(self, record: GameRecord, said: list[Text]) -> Resumed | None:
        """Judge the game in progress again. Whatever the referee fails on costs only the inputs from
        that one on: the game's record is kept as it was and ended, and the inputs it could
        judge go on as a new game. None when not even its start could be set up (a new game starts);
        what the page should say about it is added to `said` either way."""
        journal, game_id = self._journal, record.id

        def make() -> Referee:
            return self._make(record.variant, record.players, record.options, record.position)

        try:
            make()
            events, unreadable = journal.readable_events(game_id)
        except Exception as exc:  # a record its own rule set refuses: kept, ended, and a new game starts
            why = f"its start cannot be set up: {type(exc).__name__}: {exc}"[:200]
            said.append(self._unresumable(game_id, 0, why))
            return None
        total = journal.game(game_id).events
        stored = journal.verdicts_by_event(game_id)
        skipped = failed_inputs(stored)
        judged = rejudge(make, events, unreadable, skipped)
        events = judged.events
        new_id = game_id
        if judged.failure is not None:
            new_id = self._carry_on(record, judged)
            said.append(self._unresumable(game_id, len(events), judged.failure, total, new_id))
        else:
            differs = first_difference(judged, stored)
            if differs is not None:
                text = Text(
                    "the journal's record of game {game} differs from what the referee decides now, from "
                    "input {input} on (changed in place, or judged differently since): the game goes on as judged now",
                    game=game_id,
                    input=differs + 1,
                )
                journal.record_note(f"differs:{game_id}", str(text))
                self._notes.append(str(text))
                said.append(text)
            elif events and not stored.get(events[-1].seq) and judged.verdicts[-1]:
                # Stopped between writing an input and its verdicts: write the verdicts now.
                journal.record_verdicts(game_id, events[-1].seq, judged.verdicts[-1])
        referee = judged.referee
        moves = sum(1 for kind, _ in referee.game.actions if kind == "move")
        self._notes.append(f"resumed game {game_id} ({record.variant}) after {len(events)} inputs and {moves} moves")
        return Resumed(
            referee=referee,
            game_id=new_id,
            events=events,
            skipped={e.seq: skipped[e.seq] for e in events if e.seq in skipped},
            history=[v for verdicts in judged.verdicts for v in verdicts],
            last_ms=events[-1].ms if events else 0,
            moves=moves,
        )

    def _carry_on(self, record: GameRecord, judged: Rejudged) -> int:
        """End the game that cannot be resumed (its record stays as it was) and journal the inputs the
        referee could judge, with their verdicts, as a new game that goes on from there."""
        journal, game_id = self._journal, record.id
        journal.end_game(game_id, None)
        new_id = journal.start_game(
            record.variant, record.players, record.options, record.position, started=record.started
        )
        journal.record_carried(game_id, new_id)  # one game in the statistics, not an abandoned one and another
        for old, column, boot, mono, _written in journal.pending_dates():
            if old == game_id and column == "started":  # its start not yet sure: nor is the copy's
                journal.record_pending_date(new_id, "started", boot, mono)
        for seq, (event, verdicts) in enumerate(zip(judged.events, judged.verdicts, strict=True)):
            journal.record_event(new_id, seq, event.ms, event.kind, event.value)
            journal.record_verdicts(new_id, seq, verdicts)
        return new_id

    def _unresumable(self, game_id: int, judged: int, why: str, total: int = 0, new_id: int = 0) -> Text:
        """Say (terminal, journal for `senet-pi status`) that a game could not be resumed, and how far."""
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
            self._journal.end_game(game_id, None)
            text = Text("game {game} could not be resumed ({why}): its record is kept as it was", game=game_id, why=why)
        self._journal.record_note(f"unresumable:{game_id}", str(text))
        self._notes.append(str(text))
        return text
