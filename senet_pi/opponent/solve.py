"""Solving the endgames: every position where each side has at most three pieces left, by value iteration.

A value is the chance that the side about to throw wins, both sides playing perfectly. Pieces
only ever leave the board, so the groups (pieces of the mover, pieces of the other side) are
solved in order of pieces borne off; inside a pair of groups (a, b) and (b, a) exchanges,
backward moves (S12) and drowning (S7/H6) make positions repeat, so the pair is iterated to a
fixed point (Bellman residual under 1e-9). Each sweep visits the positions in order of how far
their pieces have come, furthest first, updating in place (Gauss-Seidel): a move mostly leads
to a position further on, whose value is then already this sweep's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .index import RESTING, cells_at, cells_of_masks, group_cells, group_size, local_index, masks_of_cells
from .vector import RuleData, generate

TOLERANCE = 1e-9
CHUNK = 1 << 19


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


@dataclass
class Links:
    """Where each move of each throw leads, for the positions of one group in sweep order.

    Kept small (the 3-against-3 group has 9.5 million positions): a successor where the other side
    throws next is stored as its bitwise complement (~index, negative), so no separate flag is kept."""

    order: np.ndarray  # (N,) int32: position in sweep order -> index in the group
    target: np.ndarray  # (throws, pieces, N) int32: flat index after the move; ~index: the other side throws next
    again: np.ndarray  # (throws, N) bool: no move, and the same side throws again (P7 with a bonus throw)


def _targets(
    rd: RuleData, layout: Layout, a: int, b: int, me_cells: np.ndarray, op_cells: np.ndarray, t: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The flat targets and flips of throw t for these positions, and where it is forfeited with a bonus."""
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
            same = layout.offsets[(left, b)] + local_index(mc, oc)
            other = layout.offsets[(b, left)] + local_index(oc, mc)
            target[j, rows] = np.where(bonus, same, other)
            flip[j, rows] = ~bonus
    stuck = ~mv.legal.any(axis=1)
    again = np.asarray(stuck & bool(rd.bonus_throw[t]))
    if not rd.bonus_throw[t] and stuck.any():  # P7: the turn passes
        target[0, stuck] = layout.offsets[(b, a)] + local_index(op_cells[stuck], me_cells[stuck])
        flip[0, stuck] = True
    return target, flip, again


def link(rd: RuleData, layout: Layout, a: int, b: int, tick: Callable[[int], None] | None = None) -> Links:
    """Every position of group (a, b) with where each move of each throw leads (squares a chunk at a time)."""
    size = group_size(a, b)
    progress = np.empty(size, dtype=np.int16)
    for start in range(0, size, CHUNK):
        me_cells, op_cells = group_cells(a, b, start, min(size, start + CHUNK))
        progress[start : start + len(me_cells)] = RESTING[me_cells].sum(axis=1) + RESTING[op_cells].sum(axis=1)
    order = np.argsort(-progress, kind="stable").astype(np.int32)
    del progress
    throws = len(rd.odds)
    target = np.empty((throws, a, size), dtype=np.int32)
    again = np.empty((throws, size), dtype=bool)
    for start in range(0, size, CHUNK):
        rows = order[start : start + CHUNK]
        me_cells, op_cells = cells_at(a, b, rows)
        for i, (t, _) in enumerate(rd.odds):
            tg, fl, ag = _targets(rd, layout, a, b, me_cells, op_cells, t)
            target[i, :, start : start + len(rows)] = np.where(fl, ~tg, tg)
            again[i, start : start + len(rows)] = ag
        if tick:
            tick(len(rows))
    return Links(order, target, again)


def backup(rd: RuleData, values: np.ndarray, links: Links, lo: int, hi: int) -> np.ndarray:
    """The Bellman update of the positions lo..hi (sweep order) from `values`."""
    acc = np.zeros(hi - lo)
    looped = np.zeros(hi - lo)  # the chance of a throw that is forfeited with a bonus throw (P7): folded in
    for i, (_, p) in enumerate(rd.odds):
        t = links.target[i, :, lo:hi]
        flip = t < 0
        v = values[np.where(flip, ~t, t)]
        v = np.where(flip, 1.0 - v, v)
        best = v.max(axis=0)
        again = links.again[i, lo:hi]
        acc += np.where(again, 0.0, p * best)
        looped += np.where(again, p, 0.0)
    return acc / (1.0 - looped)


@dataclass
class Report:
    """What solving a table found: per group, the sweeps made and the final Bellman residual."""

    sweeps: dict[tuple[int, int], int]
    residual: float


Progress = Callable[[str, float], None]


def solve(rd: RuleData, max_pieces: int = 3, progress: Progress | None = None) -> tuple[np.ndarray, Report]:
    """Values of every position with at most `max_pieces` pieces a side, and the report."""
    layout = Layout(max_pieces)
    values = np.zeros(layout.size + 2)
    values[layout.win], values[layout.none] = 1.0, -1.0
    total = sum(group_size(*g) for g in groups(max_pieces))
    done = 0.0
    report = Report({}, 0.0)
    say = progress or (lambda text, fraction: None)
    for pair in solve_order(max_pieces):
        weight = sum(group_size(*g) for g in pair) / total
        built: list[tuple[tuple[int, int], Links]] = []
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

        for g in pair:
            built.append((g, link(rd, layout, *g, tick)))
        first = None
        sweep = 0
        while True:
            sweep += 1
            change = 0.0
            for g, links in built:
                base = layout.offsets[g]
                n = group_size(*g)
                for lo in range(0, n, CHUNK):
                    hi = min(n, lo + CHUNK)
                    new = backup(rd, values, links, lo, hi)
                    where = base + links.order[lo:hi]
                    change = max(change, float(np.abs(new - values[where]).max()))
                    values[where] = new
            first = first or max(change, TOLERANCE * 10)
            solved = min(1.0, np.log(first / max(change, 1e-300)) / np.log(first / TOLERANCE)) if change else 1.0
            say(f"{_name(pair)}: sweep {sweep}, residual {change:.1e}", done + weight * (0.3 + 0.7 * solved))
            if change < TOLERANCE:
                break
        for g, links in built:
            report.sweeps[g] = sweep
            report.residual = max(report.residual, residual(rd, values, layout, g, links))
        done += weight
    return values[: layout.size], report


def residual(rd: RuleData, values: np.ndarray, layout: Layout, group: tuple[int, int], links: Links) -> float:
    """The largest Bellman residual |T(V) - V| over a group's positions."""
    base, n = layout.offsets[group], group_size(*group)
    worst = 0.0
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        worst = max(worst, float(np.abs(backup(rd, values, links, lo, hi) - values[base + links.order[lo:hi]]).max()))
    return worst


def _name(pair: list[tuple[int, int]]) -> str:
    return " and ".join(f"{a} v {b}" for a, b in pair)
