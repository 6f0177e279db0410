"""A long match kept deal by deal: `senet-pi tournament --record FILE` writes each finished deal as
a line of JSON, so a match of hours can be stopped (or killed) and run again to go on from there.

A line belongs to one match: the rule set, its options, both players' settings, the first deal's
seed and a fingerprint of the code that played it (the rules and the opponent, with its shipped
weights). Deals recorded under another fingerprint are never mixed in: change the evaluation and
the match starts again. Lines of other matches are left as they are, so one file can hold several.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, astuple, dataclass, fields
from pathlib import Path
from typing import IO, TYPE_CHECKING, TextIO

from ..errors import SenetError

if TYPE_CHECKING:
    from .players import Level

#: The packages whose code decides a game between two computer players.
PLAYING_CODE = ("rules", "opponent")
#: Files of those packages that are not code (weights shipped beside it).
DATA_SUFFIXES = (".py", ".json", ".npz", ".npy")


@dataclass
class Tally:
    """One player's record in a match, its chance lost in solved endgames and its luck-adjusted score."""

    wins: int = 0
    games: int = 0
    lost: float = 0.0
    decisions: int = 0
    nodes: int = 0
    searched: int = 0
    adjusted: float = 0.0  # the sum of each game's result (1 or 0) less the luck of its throws (luck.py)
    adjusted_sq: float = 0.0  # the sum over deals of the square of a deal's adjusted score: its spread

    def add(self, other: Tally) -> None:
        """Add another tally of the same player."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


def fingerprint() -> str:
    """A short hash of the rules' and the opponent's files: what a recorded deal was played by."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for package in PLAYING_CODE:
        for path in sorted((root / package).rglob("*")):
            if path.suffix in DATA_SUFFIXES and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def match_key(description: dict[str, object]) -> str:
    """The key of a match's lines: its description (rule set, players, seed) and the code's fingerprint."""
    text = json.dumps({**description, "code": fingerprint()}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def level_settings(level: Level) -> dict[str, object]:
    """A player's settings as plain data."""
    return asdict(level)


class Record:
    """The deals of one match already in the file, and the file kept open to add the next."""

    def __init__(self, path: Path, key: str, name: str) -> None:
        self.path = path
        self.key = key
        self.name = name
        self.done: dict[int, tuple[Tally, Tally]] = {}
        self.unreadable = 0  # lines that are not a record (a line cut short when a run was killed)
        self._file: TextIO | None = None
        self._read()
        self._file = self._open()  # a file that cannot be written is said now, before hours of play

    def _read(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            raise SenetError(f"cannot read the record {self.path}: {exc}") from None
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                if entry.get("key") != self.key:
                    continue
                deal = int(entry["deal"])
                tallies = (Tally(*entry["first"]), Tally(*entry["second"]))
            except (ValueError, KeyError, TypeError, AttributeError):
                self.unreadable += 1
                continue
            self.done[deal] = tallies

    def add(self, deal: int, tallies: tuple[Tally, Tally]) -> None:
        """Write one finished deal at once (flushed and synced: a killed run loses at most the deal it was playing)."""
        if self._file is None:
            self._file = self._open()
        entry = {"key": self.key, "match": self.name, "deal": deal}
        entry.update(first=list(astuple(tallies[0])), second=list(astuple(tallies[1])))
        self._file.write(json.dumps(entry) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self.done[deal] = tallies

    def _open(self) -> TextIO:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            file = self.path.open("a+", encoding="utf-8")
            if file.tell() > 0:  # a line cut short by a kill gets its end, so the next line stands alone
                file.seek(file.tell() - 1)
                last = file.read(1)
                if last != "\n":
                    file.write("\n")
            return file
        except OSError as exc:
            raise SenetError(f"cannot write the record {self.path}: {exc}") from None

    def close(self) -> None:
        """Close the file."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> Record:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Progress:
    """A line on standard error now and then while a match is played: deals done, the score so far,
    the time it has taken and about how long is left (from this run's pace, resumed deals aside)."""

    def __init__(
        self,
        name: str,
        total: int,
        resumed: int,
        out: IO[str],
        every: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.total = total
        self.resumed = resumed
        self.out = out
        self.every = every
        self.clock = clock
        self.start = clock()
        self._said = self.start
        self.played = 0
        if resumed:
            more = ", going on" if resumed < total else ""
            print(f"{name}: {resumed} of {total} deals already in the record{more}", file=out, flush=True)

    def tick(self, first: Tally, last: bool = False) -> None:
        """One more deal played; `first`: the first player's tally so far. Says a line if it is time."""
        self.played += 1
        now = self.clock()
        if not last and now - self._said < self.every:
            return
        self._said = now
        done = self.resumed + self.played
        elapsed = now - self.start
        left = elapsed / self.played * (self.total - done)
        score = (
            f"{first.wins / first.games:.1%} of {first.games} games (luck-adjusted {first.adjusted / first.games:.1%})"
            if first.games
            else "no games yet"
        )
        print(
            f"{self.name}: {done}/{self.total} deals ({done / self.total:.0%}), first player {score}; "
            f"{_clock(elapsed)} so far, about {_clock(left)} left",
            file=self.out,
            flush=True,
        )


def _clock(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
