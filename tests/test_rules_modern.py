"""`modern` (seed 004): one test or more per ruling M1-M10."""

import pytest

from senet_pi.errors import IllegalMoveError
from senet_pi.rules import Move, Reason, new_game
from senet_pi.rules.effects import Eliminated, Relocated, Removed, Turn, Win


def mat(A, B, up=None, to_move="A", throw=None, players=2, **more):
    """A modern game from {dots: square} per player."""
    position = {"A": {str(d): s for d, s in A.items()}, "B": {str(d): s for d, s in B.items()}, "to_move": to_move}
    for pid, pieces in more.items():
        position[pid] = {str(d): s for d, s in pieces.items()}
    if up:
        position["up"] = up
    game = new_game("modern", players=players, position=position)
    if throw is not None:
        game.push_throw(tuple(throw))
    return game


def steps(game):
    return {(m.from_sq, m.to_sq, m.by) for m in game.legal_moves()}


def test_M1_two_players_line_up_from_the_sun_by_dots():
    game = new_game("modern")
    expected = {
        1: ("A", 5),
        2: ("B", 5),
        3: ("A", 4),
        4: ("B", 4),
        5: ("A", 3),
        6: ("B", 3),
        7: ("A", 2),
        8: ("B", 2),
        9: ("A", 1),
        10: ("B", 1),
    }
    assert {sq: game.piece_at(sq) for sq in range(1, 11)} == expected
    assert game.occupied().bit_count() == 10


def test_M1_four_players_fill_1_to_20():
    game = new_game("modern", players=4)
    assert [game.piece_at(sq) for sq in (1, 4, 5, 20)] == [("A", 5), ("D", 5), ("A", 4), ("D", 1)]
    assert game.occupied().bit_count() == 20


def test_M2_A_on_the_sun_moves_first():
    assert new_game("modern").to_move_id == "A"


def test_M3_one_piece_by_the_sum_or_two_different_pieces_by_one_die_each():
    game = mat(A={5: 12, 4: 14}, B={5: 2}, throw=[3, 5])
    # 12 by 5 and 14 by 3 both reach 17, so neither can start a two-piece move: the other die
    # would then land on the own piece on 17 (M4).
    assert steps(game) == {(12, 20, 8), (14, 22, 8), (12, 15, 3), (14, 19, 5)}
    effects = game.play(Move(12, 15, 3))
    assert effects == ()
    assert game.pending == (5,)
    assert steps(game) == {(14, 19, 5)}
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(15, 20)
    assert err.value.reason is Reason.SAME_PIECE_TWICE
    assert game.play(Move(14, 19, 5)) == (Turn("B"),)


def test_M3_the_sum_uses_both_dice():
    game = mat(A={5: 12, 4: 14}, B={5: 2}, throw=[3, 5])
    assert game.play("12-20")[-1] == Turn("B")


def test_M3_one_die_only_with_exactly_one_piece_left():
    game = mat(A={5: 12, 4: 14}, B={5: 2})
    with pytest.raises(IllegalMoveError) as err:
        game.push_throw((4,))
    assert err.value.reason is Reason.ONE_DIE_NEEDS_ONE_PIECE
    game = mat(A={5: 12}, B={5: 2}, up={"A": [4]})
    game.push_throw((4,))
    assert steps(game) == {(12, 16, 4)}


def test_M3_squares_alone_can_be_ambiguous_so_moves_carry_the_die():
    # 28 by 1 is 29; 28 by 5 overshoots by 2 and bounces back to 29 (M5).
    game = mat(A={5: 28, 4: 10}, B={5: 2}, throw=[1, 5])
    assert {(28, 29, 1), (28, 29, 5)} <= steps(game)


def test_M4_landing_on_an_opponent_sends_it_to_the_sun():
    game = mat(A={5: 10, 4: 20}, B={3: 13, 2: 25}, throw=[1, 2])
    effects = game.play("10-13")
    assert Relocated("B", 13, 1, "to_sun", "M4") in effects
    assert game.piece_at(1) == ("B", 3)
    assert game.piece_at(13) == ("A", 5)


def test_M4_a_piece_already_on_the_sun_leaves_the_game():
    game = mat(A={5: 10, 4: 1}, B={3: 13}, throw=[1, 2])
    effects = game.play("10-13")
    assert Removed("A", 1) in effects
    assert game.piece_at(1) == ("B", 3)
    assert game.removed[0][-1] == 4


def test_M4_never_on_an_own_piece():
    game = mat(A={5: 10, 4: 13}, B={3: 2}, throw=[1, 2])
    assert (10, 13, 3) not in steps(game)


def test_M5_going_up_needs_an_exact_count():
    game = mat(A={5: 25, 4: 3}, B={3: 2}, throw=[2, 4])
    game.play(Move(25, 31, 6))
    assert game.up[0] == [5]


def test_M5_an_overshoot_bounces_back():
    game = mat(A={5: 27 - 1, 4: 3}, B={3: 2}, throw=[6, 6])
    # 26 + 12 = 38: 7 past 31, so it ends on 24.
    assert (26, 24, 12) in steps(game)


def test_M6_stopping_on_26_goes_back_to_the_sun():
    game = mat(A={5: 20, 4: 3}, B={3: 8}, throw=[2, 4])
    effects = game.play("20-26")
    assert Relocated("A", 26, 1, "to_sun", "M6") in effects
    assert game.piece_at(1) == ("A", 5)


def test_M7_stopping_on_27_goes_back_to_15_or_behind():
    game = mat(A={5: 21, 4: 3}, B={3: 15}, throw=[2, 4])
    effects = game.play("21-27")
    assert Relocated("A", 27, 14, "to_15", "M7") in effects


def test_M8_no_landing_on_28_30_from_outside():
    game = mat(A={5: 25, 4: 3}, B={3: 29}, throw=[1, 3])
    assert not any(to == 29 for _, to, _ in steps(game))
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(25, 29)
    assert err.value.reason is Reason.SAFE_TILE


def test_M8_between_safe_tiles_a_landing_sends_to_the_sun():
    game = mat(A={5: 28, 4: 3}, B={3: 29}, throw=[1, 5])
    effects = game.play(Move(28, 29, 1))
    assert Relocated("B", 29, 1, "to_sun", "M4") in effects


def test_M8_a_piece_on_28_30_must_move_when_it_can():
    game = mat(A={5: 28, 4: 3}, B={3: 12}, throw=[3, 2])
    # Every allowed way moves the piece on 28, now or with the other die; 3-8 by the sum does not.
    assert steps(game) == {(28, 29, 5), (28, 31, 3), (28, 30, 2), (3, 6, 3), (3, 5, 2)}
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(3, 8)
    assert err.value.reason is Reason.MUST_LEAVE_SAFE_TILE
    game.play(Move(3, 6, 3))
    assert steps(game) == {(28, 30, 2)}


def test_M9_a_player_with_no_legal_move_loses_and_the_other_wins():
    # A's last piece on 25; every count lands on B's pieces on 28-30 from outside (M8).
    game = new_game("modern", position={"A": {"5": 25}, "B": {"5": 28, "4": 29, "3": 30}, "to_move": "A"})
    effects = game.push_throw((3, 4))
    assert effects[1] == Eliminated("A")
    assert effects[-1] == Win("B", {"A": 0, "B": 0})
    assert game.winner_id == "B"


def test_M9_a_player_who_can_move_one_die_is_not_out():
    game = new_game("modern", position={"A": {"5": 22}, "B": {"5": 28, "4": 30}, "to_move": "A"})
    game.push_throw((3, 3))  # the sum lands on 28 (M8); one die reaches 25
    assert steps(game) == {(22, 25, 3)}
    assert game.play("22-25") == (Turn("B"),)  # nothing else can take the other die


def test_M9_three_players_the_one_out_leaves_and_play_goes_on():
    position = {"A": {"5": 25}, "B": {"5": 28, "4": 29, "3": 30}, "C": {"5": 3}, "to_move": "A"}
    game = new_game("modern", players=3, position=position)
    effects = game.push_throw((3, 4))
    assert Eliminated("A") in effects
    assert Removed("A", 25, "M9") in effects
    assert effects[-1] == Turn("B")
    assert game.owner(25) is None
    assert not game.is_over


def test_M5_a_bounce_may_end_on_the_square_it_left():
    game = new_game("modern", position={"A": {"5": 30}, "B": {"5": 20}, "to_move": "A"})
    game.push_throw((2,))  # 30 + 2 is one past the end: back to 30, which the piece just left
    assert steps(game) == {(30, 30, 2)}


def test_M10_three_pieces_up_end_the_game_most_dots_wins():
    game = new_game("modern", position={"A": {"1": 28}, "B": {"2": 12}, "up": {"A": [2], "B": [5]}, "to_move": "A"})
    game.push_throw((3, 2))
    effects = game.play(Move(28, 31, 3))
    assert effects[-1] == Win("B", {"A": 3, "B": 5})


def test_M10_tie_on_points_then_more_pieces_up():
    game = new_game("modern", position={"A": {"1": 29}, "B": {"2": 12}, "up": {"A": [3], "B": [4]}, "to_move": "A"})
    game.push_throw((2, 5))
    effects = game.play(Move(29, 31, 2))
    assert effects[-1] == Win("A", {"A": 4, "B": 4})  # 4 points each, A has 2 pieces up


def test_M10_still_tied_first_up_wins():
    game = new_game("modern", position={"A": {"2": 29}, "B": {"3": 12}, "up": {"B": [2], "A": [3]}, "to_move": "A"})
    game.push_throw((2, 5))
    effects = game.play(Move(29, 31, 2))
    # 5 points and 2 pieces each... A has 3+2 = 5, B has 2: B plays no more; A wins on points.
    assert effects[-1].player == "A"


def test_M10_option_pieces_up_to_end():
    game = new_game("modern", options={"pieces_up_to_end": 1})
    assert game.pieces_to_end == 1
    with pytest.raises(ValueError, match="pieces_up_to_end"):
        new_game("modern", options={"pieces_up_to_end": 0})


def test_M3_one_die_alone_only_when_no_complete_way():
    # One piece left, two dice thrown: the sum is a complete way, so neither die alone may be played.
    game = mat(A={5: 12}, B={5: 2}, up={"A": [4]}, throw=[3, 4])
    assert steps(game) == {(12, 19, 7)}
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(12, 15, 3)
    assert err.value.reason is Reason.NO_COMPLETION
    assert err.value.ruling == "M3"


def test_M3_one_die_alone_when_the_sum_cannot_be_played():
    # The sum would land on B's piece on 29 from outside 28-30 (M8): no complete way exists, so each
    # die alone may move the last piece.
    game = mat(A={5: 22}, B={5: 29}, up={"A": [4]}, throw=[3, 4])
    assert steps(game) == {(22, 25, 3), (22, 26, 4)}


def test_M3_a_player_with_one_piece_left_chooses_one_die_before_throwing():
    game = mat(A={5: 12}, B={5: 2}, up={"A": [4]})
    game.push_throw((3,))  # a throw of one die, chosen before throwing
    assert steps(game) == {(12, 15, 3)}
    assert game.play("12-15") == (Turn("B"),)


@pytest.mark.parametrize(
    ("A", "B", "dice", "expected"),
    [
        # Here 28 by 6 bounces back onto 28, which moves nothing (M5); the only
        # complete way is 24-26 by the sum (22 by 6 lands on its own 28, 24 by 6 on B's 30, M8).
        ({5: 22, 4: 24, 3: 28}, {5: 30}, [6, 6], {(24, 26, 12)}),
        # 28 by 6 stays put, 28 by the sum bounces to 22: only the sum really moves it (M8).
        ({5: 28, 4: 3}, {5: 12}, [6, 6], {(28, 22, 12)}),
        # 29 by 4 stays put, so 24-26 or 1-3 then 29-29 does not move it; 29 by 2 goes up, by 6 reaches 27.
        ({5: 1, 4: 24, 2: 29}, {5: 13}, [2, 4], {(29, 31, 2), (29, 27, 6), (1, 5, 4), (24, 28, 4)}),
    ],
)
def test_M8_with_M5_a_bounce_back_onto_its_square_does_not_move_the_piece(A, B, dice, expected):
    game = mat(A=A, B=B, throw=dice)
    assert steps(game) == expected
    for f, to, by in expected:
        assert game.check_move(f, to, by) == Move(f, to, by)


def test_M8_with_M5_the_bounce_is_refused_with_the_ruling_that_decides():
    game = mat(A={5: 22, 4: 24, 3: 28}, B={5: 30}, throw=[6, 6])
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(28, 28, 6)
    assert err.value.reason is Reason.NO_COMPLETION  # M3: the sum 24-26 is a complete way
    game = mat(A={5: 1, 4: 24, 2: 29}, B={5: 13}, throw=[2, 4])
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(24, 26, 2)  # its only completion is 29-29 by 4, which leaves 29 where it is
    assert err.value.reason is Reason.MUST_LEAVE_SAFE_TILE
    assert err.value.ruling == "M8"
