"""Judging a journaled game's inputs again on start, one at a time, as far as the referee can.

The referee has no clock or randomness of its own, so judging the journaled inputs again gives
back the game. Two things can go wrong, and neither may cost the journal:

- the referee fails on an input (any exception: a bug, an input it never expected): the game
  resumes as it stood before that input;
- the verdicts it gives now differ from the journaled ones (a record changed in place, or a
  referee that judges differently since): the game goes on as judged now, and the first input
  where they part is named.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from ..events import Input, read_input
from ..referee import Referee
from ..verdicts import JournalNews, Verdict, VerdictJSON
from .journal import EventRecord


@dataclass
class Rejudged:
    """The outcome of judging a game's inputs again."""

    referee: Referee  # as it stands after the inputs it could judge
    events: list[EventRecord]  # the inputs it judged, in order
    verdicts: list[list[Verdict]]  # for each of them, its verdicts
    failure: str | None  # why the next input could not be judged (None: every input was)


def rejudge(
    make: Callable[[], Referee],
    events: list[EventRecord],
    unreadable: str | None = None,
    skipped: dict[int, list[Verdict]] | None = None,
) -> Rejudged:
    """Judge `events` on a fresh referee from `make`, stopping before the first input it fails on.
    Whatever the referee raises is caught: a failed input may have changed the referee half way, so
    the inputs before it are judged again on a new one. `skipped`: inputs (by seq) the live game
    already failed on and went on without, with the verdicts that said so: not judged again."""
    skipped = skipped or {}
    referee = make()
    judged: list[list[Verdict]] = []
    rows: dict[int, Row] = {}  # each row read once (by its place), as it leaves the journal
    for i, event in enumerate(events):
        if event.seq in skipped:
            judged.append(skipped[event.seq])
            continue
        try:
            rows[i] = read_row(event)
            verdicts = judge_row(referee, event, rows[i])
        except Exception as exc:  # any failure of the referee: the game stops before this input
            referee = make()
            for j, before in enumerate(events[:i]):
                if before.seq not in skipped:
                    judge_row(referee, before, rows[j])
            why = f"input {i + 1} ({event.kind} {json.dumps(event.value)[:40]}) could not be judged: "
            return Rejudged(referee, events[:i], judged, why + f"{type(exc).__name__}: {exc}"[:200])
        judged.append(verdicts)
    return Rejudged(referee, list(events), judged, unreadable)


#: A journal row read: its typed input, or why it does not read.
Row = Input | ValueError | TypeError


def read_row(event: EventRecord) -> Row:
    """A journaled input read into its typed value (`read_input`), or the error that says why it
    does not read: such a row is refused as the referee refuses any input by name that does not read."""
    try:
        return read_input(event.kind, event.value)
    except (ValueError, TypeError) as exc:
        return exc


def judge_row(referee: Referee, event: EventRecord, row: Row) -> list[Verdict]:
    """Judge one journal row at its time: its typed input taken, or its refusal (`Referee.refuse`)."""
    at = event.ms / 1000
    if isinstance(row, ValueError | TypeError):
        return referee.refuse(event.kind, row, at)
    return referee.take(row, at)


def failed_inputs(stored: dict[int, list[Verdict | str]]) -> dict[int, list[Verdict]]:
    """The inputs the live game failed on and went on without: their only verdicts are the journal
    note that said so (`journal` verdicts are recorded for an input in no other case)."""
    failed: dict[int, list[Verdict]] = {}
    for seq, kept in stored.items():
        notes = [v for v in kept if isinstance(v, JournalNews)]
        if notes and len(notes) == len(kept):
            failed[seq] = list(notes)
    return failed


def as_journaled(verdicts: list[Verdict]) -> list[VerdictJSON]:
    """Verdicts as the journal gives them back: their JSON form, read back from JSON text."""
    journaled: list[VerdictJSON] = json.loads(json.dumps([v.json() for v in verdicts]))
    return journaled


def first_difference(judged: Rejudged, stored: dict[int, list[Verdict | str]]) -> int | None:
    """The index of the first input whose journaled verdicts differ from the re-judged ones, or
    None. The last input may lack its verdicts (stopped between the two writes): not a difference.
    Compared in their JSON form (a re-judged verdict may hold tuples where one read back holds lists);
    a journaled row that is not a verdict (its text) differs from any."""
    for i, (event, verdicts) in enumerate(zip(judged.events, judged.verdicts, strict=True)):
        kept = stored.get(event.seq, [])
        if [v.json() if isinstance(v, Verdict) else v for v in kept] == as_journaled(verdicts):
            continue
        if i == len(judged.events) - 1 and not kept:
            return None  # written before it was judged, stopped before its verdicts: written on resume
        return i
    later = [seq for seq in stored if seq > (judged.events[-1].seq if judged.events else -1)]
    if later and judged.failure is None:
        return len(judged.events)  # verdicts for inputs that are not in the journal
    return None
