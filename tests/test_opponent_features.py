"""The fitted middle-game evaluation: its fast path is its definition, it reads the rule set's
class (never its name), and the offline fit recovers known weights."""

from __future__ import annotations

import numpy as np
import pytest
from opponent_helpers import random_positions

from senet_pi.opponent.evaluate import fitted_chance, race_chance
from senet_pi.opponent.features import N_FEATURES, NAMES, WEIGHTS, Linear, Shape, feature_vector
from senet_pi.opponent.fit import fit_logistic
from senet_pi.rules import new_game


@pytest.mark.parametrize("name", ["secret", "houses"])
def test_the_fast_evaluation_equals_bias_plus_weights_times_features(name):
    linear = Linear(WEIGHTS[name])
    w = np.array(WEIGHTS[name])
    for game in random_positions(name, 300, 1):
        p = game.to_move
        args = (game.occ[p], game.occ[1 - p], game.off[p], game.off[1 - p])
        f = feature_vector(Shape.of(game), *args)
        assert len(f) == N_FEATURES == len(NAMES)
        assert abs(linear.logit(Shape.of(game), *args) - (w[0] + np.dot(w[1:], f))) < 1e-9


def test_features_count_protection_blockades_and_attacks_from_the_rule_set():
    """P5: two in a row are protected; S4: three in a row block; S5: 15 is safe; P4: attacks by the throw odds."""
    game = new_game("secret")
    shape = Shape.of(game)
    me = (1 << 11) | (1 << 12) | (1 << 13) | (1 << 15)  # a run of three (blockade) and the ankh (S5)
    op = (1 << 14) | (1 << 17)  # 14 and 17 open to attack
    f = dict(zip(NAMES, feature_vector(shape, me, op, 1, 3), strict=True))
    assert f["mover protected"] == 4
    assert f["other protected"] == 0
    assert f["mover in blockades"] == 3
    assert f["other in blockades"] == 0
    odds = dict(shape.odds)  # 13->14 (1), 12->14 and 15->17 (2), 11->14 (3), 13->17 (4), 11->17 (6)
    assert f["mover's attacks"] == pytest.approx(odds[1] + 2 * odds[2] + odds[3] + odds[4] + odds[6])
    assert f["mover off"] == 1
    assert f["other off"] == 3
    assert f["mover on 15"] == 1
    assert f["other on 17"] == 1


@pytest.mark.parametrize("name", ["secret", "houses"])
def test_the_fitted_evaluation_is_a_chance_for_each_player(name):
    for game in random_positions(name, 50, 2):
        v = fitted_chance(game)
        assert len(v) == 2
        assert abs(sum(v) - 1) < 1e-12
        assert 0 < v[0] < 1


def test_a_rule_set_without_weights_falls_back_to_the_race_curve():
    game = new_game("modern", 3)
    assert fitted_chance(game) == race_chance(game)


def test_the_fit_recovers_known_weights():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(20_000, 3))
    truth = np.array([0.3, 1.0, -0.5, 0.0])
    p = 1 / (1 + np.exp(-(truth[0] + x @ truth[1:])))
    y = (rng.random(len(p)) < p).astype(float)
    w = fit_logistic(x, y, ridge=0.0)
    assert np.abs(w - truth).max() < 0.08
