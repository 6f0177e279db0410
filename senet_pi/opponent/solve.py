"""Solving the endgames: every position where each side has at most three pieces left, by value iteration.

A value is the chance that the side about to throw wins, both sides playing perfectly. Pieces
only ever leave the board, so the groups (pieces of the mover, pieces of the other side) are
solved in order of pieces borne off; inside a pair of groups (a, b) and (b, a) exchanges,
backward moves (S12) and drowning (S7/H6) make positions repeat, so the pair is iterated to a
fixed point (Bellman residual under 1e-9). Each sweep visits the positions in order of how far
their pieces have come, furthest first, updating in place (Gauss-Seidel): a move mostly leads
to a position further on, whose value is then already this sweep's. While solving, each group's
values are kept in that order (put back in index order at the end): a sweep reads and writes
them as slices, and the values its moves gather lie near each other (a move changes how far the
pieces have come by a few squares), which makes a sweep 2.5 times cheaper than gathering them
from index order, for the very same numbers.

Memory: what stays in memory is the values and their complements (16 bytes a position: a move
to where the other side throws next reads 1 - value in one gather) and where each position's
value is kept (4 bytes a position). Where each move leads is written once per group, a chunk at
a time, and a large group's moves go to a scratch file read back a chunk at a time on every sweep, so the
3-against-3 group's 570 MB of moves never sit in memory at once (the page cache keeps the file
when memory is free; a small machine reads it from its card).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .index import RESTING, cells_at, cells_of_masks, group_cells, group_size, local_index, masks_of_cells
from .vector import RuleData, generate

TOLERANCE = 1e-9
CHUNK = 1 << 17
#: A group's moves up to this many bytes stay in memory; a larger group's go to a scratch file.
IN_MEMORY = 64 << 20


def groups(max_pieces: int) -> list[tuple[int, int]]:
    """The groups a table of up to `max_pieces` pieces a side holds, in storage order."""
    return [(a, b) for a in range(1, max_pieces + 1) for b in range(1, max_pieces + 1)]


def solve_order(max_pieces: int) -> list[list[tuple[int, int]]]:
    """The groups in the order they are solved: by pieces left, a group with its mirror (a, b)/(b, a)."""
    pairs = sorted({tuple(sorted(g)) for g in groups(max_pieces)}, key=lambda p: (p[0] + p[1], p))
    return [[(a, b)] if a == b else [(a, b), (b, a)] for a, b in pairs]


@dataclass
class Layout:
    """Where each group's values start in one flat array (two sentinels after them while solving)."""

    max_pieces: int

    def __post_init__(self) -> None:
        self.offsets: dict[tuple[int, int], int] = {}
        at = 0
        for g in groups(self.max_pieces):
            self.offsets[g] = at
            at += group_size(*g)
        self.size = at
        self.win = at  # a sentinel whose value is 1 (the mover bore off the last piece)
        self.none = at + 1  # a sentinel whose value is -1 (no such move)
        self.again = at + 2  # not a position: the throw is forfeited and the same side throws again (P7)
        self.span = at + 3  # the values, then their complements (1 - value) from here on, while solving


class Links:
    """Where each move of each throw leads, for the positions of one group in sweep order.

    A successor is named by where its value is kept (`solve` keeps each group's values in its own
    sweep order, so a sweep reads and writes its positions as one slice); one where the other side
    throws next is stored as that place + `Layout.span`, where the solver keeps 1 - its value
    (so a sweep reads each move's value with one gather), a throw forfeited with a bonus throw
    (P7) as `Layout.again` in its first move's place: one int32 a move. Stored a chunk of
    positions at a time, chunk after chunk: in memory for a small group, in an unnamed scratch
    file (gone when closed) for a large one. Beside each chunk, in memory: the few positions
    where a throw is forfeited with a bonus throw, with 1 - that chance (their value's divisor)."""

    def __init__(self, size: int, throws: int, pieces: int, scratch: Path | None = None) -> None:
        self.size = size
        self.shape = (throws, pieces)
        self.loops: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # chunk start -> (rows, 1 - their looped chance)
        cells = throws * pieces * size
        self._memory = np.empty(cells, dtype=np.int32) if cells * 4 <= IN_MEMORY else None
        # kept open across every sweep of the group and closed by close(): no `with` can hold it
        self._file = tempfile.TemporaryFile(dir=scratch) if self._memory is None else None  # noqa: SIM115

    def put(self, lo: int, block: np.ndarray, looped: np.ndarray) -> None:
        """Store the (throws, pieces, m) targets of the positions lo..lo+m (lo: a multiple of CHUNK) and
        each one's chance of a throw forfeited with a bonus throw."""
        rows = np.flatnonzero(looped)
        self.loops[lo] = (rows, 1.0 - looped[rows])
        data = np.ascontiguousarray(block, dtype=np.int32).ravel()
        at = lo * self.shape[0] * self.shape[1]
        if self._memory is not None:
            self._memory[at : at + len(data)] = data
        else:
            assert self._file is not None
            self._file.seek(at * 4)
            self._file.write(data.data.cast("B"))

    def get(self, lo: int, hi: int) -> np.ndarray:
        """The (throws, pieces, hi - lo) targets of the positions lo..hi (sweep order, as `put` stored them)."""
        per = self.shape[0] * self.shape[1]
        if self._memory is not None:
            return self._memory[lo * per : hi * per].reshape(*self.shape, hi - lo)
        assert self._file is not None
        out = np.empty(per * (hi - lo), dtype=np.int32)
        self._file.seek(lo * per * 4)
        if self._file.readinto(out.data.cast("B")) != out.nbytes:
            raise OSError("the solver's scratch file came back short")
        return out.reshape(*self.shape, hi - lo)

    def close(self) -> None:
        """Free the moves (the scratch file is deleted)."""
        self._memory = None
        self.loops = {}
        if self._file is not None:
            self._file.close()
            self._file = None


def _targets(
    rd: RuleData, layout: Layout, a: int, b: int, me_cells: np.ndarray, op_cells: np.ndarray, t: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The flat targets (indices) and flips of throw t for these positions, and where it is forfeited with a bonus."""
    me, op = masks_of_cells(me_cells), masks_of_cells(op_cells)
    mv = generate(rd, me, op, RESTING[me_cells], t)
    n = len(me)
    target = np.full((a, n), layout.none, dtype=np.int64)
    flip = np.zeros((a, n), dtype=bool)
    for j in range(a):
        for off in (False, True):
            rows = mv.legal[:, j] & (mv.off[:, j] == off)
            if not rows.any():
                continue
            left = a - off
            if left == 0:
                target[j, rows] = layout.win
                continue
            m2, o2, bonus = mv.me[rows, j], mv.op[rows, j], mv.bonus[rows, j]
            mc, oc = cells_of_masks(m2, left), cells_of_masks(o2, b)
            at = np.flatnonzero(rows)  # each move's index in its own group only: same side or the other's turn
            target[j, at[bonus]] = layout.offsets[(left, b)] + local_index(mc[bonus], oc[bonus])
            target[j, at[~bonus]] = layout.offsets[(b, left)] + local_index(oc[~bonus], mc[~bonus])
            flip[j, rows] = ~bonus
    stuck = ~mv.legal.any(axis=1)
    again = np.asarray(stuck & bool(rd.bonus_throw[t]))
    if not rd.bonus_throw[t] and stuck.any():  # P7: the turn passes
        target[0, stuck] = layout.offsets[(b, a)] + local_index(op_cells[stuck], me_cells[stuck])
        flip[0, stuck] = True
    return target, flip, again


def sweep_order(a: int, b: int) -> np.ndarray:
    """The positions of group (a, b) in the order a sweep visits them (int32 indices): by how far their
    pieces have come, furthest first, by index among equals (a counting sort: no int64 copy)."""
    size = group_size(a, b)
    progress = np.empty(size, dtype=np.int16)
    for start in range(0, size, CHUNK):
        me_cells, op_cells = group_cells(a, b, start, min(size, start + CHUNK))
        progress[start : start + len(me_cells)] = RESTING[me_cells].sum(axis=1) + RESTING[op_cells].sum(axis=1)
    order = np.empty(size, dtype=np.int32)
    at = 0
    for value in np.unique(progress)[::-1]:
        same = np.flatnonzero(progress == value)
        order[at : at + len(same)] = same
        at += len(same)
    return order


def link(
    rd: RuleData,
    layout: Layout,
    a: int,
    b: int,
    order: np.ndarray,
    place: np.ndarray,
    tick: Callable[[int], None] | None = None,
    scratch: Path | None = None,
) -> Links:
    """Every position of group (a, b), in sweep order `order`, with where each move of each throw leads
    (`place`: where each position's value is kept; squares a chunk at a time)."""
    links = Links(len(order), len(rd.odds), a, scratch)
    for start in range(0, len(order), CHUNK):
        rows = order[start : start + CHUNK]
        me_cells, op_cells = cells_at(a, b, rows)
        block = np.empty((len(rd.odds), a, len(rows)), dtype=np.int32)
        looped = np.zeros(len(rows))  # the chance of a throw that is forfeited with a bonus throw (P7)
        for i, (t, p) in enumerate(rd.odds):
            tg, fl, ag = _targets(rd, layout, a, b, me_cells, op_cells, t)
            inside = tg < layout.size  # a position, not a sentinel: to where its value is kept
            tg[inside] = place[tg[inside]]
            block[i] = np.where(fl, tg + layout.span, tg)
            block[i, 0, ag] = layout.again
            looped += p * ag
        links.put(start, block, looped)
        if tick:
            tick(len(rows))
    return links


def backup(rd: RuleData, values: np.ndarray, links: Links, lo: int, hi: int) -> np.ndarray:
    """The Bellman update of the positions lo..hi (sweep order) from `values` (then their complements;
    `Layout.again`'s value is 0). Each move's value is gathered with `np.take` into a buffer reused for
    every throw and piece (no (pieces, n) temporary a throw), in numpy's "clip" mode (every target `link`
    stores is in range, and that mode skips the checked path): the same numbers for less CPU. A throw
    forfeited with a bonus throw is folded in by dividing by 1 - its chance, where there is one."""
    block = links.get(lo, hi)
    n = hi - lo
    acc = np.zeros(n)
    best, other = np.empty(n), np.empty(n)
    for i, (_, p) in enumerate(rd.odds):
        t = block[i]
        np.take(values, t[0], out=best, mode="clip")  # a forfeited throw's best is the 0 at `again`
        for j in range(1, len(t)):
            np.maximum(best, np.take(values, t[j], out=other, mode="clip"), out=best)
        best *= p
        acc += best
    rows, divisor = links.loops[lo]
    acc[rows] /= divisor
    return acc


@dataclass
class Report:
    """What solving a table found: per group, the sweeps made and the final Bellman residual."""

    sweeps: dict[tuple[int, int], int]
    residual: float


Progress = Callable[[str, float], None]


def _sweep(rd: RuleData, values: np.ndarray, layout: Layout, built: list[tuple[tuple[int, int], Links]]) -> float:
    """One Gauss-Seidel sweep over the groups of a pair, a chunk at a time, in place; the largest change."""
    change = 0.0
    for g, links in built:
        base = layout.offsets[g]
        for lo in range(0, links.size, CHUNK):
            hi = min(links.size, lo + CHUNK)
            new = backup(rd, values, links, lo, hi)
            kept = values[base + lo : base + hi]
            change = max(change, float(np.abs(new - kept).max()))
            kept[:] = new
            np.subtract(1.0, new, out=values[layout.span + base + lo : layout.span + base + hi])
    return change


def _place(place: np.ndarray, at: int, order: np.ndarray) -> None:
    """Keep the group at `at` in sweep order `order`: its value of index i at place[at + i]."""
    for lo in range(0, len(order), CHUNK):  # a chunk at a time: no group-sized temporaries
        hi = min(len(order), lo + CHUNK)
        place[at + order[lo:hi]] = np.arange(at + lo, at + hi, dtype=np.int32)


def _to_index_order(values: np.ndarray, layout: Layout, place: np.ndarray) -> None:
    """Put every value, kept in its group's sweep order while solving, back in index order (in place: the
    complements, no longer needed, hold the copy)."""
    kept = values[layout.span : layout.span + layout.size]
    kept[:] = values[: layout.size]
    for lo in range(0, layout.size, CHUNK):
        hi = min(layout.size, lo + CHUNK)
        values[lo:hi] = kept[place[lo:hi]]


def solve(
    rd: RuleData, max_pieces: int = 3, progress: Progress | None = None, scratch: Path | None = None
) -> tuple[np.ndarray, Report]:
    """Values of every position with at most `max_pieces` pieces a side, and the report (`scratch`: the
    folder of the scratch file a large group's moves go to; default the system's temporary folder).

    While solving, each group's values are kept in its sweep order (`place`: index -> where kept), so a
    sweep reads and writes them as slices and the moves it gathers lie near each other."""
    layout = Layout(max_pieces)
    values = np.zeros(2 * layout.span)
    values[layout.win], values[layout.none] = 1.0, -1.0
    values[layout.span : layout.span + layout.size] = 1.0  # 1 - value, kept beside each value
    place = np.empty(layout.size, dtype=np.int32)
    total = sum(group_size(*g) for g in groups(max_pieces))
    done = 0.0
    report = Report({}, 0.0)
    say = progress or (lambda text, fraction: None)
    for pair in solve_order(max_pieces):
        weight = sum(group_size(*g) for g in pair) / total
        count = [0]

        def tick(
            n: int,
            pair: list[tuple[int, int]] = pair,
            weight: float = weight,
            count: list[int] = count,
            done: float = done,
        ) -> None:
            count[0] += n
            share = count[0] / sum(group_size(*g) for g in pair)
            say(f"{_name(pair)}: linking positions", done + weight * 0.3 * share)

        orders = {g: sweep_order(*g) for g in pair}
        for g in pair:  # both groups placed before either is linked: their moves cross
            _place(place, layout.offsets[g], orders[g])
        built = [(g, link(rd, layout, *g, orders.pop(g), place, tick, scratch)) for g in pair]
        first = None
        sweep = 0
        while True:
            sweep += 1
            change = _sweep(rd, values, layout, built)
            first = first or max(change, TOLERANCE * 10)
            solved = min(1.0, np.log(first / max(change, 1e-300)) / np.log(first / TOLERANCE)) if change else 1.0
            say(f"{_name(pair)}: sweep {sweep}, residual {change:.1e}", done + weight * (0.3 + 0.7 * solved))
            if change < TOLERANCE:
                break
        for g, links in built:
            report.sweeps[g] = sweep
            report.residual = max(report.residual, residual(rd, values, layout, g, links))
            links.close()
        del built
        done += weight
    _to_index_order(values, layout, place)
    return values[: layout.size], report


def residual(rd: RuleData, values: np.ndarray, layout: Layout, group: tuple[int, int], links: Links) -> float:
    """The largest Bellman residual |T(V) - V| over a group's positions (kept in sweep order)."""
    base = layout.offsets[group]
    worst = 0.0
    for lo in range(0, links.size, CHUNK):
        hi = min(links.size, lo + CHUNK)
        new = backup(rd, values, links, lo, hi)
        worst = max(worst, float(np.abs(new - values[base + lo : base + hi]).max()))
    return worst


def _name(pair: list[tuple[int, int]]) -> str:
    return " and ".join(f"{a} v {b}" for a, b in pair)
