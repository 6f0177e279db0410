"""The search on the rules' fast path: `search.py`'s expectimax, walking masks of source squares.

`Search` asks the game for a list of `Move` objects at every throw and pushes each of them. On the
rules' fast path (`rules/fast.py`) a throw already gives its legal moves as one mask of source
squares, in `legal_moves()` order, and a move is a source and its destination. `FastSearch` walks
those masks: no `Move` inside the tree (only the root's moves are made, for the caller), no undo
guarded at every node (a search cut short by its budget unwinds the fast path's records once, at
the top), and new leaves judged by the evaluation's own function of the board masks where it has
one (`evaluate.mask_judge`: the master's). The order of the moves, the windows, the caches and the
count of nodes are `Search`'s, so it decides as `Search` does, node for node
(`tests/test_opponent_fast.py`). It serves the rule sets with a fast path and solved endgames
(`secret`, `houses`); `searcher` picks it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

from ..rules import Game, Move
from ..rules.board import OFF, squares_in
from ..rules.sources import BACKWARD
from .evaluate import Evaluation, mask_judge
from .light import light_copy
from .search import OutOfNodes, Search
from .tables import MAX_PIECES

T = TypeVar("T")
Exact = Callable[[Game], float | None]


def searcher(game: Game, evaluate: Evaluation, budget: int, star2: bool = True, exact: Exact | None = None) -> Search:
    """A search from `game` (left as it is): `FastSearch` where it serves the rule set, else `Search`,
    each on a light copy."""
    if FastSearch.serves(game):
        return FastSearch(light_copy(game), evaluate, budget, star2, exact)
    return Search(light_copy(game), evaluate, budget, star2, exact)


class FastSearch(Search):
    """`Search` on the fast path. `exact` reads the solved tables, which reach no further than
    `tables.MAX_PIECES` pieces a side: it is not asked beyond them."""

    def __init__(
        self, game: Game, evaluate: Evaluation, budget: int, star2: bool = True, exact: Exact | None = None
    ) -> None:
        if not self.serves(game):
            raise ValueError(f"{game.name} with {game.players} players has no fast path with solved endgames")
        super().__init__(game, evaluate, budget, star2, exact)
        self.judge = mask_judge(evaluate, game)
        rules, self.landing_bonus = game.fast_rules()
        self.sources, self.landing = rules.sources, rules.landing
        self.bonus_throws = game.bonus_throws
        self.throwing: int = 0  # the throw whose moves are being looked at (`moved_leaves`)
        # where each source's move ends, per throw: forward, and backward (S12) for a mask with BACKWARD
        counts = [cast(int, t) for t, _ in self.odds]  # the fast path's throws are counts
        self.dest: dict[tuple[object, bool], tuple[int, ...]] = {
            (t, back): game.destinations(t, back) for t in counts for back in (False, True)
        }

    @staticmethod
    def serves(game: Game) -> bool:
        """Whether `game` can be searched here: a fast path (two players, the core's turn) and solved
        endgames (so `Search` keeps its caches of leaves and chance nodes)."""
        return game.has_fast_path and game.solved_endgames and game.turn_starts_with == "throw"

    # ------------------------------------------------------------------ helpers

    def leaf(self) -> float:
        """`Search.leaf`: each position judged once a decision, the tables first."""
        g = self.game
        p, occ, off = g.to_move, g.occ, g.off
        key = (occ[0], occ[1], off[0], off[1], p)
        hit = self.leaves.get(key)
        if hit is not None:
            if hit[1]:
                self.guessed = True
            return hit[0]
        return self.judged(key)

    def judged(self, key: tuple[int, int, int, int, int]) -> float:
        """A leaf not met before (`key` is `leaf`'s), judged and kept."""
        g = self.game
        p, occ, off = g.to_move, g.occ, g.off
        me, op = occ[p], occ[1 - p]
        v = self.exact(g) if self.exact and me.bit_count() <= MAX_PIECES and op.bit_count() <= MAX_PIECES else None
        guessed = v is None
        if v is None:
            self.guessed = True
            if self.judge is None:
                v = self.evaluate(g)[self.root]
                if p != self.root:
                    v = 1.0 - v
            else:  # the judge gives the mover's chance; as Search has it, through the root's side
                v = self.judge(me, op, off[p], off[1 - p])
                if p != self.root:
                    v = 1.0 - (1.0 - v)
        self.leaves[key] = (v, guessed)
        return v

    def after(self, mover: int, depth: int, alpha: float, beta: float) -> float:
        """The value for `mover`'s side of the position just reached (no throw waits on the fast path)."""
        g, root = self.game, self.root
        if g.winner is not None:
            return 1.0 if (g.winner == root) == (mover == root) else 0.0
        if (g.to_move == root) == (mover == root):
            return self.chance(depth, alpha, beta)
        return 1.0 - self.chance(depth, 1.0 - beta, 1.0 - alpha)

    def ordered_sources(self, srcs: int, dest: tuple[int, ...]) -> list[int]:
        """`Search.ordered` over a source mask: the sources likeliest best first (ties in mask order)."""
        guessed = self.guessed  # ordering reads leaves the values may not: it says nothing of their exactness
        scored = list(zip((-v for v in self.moved_leaves(-1, srcs, dest)), squares_in(srcs), strict=True))
        scored.sort()  # by value, then by square: the order of the mask, as Search's stable sort keeps it
        self.guessed = guessed
        return [f for _, f in scored]

    def moved_leaves(self, found: int, srcs: int, dest: tuple[int, ...]) -> Iterator[float]:
        """The mover's chance at the leaf after each move of `srcs` (in the mask's order), the leaves'
        cache looked up and filled. No move is played: each is worked out on the two boards
        (`fast_rules`); only a leaf not met before that the tables may cover, or that the evaluation
        judges on a `Game`, is judged with the move played, and the throw too (its sources `found`)
        unless it already is (`found` -1)."""
        g, root, leaves, judge, exact = self.game, self.root, self.leaves, self.judge, self.exact
        p = g.to_move
        q = 1 - p
        me, op, off_me, off_op = g.occ[p], g.occ[q], g.off[p], g.off[q]
        t = self.throwing
        keeps = t in self.bonus_throws  # P6: the throw's bonus, whatever the move
        landing, bonus, pieces = self.landing, self.landing_bonus, g.pieces
        while srcs:
            low = srcs & -srcs
            srcs ^= low
            f = low.bit_length() - 1
            to = dest[f]
            if to == OFF and off_me + 1 == pieces:  # P8: the mover wins
                yield 1.0
                continue
            a, b = landing(me, op, f, to)
            gone = off_me + 1 if to == OFF else off_me
            mover_next = keeps or bonus[f << 5 | to]
            nxt = p if mover_next else q
            key = (a, b, gone, off_op, nxt) if p == 0 else (b, a, off_op, gone, nxt)
            hit = leaves.get(key)
            if hit is not None:
                v = hit[0]
                if hit[1]:
                    self.guessed = True
            elif judge is None or (exact and a.bit_count() <= MAX_PIECES and b.bit_count() <= MAX_PIECES):
                if found >= 0:
                    g.fast_throw(t, found)
                g.fast_move(f, to)
                v = self.judged(key)
                g.fast_pop()
                if found >= 0:
                    g.fast_pop()
            else:  # `judged`'s evaluation without the move played: the judge reads the masks alone
                self.guessed = True
                v = judge(a, b, gone, off_op) if mover_next else judge(b, a, off_op, gone)
                if nxt != root:
                    v = 1.0 - (1.0 - v)
                leaves[key] = (v, True)
            yield v if mover_next else 1.0 - v  # the other side throws next: its chance is the complement

    # ------------------------------------------------------------------ nodes

    def chance_key(self, depth: int) -> tuple[object, ...]:
        """`Search.chance_key` of plain integers (two players: always kept)."""
        g = self.game
        return (g.occ[0], g.occ[1], g.off[0], g.off[1], g.to_move, g.opening, depth)

    def throw(
        self,
        t: Any,  # `Search.throw`'s object: on the fast path, a count
        depth: int,
        alpha: float,
        beta: float,
        probe: bool = False,
        known: int = -1,
        probed: float = 0.0,
    ) -> float:
        """`Search.throw` on the fast path: the throw's moves come as a source mask (`known`: the mask its
        probe found, kept in `thrown` after each call; `probed`: the probe's value, which one throw from
        the leaves is the first move's, so that move is counted but not played again)."""
        if self.nodes >= self.budget:
            raise OutOfNodes
        self.nodes += 1
        g = self.game
        mover = g.to_move
        if depth == 1:  # one throw from the leaves: read, not played, unless it is forfeited
            occ = g.occ
            found = known if known >= 0 else self.sources(occ[mover], occ[1 - mover], t, g.opening)
            self.thrown = found
            if found:
                return self.last_throw(t, found, beta, probe, known, probed)
        self.thrown = found = g.fast_throw(t, known)
        if found:
            self.throwing = t
            srcs = found & ~BACKWARD
            v = self.sources_value(srcs, self.dest[t, bool(found & BACKWARD)], depth, alpha, beta, probe)
        else:  # P7: nothing could move, and the throw passed the turn (or the bonus)
            v = self.after(mover, depth - 1, alpha, beta)
        g.fast_pop()
        self.thrown = found
        return v

    def last_throw(self, t: int, found: int, beta: float, probe: bool, known: int, probed: float) -> float:
        """`throw` one throw from the leaves, with moves (`found`): each move's leaf, the best for the
        mover; a probe tries the first move only, and a full search after a probe (`known`) counts that
        move again with its value the probe's (`probed`)."""
        dest = self.dest[t, bool(found & BACKWARD)]
        srcs = found & ~BACKWARD
        self.throwing = t
        if probe:
            return self.frontier(found, srcs & -srcs, dest, beta)
        if known < 0:
            return self.frontier(found, srcs, dest, beta)
        if self.nodes >= self.budget:
            raise OutOfNodes
        self.nodes += 1
        return probed if probed >= beta else self.frontier(found, srcs & (srcs - 1), dest, beta, probed)

    def sources_value(
        self, srcs: int, dest: tuple[int, ...], depth: int, alpha: float, beta: float, probe: bool
    ) -> float:
        """`Search.choose_value` over a source mask (two throws or more from the leaves): the best
        move's value for the mover."""
        g = self.game
        mover = g.to_move
        order = self.ordered_sources(srcs, dest) if srcs & (srcs - 1) else [srcs.bit_length() - 1]  # best first
        if probe:
            order = order[:1]
        best = 0.0
        for f in order:
            if self.nodes >= self.budget:
                raise OutOfNodes
            self.nodes += 1
            g.fast_move(f, dest[f])
            v = self.after(mover, depth - 1, alpha if alpha > best else best, beta)
            g.fast_pop()
            if v > best:
                best = v
                if best >= beta:
                    break
        return best

    def frontier(self, found: int, srcs: int, dest: tuple[int, ...], beta: float, best: float = 0.0) -> float:
        """`sources_value` one throw from the leaves (no ordering there: the mask's order), the throw
        (`throwing`, its sources `found`) not played: each move's leaf (`moved_leaves`: what `after`
        and `chance` would give at depth 0), each move counted before it is looked at."""
        room = self.budget - self.nodes  # the moves that may still be counted
        if room <= 0:
            raise OutOfNodes
        count, played = srcs.bit_count(), 0
        for v in self.moved_leaves(found, srcs, dest):
            played += 1
            if v > best:
                best = v
                if best >= beta:
                    break
            if played >= room and played < count:  # the next move could not be counted
                self.nodes += played
                raise OutOfNodes
        self.nodes += played
        return best

    # ------------------------------------------------------------------ the root

    def root_values(self, depth: int) -> list[tuple[Move, float]]:
        """`Search.root_values`: the root's moves are the only `Move` objects made."""
        g = self.game
        mover = g.to_move
        out = []
        for m in g.fast_moves(g.last_sources()):
            if self.nodes >= self.budget:
                raise OutOfNodes
            self.nodes += 1
            g.fast_move(m.from_sq, m.to_sq)
            out.append((m, self.after(mover, depth, 0.0, 1.0)))
            g.fast_pop()
        return out

    def _deepened(self, depths: range, search: Callable[[int], T]) -> tuple[T | None, int]:
        """`Search._deepened`, a search cut short by the budget unwound at once (no node guards its undo)."""
        records = self.game.fast_records

        def unwinding(depth: int) -> T:
            try:
                return search(depth)
            except OutOfNodes:
                self.game.fast_unwind(records)
                raise

        return super()._deepened(depths, unwinding)
