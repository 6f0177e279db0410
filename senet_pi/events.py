"""One event vocabulary: what replay files say, what the referee takes, what the journal keeps.

A replay file is a list of events such as `{"throw": 3}`, `{"lift": 10}`, `{"wait": 600}` or
`{"move": [9, 12], "by": 3}` (`../shared/spec/replay.md`, plus this project's `sense` and
operator events). The referee takes inputs as typed values (`Input`: a `Lift`, a `Throw`, an
`Answer`...), read once where they come in (`read_input`, `Event.input`) and judged by
`Referee.take`, or by name through `Referee.apply`; time passing is a `tick`, and the journal
keeps the inputs by name (`written`) with their milliseconds. This module owns the event kinds,
their validation, and the two translations: events to timed inputs (replay, scripted games,
benchmarks, tests) and journaled inputs back to events (export).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar

from .errors import InvalidThrowError, ReplayError
from .rules import Game
from .rules.board import OFF
from .rules.move import parse_square

#: Event kinds of the replay contract, then this project's additions: `sense` (a snapshot of the
#: switches, which `run` journals) and the operator's actions.
EVENT_KINDS = (
    "throw",
    "card",
    "exchange",
    "pass",
    "move",
    "lift",
    "place",
    "sense",
    "wait",
    "answer",
    "undo",
    "resync",
    "new_game",
)

#: What the referee takes (`Referee.apply`): the events, with time passing as a `tick`.
INPUT_KINDS = (*(k for k in EVENT_KINDS if k != "wait"), "tick")

#: A referee input with its time: (milliseconds, kind, value).
TimedInput = tuple[int, str, object]


@dataclass(frozen=True)
class Event:
    """One event of a replay file (`kind` is one of EVENT_KINDS); `index` counts from 0 in the file."""

    index: int
    kind: str
    value: object
    by: int = 0

    def as_input(self) -> tuple[str, object]:
        """The referee input this event is (a `wait` is a `tick` once its time has passed)."""
        return as_input(self.kind, self.value, self.by)

    def input(self) -> Input:
        """The typed referee input this event is (checked by `parse_event`, so it always reads)."""
        return read_input(*self.as_input())


# ------------------------------------------------------------------ the referee's inputs, typed


@dataclass(frozen=True)
class Throw:
    """The thrower's sticks (or dice), as the rule set reads them."""

    kind: ClassVar[str] = "throw"

    value: object


@dataclass(frozen=True)
class CardAction:
    """`cards` (K4): a card played (`card`), one or two exchanged (`exchange`), or a pass (`pass`)."""

    kind: str
    value: object


@dataclass(frozen=True)
class MoveEntry:
    """A move entered by hand: from a square to another (OFF for off the board), by a die or none."""

    kind: ClassVar[str] = "move"

    from_sq: int
    to_sq: int
    by: int = 0


@dataclass(frozen=True)
class Lift:
    """The switch under `square` opened."""

    kind: ClassVar[str] = "lift"

    square: int


@dataclass(frozen=True)
class Place:
    """The switch under `square` closed."""

    kind: ClassVar[str] = "place"

    square: int


@dataclass(frozen=True)
class Sense:
    """A full snapshot of the switches: the squares that read a piece."""

    kind: ClassVar[str] = "sense"

    squares: tuple[int, ...]


@dataclass(frozen=True)
class Tick:
    """Time passed with no change."""

    kind: ClassVar[str] = "tick"


@dataclass(frozen=True)
class Answer:
    """The operator's answer to the open question: an option's number or its text."""

    kind: ClassVar[str] = "answer"

    choice: int | str


@dataclass(frozen=True)
class Undo:
    """Take the last move back."""

    kind: ClassVar[str] = "undo"


@dataclass(frozen=True)
class Resync:
    """Trust the board as it stands."""

    kind: ClassVar[str] = "resync"


@dataclass(frozen=True)
class NewGame:
    """Start the game again."""

    kind: ClassVar[str] = "new_game"


#: One referee input, read from its kind and value once, where it enters (`read_input`).
Input = Throw | CardAction | MoveEntry | Lift | Place | Sense | Tick | Answer | Undo | Resync | NewGame


def _square(value: object, kind: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{kind} takes a square number, not {value!r}")
    return value


def read_input(kind: str, value: object) -> Input:
    """The typed input of a referee input by name (as replay files and the journal keep them).
    ValueError for a kind the referee does not take; TypeError for a value of the wrong shape."""
    if kind == "throw":
        return Throw(value)
    if kind in ("card", "exchange", "pass"):
        return CardAction(kind, value)
    if kind == "move":
        if not isinstance(value, list | tuple) or not 2 <= len(value) <= 3:
            raise TypeError(f"move takes [from, to] or [from, to, by], not {value!r}")
        squares = [_square(v, kind) for v in value]
        return MoveEntry(squares[0], squares[1], squares[2] if len(squares) > 2 else 0)
    if kind == "lift":
        return Lift(_square(value, kind))
    if kind == "place":
        return Place(_square(value, kind))
    if kind == "sense":
        if not isinstance(value, list | tuple):
            raise TypeError(f"sense takes the list of squares that read a piece, not {value!r}")
        return Sense(tuple(_square(v, kind) for v in value))
    if kind == "tick":
        return Tick()
    if kind == "answer":
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise TypeError(f"answer takes an option's number or its text, not {value!r}")
        return Answer(value)
    if kind == "undo":
        return Undo()
    if kind == "resync":
        return Resync()
    if kind == "new_game":
        return NewGame()
    raise ValueError(f"unknown input {kind!r}: use one of {', '.join(INPUT_KINDS)}")


def written(entry: Input) -> tuple[str, object]:
    """A typed input as the journal keeps it, by name: `read_input` reads it back as it was."""
    match entry:
        case Throw(value) | CardAction(_, value):
            return entry.kind, value
        case MoveEntry(from_sq, to_sq, by):
            return entry.kind, [from_sq, to_sq, by]
        case Lift(square) | Place(square):
            return entry.kind, square
        case Sense(squares):
            return entry.kind, list(squares)
        case Answer(choice):
            return entry.kind, choice
    return entry.kind, True  # a tick, an undo, a resync, a new game: no value of their own


def as_input(kind: str, value: object, by: int = 0) -> tuple[str, object]:
    """The referee input for an event: a wait is a tick, a move carries the die it uses."""
    if kind == "wait":
        return "tick", True
    if kind == "move":
        if not isinstance(value, list | tuple):
            raise TypeError(f"a move's value is its [from, to], not {value!r}")
        return "move", [*value, by]
    return kind, value


def split(raw: Mapping[str, object]) -> tuple[str, object, int]:
    """(kind, value, by) of an event written as a dict, e.g. {"move": [9, 12], "by": 3}."""
    kind, value = next((k, v) for k, v in raw.items() if k != "by")
    by = raw.get("by", 0)
    return kind, value, by if isinstance(by, int) else 0


def timed_inputs(events: Iterable[Mapping[str, object]], spacing_ms: int = 0) -> Iterator[TimedInput]:
    """The referee inputs of a list of events, each with its time: the clock starts at 0, a
    `wait` moves it on (and is a `tick`), and every other event is `spacing_ms` after the last."""
    ms = 0
    for raw in events:
        kind, value, by = split(raw)
        if kind == "wait":
            ms += value  # type: ignore[operator]  # a wait's value is its milliseconds, a number once read
        else:
            ms += spacing_ms
        yield (ms, *as_input(kind, value, by))


def event_of(kind: str, value: object) -> dict[str, object]:
    """A journaled input as a replay event (a move's die becomes its `by`)."""
    if kind == "move":
        if not isinstance(value, list | tuple):
            raise TypeError(f"a journaled move is [from, to, by], not {value!r}")
        squares: list[int] = list(value)
        move: dict[str, object] = {"move": [squares[0], "off" if squares[1] == OFF else squares[1]]}
        if len(squares) > 2 and squares[2]:
            move["by"] = squares[2]
        return move
    return {kind: value}


def events_of(inputs: Iterable[TimedInput]) -> list[dict[str, object]]:
    """Journaled inputs as replay events: the time between them becomes `wait`s, ticks vanish
    into them (replay judges a settled board at the same moment whenever the tick comes)."""
    events: list[dict[str, object]] = []
    clock = 0
    for ms, kind, value in inputs:
        if ms > clock:
            events.append({"wait": ms - clock})
            clock = ms
        if kind != "tick":
            events.append(event_of(kind, value))
    return events


def parse_event(index: int, raw: object, game: Game) -> Event:
    """Check one event of a replay file (index counts from 0) against the game it belongs to."""
    where = f"event {index}"
    if not isinstance(raw, Mapping) or not raw:
        raise ReplayError(f'{where}: an event is an object such as {{"throw": 3}}, not {raw!r}')
    kinds = [k for k in raw if k in EVENT_KINDS]
    if len(kinds) != 1:
        raise ReplayError(f"{where}: name exactly one of {', '.join(EVENT_KINDS)} in {json.dumps(raw)}")
    kind = kinds[0]
    extra = set(raw) - {kind, "by"} if kind == "move" else set(raw) - {kind}
    if extra:
        raise ReplayError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
    value = raw[kind]
    try:
        if kind == "move":
            return Event(index, kind, _move_squares(where, value), _move_by(where, raw.get("by", 0)))
        return Event(index, kind, _CHECKS[kind](where, kind, value, game))
    except (InvalidThrowError, ValueError) as exc:
        if isinstance(exc, ReplayError):
            raise
        raise ReplayError(f"{where}: {exc}") from None


def _throw(where: str, kind: str, value: object, game: Game) -> object:
    return game.parse_throw(value)


def _card(where: str, kind: str, value: object, game: Game) -> object:
    if not isinstance(value, str) or value not in game.card_names():
        raise ReplayError(f"{where}: {value!r} is not a card of this deck ({', '.join(game.card_names())})")
    return value


def _exchange(where: str, kind: str, value: object, game: Game) -> object:
    names = game.card_names()
    if not isinstance(value, list) or not 1 <= len(value) <= 2 or any(c not in names for c in value):
        raise ReplayError(f'{where}: exchange names one or two cards, e.g. {{"exchange": ["2", "H28"]}}')
    return value


def _true(where: str, kind: str, value: object, game: Game) -> object:
    """pass, undo, resync, new_game: the value is always `true`."""
    if value is not True:
        raise ReplayError(f'{where}: write {{"{kind}": true}}')
    return True


def _switch(where: str, kind: str, value: object, game: Game) -> object:
    """lift, place: a square with a switch under it."""
    square = parse_square(value)
    if square == OFF:
        raise ReplayError(f"{where}: a switch sits under a square 1-30, not {value!r}")
    return square


def _sense(where: str, kind: str, value: object, game: Game) -> object:
    if not isinstance(value, list) or len(value) > 30:
        raise ReplayError(f'{where}: sense lists the squares whose switch is closed, e.g. {{"sense": [1, 2, 3]}}')
    squares = [parse_square(sq) for sq in value]
    if OFF in squares or len(set(squares)) != len(squares):
        raise ReplayError(f"{where}: sense lists distinct squares 1-30, not {value!r}")
    return sorted(squares)


def _wait(where: str, kind: str, value: object, game: Game) -> object:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e9:
        raise ReplayError(f"{where}: wait takes milliseconds, a number from 0 up, not {value!r}")
    return value


def _answer(where: str, kind: str, value: object, game: Game) -> object:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ReplayError(f"{where}: answer with an option's number or its text, not {value!r}")
    return value


def _move_squares(where: str, value: object) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise ReplayError(f'{where}: a move is [FROM, TO], e.g. {{"move": [10, 13]}}')
    from_sq, to_sq = parse_square(value[0]), parse_square(value[1])
    if from_sq == OFF:
        raise ReplayError(f"{where}: a move cannot start from 'off'")
    return from_sq, to_sq


def _move_by(where: str, by: object) -> int:
    if isinstance(by, bool) or not isinstance(by, int) or not 0 <= by <= 12:
        raise ReplayError(f"{where}: 'by' must be a die or dice sum from 1 to 12")
    return by


#: How each event kind but `move` is checked: (where, kind, value, game) -> the event's value.
_CHECKS: dict[str, Callable[[str, str, object, Game], object]] = {
    "throw": _throw,
    "card": _card,
    "exchange": _exchange,
    "pass": _true,
    "lift": _switch,
    "place": _switch,
    "sense": _sense,
    "wait": _wait,
    "answer": _answer,
    "undo": _true,
    "resync": _true,
    "new_game": _true,
}
