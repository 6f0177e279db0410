"""The lights under the squares: one small vocabulary, derived from the referee's verdicts and state.

A board with a light under each square (a strip on the wooden board, the page's glow on the
simulated one) shows what the banner says, where it happens: the squares a lifted piece may go
to, the fix of a wrong board one step at a time (where from blinking, where to steady), the
rules' own moves to carry out, the computer's move, the squares a question is about, a faulty
switch, a bonus throw owed (the sticks and the button), the winner, an attract pattern for an
idle exhibit. `shown` is a pure function of the referee's public state and what the verdicts
said (`Memory`, folded by `Memory.took`): never a second referee. Each kind has its own colour
from the Okabe-Ito palette (safe for the common colour blindness) *and* its own pattern, so
colour is never the only cue; `LightSettings` turns kinds off, recolours them, caps brightness.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from firmware_bridge.glow import level as glow_level

from ..referee import Referee
from ..referee.physical import HAND
from ..referee.state import Mode
from ..verdicts import (
    Bonus,
    Cleared,
    Fix,
    Idle,
    Illegal,
    Moved,
    NewGame,
    Prompt,
    Resynced,
    Settled,
    Thrown,
    Turn,
    Undone,
    Verdict,
    Win,
)

#: The two lights beside the squares: the four stick LEDs and the thrower's button ring.
STICKS, BUTTON = "sticks", "button"
SQUARES = range(1, 31)


class Kind(StrEnum):
    """What a lit square (or the sticks, or the button) says: the vocabulary, by its names."""

    MOVE = "move"  # a lifted piece may go here
    FIX_FROM = "fix_from"  # a wrong board: take the piece from here (the fix in the verdict's order)
    FIX_TO = "fix_to"  # ... and put it here
    SWAP = "swap"  # two pieces to swap back
    RULES_FROM = "rules_from"  # the rules' own move to carry out (an exchange's other piece, a piece to 15)
    RULES_TO = "rules_to"
    COMPUTER_FROM = "computer_from"  # the computer's move, for a person to carry out
    COMPUTER_TO = "computer_to"
    QUESTION = "question"  # a square a question is about
    FAULT = "fault"  # a switch judged faulty
    BONUS = "bonus"  # a bonus throw is owed (the sticks and the button)
    WINNER = "winner"  # the game is won
    ATTRACT = "attract"  # an idle exhibit invites the next visitors


class Pattern(StrEnum):
    """How a light changes over time: each kind has its own, so no kind is told by colour alone."""

    STEADY = "steady"  # on
    BLINK = "blink"  # on and off, twice a second
    SLOW = "slow"  # on and off, once a second
    ALTERNATE = "alternate"  # blink, the two squares of a swap in turn
    DOUBLE = "double"  # two short flashes, then dark
    PULSE = "pulse"  # breathes up and down
    WAVE = "wave"  # a wave running along the board
    CHASE = "chase"  # one bright square running round the board


@dataclass(frozen=True)
class Look:
    """How one kind shows: its colour (RRGGBB) and its pattern."""

    colour: str
    pattern: Pattern


#: The Okabe-Ito palette (Okabe and Ito, "Color Universal Design"), safe for the common colour blindness.
OKABE_ITO = {
    "orange": "E69F00",
    "sky_blue": "56B4E9",
    "bluish_green": "009E73",
    "yellow": "F0E442",
    "blue": "0072B2",
    "vermillion": "D55E00",
    "reddish_purple": "CC79A7",
}

#: Each kind's look: the pairs (from, to) share a colour and differ in pattern (from blinks, to is steady).
LOOKS: dict[Kind, Look] = {
    Kind.MOVE: Look(OKABE_ITO["blue"], Pattern.STEADY),
    Kind.FIX_FROM: Look(OKABE_ITO["vermillion"], Pattern.BLINK),
    Kind.FIX_TO: Look(OKABE_ITO["vermillion"], Pattern.STEADY),
    Kind.SWAP: Look(OKABE_ITO["vermillion"], Pattern.ALTERNATE),
    Kind.RULES_FROM: Look(OKABE_ITO["reddish_purple"], Pattern.SLOW),
    Kind.RULES_TO: Look(OKABE_ITO["reddish_purple"], Pattern.STEADY),
    Kind.COMPUTER_FROM: Look(OKABE_ITO["bluish_green"], Pattern.SLOW),
    Kind.COMPUTER_TO: Look(OKABE_ITO["bluish_green"], Pattern.STEADY),
    Kind.QUESTION: Look(OKABE_ITO["yellow"], Pattern.PULSE),
    Kind.FAULT: Look(OKABE_ITO["orange"], Pattern.DOUBLE),
    Kind.BONUS: Look(OKABE_ITO["sky_blue"], Pattern.PULSE),
    Kind.WINNER: Look(OKABE_ITO["orange"], Pattern.WAVE),
    Kind.ATTRACT: Look(OKABE_ITO["sky_blue"], Pattern.CHASE),
}

#: The lights on show: "1".."30", "sticks", "button" -> a kind. JSON-ready (square numbers as strings).
Lights = dict[str, str]


@dataclass(frozen=True)
class LightSettings:
    """What config.toml says of the lights: which kinds show, their colours, the brightness cap."""

    on: bool = True
    off: frozenset[Kind] = frozenset()
    colours: Mapping[Kind, str] = field(default_factory=dict)
    brightness: int = 25  # percent of full: the strip's power budget (docs/building.md) assumes at most 25

    def look(self, kind: Kind) -> Look:
        """The look of `kind`, with the colour config.toml gives it."""
        look = LOOKS[kind]
        colour = self.colours.get(kind)
        return replace(look, colour=colour) if colour else look

    def looks(self) -> dict[str, dict[str, str]]:
        """Every kind's look as the page draws it: {kind: {"colour": "#RRGGBB", "pattern": name}}."""
        return {str(k): {"colour": "#" + self.look(k).colour, "pattern": str(self.look(k).pattern)} for k in Kind}

    @classmethod
    def from_config(cls, config: Mapping[str, object]) -> LightSettings:
        """The settings from checked config values (`LIGHTS`, `LIGHTS_OFF`, `LIGHTS_COLOURS`, `LIGHTS_BRIGHTNESS`)."""
        off = config.get("LIGHTS_OFF")
        colours = config.get("LIGHTS_COLOURS")
        off = off if isinstance(off, list) else []
        colours = colours if isinstance(colours, list) else []
        brightness = config.get("LIGHTS_BRIGHTNESS", 25)
        return cls(
            on=config.get("LIGHTS", True) is not False,
            off=frozenset(Kind(k) for k in off if isinstance(k, str)),
            colours=dict(_colour(c) for c in colours if isinstance(c, str)),
            brightness=int(brightness) if isinstance(brightness, int | float) else 25,
        )


_COLOUR = re.compile(r"([a-z_]+)\s*=\s*#?([0-9A-Fa-f]{6})")
KIND_NAMES = ", ".join(k.value for k in Kind)


def _colour(text: str) -> tuple[Kind, str]:
    found = _COLOUR.fullmatch(text.strip())
    assert found is not None  # checked by check_colours
    return Kind(found.group(1)), found.group(2).upper()


def check_percent(value: object) -> str | None:
    """LIGHTS_BRIGHTNESS's check: percent of full, 1-100 (the power budget in Building assumes 25)."""
    ok = isinstance(value, int) and 1 <= value <= 100
    return None if ok else f"LIGHTS_BRIGHTNESS must be a whole number of percent from 1 to 100, not {value!r}"


def check_kinds(value: object) -> str | None:
    """LIGHTS_OFF's check: a list of kind names."""
    wrong = [k for k in value if k not in set(Kind)] if isinstance(value, list) else [value]
    return f"LIGHTS_OFF must list kinds of light ({KIND_NAMES}), not {wrong[0]!r}" if wrong else None


def check_colours(value: object) -> str | None:
    """LIGHTS_COLOURS's check: a list of "kind=RRGGBB"."""
    for item in value if isinstance(value, list) else [value]:
        found = _COLOUR.fullmatch(item.strip()) if isinstance(item, str) else None
        if found is None or found.group(1) not in set(Kind):
            return f'LIGHTS_COLOURS must be a list of "kind=RRGGBB" (kinds: {KIND_NAMES}), not {item!r}'
    return None


# ---------------------------------------------------------------------- what the verdicts said


@dataclass(frozen=True)
class Memory:
    """What the lights need that only the verdicts say: the fix being guided, the computer's move
    (a prompt the referee does not owe), a bonus throw owed, an idle exhibit's reset."""

    fix: Fix | None = None
    computer: Prompt | None = None
    bonus: bool = False
    idle: bool = False

    def took(self, verdicts: Iterable[Verdict]) -> Memory:
        """This memory after a batch of verdicts, in their order."""
        memory = self
        for verdict in verdicts:
            memory = memory._one(verdict)
        return memory

    def _one(self, verdict: Verdict) -> Memory:
        if isinstance(verdict, Fix):
            return replace(self, fix=verdict, idle=False)
        if isinstance(verdict, Prompt):
            return replace(self, computer=verdict, idle=False)
        if isinstance(verdict, Bonus):
            return replace(self, bonus=True, idle=False)
        if isinstance(verdict, Idle):
            return Memory(idle=True)
        if isinstance(verdict, NewGame | Resynced | Undone | Win):
            return replace(Memory(), idle=self.idle and isinstance(verdict, NewGame))
        if isinstance(verdict, Moved | Turn):
            return replace(self, computer=None, fix=None, bonus=False, idle=False)
        if isinstance(verdict, Thrown):  # the computer's move (noted after its throw) is for this throw only
            return replace(self, computer=None, bonus=False, idle=False)
        if isinstance(verdict, Cleared | Settled) or (isinstance(verdict, Illegal) and _warns(verdict)):
            return replace(self, fix=None, idle=False)
        return self


def _warns(verdict: Illegal) -> bool:
    """Whether an `illegal` line raises a warning over the board (its fixes follow), not a refusal."""
    return verdict.missing is not None or verdict.extra is not None or verdict.swap is not None


# ---------------------------------------------------------------------- the pure function


def shown(referee: Referee, memory: Memory, settings: LightSettings = LightSettings()) -> Lights:
    """The lights for the referee's state now and what the verdicts said: {square or "sticks"/"button": kind}.

    The most pressing business shows alone (the winner, a question, a wrong board, the rules' own
    moves, an idle exhibit's set board, the computer's move, a lifted piece), with the faulty switches and a bonus
    throw owed beside it; kinds turned off in `settings` are left dark."""
    if not settings.on:
        return {}
    lit = _business(referee, memory)
    for square in referee.faults:
        lit.setdefault(str(square), Kind.FAULT)
    if memory.bonus and referee.mode is Mode.THROW:
        lit[STICKS] = lit[BUTTON] = Kind.BONUS
    return {where: str(kind) for where, kind in lit.items() if kind not in settings.off}


def _business(referee: Referee, memory: Memory) -> dict[str, Kind]:
    """The squares of the most pressing open business, by the referee's mode."""
    game = referee.game
    if game.winner_id is not None:
        return _all(Kind.WINNER)
    mode = referee.mode
    if mode is Mode.ANSWER:
        return _lit(_question_squares(referee), Kind.QUESTION)
    if mode is Mode.FIX:
        return _fix(referee, memory)
    if mode is Mode.PROMPTS:  # the rules' own move: its piece already in a hand needs only where it goes
        step = referee.steps_left[0]
        held = step.from_sq in SQUARES and bool(referee.attempt.in_hand() >> step.from_sq & 1)
        return _pair(HAND if held else step.from_sq, step.to_sq, Kind.RULES_FROM, Kind.RULES_TO)
    if memory.idle and mode is Mode.THROW:  # an idle exhibit's board, set up again: come and play
        return _all(Kind.ATTRACT)
    if memory.computer is not None and mode is Mode.MOVE:
        move = memory.computer
        return _pair(move.from_sq, move.to, Kind.COMPUTER_FROM, Kind.COMPUTER_TO)
    if mode is Mode.MOVE:
        return _lit(destinations(referee), Kind.MOVE)
    return {}


def destinations(referee: Referee) -> list[int]:
    """The squares the one piece in the hand may go to: its legal moves for the throw waiting.
    A piece is in the hand when the game's board lacks exactly it (nothing put elsewhere yet)."""
    game = referee.game
    expected, sensed = referee.expected, referee.sensed
    lifted = [sq for sq in SQUARES if expected >> sq & 1 and not sensed >> sq & 1]
    if len(lifted) != 1 or sensed & ~expected or game.pending is None:
        return []
    return sorted({m.to_sq for m in game.legal_moves() if m.from_sq == lifted[0] and m.to_sq in SQUARES})


def _fix(referee: Referee, memory: Memory) -> dict[str, Kind]:
    """A wrong board: the first fix not yet done on the board, in the verdicts' order: the fix line
    being guided, then the warning's fixes. A fix is done once its square to lift from is empty and
    its square to put down on is full, so the lights move on as the hands work (a swap is never
    seen done: the referee says when it is)."""
    warning = referee.warning
    steps: list[tuple[int, int, bool]] = []
    if memory.fix is not None:
        fix = memory.fix
        to = fix.to if isinstance(fix.to, int) else HAND
        steps.append((fix.from_sq or HAND, to, fix.swap))
    if warning is not None:
        steps += [(f.from_sq, f.to_sq, f.swap) for f in warning.fixes]
    sensed = referee.sensed
    for from_sq, to_sq, swap in steps:
        if swap:
            return _lit((from_sq, to_sq), Kind.SWAP)
        lifted = from_sq == HAND or not sensed >> from_sq & 1
        put = to_sq not in SQUARES or bool(sensed >> to_sq & 1)
        if not (lifted and put):
            return _pair(from_sq, to_sq, Kind.FIX_FROM, Kind.FIX_TO)
    return {}


def first_fix_squares(referee: Referee) -> dict[str, Kind]:
    """The squares of the standing warning's first fix, as the lights show them (for tests and docs)."""
    return _fix(referee, Memory())


def _question_squares(referee: Referee) -> list[int]:
    question = referee.question
    return question.about() if question is not None else []


def _pair(from_sq: object, to_sq: object, start: Kind, end: Kind) -> dict[str, Kind]:
    lit: dict[str, Kind] = {}
    if isinstance(from_sq, int) and from_sq in SQUARES and from_sq != HAND:
        lit[str(from_sq)] = start
    if isinstance(to_sq, int) and to_sq in SQUARES and to_sq != HAND:
        lit[str(to_sq)] = end
    return lit


def _lit(squares: Iterable[int], kind: Kind) -> dict[str, Kind]:
    return {str(sq): kind for sq in squares if sq in SQUARES}


def _all(kind: Kind) -> dict[str, Kind]:
    return {**_lit(SQUARES, kind), STICKS: kind, BUTTON: kind}


# ---------------------------------------------------------------------- the colour of a light at a moment


#: Each pattern as the firmware's letter (`firmware_bridge/glow.py`, the one implementation of the patterns).
LETTERS = {
    Pattern.STEADY: "S", Pattern.BLINK: "B", Pattern.SLOW: "L", Pattern.ALTERNATE: "A",
    Pattern.DOUBLE: "D", Pattern.PULSE: "P", Pattern.WAVE: "W", Pattern.CHASE: "C",
}  # fmt: skip


def level(pattern: Pattern, t: float, index: int = 0) -> float:
    """How bright a light of `pattern` is at `t` seconds (0 dark .. 1 full); `index` is its place on
    the strip (0-31), for the patterns that run along the board. The Pico, the Pi's strip and this
    share the firmware's implementation."""
    return glow_level(LETTERS[pattern], int(t * 1000), index) / 255


def colours(lights: Mapping[str, str], t: float, settings: LightSettings = LightSettings()) -> dict[str, int]:
    """Each lit place's colour at `t` seconds as 0xRRGGBB, scaled by the brightness cap: what a strip shows."""
    out: dict[str, int] = {}
    scale = settings.brightness / 100
    for where, name in lights.items():
        look = settings.look(Kind(name))
        index = int(where) - 1 if where.isdigit() else 30 if where == STICKS else 31
        value = level(look.pattern, t, index) * scale
        rgb = int(look.colour, 16)
        out[where] = sum(round((rgb >> shift & 0xFF) * value) << shift for shift in (16, 8, 0))
    return out


def changed(before: Lights, after: Lights) -> bool:
    """Whether the lights on show differ (what a strip must be told, what replay prints)."""
    return dict(before) != dict(after)


def lights_line(lights: Lights) -> dict[str, object]:
    """The lights as `senet-pi replay --lights` prints them: squares in board order, then sticks and button."""
    order = [str(sq) for sq in SQUARES] + [STICKS, BUTTON]
    return {"lights": {where: lights[where] for where in order if where in lights}}


__all__: Sequence[str] = [
    "BUTTON",
    "LOOKS",
    "OKABE_ITO",
    "STICKS",
    "Kind",
    "LightSettings",
    "Lights",
    "Look",
    "Memory",
    "Pattern",
    "changed",
    "check_colours",
    "check_kinds",
    "colours",
    "destinations",
    "first_fix_squares",
    "level",
    "lights_line",
    "shown",
]
