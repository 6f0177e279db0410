"""`secret` (seeds 000/002): one test or more per ruling S1-S12."""

import pytest

from senet_pi.errors import IllegalMoveError
from senet_pi.rules import Reason, new_game
from senet_pi.rules.effects import Bonus, Exchanged, Forfeit, Relocated, Turn
from tests.rules_helpers import at, moves


def refused(game, from_sq, to_sq):
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(from_sq, to_sq)
    return err.value


@pytest.mark.parametrize(("throw", "again"), [(1, True), (2, False), (3, False), (4, True), (6, True)])
def test_S1_throws_1_4_6_grant_a_bonus(throw, again):
    game = at("secret", A=[12], B=[25], throw=throw)
    effects = game.play(f"12-{12 + throw}")
    assert effects[-1] == (Bonus("A") if again else Turn("B"))


def test_S1_five_is_not_a_throw():
    with pytest.raises(ValueError, match="cannot throw 5"):
        new_game("secret").parse_throw(5)


def test_S2_B_opens_with_the_piece_on_10():
    game = new_game("secret")
    game.push_throw(1)
    assert moves(game) == {"10-11"}
    game.play("10-11")
    game.push_throw(2)  # the bonus move is free again (S3 still applies)
    assert moves(game) == {"8-10", "11-13"}


def test_S2_opening_reason_names_the_ruling():
    game = new_game("secret")
    game.push_throw(3)
    err = refused(game, 8, 11)
    assert err.ruling in ("S2", "S3")


def test_S3_in_row_1_only_the_most_advanced_piece_moves():
    game = at("secret", A=[3, 7, 12], B=[20, 25], throw=1)
    assert moves(game) == {"7-8", "12-13"}
    err = refused(game, 3, 4)
    assert err.reason is Reason.TOP_ROW
    assert str(err) == "in row 1 only A's most advanced piece, on 7, may move (S3)"


def test_S4_a_blockade_in_one_row_cannot_be_passed():
    game = at("secret", A=[11, 1], B=[12, 13, 14], throw=4)
    err = refused(game, 11, 15)
    assert err.reason is Reason.BLOCKADE
    assert err.ruling == "S4"
    assert "B's blockade on 12-14 cannot be passed" in str(err)


def test_S4_a_run_round_a_corner_blocks_nothing_but_still_protects():
    game = at("secret", A=[9], B=[10, 11, 12], throw=4)
    assert moves(game) == {"9-13"}
    game = at("secret", A=[9], B=[10, 11, 12], throw=2)
    assert refused(game, 9, 11).reason is Reason.PROTECTED_RUN


def test_S4_own_blockade_never_blocks_its_owner():
    game = at("secret", A=[11, 12, 13, 14], B=[25], throw=4)
    assert "11-15" in moves(game)


def test_S5_the_ankh_is_safe():
    game = at("secret", A=[13, 1], B=[15], throw=2)
    err = refused(game, 13, 15)
    assert err.reason is Reason.PROTECTED_SAFE
    assert err.ruling == "S5"


def test_S6_every_piece_must_land_on_26_exactly():
    game = at("secret", A=[24, 1], B=[20], throw=3)
    err = refused(game, 24, 27)
    assert err.reason is Reason.MUST_STOP_ON_26
    assert moves(at("secret", A=[24], B=[20], throw=2)) == {"24-26"}


def test_S6_26_is_safe_and_a_6_cannot_move_it():
    game = at("secret", A=[24, 1], B=[26], throw=2)
    assert refused(game, 24, 26).ruling == "S6"
    game = at("secret", A=[26, 12], B=[20], throw=6)
    assert moves(game) == {"12-18"}
    assert refused(game, 26, 31).reason is Reason.ONLY_SMALL_THROWS


@pytest.mark.parametrize(("throw", "dest"), [(1, 27), (2, 28), (3, 29), (4, 30)])
def test_S6_from_26_by_1_to_4(throw, dest):
    game = at("secret", A=[26], B=[20], throw=throw)
    assert moves(game) == {f"26-{dest}"}


def test_S7_27_reincarnates_to_15():
    game = at("secret", A=[26], B=[20], throw=1)
    effects = game.play("26-27")
    assert Relocated("A", 27, 15, "reincarnated", "S7") in effects
    assert game.board() == {15: "A", 20: "B"}


def test_S7_or_to_the_first_empty_square_behind_15():
    game = at("secret", A=[26, 14], B=[15, 20], throw=1)
    effects = game.play("26-27")
    assert Relocated("A", 27, 13, "reincarnated", "S7") in effects


def test_S8_from_26_onto_28_throws_again():
    game = at("secret", A=[26], B=[20], throw=2)
    assert game.play("26-28")[-1] == Bonus("A")


def test_S8_28_is_safe_and_moves_only_with_at_most_3():
    game = at("secret", A=[28, 12], B=[20], throw=4)
    err = refused(game, 28, 31)
    assert err.ruling == "S8"
    assert moves(at("secret", A=[28], B=[20], throw=3)) == {"28-off"}
    game = at("secret", A=[27, 12], B=[28], throw=1)
    assert refused(game, 27, 28).ruling == "S8"


def test_S9_landing_on_29_throws_again_and_29_leaves_with_at_most_2():
    game = at("secret", A=[26], B=[20], throw=3)
    assert game.play("26-29")[-1] == Bonus("A")
    game = at("secret", A=[29, 12], B=[20], throw=3)
    assert refused(game, 29, 31).ruling == "S9"


def test_S10_30_is_not_safe_and_landing_there_throws_again():
    game = at("secret", A=[26], B=[30, 20], throw=4)
    effects = game.play("26-30")
    assert Exchanged("B", 30, 26) in effects
    assert effects[-1] == Bonus("A")


def test_S10_30_bears_off_only_with_a_1():
    game = at("secret", A=[30, 12], B=[20], throw=2)
    assert refused(game, 30, 31).ruling == "S10"
    assert moves(at("secret", A=[30], B=[20], throw=1)) == {"30-off"}


def test_S11_bearing_off_is_exact():
    game = at("secret", A=[29], B=[20], throw=2)
    assert moves(game) == {"29-off"}


def test_S11_no_bearing_off_while_row_1_holds_a_piece():
    game = at("secret", A=[29, 5], B=[20], throw=2)
    assert moves(game) == {"5-7"}
    err = refused(game, 29, 31)
    assert err.reason is Reason.ROW1_GATE
    assert str(err) == "no piece may bear off while A still has a piece in row 1 (S11)"


def test_S12_no_forward_move_means_moving_backward():
    game = at("secret", A=[25], B=[20], throw=3)  # 25+3 would pass 26
    assert moves(game) == {"25-22"}


def test_S12_backward_attack_exchanges():
    game = at("secret", A=[25], B=[22, 18], throw=3)
    effects = game.play("25-22")
    assert Exchanged("B", 22, 25) in effects


def test_S12_backward_only_when_no_forward_move_exists():
    game = at("secret", A=[25, 12], B=[20], throw=3)
    assert moves(game) == {"12-15"}
    assert refused(game, 25, 22).reason is Reason.BACKWARD_NOT_NEEDED


def test_S12_backward_respects_blockades_and_protection():
    game = at("secret", A=[25], B=[21, 22, 23], throw=4)
    assert moves(game) == set()
    game = at("secret", A=[25], B=[22, 23], throw=3)
    assert moves(game) == set()


def test_S12_never_from_or_onto_26_to_30_and_P7_keeps_the_bonus():
    game = at("secret", A=[26, 28], B=[20])
    effects = game.push_throw(6)
    assert isinstance(effects[0], Forfeit)
    assert effects[1] == Bonus("A")


def test_S12_never_below_square_1():
    game = at("secret", A=[2, 26], B=[3, 4, 5], to_move="A")
    effects = game.push_throw(6)  # forward 2-8 blocked by 3-4-5; back 2-(-4) impossible
    assert isinstance(effects[0], Forfeit)
