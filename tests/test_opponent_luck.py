"""Luck-adjusted results: a throw's luck averages zero at the throws' odds, is exact where the tables
reach, and takes most of the spread out of a match's result without moving its expected value."""

from __future__ import annotations

import statistics

import pytest
from opponent_helpers import game_at, random_positions, small_tables

from senet_pi.opponent.luck import LuckJudge
from senet_pi.opponent.players import find_player
from senet_pi.opponent.record import Tally
from senet_pi.opponent.search import throw_odds
from senet_pi.opponent.tables import Tables
from senet_pi.opponent.tournament import Match, adjusted_interval, describe, play_deal, run_match
from senet_pi.rules import SecretGame


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Tables of up to two pieces a side for secret and houses (sticks): a few seconds each."""
    return small_tables(tmp_path_factory.mktemp("tables"), 2)


@pytest.mark.parametrize(("name", "options"), [("secret", {}), ("secret", {"throws": "d6"}), ("houses", {})])
def test_every_throws_luck_averages_zero_at_the_throws_odds(folder, name, options):
    """What makes the adjusted result unbiased: whatever the judge, the luck to come averages zero."""
    judge = LuckJudge(Tables(folder, build=False))
    for game in [g for g in random_positions(name, 14, seed=7, options=options) if g.pending is None][:12]:
        odds = throw_odds(game)
        lucks = [judge.luck(game, t) for t, _ in odds]
        assert abs(sum(p * luck for (_, p), luck in zip(odds, lucks, strict=True))) < 1e-12
        assert all(-1.0 <= luck <= 1.0 for luck in lucks)
        assert max(lucks) > min(lucks), "some throws are better than others"


@pytest.mark.parametrize(("me", "op"), [((24,), (28, 29)), ((21, 26), (28,)), ((13, 22), (25, 30))])
def test_in_a_solved_endgame_a_throws_luck_is_the_exact_change_it_makes(folder, me, op):
    """Where the tables reach, the value before a throw is the tables' and after it the best move's."""
    tables = Tables(folder, build=False)
    judge = LuckJudge(tables)
    game = game_at(SecretGame, "sticks", me, op)
    before = tables.exact(game)
    assert before is not None
    for throw, _ in throw_odds(game):
        game.push_throw(throw)
        mover = 0
        if game.pending is None:  # P7: nothing could move
            after = tables.exact(game) if game.to_move == mover else 1.0 - tables.exact(game)
        else:
            after = 0.0
            for move in game.legal_moves():
                game.push(move)
                if game.is_over:
                    value = 1.0 if game.winner == mover else 0.0
                else:
                    exact = tables.exact(game)
                    value = exact if game.to_move == mover else 1.0 - exact
                after = max(after, value)
                game.pop()
        game.pop()
        # the tables hold 16-bit values: before and after agree with the Bellman update to their rounding
        assert judge.luck(game, throw) == pytest.approx(after - before, abs=1e-4)


@pytest.mark.parametrize("name", ["secret", "houses"])
def test_a_deals_adjusted_score_adds_up_and_spreads_less_than_its_result(folder, name):
    """Club against beginner, 30 deals: the luck one side gets the other loses, so both adjusted scores add
    up to the games played; and the deals' adjusted scores spread far less than their plain results."""
    plain, adjusted = [], []
    for deal in range(900, 930):
        _, a, b = play_deal((name, {}, find_player("club"), find_player("beginner"), deal, folder))
        assert a.adjusted + b.adjusted == pytest.approx(a.games)
        assert a.adjusted_sq == pytest.approx(a.adjusted**2)
        plain.append(a.wins / 2)
        adjusted.append(a.adjusted / 2)
    assert statistics.variance(adjusted) < statistics.variance(plain) / 1.5


def test_a_match_says_its_luck_adjusted_rate_under_its_plain_one(folder):
    match = run_match(Match("houses", {}, find_player("club"), find_player("beginner")), 4, 900, folder)
    mean, lo, hi = adjusted_interval(match.tallies[0])
    lines = describe(match)
    assert lines[1] == f"  luck-adjusted (each throw's luck taken off): club {mean:.1%} (95 % CI {lo:.1%}-{hi:.1%})"
    assert lo < mean < hi


def test_the_adjusted_interval_of_known_scores():
    """Three deals scoring 1, 0.5 and 0 a game: mean 0.5, sample sd 0.5, half-width 1.96 * 0.5 / sqrt(3)."""
    tally = Tally(games=6, adjusted=2 + 1 + 0, adjusted_sq=4 + 1 + 0)
    mean, lo, hi = adjusted_interval(tally)
    assert mean == pytest.approx(0.5)
    assert hi - mean == pytest.approx(1.96 * 0.5 / 3**0.5)
    assert mean - lo == pytest.approx(hi - mean)
    assert statistics.stdev([1, 0.5, 0]) == pytest.approx(0.5)
