"""How lucky a throw was: what it gave the thrower over the average throw, for luck-adjusted results.

Senet is decided mostly by the throws, so two players' plain win rate needs thousands of games to
separate them. Backgammon programs are compared on *luck-adjusted* results instead: each throw's
luck is the value of the position after it (its best move played) minus the value before it (the
average over every throw at its odds); a game's result minus the luck its player got has the same
expected value as the plain result, whatever the judge, because every throw's luck averages zero
at the throw's own odds. The better the judge, the less of the variance is left: here the solved
tables where they reach and the fitted evaluation elsewhere, one throw deep.
"""

from __future__ import annotations

from ..rules import Game
from .evaluate import Evaluation, fitted_chance
from .fast_search import searcher
from .tables import Tables

#: No budget: a judgement one throw deep is a few hundred nodes at most.
UNBOUNDED = 1 << 62


class LuckJudge:
    """Judges throws one throw deep: the tables where they settle a position, else `evaluation`."""

    def __init__(self, tables: Tables | None, evaluation: Evaluation = fitted_chance) -> None:
        self.tables = tables
        self.evaluation = evaluation

    def luck(self, game: Game, throw: object) -> float:
        """What `throw` gives the player about to throw over the average throw (a chance to win, -1..1).

        A throw the player chose rather than threw (modern's single die, M3) counts no luck: the dice
        thrown otherwise still average zero, so the adjusted result stays unbiased."""
        exact = self.tables.exact if self.tables is not None else None
        search = searcher(game, self.evaluation, UNBOUNDED, exact=exact)
        odds = search.odds  # the throws' odds, as the search has them
        key = tuple(sorted(throw)) if isinstance(throw, tuple) else throw
        if key not in dict(odds):  # not a throw of the odds (M3: one die by choice): no luck counted
            return 0.0
        values = {t: search.throw(t, 1, 0.0, 1.0) for t, _ in odds}
        return values[key] - sum(p * values[t] for t, p in odds)
