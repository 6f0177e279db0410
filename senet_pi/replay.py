"""`senet-pi replay`: feed a recorded or hand-written game through the referee and say what it decided.

The file format and the output lines are fixed by `../shared/spec/replay.md`. Reading the
file (`load_replay`) checks everything that makes a file invalid, so `run_replay` only
ever meets events it can judge. Switch events run on a virtual clock: `wait` moves it on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InvalidOptionError, InvalidThrowError, ReplayError, SenetError
from .referee import Referee
from .rules import RULESETS, Game, find_ruleset
from .rules.board import OFF
from .rules.move import parse_square
from .verdicts import Verdict

#: Event kinds of the replay contract, then this project's operator actions (what a journal exports).
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


@dataclass(frozen=True)
class Event:
    """One event of a replay file (`kind` is one of EVENT_KINDS); `index` counts from 0 in the file."""

    index: int
    kind: str
    value: object
    by: int = 0


@dataclass
class Replay:
    """A checked replay file, ready to run."""

    variant: str
    players: int = 2
    options: dict[str, object] = field(default_factory=dict)
    position: dict[str, object] | None = None
    events: list[Event] = field(default_factory=list)

    def new_game(self) -> Game:
        """The game this file starts from."""
        return find_ruleset(self.variant)(self.players, self.options, self.position)


def read_replay_file(path: str | Path) -> Replay:
    """Read and check a replay file (`-` reads standard input)."""
    import sys

    name = "standard input" if str(path) == "-" else str(path)
    try:
        text = sys.stdin.read() if str(path) == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"cannot read {name}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ReplayError(f"{name} is not a UTF-8 text file") from None
    return parse_replay(text, name)


def parse_replay(text: str, name: str = "replay") -> Replay:
    """Parse and check replay JSON text; ReplayError names the problem and the event index."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError:  # an integer of more than 4300 digits (Python's guard against slow conversions)
        raise ReplayError(f"{name} holds a number too long to be a replay's") from None
    except RecursionError:
        raise ReplayError(f"{name} is nested too deeply to be a replay file") from None
    try:
        return load_replay(data)
    except RecursionError:
        raise ReplayError(f"{name} is nested too deeply to be a replay file") from None


def load_replay(data: object) -> Replay:
    """Check a decoded replay object and build a `Replay`."""
    if not isinstance(data, Mapping):
        raise ReplayError("a replay file holds one JSON object with 'variant' and 'events'")
    unknown = set(data) - {"variant", "players", "options", "position", "events"}
    if unknown:
        raise ReplayError(f"unknown field(s) {', '.join(sorted(map(str, unknown)))} in the replay file")
    variant = data.get("variant")
    if not isinstance(variant, str):
        raise ReplayError(f"'variant' must be one of {', '.join(RULESETS)}")
    if variant not in RULESETS:
        raise ReplayError(f"unknown variant {variant!r}: use one of {', '.join(RULESETS)}")
    players = data.get("players", 2)
    options = data.get("options", {})
    position = data.get("position")
    if not isinstance(options, Mapping):
        raise ReplayError("'options' must be a JSON object")
    if position is not None and not isinstance(position, Mapping):
        raise ReplayError("'position' must be a JSON object")
    if isinstance(players, bool) or not isinstance(players, int):
        raise ReplayError(f"'players' must be a whole number, not {players!r}")
    replay = Replay(variant, players, dict(options), None if position is None else dict(position))
    try:
        game = replay.new_game()
    except InvalidOptionError as exc:
        raise ReplayError(str(exc)) from None
    events = data.get("events")
    if not isinstance(events, list):
        raise ReplayError("'events' must be a list")
    replay.events = [_read_event(i, raw, game) for i, raw in enumerate(events)]
    return replay


def _read_event(index: int, raw: object, game: Game) -> Event:
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
        if kind == "throw":
            return Event(index, kind, game.parse_throw(value))
        if kind == "card":
            if not isinstance(value, str) or value not in _card_names(game):
                raise ReplayError(f"{where}: {value!r} is not a card of this deck ({', '.join(_card_names(game))})")
            return Event(index, kind, value)
        if kind == "exchange":
            names = _card_names(game)
            if not isinstance(value, list) or not 1 <= len(value) <= 2 or any(c not in names for c in value):
                raise ReplayError(f'{where}: exchange names one or two cards, e.g. {{"exchange": ["2", "H28"]}}')
            return Event(index, kind, value)
        if kind == "pass":
            if value is not True:
                raise ReplayError(f'{where}: write {{"pass": true}}')
            return Event(index, kind, True)
        if kind in ("lift", "place"):
            square = parse_square(value)
            if square == OFF:
                raise ReplayError(f"{where}: a switch sits under a square 1-30, not {value!r}")
            return Event(index, kind, square)
        if kind == "sense":
            if not isinstance(value, list) or len(value) > 30:
                raise ReplayError(
                    f'{where}: sense lists the squares whose switch is closed, e.g. {{"sense": [1, 2, 3]}}'
                )
            squares = [parse_square(sq) for sq in value]
            if OFF in squares or len(set(squares)) != len(squares):
                raise ReplayError(f"{where}: sense lists distinct squares 1-30, not {value!r}")
            return Event(index, kind, sorted(squares))
        if kind == "wait":
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e9:
                raise ReplayError(f"{where}: wait takes milliseconds, a number from 0 up, not {value!r}")
            return Event(index, kind, value)
        if kind == "answer":
            if isinstance(value, bool) or not isinstance(value, int | str):
                raise ReplayError(f"{where}: answer with an option's number or its text, not {value!r}")
            return Event(index, kind, value)
        if kind in ("undo", "resync", "new_game"):
            if value is not True:
                raise ReplayError(f'{where}: write {{"{kind}": true}}')
            return Event(index, kind, True)
        if not isinstance(value, list) or len(value) != 2:
            raise ReplayError(f'{where}: a move is [FROM, TO], e.g. {{"move": [10, 13]}}')
        from_sq, to_sq = parse_square(value[0]), parse_square(value[1])
        if from_sq == OFF:
            raise ReplayError(f"{where}: a move cannot start from 'off'")
        by = raw.get("by", 0)
        if isinstance(by, bool) or not isinstance(by, int) or not 0 <= by <= 12:
            raise ReplayError(f"{where}: 'by' must be a die or dice sum from 1 to 12")
        return Event(index, kind, (from_sq, to_sq), by)
    except (InvalidThrowError, ValueError) as exc:
        if isinstance(exc, ReplayError):
            raise
        raise ReplayError(f"{where}: {exc}") from None


def _card_names(game: Game) -> list[str]:
    if not hasattr(game, "hands"):
        return []
    return sorted(set(game.options["deck_order"]))  # type: ignore[arg-type]


def run_replay(replay: Replay, referee: Referee | None = None) -> Iterator[Verdict]:
    """Play the events through the referee and yield the verdicts in the order they were decided.

    The clock starts at 0 and moves only with `wait`; the end of the events counts as settled."""
    referee = referee or Referee(replay.new_game())
    clock_ms = 0
    for event in replay.events:
        kind, value = event.kind, event.value
        if kind == "wait":
            clock_ms += value  # type: ignore[operator]
            kind = "tick"
        elif kind == "move":
            value = [*value, event.by]  # type: ignore[misc]
        for verdict in referee.apply(kind, value, clock_ms / 1000):
            if verdict["v"] == "illegal":
                verdict["event"] = event.index
            yield verdict
    yield from referee.flush()


def replay_lines(replay: Replay) -> Iterator[str]:
    """The output lines of `senet-pi replay`: one compact JSON object each."""
    for verdict in run_replay(replay):
        yield json.dumps(verdict, separators=(", ", ": "))


__all__ = [
    "Event",
    "Replay",
    "SenetError",
    "load_replay",
    "parse_replay",
    "read_replay_file",
    "replay_lines",
    "run_replay",
]
