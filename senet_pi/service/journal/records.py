"""What the journal holds and takes: its records, the range every journaled value is checked against,
its errors and where it lives. No SQLite here."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import UnjournalableError

LARGEST = 2**31  # no input of any board, page or terminal counts past this (masks are 30 bits)
DEEPEST = 8  # lists in lists at most this deep (a move is [from, to, by])
LONGEST = 1000  # characters of one text value, items of one list


def check_value(value: object, depth: int = 0) -> None:
    """UnjournalableError unless `value` is JSON a referee can judge: finite numbers under LARGEST,
    short texts and lists, string keys; bool and None as they are."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if abs(value) > LARGEST:
            raise UnjournalableError(f"{str(value)[:24]} is out of range (at most {LARGEST} either way)")
    elif isinstance(value, float):
        if not math.isfinite(value) or abs(value) > LARGEST:
            raise UnjournalableError(f"{value:.3g} is out of range (a finite number, at most {LARGEST} either way)")
    elif isinstance(value, str):
        if len(value) > LONGEST:
            raise UnjournalableError(f"a text of {len(value)} characters is too long (at most {LONGEST})")
    elif isinstance(value, list | tuple | dict):
        if depth >= DEEPEST or len(value) > LONGEST:
            raise UnjournalableError(f"a value nested or listed too deeply (at most {DEEPEST} deep, {LONGEST} long)")
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise UnjournalableError("a map whose keys are not all text")
            items: Iterable[object] = [*value.keys(), *value.values()]
        else:
            items = value
        for item in items:
            check_value(item, depth + 1)
    else:
        raise UnjournalableError(f"a {type(value).__name__} is not an input value")


@dataclass(frozen=True)
class GameRecord:
    """One game in the journal."""

    id: int
    variant: str
    players: int
    options: dict[str, Any]
    position: dict[str, Any] | None
    started: float
    ended: float | None
    winner: str | None
    events: int


@dataclass(frozen=True)
class EventRecord:
    """One input of a game: `ms` since the game started, the kind and its value."""

    seq: int
    ms: int
    kind: str
    value: object


def seats_said(seats: dict[str, list[str]]) -> dict[str, str]:
    """Who held each seat, in words: {"B": "human, then computer level 3"} (`senet-pi games`, export)."""
    return {
        pid: ", then ".join(e.replace("computer ", "computer level ", 1) for e in entries)
        for pid, entries in seats.items()
    }


def default_path() -> Path:
    """Where the journal lives unless told: `$SENET_PI_JOURNAL`, else the XDG state folder."""
    if os.environ.get("SENET_PI_JOURNAL"):
        return Path(os.environ["SENET_PI_JOURNAL"])
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return state / "senet-pi" / "journal.sqlite"
