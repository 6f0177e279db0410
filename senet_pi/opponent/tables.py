"""Solved endgame tables on disk: 16-bit win chances at each position's index, read through a memory map.

A file holds one rule set and throw option: a header (JSON: the groups, how they were solved)
then every group's values as little-endian uint16 (value / 65535 = the chance that the side
about to throw wins), in `solve.groups` order; no keys, an index names its position.
Files live in `table_dir()`: $SENET_PI_TABLES if set, else $XDG_CACHE_HOME/senet-pi/tables,
else ~/.cache/senet-pi/tables.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from math import comb
from pathlib import Path
from typing import TextIO

import numpy as np

from ..errors import SenetError
from ..rules import Game
from ..rules.board import squares_in
from .index import INDEX_OF_SQUARE, N_SQUARES, group_size
from .solve import Layout, Progress, solve
from .vector import RuleData

MAGIC = b"senet-pi endgame table v1\n"
MAX_PIECES = 3
_SCALE = 65535
_WRITE_CHUNK = 1 << 20
_INDEX = [int(i) for i in INDEX_OF_SQUARE]


def table_dir() -> Path:
    """Where tables are kept: $SENET_PI_TABLES, else the user's cache folder (XDG_CACHE_HOME)."""
    override = os.environ.get("SENET_PI_TABLES")
    if override:
        return Path(override).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "senet-pi" / "tables"


def has_tables(ruleset: type[Game] | Game) -> bool:
    """Whether a rule set's endgames are solved: two players moving by throws (a table is built for one
    kind of throw, so `cards`, which moves by cards on the houses board, has none of its own)."""
    return bool(ruleset.solved_endgames) and ruleset.turn_starts_with == "throw"


def throws_of(game: Game) -> str:
    """The throw option a game plays with (a table is per rule set and throw option)."""
    return str(game.options.get("throws", game.throw_kind.name))


def table_path(ruleset: str, throws: str, folder: Path | None = None) -> Path:
    """The file of one rule set and throw option."""
    return (folder or table_dir()) / f"{ruleset}-{throws}.table"


_COMB = [[comb(n, k) for k in range(MAX_PIECES + 2)] for n in range(N_SQUARES + 1)]


def position_index(me: list[int], op: list[int]) -> int:
    """The index within its group of a position given by board squares (each side sorted)."""
    mi = [_INDEX[s] for s in me]
    c_ = _COMB
    r_me = 0
    for i, c in enumerate(mi):
        r_me += c_[c][i + 1]
    r_op = 0
    for i, s in enumerate(op):
        c = _INDEX[s]
        below = 0
        for m in mi:
            if m < c:
                below += 1
        r_op += c_[c - below][i + 1]
    return r_me * c_[N_SQUARES - len(me)][len(op)] + r_op


class Table:
    """One solved table, memory-mapped: `value(me, op)` is the chance the side about to throw wins."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            with path.open("rb") as fh:
                if fh.read(len(MAGIC)) != MAGIC:
                    raise SenetError(f"{path} is not a senet-pi endgame table (delete it; it is rebuilt)")
                length = int.from_bytes(fh.read(8), "little")
                self.header = json.loads(fh.read(length))
            start = len(MAGIC) + 8 + length
            start += -start % 16
            self.max_pieces = int(self.header["max_pieces"])
            self.layout = Layout(self.max_pieces)
            self.values = np.memmap(path, dtype="<u2", mode="r", offset=start, shape=(self.layout.size,))
            # a plain memoryview reads one value far faster than numpy's indexing (the file is little-endian)
            self._view = memoryview(self.values).cast("B").cast("H") if sys.byteorder == "little" else self.values  # type: ignore[arg-type]  # numpy's stubs call an array a buffer only from Python 3.12
        except (OSError, ValueError, KeyError) as exc:
            raise SenetError(f"cannot read the endgame table {path}: {exc} (delete it; it is rebuilt)") from None

    def covers(self, me: int, op: int) -> bool:
        """Whether both sides (board masks) have 1..max_pieces pieces on the board."""
        a, b = me.bit_count(), op.bit_count()
        return 0 < a <= self.max_pieces and 0 < b <= self.max_pieces

    def value(self, me: int, op: int) -> float:
        """The chance that the side with pieces `me` (a board mask), about to throw, wins."""
        ms, os_ = squares_in(me), squares_in(op)
        at = self.layout.offsets[(len(ms), len(os_))] + position_index(ms, os_)
        return int(self._view[at]) / _SCALE


def write_table(path: Path, values: np.ndarray, header: dict[str, object]) -> None:
    """Write a table atomically (a half-written file never takes the name)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps(header).encode()
    start = len(MAGIC) + 8 + len(head)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    with tmp.open("wb") as fh:
        fh.write(MAGIC + len(head).to_bytes(8, "little") + head + b"\0" * (-start % 16))
        for lo in range(0, len(values), _WRITE_CHUNK):  # a chunk at a time: no full-size temporary copies
            fh.write(np.round(np.clip(values[lo : lo + _WRITE_CHUNK], 0.0, 1.0) * _SCALE).astype("<u2").tobytes())
    os.replace(tmp, path)


def build_table(
    ruleset: type[Game],
    throws: str,
    max_pieces: int = MAX_PIECES,
    folder: Path | None = None,
    progress: Progress | None = None,
) -> Table:
    """Solve and write the table of a rule set and throw option; returns it, opened."""
    started = time.monotonic()
    rd = RuleData.of(ruleset, throws)
    path = table_path(ruleset.name, throws, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    values, report = solve(rd, max_pieces, progress, scratch=path.parent)  # scratch on the table's disk
    header = {
        "ruleset": ruleset.name,
        "throws": throws,
        "max_pieces": max_pieces,
        "groups": [[a, b, group_size(a, b)] for a, b in Layout(max_pieces).offsets],
        "residual": report.residual,
        "sweeps": [[a, b, n] for (a, b), n in report.sweeps.items()],
        "seconds": round(time.monotonic() - started, 1),
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_table(path, values, header)
    return Table(path)


class ProgressBar:
    """A progress bar with an estimate of the time left, redrawn in place on a terminal stream."""

    def __init__(self, title: str, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.title, self.stream, self.clock = title, stream or sys.stderr, clock
        self.started = clock()
        self.shown = -1.0

    def __call__(self, text: str, fraction: float) -> None:
        now = self.clock()
        if now - self.shown < 0.5 and fraction < 1:
            return
        self.shown = now
        spent = now - self.started
        left = spent * (1 - fraction) / fraction if fraction > 0.01 else None
        eta = "estimating time left" if left is None else f"about {_duration(left)} left"
        bar = "#" * int(30 * fraction) + "." * (30 - int(30 * fraction))
        end = "\r" if self.stream.isatty() else "\n"
        self.stream.write(f"{self.title} [{bar}] {fraction:4.0%} {eta}; {text}".ljust(100) + end)
        self.stream.flush()

    def done(self, text: str) -> None:
        """Finish the bar with a closing line."""
        self.stream.write(f"{self.title}: {text}".ljust(100) + "\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


class Tables:
    """The tables of every rule set in one folder, opened on first use and built when missing."""

    def __init__(self, folder: Path | None = None, build: bool = True, stream: TextIO | None = None) -> None:
        self.folder = folder or table_dir()
        self.build = build
        self.stream = stream
        self._open: dict[tuple[str, str], Table | None] = {}

    def for_game(self, game: Game, pieces_needed: int = 0) -> Table | None:
        """The table for `game`'s rule set and throw option covering `pieces_needed` pieces a side
        (built first when missing or too small and building is allowed); None where no table exists."""
        if not has_tables(game) or game.players != 2:
            return None
        key = (game.name, throws_of(game))
        if key not in self._open:
            path = table_path(*key, self.folder)
            self._open[key] = Table(path) if path.exists() else None
        table = self._open[key]
        need = max(1, min(pieces_needed, MAX_PIECES))
        if (table is None or table.max_pieces < need) and self.build and pieces_needed <= MAX_PIECES:
            bar = ProgressBar(f"solving {key[0]} ({key[1]}) endgames", self.stream)
            try:
                table = build_table(type(game), key[1], max(need, table.max_pieces if table else 0), self.folder, bar)
            except OSError as exc:
                raise SenetError(
                    f"cannot write the endgame table in {self.folder}: {exc.strerror or exc} "
                    "(choose another folder with --tables or SENET_PI_TABLES)"
                ) from None
            bar.done(f"written to {table.path}")
            self._open[key] = table
        return table

    def exact(self, game: Game) -> float | None:
        """The exact chance that the player to throw wins, where a table covers the position (no throw waiting)."""
        if game.pending is not None or game.is_over or game.players != 2 or not has_tables(game):
            return None
        p = game.to_move
        me, op = game.occ[p], game.occ[1 - p]
        need = max(me.bit_count(), op.bit_count())
        if need > MAX_PIECES:
            return None
        table = self.for_game(game, need)
        if table is None or not table.covers(me, op):
            return None
        return table.value(me, op)
