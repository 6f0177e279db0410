"""The search on the rules' fast path decides as on `Game`'s own push and pop: on twelve middle-game
positions of each rule set the master's search walking source masks on the light copy
(fast_search.py, fast.py) and `Search` on an ordinary copy of the game (`Move` lists, push and pop)
give the same moves, the same values (but for float noise), the same depth and nodes."""

from __future__ import annotations

import random

import pytest
from opponent_helpers import small_tables

from senet_pi.opponent.evaluate import EVALUATIONS
from senet_pi.opponent.fast_search import FastSearch, searcher
from senet_pi.opponent.players import LEVELS
from senet_pi.opponent.search import Search
from senet_pi.opponent.tables import Tables
from senet_pi.rules import Game, new_game


def middle_games(name: str, options: dict, count: int, seed: int) -> list[Game]:
    """Positions met after 30-70 random throws, each with a throw waiting and at least two moves."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        game = new_game(name, options=options)
        stop = rng.randrange(30, 70)
        for _ in range(stop):
            if game.is_over:
                break
            game.push_throw(game.random_throw(rng))
            while game.pending is not None and not game.is_over:
                moves = game.legal_moves()
                game.push(moves[rng.randrange(len(moves))])
        if game.is_over:
            continue
        game.push_throw(game.random_throw(rng))
        if len(game.legal_moves()) > 1:
            out.append(game.copy(history=False))
    return out


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return Tables(small_tables(tmp_path_factory.mktemp("tables"), 1), build=False)


@pytest.mark.parametrize(
    ("name", "options"), [("secret", {}), ("secret", {"throws": "d6"}), ("houses", {})], ids=["secret", "d6", "houses"]
)
def test_the_master_s_search_on_the_fast_path_decides_as_on_push_and_pop(tables, name, options):
    level = LEVELS[4]
    evaluation = EVALUATIONS[level.evaluation]
    for game in middle_games(name, options, 12, seed=7):
        fast = searcher(game, evaluation, level.budget, level.star2, tables.exact)
        slow = Search(game.copy(history=False), evaluation, level.budget, level.star2, tables.exact)
        assert isinstance(fast, FastSearch)  # source masks, on the light copy
        assert type(fast.game) is not type(slow.game)
        got, fast_stats = fast.deepen(level.depth)
        want, slow_stats = slow.deepen(level.depth)
        assert [m for m, _ in got] == [m for m, _ in want]
        assert [v for _, v in got] == pytest.approx([v for _, v in want], abs=1e-12)
        assert (fast_stats.depth, fast_stats.nodes) == (slow_stats.depth, slow_stats.nodes)
        assert max(got, key=lambda mv: mv[1])[0] == max(want, key=lambda mv: mv[1])[0]


@pytest.mark.parametrize(("name", "options"), [("secret", {}), ("houses", {})], ids=["secret", "houses"])
def test_a_search_cut_short_by_its_budget_is_unwound_and_decides_as_on_push_and_pop(tables, name, options):
    """Small budgets run out part-way through a depth: the fast search undoes at once, at the top, what
    each node would have undone, so the copy is back where it started and the values are Search's."""
    evaluation = EVALUATIONS["master"]
    cut_short = 0
    for game in middle_games(name, options, 6, seed=11):
        for budget in (60, 700, 3_000):
            fast = searcher(game, evaluation, budget, True, tables.exact)
            slow = Search(game.copy(history=False), evaluation, budget, True, tables.exact)
            got, fast_stats = fast.deepen(LEVELS[4].depth)
            want, slow_stats = slow.deepen(LEVELS[4].depth)
            cut_short += fast_stats.nodes >= budget
            assert [m for m, _ in got] == [m for m, _ in want]
            assert [v for _, v in got] == pytest.approx([v for _, v in want], abs=1e-12)
            assert (fast_stats.depth, fast_stats.nodes) == (slow_stats.depth, slow_stats.nodes)
            g = fast.game
            assert (g.occ, g.off, g.to_move, g.pending) == (game.occ, game.off, game.to_move, game.pending)
            assert g.fast_records == 0
    assert cut_short  # the budgets did run out
