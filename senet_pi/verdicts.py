"""Verdicts: what the referee decided, as small typed values with one JSON form.

Each kind is a frozen dataclass. The referee returns them, the service journals and publishes
them, and its listeners (the terminal, the sticks, the bridge's lights) read them as typed
values; `json()` turns one into the line the journal, `senet-pi replay`, the page and the fleet
read (the replay format, docs/reference/replay-files.md): `{"v": kind, ...}` with the fields in
order, optional ones left out when empty (None, or False for a flag). The kinds outside tests read
are `move`, `illegal`, `bonus`, `turn` and `win`; the rest are this project's additions. What the
rules did by themselves after a move rides on the move line as `effects`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import ClassVar

from .errors import IllegalMoveError
from .rules import effects as rules_did
from .rules.board import square_name
from .rules.effects import Effect
from .rules.move import Move
from .rules.reasons import Reason
from .rules.text import Text

#: A verdict in its JSON form: what the journal stores, replay prints and the page and the fleet read.
VerdictJSON = dict[str, object]


@dataclass(frozen=True)
class Verdict:
    """A verdict kind. Subclasses name their kind in `v` and list their fields in JSON order."""

    v: ClassVar[str] = ""
    #: Fields left out of the JSON form when they are None (or False: a flag said only when set).
    optional: ClassVar[frozenset[str]] = frozenset()
    #: Fields whose JSON key is not a Python name.
    keys: ClassVar[dict[str, str]] = {"from_sq": "from"}

    def json(self) -> VerdictJSON:
        """The one JSON form of this verdict."""
        out: VerdictJSON = {"v": self.v}
        for f in fields(self):
            value = getattr(self, f.name)
            if (value is None or value is False) and f.name in self.optional:
                continue
            out[self.keys.get(f.name, f.name)] = value
        return out


def parse_verdict(data: VerdictJSON) -> Verdict:
    """A verdict's JSON form back as its typed value; ValueError for an unknown kind or wrong fields."""
    kind = KINDS.get(str(data.get("v")))
    if kind is None:
        raise ValueError(f"unknown verdict kind {data.get('v')!r}")
    names = {kind.keys.get(f.name, f.name): f.name for f in fields(kind)}
    unknown = set(data) - set(names) - {"v"}
    if unknown:
        raise ValueError(f"a {kind.v!r} verdict has no field {sorted(unknown)[0]!r}")
    try:
        return kind(**{names[key]: value for key, value in data.items() if key != "v"})
    except TypeError as exc:
        raise ValueError(f"a {kind.v!r} verdict: {exc}") from None


# ---------------------------------------------------------------------- the game


@dataclass(frozen=True)
class Moved(Verdict):
    """A move accepted, with what the rules did by themselves after it (an exchange, a drowning...)."""

    v: ClassVar[str] = "move"
    optional: ClassVar[frozenset[str]] = frozenset({"effects"})
    player: str | None
    from_sq: int
    to: int | str
    by: int
    effects: list[dict[str, object]] | None = None


@dataclass(frozen=True)
class Illegal(Verdict):
    """Something the rules or the referee refuse: the reason in words and the ruling that decides it;
    for a wrong board, what is missing and extra and how to fix it; for a swap, its two squares."""

    v: ClassVar[str] = "illegal"
    optional: ClassVar[frozenset[str]] = frozenset({"missing", "extra", "fix", "swap", "player"})
    reason: str
    ruling: str
    missing: list[int] | None = None
    extra: list[int] | None = None
    fix: list[str] | None = None
    swap: list[int] | None = None
    player: str | None = None

    @classmethod
    def because(cls, reason: Reason, **details: object) -> Illegal:
        """The refusal for one of the rules' reasons, its sentence without the ruling id (which has a field)."""
        return cls(reason=reason.sentence(**details), ruling=str(details.get("ruling", reason.ruling)))


@dataclass(frozen=True)
class Bonus(Verdict):
    v: ClassVar[str] = "bonus"
    player: str


@dataclass(frozen=True)
class Turn(Verdict):
    v: ClassVar[str] = "turn"
    player: str


@dataclass(frozen=True)
class Win(Verdict):
    v: ClassVar[str] = "win"
    optional: ClassVar[frozenset[str]] = frozenset({"scores"})
    player: str
    scores: dict[str, int] | None = None


@dataclass(frozen=True)
class Forfeit(Verdict):
    """P7: a throw that moves nothing is lost."""

    v: ClassVar[str] = "forfeit"
    player: str
    throw: object
    reason: str


@dataclass(frozen=True)
class Out(Verdict):
    """M9: a player leaves the game."""

    v: ClassVar[str] = "out"
    player: str


@dataclass(frozen=True)
class Removed(Verdict):
    """Pieces the rules took off the board without a move (M9: those of a player who leaves)."""

    v: ClassVar[str] = "removed"
    effects: list[dict[str, object]]


@dataclass(frozen=True)
class Thrown(Verdict):
    v: ClassVar[str] = "throw"
    player: str
    value: object


@dataclass(frozen=True)
class CardPlayed(Verdict):
    v: ClassVar[str] = "card"
    player: str
    card: str


@dataclass(frozen=True)
class Exchanged(Verdict):
    v: ClassVar[str] = "exchange"
    player: str
    count: int


@dataclass(frozen=True)
class Passed(Verdict):
    v: ClassVar[str] = "pass"
    player: str


@dataclass(frozen=True)
class Undone(Verdict):
    v: ClassVar[str] = "undone"
    player: str
    move: str


@dataclass(frozen=True)
class NewGame(Verdict):
    v: ClassVar[str] = "new_game"
    variant: str
    to_move: str


@dataclass(frozen=True)
class Idle(Verdict):
    """Nobody played for the idle time (an exhibit): game `game` was saved and a new one begins."""

    v: ClassVar[str] = "idle"
    text: str
    game: int
    minutes: float


@dataclass(frozen=True)
class Resynced(Verdict):
    """The board won: what the referee assumed, and the position it now holds."""

    v: ClassVar[str] = "resync"
    assumed: list[str]
    board: dict[str, str]


@dataclass(frozen=True)
class Revised(Verdict):
    """A provisional move turned out to be another way of playing the same throw."""

    v: ClassVar[str] = "revised"
    player: str
    was: list[str]
    now: list[str]
    text: str


# ---------------------------------------------------------------------- the board and the hands


@dataclass(frozen=True)
class Prompt(Verdict):
    """A step the people should carry out: a move the rules made, an undo, a Nile drowning."""

    v: ClassVar[str] = "prompt"
    text: str
    player: str
    from_sq: int | None = None
    to: int | str | None = None


@dataclass(frozen=True)
class Fix(Verdict):
    """One thing to do to put the board right: carry a piece from `from` to `to` (None on either
    side: take it off, or put one on), or, with `swap`, let the pieces on `from` and `to` change
    places (two pieces swapped by hand, to swap back). `swap` is in the JSON form only when set."""

    v: ClassVar[str] = "fix"
    optional: ClassVar[frozenset[str]] = frozenset({"swap"})
    text: str
    from_sq: int | None = None
    to: int | str | None = None
    swap: bool = False


@dataclass(frozen=True)
class Progress(Verdict):
    v: ClassVar[str] = "progress"
    text: str = Text("move in progress")


@dataclass(frozen=True)
class Settled(Verdict):
    v: ClassVar[str] = "settled"
    text: str = Text("the board is as the game expects")


@dataclass(frozen=True)
class Cleared(Verdict):
    v: ClassVar[str] = "cleared"
    text: str = Text("the board matches the game")


@dataclass(frozen=True)
class Switch(Verdict):
    """A switch judged faulty (`fault` "stuck closed" / "stuck open"), or working again (None)."""

    v: ClassVar[str] = "switch"
    square: int
    fault: str | None
    text: str


@dataclass(frozen=True)
class Sensor(Verdict):
    """A switch event that cannot be: the switch was already in that state."""

    v: ClassVar[str] = "sensor"
    square: int
    reason: str


@dataclass(frozen=True)
class Question(Verdict):
    v: ClassVar[str] = "question"
    id: int
    kind: str
    text: str
    options: list[str]


@dataclass(frozen=True)
class Answered(Verdict):
    v: ClassVar[str] = "answered"
    id: int
    answer: str


@dataclass(frozen=True)
class Withdrawn(Verdict):
    """A question no longer asked: the board moved on."""

    v: ClassVar[str] = "withdrawn"
    id: int


# ---------------------------------------------------------------------- said, not journaled


@dataclass(frozen=True)
class Refused(Verdict):
    """The thrower's button or a gesture refused, and why."""

    v: ClassVar[str] = "refused"
    text: str


@dataclass(frozen=True)
class Offer(Verdict):
    v: ClassVar[str] = "offer"
    text: str


@dataclass(frozen=True)
class JournalNews(Verdict):
    v: ClassVar[str] = "journal"
    text: str


@dataclass(frozen=True)
class Link(Verdict):
    """The USB bridge connected, lost, or reporting."""

    v: ClassVar[str] = "link"
    connected: bool
    text: str


#: Every verdict kind by its name in the JSON form.
KINDS: dict[str, type[Verdict]] = {
    cls.v: cls
    for cls in (
        Moved, Illegal, Bonus, Turn, Win, Forfeit, Out, Removed, Thrown, CardPlayed, Exchanged, Passed, Undone,
        NewGame, Resynced, Revised, Prompt, Fix, Progress, Settled, Cleared, Switch, Sensor, Question, Answered,
        Withdrawn, Refused, Offer, JournalNews, Link, Idle,
    )
}  # fmt: skip


def _effect_fields(effect: Effect) -> dict[str, object]:
    data = asdict(effect)
    out: dict[str, object] = {"kind": data.pop("kind")}
    for key, value in data.items():
        if key == "from_sq":
            out["from"] = square_name(value)
        elif key == "to_sq":
            out["to"] = square_name(value)
        else:
            out[key] = value
    return out


def from_effects(effects: Sequence[Effect], move: Move | None = None, player: str | None = None) -> list[Verdict]:
    """The verdict lines for a played move (or throw) and the effects the engine reported."""
    lines: list[Verdict] = []
    rules_moved = []
    tail: list[Verdict] = []
    for effect in effects:
        if isinstance(effect, rules_did.Bonus):
            tail.append(Bonus(effect.player))
        elif isinstance(effect, rules_did.Turn):
            tail.append(Turn(effect.player))
        elif isinstance(effect, rules_did.Win):
            tail.append(Win(effect.player, effect.scores))
        elif isinstance(effect, rules_did.Forfeit):
            lines.append(Forfeit(effect.player, _json_throw(effect.throw), effect.reason))
        elif isinstance(effect, rules_did.Eliminated):
            tail.append(Out(effect.player))
        else:
            rules_moved.append(_effect_fields(effect))
    if move is not None:
        lines.insert(0, Moved(player, move.from_sq, square_name(move.to_sq), move.by, rules_moved or None))
    elif rules_moved:  # e.g. pieces removed when a player leaves (M9)
        tail.insert(0, Removed(rules_moved))
    return lines + tail


def illegal(error: IllegalMoveError, player: str | None = None) -> Illegal:
    """An `illegal` verdict for a move, throw or card the rules refuse: the reason in words, the ruling."""
    return Illegal(reason=error.text, ruling=error.ruling, player=player)


def _json_throw(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value
