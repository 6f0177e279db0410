"""`senet-pi replay`: feed a recorded or hand-written game through the referee and say what it decided.

The file format and the output lines are a contract (docs/reference/replay-files.md). Reading the
file (`load_replay`) checks everything that makes a file invalid, so `run_replay` only
ever meets events it can judge. Switch events run on a virtual clock: `wait` moves it on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidOptionError, ReplayError, SenetError
from ..events import EVENT_KINDS, Event, parse_event
from ..referee import Referee
from ..rules import RULESETS, Game, find_ruleset
from ..verdicts import Illegal, Verdict, VerdictJSON
from .lights import Memory, changed, lights_line, shown


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
    unknown = set(data) - {"variant", "players", "options", "position", "events", "seats"}
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
    seats = data.get("seats", {})  # who played (as export writes it): said, not judged
    if not isinstance(seats, Mapping) or not all(isinstance(v, str) for v in seats.values()):
        raise ReplayError('\'seats\' must map players to who played them, e.g. {"B": "computer level 3"}')
    replay = Replay(variant, players, dict(options), None if position is None else dict(position))
    try:
        game = replay.new_game()
    except InvalidOptionError as exc:
        raise ReplayError(str(exc)) from None
    events = data.get("events")
    if not isinstance(events, list):
        raise ReplayError("'events' must be a list")
    replay.events = [parse_event(i, raw, game) for i, raw in enumerate(events)]
    return replay


def run_replay(replay: Replay, referee: Referee | None = None) -> Iterator[VerdictJSON]:
    """Play the events through the referee and yield the verdicts in the order they were decided, in
    the JSON form the replay contract prints (an `illegal` one names the event it refused).

    The clock starts at 0 and moves only with `wait`; the end of the events counts as settled."""
    for _, lines in judged(replay, referee or Referee(replay.new_game())):
        yield from lines


def judged(replay: Replay, referee: Referee) -> Iterator[tuple[list[Verdict], list[VerdictJSON]]]:
    """Each event's verdicts (then the final flush's), typed and in their JSON form, as `referee` decides them."""
    clock_ms: float = 0
    for event in replay.events:
        if event.kind == "wait" and isinstance(event.value, int | float):  # parse_event checked it is a number
            clock_ms += event.value
        verdicts = referee.take(event.input(), clock_ms / 1000)
        lines = []
        for verdict in verdicts:
            line = verdict.json()
            if isinstance(verdict, Illegal):
                line["event"] = event.index
            lines.append(line)
        yield verdicts, lines
    flushed = referee.flush()
    yield flushed, [verdict.json() for verdict in flushed]


def replay_lines(replay: Replay, lights: bool = False) -> Iterator[str]:
    """The output lines of `senet-pi replay`: one compact JSON object each. With `lights`, after the
    verdict lines of each event, one `{"lights": {...}}` line whenever the lights under the squares change."""
    referee = Referee(replay.new_game())
    memory, before = Memory(), shown(referee, Memory())
    for verdicts, lines in judged(replay, referee):
        yield from (verdict_line(line) for line in lines)
        if lights:
            memory = memory.took(verdicts)
            now = shown(referee, memory)
            if changed(before, now):
                yield verdict_line(lights_line(now))
            before = now


def verdict_line(verdict: VerdictJSON) -> str:
    """One verdict as `senet-pi replay` prints it (and the fleet's verdicts topic carries it)."""
    return json.dumps(verdict, separators=(", ", ": "))


__all__ = [
    "EVENT_KINDS",
    "Event",
    "Replay",
    "SenetError",
    "load_replay",
    "parse_replay",
    "read_replay_file",
    "replay_lines",
    "run_replay",
    "verdict_line",
]
