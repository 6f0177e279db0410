"""The master's evaluation: its own features and weights per phase, fitted by a reproducible command,
shipped with the package, read by level 4 alone; a chance for each player, the same from either seat."""

from __future__ import annotations

import numpy as np
import pytest
from opponent_helpers import random_positions

from senet_pi.opponent.evaluate import EVALUATIONS, fitted_chance, master_chance
from senet_pi.opponent.features import N_FEATURES, Shape
from senet_pi.opponent.fit import fit_master, fit_phased, format_master_weights
from senet_pi.opponent.master import EXTRA_NAMES, N_EXTRA, Phased, extra_vector, master_vector, phase_of
from senet_pi.opponent.master_weights import MASTER_WEIGHTS
from senet_pi.opponent.players import LEVELS, Computer
from senet_pi.opponent.tables import Tables
from senet_pi.rules import find_ruleset, new_game


def _mask(*squares):
    m = 0
    for sq in squares:
        m |= 1 << sq
    return m


@pytest.mark.parametrize("name", ["secret", "houses"])
def test_the_shipped_weights_load_with_a_shared_set_and_one_for_each_phase_met(name):
    weights = MASTER_WEIGHTS[name]
    assert (0, 0) in weights
    assert all(len(w) == N_FEATURES + N_EXTRA + 1 for w in weights.values())
    assert {(me, op) for me in range(1, 6) for op in range(1, 6)} <= set(weights)
    Phased(weights)  # raises on a wrong count


def test_weights_of_the_wrong_length_or_without_shared_weights_are_refused():
    w = (0.0,) * (N_FEATURES + N_EXTRA + 1)
    with pytest.raises(ValueError, match="weights for"):
        Phased({(0, 0): w[:-1]})
    with pytest.raises(ValueError, match="shared"):
        Phased({(1, 1): w})


@pytest.mark.parametrize("name", ["secret", "houses"])
def test_the_fast_evaluation_equals_bias_plus_weights_times_features_in_the_position_s_phase(name):
    phased = Phased(MASTER_WEIGHTS[name])
    for game in random_positions(name, 300, 1):
        p = game.to_move
        me, op = game.occ[p], game.occ[1 - p]
        args = (me, op, game.off[p], game.off[1 - p])
        f = master_vector(Shape.of(game), *args)
        w = np.array(MASTER_WEIGHTS[name].get(phase_of(me, op), MASTER_WEIGHTS[name][(0, 0)]))
        assert len(f) == N_FEATURES + N_EXTRA
        assert phased.logit(Shape.of(game), *args) == pytest.approx(w[0] + np.dot(w[1:], f), abs=1e-9)


@pytest.mark.parametrize(("name", "options"), [("secret", {}), ("secret", {"throws": "d6"}), ("houses", {})])
def test_the_search_s_judge_gives_the_evaluation_s_chance_to_the_last_bit(name, options):
    """`Phased.judge` (the search's leaves, its sums written out) and `Phased.chance` (through `logit`)
    are the same floats, so a search judging by either visits the same nodes."""
    phased = Phased(MASTER_WEIGHTS[name])
    game = new_game(name, options=options)
    judge = phased.judge(Shape.of(game))
    attacked = 0
    for game in random_positions(name, 400, 2, options):
        p = game.to_move
        me, op = game.occ[p], game.occ[1 - p]
        assert judge(me, op, game.off[p], game.off[1 - p]) == phased.chance(game)[p]
        attacked += (me & -me) < op
    assert attacked > 100  # the attack sums were met, not only the zeros


def test_the_added_features_say_whether_the_sides_can_meet_and_who_is_penned():
    """S4/H3: three in a row cannot be passed, so pieces behind the rearmost blockade are penned."""
    shape = Shape.of(new_game("houses"))
    f = dict(zip(EXTRA_NAMES, extra_vector(shape, _mask(2, 4), _mask(20, 21, 22)), strict=True))
    assert f["mover penned"] == 2
    assert f["other penned"] == 0
    assert f["no contact"] == 1  # every piece of the mover behind every piece of the other
    assert f["no contact x scaled pip lead"] < 0  # and behind in the race
    f = dict(zip(EXTRA_NAMES, extra_vector(shape, _mask(2, 14), _mask(10, 11, 12)), strict=True))
    assert f["mover penned"] == 1  # 14 is past the blockade
    assert f["no contact"] == 0
    assert f["no contact x scaled pip lead"] == 0


@pytest.mark.parametrize("name", ["secret", "houses"])
def test_the_master_s_evaluation_is_a_chance_for_each_player_the_same_from_either_seat(name):
    cls = find_ruleset(name)
    for game in random_positions(name, 200, 2):
        v = master_chance(game)
        assert len(v) == 2
        assert abs(sum(v) - 1) < 1e-12
        assert 0 < v[0] < 1
        # the same position with the seats swapped: each side keeps its chance
        seats = ("A", "B")
        squares = [[sq for sq in range(1, 31) if game.occ[s] >> sq & 1] for s in (0, 1)]
        position = {
            "A": squares[1],
            "B": squares[0],
            "off": {"A": game.off[1], "B": game.off[0]},
            "to_move": seats[1 - game.to_move],
        }
        swapped = cls(position=position)
        assert master_chance(swapped) == pytest.approx(v[::-1], abs=1e-12)


def test_the_master_judges_by_its_own_evaluation_and_levels_1_to_3_do_not():
    assert Computer(LEVELS[4]).evaluator.fallback is master_chance
    for n in (1, 2, 3):
        assert Computer(LEVELS[n]).evaluator.fallback is not master_chance
    assert EVALUATIONS["fitted"] is fitted_chance
    differs = [g for g in random_positions("houses", 50, 3) if abs(master_chance(g)[0] - fitted_chance(g)[0]) > 1e-6]
    assert differs  # the master's evaluation is not the expert's under another name


def test_a_rule_set_without_master_weights_falls_back_to_the_fitted_evaluation():
    game = new_game("modern", 3)
    assert "modern" not in MASTER_WEIGHTS
    assert master_chance(game) == fitted_chance(game)


def test_a_phase_with_few_positions_keeps_the_shared_weights():
    rng = np.random.default_rng(4)
    x = np.zeros((3000, N_FEATURES + N_EXTRA))
    x[:, 0] = 1.0  # the mover on square 1: phase (1, 0) for every row...
    x[:2900, 30] = 1.0  # ...but (1, 1) for most: (1, 0) has 100 rows
    x[:, -1] = rng.normal(size=3000)
    y = (rng.random(3000) < 1 / (1 + np.exp(-x[:, -1]))).astype(float)
    fitted = fit_phased(x, y, least=500)
    assert set(fitted) == {(0, 0), (1, 1)}


def test_the_training_is_the_same_from_the_same_seed_and_writes_loadable_source(tmp_path):
    """A tiny run twice: the same weights; the file written holds them, value for value."""
    cls = find_ruleset("houses")
    tables = Tables(tmp_path, build=False)  # no tables: every label is a look-ahead
    first = fit_master(cls, games=3, seed=11, rounds=2, tables=tables)
    again = fit_master(cls, games=3, seed=11, rounds=2, tables=tables)
    other = fit_master(cls, games=3, seed=12, rounds=2, tables=tables)
    assert first == again
    assert first != other
    assert all(len(w) == N_FEATURES + N_EXTRA + 1 for w in first.values())
    scope: dict[str, object] = {}
    exec(format_master_weights({"houses": first}), scope)
    assert scope["MASTER_WEIGHTS"] == {"houses": first}
