"""S1, H1, M3: what a throw can be and how likely each value is, exactly."""

import random
from collections import Counter
from fractions import Fraction as F

from senet_pi.rules import new_game
from senet_pi.rules.throws import RerolledDie, Sticks, TwoDice


def test_S1_sticks_count_dark_sides_none_is_6():
    assert Sticks("dark", 6).odds() == {1: F(4, 16), 2: F(6, 16), 3: F(4, 16), 4: F(1, 16), 6: F(1, 16)}


def test_S1_option_d6_rerolls_5():
    die = RerolledDie(6, reroll=5)
    assert die.odds() == {v: F(1, 5) for v in (1, 2, 3, 4, 6)}
    rng = random.Random(7)
    assert {die.throw(rng).value for _ in range(500)} == {1, 2, 3, 4, 6}


def test_H1_sticks_count_white_sides_none_is_5():
    assert Sticks("white", 5).odds() == {1: F(4, 16), 2: F(6, 16), 3: F(4, 16), 4: F(1, 16), 5: F(1, 16)}


def test_M3_two_dice():
    dice = TwoDice()
    assert sum(dice.odds().values()) == 1
    assert dice.sum_odds()[7] == F(6, 36)
    assert dice.is_valid((3, 5))
    assert dice.is_valid((4,))
    assert not dice.is_valid((0, 5))
    assert not dice.is_valid((1, 2, 3))
    assert not dice.is_valid(7)


def test_stick_faces_agree_with_the_value():
    sticks = Sticks("dark", 6)
    rng = random.Random(1)
    for _ in range(200):
        throw = sticks.throw(rng)
        assert throw.value == (sum(throw.faces) or 6)


def test_seeded_throws_follow_the_odds():
    sticks = Sticks("white", 5)
    rng = random.Random(2026)
    n = 16_000
    counts = Counter(sticks.value(rng) for _ in range(n))
    for value, p in sticks.odds().items():
        assert abs(counts[value] / n - float(p)) < 0.015, (value, counts[value])


def test_game_rolls_with_its_rule_sets_throws():
    rng = random.Random(3)
    assert new_game("secret", options={"throws": "d6"}).roll(rng).value in (1, 2, 3, 4, 6)
    assert new_game("houses").roll(rng).value in (1, 2, 3, 4, 5)
    assert len(new_game("modern").roll(rng).value) == 2


def test_default_randomness_is_secrets_grade():
    import secrets

    from senet_pi.rules.throws import default_random

    assert isinstance(default_random(), secrets.SystemRandom)
    assert new_game("secret").roll().value in (1, 2, 3, 4, 6)
