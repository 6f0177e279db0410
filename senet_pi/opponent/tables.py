"""Solved endgame tables on disk: 16-bit win chances at each position's index, read through a memory map.

A file holds one rule set and throw option: a header (JSON: the format, rule set, throws, layout
and how they were solved), then every group's values as little-endian uint16 (value / 65535 = the
chance that the side about to throw wins) in `solve.groups` order, then a trailer: a CRC-32 for
each block of `BLOCK` values and one for the header. No keys: an index names its position. A
table is checked before any value is read (header, layout, size), and each block the first time
one of its values is (a flipped bit is found where it would be used); a table failing any check
raises `TableError` and is never read. Files live in `table_dir()`: $SENET_PI_TABLES if set, else
$XDG_CACHE_HOME/senet-pi/tables, else ~/.cache/senet-pi/tables.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import zlib
from collections.abc import Callable
from math import comb
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from .. import __version__
from ..errors import SenetError, TableError
from ..rules import Game
from ..rules.board import squares_in
from ..rules.text import Text
from .index import INDEX_OF_SQUARE, N_SQUARES, group_size
from .solve import Layout, Progress, solve
from .vector import RuleData

MAGIC = b"senet-pi endgame table v2\n"
FORMAT = 2  # the number in MAGIC: a table of another format is refused, never guessed at
_FAMILY = b"senet-pi endgame table v"
MAX_PIECES = 3
BLOCK = 1 << 16  # values a checksum covers (128 KiB): a block is checked the first time it is read
_SCALE = 65535
_WRITE_CHUNK = 1 << 20  # a whole number of blocks
_MAX_HEADER = 1 << 20
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


def layout_of(max_pieces: int) -> list[list[int]]:
    """The groups a table of `max_pieces` pieces a side holds, as its header names them."""
    return [[a, b, group_size(a, b)] for a, b in Layout(max_pieces).offsets]


def _blocks(size: int) -> int:
    return -(-size // BLOCK)


class Table:
    """One solved table, memory-mapped: `value(me, op)` is the chance the side about to throw wins.

    Opening checks the file before anything is read from it (`TableError` names the first check
    that fails); `ruleset` and `throws`, where given, are the ones the file must hold."""

    def __init__(self, path: Path, ruleset: str | None = None, throws: str | None = None) -> None:
        self.path = path
        try:
            self._open(ruleset, throws)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            if isinstance(exc, TableError):
                raise
            raise TableError(Text("cannot read it ({problem})", problem=str(exc))) from None

    def _open(self, ruleset: str | None, throws: str | None) -> None:
        with self.path.open("rb") as fh:
            magic = fh.read(len(MAGIC))
            if magic != MAGIC:
                if magic.startswith(_FAMILY):
                    raise TableError(
                        Text(
                            "it was written by another version of senet-pi "
                            "(table format {found}, this one reads {wanted})",
                            found=magic[len(_FAMILY) :].strip().decode("ascii", "replace"),
                            wanted=FORMAT,
                        )
                    )
                raise TableError(Text("it is not a senet-pi endgame table"))
            length = int.from_bytes(fh.read(8), "little")
            if length > _MAX_HEADER:
                raise TableError(Text("its header is damaged"))
            head = fh.read(length)
            size = os.fstat(fh.fileno()).st_size
            fh.seek(max(0, size - 4))
            head_crc = int.from_bytes(fh.read(4), "little")
        try:
            self.header = header = json.loads(head)
        except ValueError:
            raise TableError(Text("its header is damaged or the file is cut short")) from None
        self._check_header(header, ruleset, throws)
        self.max_pieces = int(header["max_pieces"])
        self.layout = Layout(self.max_pieces)
        start = len(MAGIC) + 8 + length
        start += -start % 16
        n = self.layout.size
        if size != start + 2 * n + 4 * _blocks(n) + 4:
            raise TableError(Text("the file is cut short or too long ({size} bytes)", size=size))
        if zlib.crc32(head) != head_crc:
            raise TableError(Text("its header is damaged"))
        self.values = np.memmap(self.path, dtype="<u2", mode="r", offset=start, shape=(n,))
        self.sums = np.fromfile(self.path, dtype="<u4", count=_blocks(n), offset=start + 2 * n)
        self._checked = bytearray(_blocks(n))  # 1 where a block's checksum was found right
        # a plain memoryview reads one value far faster than numpy's indexing (the file is little-endian)
        self._view = memoryview(self.values).cast("B").cast("H") if sys.byteorder == "little" else self.values  # type: ignore[arg-type]  # numpy's stubs call an array a buffer only from Python 3.12

    @staticmethod
    def _check_header(header: Any, ruleset: str | None, throws: str | None) -> None:
        """The header's ladder of checks: its format, rule set, throws and layout."""
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise TableError(Text("its header is damaged"))
        if ruleset is not None and header.get("ruleset") != ruleset:
            found = str(header.get("ruleset"))
            raise TableError(Text("it holds another rule set ({found}, not {wanted})", found=found, wanted=ruleset))
        if throws is not None and header.get("throws") != throws:
            raise TableError(
                Text("it holds other throws ({found}, not {wanted})", found=str(header.get("throws")), wanted=throws)
            )
        pieces = header.get("max_pieces")
        if not isinstance(pieces, int) or pieces not in range(1, MAX_PIECES + 1) or header.get("block") != BLOCK:
            raise TableError(Text("its layout is not this version's"))
        if header.get("groups") != layout_of(pieces):
            raise TableError(Text("its layout is not this version's"))

    def covers(self, me: int, op: int) -> bool:
        """Whether both sides (board masks) have 1..max_pieces pieces on the board."""
        a, b = me.bit_count(), op.bit_count()
        return 0 < a <= self.max_pieces and 0 < b <= self.max_pieces

    def value(self, me: int, op: int) -> float:
        """The chance that the side with pieces `me` (a board mask), about to throw, wins (`TableError`
        where the block holding it fails its checksum: a damaged value is never returned)."""
        ms, os_ = squares_in(me), squares_in(op)
        at = self.layout.offsets[(len(ms), len(os_))] + position_index(ms, os_)
        block = at // BLOCK
        if not self._checked[block]:
            self._check_block(block)
        return int(self._view[at]) / _SCALE

    def _check_block(self, block: int) -> None:
        data = self.values[block * BLOCK : (block + 1) * BLOCK].tobytes()
        if zlib.crc32(data) != int(self.sums[block]):
            raise TableError(Text("block {block} fails its checksum (the file is damaged)", block=block))
        self._checked[block] = 1

    def verify(self) -> None:
        """Check every block now (after a build, or on demand), not only as they are read."""
        for block in range(len(self._checked)):
            if not self._checked[block]:
                self._check_block(block)


def write_table(path: Path, values: np.ndarray, header: dict[str, object]) -> None:
    """Write a table atomically (a half-written file never takes the name, and a write that fails,
    a full disk say, removes its temporary file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(path)
    head = json.dumps({**header, "format": FORMAT, "block": BLOCK}).encode()
    start = len(MAGIC) + 8 + len(head)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    sums = []
    try:
        with tmp.open("wb") as fh:
            fh.write(MAGIC + len(head).to_bytes(8, "little") + head + b"\0" * (-start % 16))
            for lo in range(0, len(values), _WRITE_CHUNK):  # a chunk at a time: no full-size temporary copies
                data = np.round(np.clip(values[lo : lo + _WRITE_CHUNK], 0.0, 1.0) * _SCALE).astype("<u2").tobytes()
                sums += [zlib.crc32(data[i : i + 2 * BLOCK]) for i in range(0, len(data), 2 * BLOCK)]
                fh.write(data)
            fh.write(np.array(sums, dtype="<u4").tobytes() + zlib.crc32(head).to_bytes(4, "little"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _remove_stale(path: Path) -> None:
    """Remove the temporary files of builds of this table that were stopped part-way (their
    process is gone), so a retry never leaves another."""
    for stale in path.parent.glob(f"{path.stem}.tmp*"):
        pid = stale.suffix.removeprefix(".tmp")
        if pid.isdigit() and not _alive(int(pid)):
            stale.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether a process runs with this id (this one's own temporary file is never stale)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's: leave it
    return True


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
        "groups": layout_of(max_pieces),
        "version": __version__,
        "residual": report.residual,
        "sweeps": [[a, b, n] for (a, b), n in report.sweeps.items()],
        "seconds": round(time.monotonic() - started, 1),
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_table(path, values, header)
    table = Table(path, ruleset.name, throws)
    table.verify()  # read back once: what was written is what was solved
    return table


def check_folder(folder: Path) -> list[tuple[Path, TableError | None]]:
    """Every table file in `folder`, each opened as the board opens it (its name's rule set and
    throws) and every block's checksum checked: a failure is the `TableError` the board would raise.
    For `status` with no service to ask; an unreadable folder raises `OSError`."""
    with os.scandir(folder) as entries:
        paths = sorted(Path(e.path) for e in entries if e.name.endswith(".table"))
    found: list[tuple[Path, TableError | None]] = []
    for path in paths:
        ruleset, _, throws = path.stem.rpartition("-")
        try:
            Table(path, ruleset, throws).verify()
        except TableError as exc:
            found.append((path, exc))
        else:
            found.append((path, None))
    return found


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


#: Called with (rule set, throw option, pieces, folder) to rebuild a refused table in the background
#: (`senet-pi run` gives one: `senet_pi.service.rebuild`); returns something whose `poll()` is None while it runs.
Rebuild = Callable[[str, str, int, Path], Any]


class Tables:
    """The tables of every rule set in one folder, opened on first use and built when missing.

    A table that fails a check is refused (`refused` says why, for the page, `status` and the fleet):
    its positions get no exact value, so play goes on by search alone. Where building is allowed
    it is built again at once; else `rebuild` (if given) builds it in the background and the table
    is opened again once that is done."""

    def __init__(
        self,
        folder: Path | None = None,
        build: bool = True,
        stream: TextIO | None = None,
        rebuild: Rebuild | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.folder = folder or table_dir()
        self.build = build
        self.stream = stream
        self.rebuild = rebuild
        self.clock = clock
        self._open: dict[tuple[str, str], Table | None] = {}
        self.refused: dict[tuple[str, str], Text] = {}
        self._builds: dict[tuple[str, str], Any] = {}  # the background rebuilds started, one a table a run
        self._lock = threading.Lock()  # the computer's and the hints' threads may refuse a table at once
        self._looked = 0.0

    def for_game(self, game: Game, pieces_needed: int = 0) -> Table | None:
        """The table for `game`'s rule set and throw option covering `pieces_needed` pieces a side
        (built first when missing, refused or too small and building is allowed); None where no
        table can be used."""
        if not has_tables(game) or game.players != 2:
            return None
        key = (game.name, throws_of(game))
        if key not in self._open:
            self._open[key] = self._read(key)
        table = self._open[key]
        need = max(1, min(pieces_needed, MAX_PIECES))
        if (table is None or table.max_pieces < need) and self.build and pieces_needed <= MAX_PIECES:
            table = self._build(type(game), key, max(need, table.max_pieces if table else 0))
        return table

    def _read(self, key: tuple[str, str]) -> Table | None:
        """A table opened and checked; None where it is missing or refused (and then said why)."""
        path = table_path(*key, self.folder)
        if not path.exists():
            return None
        try:
            table = Table(path, *key)
        except TableError as exc:
            self.refuse(key, exc)
            return None
        self.refused.pop(key, None)
        return table

    def refuse(self, key: tuple[str, str], exc: TableError) -> None:
        """Stop using a table that failed a check, say why, and have it rebuilt (once a run)."""
        with self._lock:
            started = key in self._builds
            self._builds.setdefault(key, None)
        self._open[key] = None
        problem = exc.args[0] if exc.args and isinstance(exc.args[0], Text) else Text(str(exc))
        self.refused[key] = problem
        path = table_path(*key, self.folder)
        if self.stream is not None:
            self.stream.write(f"the endgame table {path} is not used: {problem}\n")
        if not started and not self.build and self.rebuild is not None:
            self._builds[key] = self.rebuild(key[0], key[1], MAX_PIECES, self.folder)

    def _build(self, cls: type[Game], key: tuple[str, str], pieces: int) -> Table:
        bar = ProgressBar(f"solving {key[0]} ({key[1]}) endgames", self.stream)
        try:
            table = build_table(cls, key[1], pieces, self.folder, bar)
        except OSError as exc:
            raise SenetError(
                f"cannot write the endgame table in {self.folder}: {exc.strerror or exc} "
                "(choose another folder with --tables or SENET_PI_TABLES)"
            ) from None
        bar.done(f"written to {table.path}")
        self._open[key] = table
        self.refused.pop(key, None)
        return table

    def problems(self) -> list[dict[str, object]]:
        """Each refused table: its file, why, and whether a rebuild is under way (for the page, `status`
        and the fleet); a rebuild that has ended is looked at first (its table opened again)."""
        self._look_at_builds(force=True)
        out: list[dict[str, object]] = []
        for key, problem in sorted(self.refused.items()):
            build = self._builds.get(key)
            rebuilding = build is not None and build.poll() is None
            name = table_path(*key, self.folder).name
            text = (
                Text(
                    "the endgame table {table} is not used ({problem}): the computer plays by search alone "
                    "and hints are estimates while it is rebuilt in the background",
                    table=name,
                    problem=problem,
                )
                if rebuilding
                else Text(
                    "the endgame table {table} is not used ({problem}): the computer plays by search alone "
                    "and hints are estimates (build it again with senet-pi solve)",
                    table=name,
                    problem=problem,
                )
            )
            out.append({"table": name, "problem": problem, "rebuilding": rebuilding, "text": text})
        return out

    def _look_at_builds(self, force: bool = False) -> None:
        """Open again each refused table whose background rebuild has ended (at most once a second)."""
        now = self.clock()
        if not self._builds or (not force and now - self._looked < 1.0):
            return
        self._looked = now
        for key, build in list(self._builds.items()):
            if build is not None and key in self.refused and build.poll() is not None and self._open.get(key) is None:
                self._open[key] = self._read(key)

    def exact(self, game: Game) -> float | None:
        """The exact chance that the player to throw wins, where a checked table covers the position (no
        throw waiting); None elsewhere, and where the table is refused, even part-way through a game."""
        if game.pending is not None or game.is_over or game.players != 2 or not has_tables(game):
            return None
        p = game.to_move
        me, op = game.occ[p], game.occ[1 - p]
        need = max(me.bit_count(), op.bit_count())
        if need > MAX_PIECES:
            return None
        if self.refused:
            self._look_at_builds()
        table = self.for_game(game, need)
        if table is None or not table.covers(me, op):
            return None
        try:
            return table.value(me, op)
        except TableError as exc:
            self.refuse((game.name, throws_of(game)), exc)
        if not self.build:
            return None
        table = self.for_game(game, need)  # built again at once; a second failure is said, not retried
        return table.value(me, op) if table is not None and table.covers(me, op) else None
