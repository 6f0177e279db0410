"""Choosing a move: an expectimax over the exact throw odds with Ballard's Star2 pruning at chance nodes.

Values are chances to win, in [0, 1], seen from the side of the player about to act. A chance
node (a throw to come) first probes each throw with its most promising move: their weighted sum
is a lower bound, and when it already reaches beta the node is cut (Star2); then each throw is
searched in full with the window its odds allow (Star1). Beyond two players the others are
taken as one side playing against the player to choose (the paranoid reduction), so the same
pruning holds. A search is bounded in nodes (moves and throws pushed): it deepens one throw at a
time and keeps the deepest search that finished within the budget, so the same seed plays the
same moves on any machine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeVar

from ..rules import Game, Move
from .evaluate import Evaluation

#: The first depth (throws after the move) whose cost is foreseen before it is started: only the
#: master searches so deep (levels 1-3 stop at one throw).
FORESEEN_FROM = 4

T = TypeVar("T")


class OutOfNodes(Exception):
    """The node budget of a decision ran out: the deepening stops at the last finished depth."""


def throw_odds(game: Game) -> list[tuple[object, float]]:
    """Each distinct throw with its chance, likeliest first (two dice in either order are one throw)."""
    merged: dict[object, Fraction] = {}
    for value, p in game.throw_kind.odds().items():
        key = tuple(sorted(value)) if isinstance(value, tuple) else value
        merged[key] = merged.get(key, Fraction(0)) + p
    return sorted(((v, float(p)) for v, p in merged.items()), key=lambda vp: -vp[1])


@dataclass
class SearchStats:
    """What one decision cost: nodes pushed and the depth (throws after the move) it finished."""

    nodes: int = 0
    depth: int = 0
    values: dict[str, float] = field(default_factory=dict)


class Search:
    """An expectimax search from one game position, for the player about to act."""

    def __init__(
        self,
        game: Game,
        evaluate: Evaluation,
        budget: int,
        star2: bool = True,
        exact: Callable[[Game], float | None] | None = None,
    ) -> None:
        self.game = game
        self.evaluate = evaluate
        self.exact = exact
        self.budget = budget
        self.star2 = star2
        self.root = game.to_move
        self.odds = throw_odds(game)
        self.nodes = 0
        self.cache: dict[tuple[object, ...], float] = {}
        # leaf values by position, and whether each was guessed: move ordering and leaves meet
        self.leaves: dict[tuple[object, ...], tuple[float, bool]] = {}
        self.keyed = game.players == 2 and game.solved_endgames and game.turn_starts_with == "throw"
        self.guessed = False  # whether a leaf was judged by the evaluation (not the tables, nor a game over)
        self.thrown = -1  # what the last throw tried found, for its full search (the fast path's: its sources)

    # ------------------------------------------------------------------ helpers

    def _count(self) -> None:
        if self.nodes >= self.budget:
            raise OutOfNodes
        self.nodes += 1

    def leaf(self) -> float:
        """The evaluation, for the side of the player to throw (each position judged once a decision)."""
        g = self.game
        key = None
        if self.keyed:
            key = (g.occ[0], g.occ[1], g.off[0], g.off[1], g.to_move)
            hit = self.leaves.get(key)
            if hit is not None:
                self.guessed = self.guessed or hit[1]
                return hit[0]
        v = self.exact(g) if self.exact is not None else None
        guessed = v is None
        if v is None:
            v = self.evaluate(g)[self.root]
            if g.to_move != self.root:
                v = 1.0 - v
        self.guessed = self.guessed or guessed
        if key is not None:
            self.leaves[key] = (v, guessed)
        return v

    def after(self, mover: int, depth: int, alpha: float, beta: float) -> float:
        """The value for `mover`'s side of the position just reached."""
        g, root = self.game, self.root
        if g.winner is not None:  # is_over
            return 1.0 if (g.winner == root) == (mover == root) else 0.0
        same = (g.to_move == root) == (mover == root)  # _ours, inline: this runs at every node
        a, b = (alpha, beta) if same else (1.0 - beta, 1.0 - alpha)
        v = self.choose_value(depth, a, b) if g.pending is not None else self.chance(depth, a, b)
        return v if same else 1.0 - v

    def ordered(self, moves: list[Move], depth: int) -> list[Move]:
        """Moves likeliest best first (by the evaluation just after them) where a deeper search follows."""
        if depth < 1 or len(moves) < 2:
            return moves
        g, mover = self.game, self.game.to_move
        scored = []
        guessed = self.guessed  # ordering reads leaves the values may not: it says nothing of their exactness
        for m in moves:
            g.push(m)
            v = self.leaf() if not g.is_over else (1.0 if g.winner == mover else 0.0)
            same = g.is_over or (g.to_move == self.root) == (mover == self.root)
            g.pop()
            scored.append((-(v if same else 1.0 - v), m))
        scored.sort(key=lambda sm: sm[0])
        self.guessed = guessed
        return [m for _, m in scored]

    # ------------------------------------------------------------------ nodes

    def chance_key(self, depth: int) -> tuple[object, ...] | None:
        """The chance cache's key for the position and `depth` (None: no cache, beyond two players)."""
        if not self.keyed:
            return None
        g = self.game
        return (tuple(g.occ), tuple(g.off), g.to_move, g.opening, depth)

    def chance(self, depth: int, alpha: float, beta: float) -> float:
        """A throw to come (Star2): the value for the side of the player to throw."""
        if depth <= 0:
            return self.leaf()
        key = self.chance_key(depth)
        if key is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        odds = self.odds
        lower = [0.0] * len(odds)
        upper = [1.0] * len(odds)
        lo_sum, hi_sum = 0.0, 1.0
        known = [-1] * len(odds)  # what each throw's probe found, for its full search (`throw`'s `known`)
        if self.star2 and len(odds) > 1:
            for i, (t, p) in enumerate(odds):
                lower[i] = self.throw(t, depth, 0.0, 1.0, probe=True)
                known[i] = self.thrown
                lo_sum += p * lower[i]
                if lo_sum >= beta:
                    return lo_sum
        for i, (t, p) in enumerate(odds):
            rest_lo, rest_hi = lo_sum - p * lower[i], hi_sum - p * upper[i]
            a = (alpha - rest_hi) / p  # max(lower[i], ...) and min(upper[i], ...) without the calls
            if a < lower[i]:
                a = lower[i]
            b = (beta - rest_lo) / p
            if b > upper[i]:
                b = upper[i]
            v = self.throw(t, depth, a, b, known=known[i], probed=lower[i])
            if v <= a:
                upper[i] = v
            if v >= b:
                lower[i] = v
            if a < v < b:
                lower[i] = upper[i] = v
            lo_sum, hi_sum = rest_lo + p * lower[i], rest_hi + p * upper[i]
            if hi_sum <= alpha:
                return hi_sum
            if lo_sum >= beta:
                return lo_sum
        if key is not None:
            self.cache[key] = lo_sum
        return lo_sum

    def throw(
        self,
        t: object,
        depth: int,
        alpha: float,
        beta: float,
        probe: bool = False,
        known: int = -1,
        probed: float = 0.0,
    ) -> float:
        """The throw `t` made: the value for the thrower's side (a probe plays only the likeliest move).
        `known` and `probed`, what this throw's probe found and its value, serve the fast path's search."""
        g = self.game
        mover = g.to_move
        self._count()
        g.push_throw(t)
        try:
            if g.pending is None:  # P7: nothing could move, and push_throw passed the turn (or the bonus)
                return self.after(mover, depth - 1, alpha, beta)
            return self.choose_value(depth, alpha, beta, probe)
        finally:
            g.pop()

    def choose_value(self, depth: int, alpha: float, beta: float, probe: bool = False) -> float:
        """A throw waiting: the best move's value for the mover's side (alpha-beta over the moves)."""
        g = self.game
        mover = g.to_move
        moves = self.ordered(g.legal_moves(), depth - 1)
        if probe:
            moves = moves[:1]
        best = 0.0
        for m in moves:
            self._count()
            g.push(m)
            try:
                v = self.after(mover, depth - 1 if g.pending is None else depth, max(alpha, best), beta)
            finally:
                g.pop()
            if v > best:
                best = v
                if best >= beta:
                    break
        return best

    # ------------------------------------------------------------------ the root

    def root_values(self, depth: int) -> list[tuple[Move, float]]:
        """Every legal move with its value at `depth` throws after it (exact under the window (0, 1))."""
        g = self.game
        mover = g.to_move
        out = []
        for m in g.legal_moves():
            self._count()
            g.push(m)
            try:
                v = self.after(mover, depth, 0.0, 1.0)
            finally:
                g.pop()
            out.append((m, v))
        return out

    def deepen(self, max_depth: int) -> tuple[list[tuple[Move, float]], SearchStats]:
        """Search depth 0, 1, ... max_depth while the budget lasts; the deepest finished values.

        A search four or more throws deep is started only if it may finish: its cost is foreseen from
        how the last two depths grew, and a search that could not end within the budget would only be
        thrown away."""
        best, depth = self._deepened(range(max_depth + 1), self.root_values)
        if best is None:  # even depth 0 ran out: values from the evaluation alone, uncounted
            self.budget = 1 << 62
            best = self.root_values(0)
        return best, SearchStats(nodes=self.nodes, depth=max(depth, 0))

    def deepen_chance(self, max_depth: int, first: float) -> float:
        """The value for the side about to throw, searched 1, 2, ... `max_depth` throws deep while the
        budget lasts (`first` if not even one throw fits), with `deepen`'s foresight and early stop."""
        value, _ = self._deepened(range(1, max_depth + 1), lambda depth: self.chance(depth, 0.0, 1.0))
        return first if value is None else value

    def _deepened(self, depths: range, search: Callable[[int], T]) -> tuple[T | None, int]:
        """The deepest `search(depth)` that finished within the budget and its depth (None, -1 if none).
        A depth from the fourth throw on is started only if it may finish; one whose every leaf was
        exact (tables, games over) ends the deepening, as looking deeper would change nothing."""
        found: T | None = None
        reached = -1
        spent: list[int] = []  # nodes each finished depth took
        for depth in depths:
            if depth >= FORESEEN_FROM and not self._may_finish(spent):
                break
            started = self.nodes
            self.cache.clear()
            self.guessed = False
            try:
                found = search(depth)
            except OutOfNodes:
                break
            spent.append(self.nodes - started)
            reached = depth
            if not self.guessed:
                break
        return found, reached

    def _may_finish(self, spent: list[int]) -> bool:
        """Whether the next depth may finish in the budget left: it costs about what the last did times
        the growth from the one before (some 10-15 times a throw in the middle game)."""
        last, before = spent[-1], max(1, spent[-2])
        return self.nodes + last * last / before <= self.budget
