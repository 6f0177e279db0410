"""`houses` (seed 003): one test or more per ruling H1-H9."""

import pytest

from senet_pi.errors import IllegalMoveError
from senet_pi.rules import Reason, new_game
from senet_pi.rules.effects import Bonus, Forfeit, Relocated, Turn
from tests.rules_helpers import at, moves


def refused(game, from_sq, to_sq):
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(from_sq, to_sq)
    return err.value


@pytest.mark.parametrize(("throw", "again"), [(1, True), (2, False), (3, False), (4, True), (5, True)])
def test_H1_throws_1_4_5_grant_a_bonus(throw, again):
    game = at("houses", A=[2], B=[25], throw=throw)
    effects = game.play(f"2-{2 + throw}")
    assert effects[-1] == (Bonus("A") if again else Turn("B"))


def test_H1_six_is_not_a_throw():
    with pytest.raises(ValueError, match="cannot throw 6"):
        new_game("houses").parse_throw(6)


def test_H2_B_opens_with_the_piece_on_10():
    game = new_game("houses")
    game.push_throw(2)
    assert moves(game) == {"10-12"}
    err = refused(game, 8, 10)
    assert err.reason is Reason.OPENING
    assert err.ruling == "H2"
    game.play("10-12")
    assert game.to_move_id == "A"
    game.push_throw(1)
    assert moves(game) == {"1-2", "3-4", "5-6", "7-8", "9-10"}  # no top-row rule (S3) in houses


def test_H3_a_block_of_three_cannot_be_jumped_even_round_a_corner():
    game = at("houses", A=[9, 1], B=[10, 11, 12], throw=4)
    err = refused(game, 9, 13)
    assert err.reason is Reason.BLOCKADE
    assert err.ruling == "H3"
    assert moves(game) == {"1-5"}


def test_H4_rebirth_is_safe_and_throws_again():
    game = at("houses", A=[13], B=[20], throw=2)
    assert game.play("13-15")[-1] == Bonus("A")
    game = at("houses", A=[13, 1], B=[15], throw=2)
    assert refused(game, 13, 15).ruling == "H4"


def test_H5_a_throw_past_26_ends_on_26():
    game = at("houses", A=[24], B=[20], throw=5)
    assert moves(game) == {"24-26"}
    err = refused(game, 24, 29)
    assert err.reason is Reason.WRONG_DISTANCE
    assert "to 26, not 29" in str(err)


@pytest.mark.parametrize("owner", ["A", "B"])
def test_H5_while_26_is_occupied_nobody_lands_on_or_passes_it(owner):
    a, b = ([26, 24, 1], [20]) if owner == "A" else ([24, 1], [26, 20])
    game = at("houses", A=a, B=b, throw=2)
    assert refused(game, 24, 26).reason is Reason.HOUSE_26_OCCUPIED
    game = at("houses", A=a, B=b, throw=4)
    assert refused(game, 24, 26).reason is Reason.HOUSE_26_OCCUPIED


def test_H5_26_is_safe():
    assert 26 in new_game("houses").safe_squares


def test_H6_27_drowns_back_to_15_and_the_landing_gives_no_bonus_of_its_own():
    game = at("houses", A=[26], B=[20], throw=1)
    effects = game.play("26-27")
    assert Relocated("A", 27, 15, "drowned", "H6") in effects
    assert game.board() == {15: "A", 20: "B"}
    # The throw of 1 keeps its own bonus (H1); landing on 15 this way adds nothing (H6, P6).
    assert [e for e in effects if isinstance(e, Bonus)] == [Bonus("A")]


def test_H6_or_to_the_first_empty_square_behind_15():
    game = at("houses", A=[26, 15], B=[14, 20], throw=1)
    assert Relocated("A", 27, 13, "drowned", "H6") in game.play("26-27")


@pytest.mark.parametrize(("square", "needed"), [(28, 3), (29, 2), (30, 1)])
def test_H7_the_last_three_houses_leave_only_with_an_exact_throw(square, needed):
    for throw in range(1, 6):
        game = at("houses", A=[square, 2], B=[20], throw=throw)
        if throw == needed:
            assert f"{square}-off" in moves(game)
        else:
            err = refused(game, square, 31)
            assert err.reason is Reason.ONLY_EXACT_THROW
            assert err.ruling == "H7"


@pytest.mark.parametrize("square", [28, 29, 30])
def test_H7_landing_on_28_29_30_throws_again_and_they_are_safe(square):
    game = at("houses", A=[26], B=[20], throw=square - 26)
    assert game.play(f"26-{square}")[-1] == Bonus("A")
    game = at("houses", A=[26, 2], B=[square], throw=square - 26)
    assert refused(game, 26, square).ruling == "H7"


@pytest.mark.parametrize(("throw", "dest"), [(1, "27"), (2, "28"), (3, "29"), (4, "30"), (5, "off")])
def test_H8_from_26(throw, dest):
    assert moves(at("houses", A=[26], B=[20], throw=throw)) == {f"26-{dest}"}


def test_H9_no_backward_moves_the_throw_is_lost():
    game = at("houses", A=[29], B=[20])
    effects = game.push_throw(3)
    assert isinstance(effects[0], Forfeit)
    assert effects[1] == Turn("B")
    game = at("houses", A=[29, 5], B=[20], throw=1)
    assert refused(game, 5, 4).reason is Reason.NO_BACKWARD
