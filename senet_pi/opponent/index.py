"""Endgame positions as numbers: each side's squares ranked in the combinatorial number system.

A position of a group (a, b) is the mover's a squares and the other side's b squares, all
among the 29 squares a piece can rest on (27 never holds one: S7/H6 move it away at once).
Its index is rank(mover) * C(29 - a, b) + rank(other side, counted among the squares the mover
leaves free): every index names one position and no key is stored.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np

#: The squares a piece can rest on, in index order (27 left out).
RESTING = np.array([*range(1, 27), 28, 29, 30], dtype=np.int64)
N_SQUARES = len(RESTING)
#: Board square -> its index among RESTING (-1 for 0, 27 and off).
INDEX_OF_SQUARE = np.full(32, -1, dtype=np.int64)
INDEX_OF_SQUARE[RESTING] = np.arange(N_SQUARES)
#: COMB[n, k] = C(n, k) for the ranks.
COMB = np.array([[comb(n, k) for k in range(6)] for n in range(N_SQUARES + 1)], dtype=np.int64)


def group_size(a: int, b: int) -> int:
    """How many positions have a pieces of the mover and b of the other side on the board."""
    return comb(N_SQUARES, a) * comb(N_SQUARES - a, b)


def rank(cells: np.ndarray) -> np.ndarray:
    """Colex rank of each row of sorted square indices (N, k) among the k-subsets."""
    out = np.zeros(len(cells), dtype=np.int64)
    for i in range(cells.shape[1]):
        out += COMB[cells[:, i], i + 1]
    return out


def local_index(me: np.ndarray, op: np.ndarray) -> np.ndarray:
    """The index within its group of each position: sorted square indices of both sides, (N, a), (N, b)."""
    b = op.shape[1]
    squeezed = op.copy()
    for j in range(me.shape[1]):
        squeezed -= (me[:, j : j + 1] < op).astype(np.int64)
    free = N_SQUARES - me.shape[1]
    index: np.ndarray = rank(me) * comb(free, b) + rank(squeezed)
    return index


@lru_cache(maxsize=16)
def _all_ranked(n: int, k: int) -> np.ndarray:
    """Every k-subset of range(n) as sorted rows, in rank order (read-only: shared between calls)."""
    rows = np.array(list(combinations(range(n), k)), dtype=np.int64).reshape(-1, k)
    out = rows[np.argsort(rank(rows), kind="stable")]
    out.setflags(write=False)
    return out


def group_cells(a: int, b: int, start: int = 0, stop: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The square indices (mover, other side) of the positions start..stop of group (a, b), in index order."""
    stop = group_size(a, b) if stop is None else stop
    return cells_at(a, b, np.arange(start, stop, dtype=np.int64))


def cells_at(a: int, b: int, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The square indices (mover, other side) of the positions of group (a, b) at indices `i`."""
    mine = _all_ranked(N_SQUARES, a)
    theirs = _all_ranked(N_SQUARES - a, b)
    i = np.asarray(i, dtype=np.int64)
    me = mine[i // len(theirs)]
    op = theirs[i % len(theirs)].copy()
    for j in range(a):  # put back the squares the mover holds, lowest first
        op += (op >= me[:, j : j + 1]).astype(np.int64)
        op.sort(axis=1)
    return me, op


def cells_of_masks(masks: np.ndarray, k: int) -> np.ndarray:
    """The k lowest squares of each board mask as sorted square indices (N, k)."""
    out = np.empty((len(masks), k), dtype=np.int64)
    m = masks.copy()
    for j in range(k):
        low = m & -m
        out[:, j] = INDEX_OF_SQUARE[np.log2(np.maximum(low, 1)).astype(np.int64)]
        m ^= low
    return out


def masks_of_cells(cells: np.ndarray) -> np.ndarray:
    """Board masks (bit N = square N) of rows of square indices."""
    out = np.zeros(len(cells), dtype=np.int64)
    for j in range(cells.shape[1]):
        out |= np.int64(1) << RESTING[cells[:, j]]
    return out
