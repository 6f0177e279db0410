"""P2-P8: what every rule set shares (played here under `secret` and `houses`)."""

import pytest

from senet_pi.errors import IllegalMoveError
from senet_pi.rules import Move, Reason, new_game
from senet_pi.rules.effects import Bonus, Exchanged, Forfeit, Turn, Win
from tests.rules_helpers import at, moves


@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_P2_A_on_odd_squares_B_on_even_and_B_moves_first(ruleset):
    game = new_game(ruleset)
    assert game.board() == {sq: ("A" if sq % 2 else "B") for sq in range(1, 11)}
    assert game.to_move_id == "B"


@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_P3_never_onto_an_own_piece(ruleset):
    game = at(ruleset, A=[12, 14], B=[20], throw=2)
    assert moves(game) == {"14-16"}
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(12, 14)
    assert err.value.reason is Reason.OWN_PIECE


@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_P3_pieces_jump_over_single_pieces(ruleset):
    game = at(ruleset, A=[12], B=[13, 16], throw=3)
    assert moves(game) == {"12-15"}


@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_P3_wrong_distance_says_where_the_throw_goes(ruleset):
    game = at(ruleset, A=[12], B=[20], throw=3)
    with pytest.raises(IllegalMoveError, match="takes the piece on 12 to 15, not 16"):
        game.check_move(12, 16)


@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_P4_attack_exchanges_places(ruleset):
    game = at(ruleset, A=[12], B=[14, 20], throw=2)
    effects = game.play("12-14")
    assert Exchanged("B", 14, 12) in effects
    assert game.board() == {12: "B", 14: "A", 20: "B"}


@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_P5_two_in_a_row_are_protected(ruleset):
    game = at(ruleset, A=[3, 12], B=[14, 15, 20], throw=2)
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(12, 14)
    assert err.value.reason is Reason.PROTECTED_RUN
    assert str(err.value) == "square 14 is protected: two of its owner's pieces stand together (P5)"


@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_P5_runs_count_across_corners(ruleset):
    game = at(ruleset, A=[18], B=[20, 21], throw=2)
    assert "18-20" not in moves(game)
    game = at(ruleset, A=[8], B=[10, 11, 25], throw=3)
    assert "8-11" not in moves(game)


def test_P6_one_bonus_even_with_two_reasons():
    # houses: a throw of 4 (H1) landing on 15 (H4)
    game = at("houses", A=[11], B=[20], throw=4)
    effects = game.play("11-15")
    assert [e for e in effects if isinstance(e, Bonus)] == [Bonus("A")]
    assert game.to_move_id == "A"
    assert game.pending is None


def test_P7_no_move_passes_the_turn():
    # houses: A's only piece on 29 needs exactly 2 (H7); a 3 cannot be played.
    game = at("houses", A=[29], B=[20])
    effects = game.push_throw(3)
    assert isinstance(effects[0], Forfeit)
    assert effects[1] == Turn("B")
    assert game.to_move_id == "B"


def test_P7_forfeited_throw_still_grants_its_bonus():
    game = at("houses", A=[29], B=[20])
    effects = game.push_throw(4)
    assert isinstance(effects[0], Forfeit)
    assert effects[1] == Bonus("A")
    assert game.to_move_id == "A"


@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_P8_bearing_off_the_last_piece_wins(ruleset):
    game = at(ruleset, A=[30], B=[20], throw=1)
    effects = game.play("30-off")
    assert effects[-1] == Win("A")
    assert game.is_over
    assert game.winner_id == "A"
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.push_throw(1)


def test_push_pop_restores_everything():
    game = new_game("secret")
    before = (game.board(), game.to_move_id, game.pending)
    game.push_throw(3)
    game.push(Move(10, 13, 3))
    assert game.pop() == ("move", Move(10, 13, 3))
    assert game.pop() == ("throw", 3)
    assert (game.board(), game.to_move_id, game.pending) == before


def test_move_text_round_trips():
    assert str(Move.parse("26-off")) == "26-off"
    assert Move.parse("10 13") == Move(10, 13)
    assert repr(Move(10, 13, 3)) == "Move(10, 13, by=3)"


def test_moving_without_a_throw_is_refused():
    game = new_game("secret")
    with pytest.raises(IllegalMoveError, match="B must throw before moving"):
        game.check_move(10, 13)


def test_moving_the_opponents_piece_is_refused():
    game = new_game("secret")
    game.push_throw(1)
    with pytest.raises(IllegalMoveError, match="the piece on 9 belongs to A, and B is to move"):
        game.check_move(9, 10)


def test_position_round_trips():
    game = at("secret", A=[3, 15, 26], B=[2, 4], to_move="B")
    again = type(game)(position=game.position())
    assert again.board() == game.board()
    assert again.off == game.off
    assert again.to_move == game.to_move


# ---------------------------------------------------------------------- what a rule set says of itself


@pytest.mark.parametrize("ruleset", ["secret", "houses", "cards", "modern"])
def test_every_rule_set_says_how_to_play_in_plain_sentences(ruleset):
    game = new_game(ruleset)
    assert len(game.how_to_play) >= 3
    assert all(s.endswith((".", "?")) for s in game.how_to_play)
    assert game.summary == " ".join(game.how_to_play)  # one source for the page and --help


def test_the_special_squares_are_the_rule_sets_own():
    """The symbols follow the rulings: S7 reincarnation on 27 and H6 drowning, the sun (M4)."""
    assert new_game("secret").special_squares[27].symbol == "water"
    assert new_game("houses").special_squares[29].text.startswith("Ra-Atum")
    assert new_game("modern").special_squares[1].symbol == "sun"
    # K1: the card game moves as `houses` does, so its board has the houses' squares
    assert new_game("cards").special_squares == new_game("houses").special_squares


def test_a_turn_starts_with_a_throw_except_in_the_card_game():
    assert {name: new_game(name).turn_starts_with for name in ("secret", "houses", "modern", "cards")} == {
        "secret": "throw",
        "houses": "throw",
        "modern": "throw",
        "cards": "card",  # K4
    }


@pytest.mark.parametrize("ruleset", ["secret", "houses", "modern"])
def test_a_game_without_cards_holds_none_and_refuses_card_actions(ruleset):
    game = new_game(ruleset)
    assert game.cards() is None
    assert game.card_names() == []
    assert game.hand("A") == []
    assert not game.playable("3")
    assert not game.can_exchange()
    assert game.phase == "play"
    for action in (lambda: game.push_card("3"), lambda: game.push_exchange(["3"]), game.push_pass):
        with pytest.raises(IllegalMoveError) as err:
            action()
        assert err.value.reason is Reason.NOT_A_CARD_GAME
    assert game.actions == []  # nothing was played


def test_typed_numbers_are_a_throw_of_the_rule_set():
    assert new_game("secret").throw_from_numbers([3]) == 3
    assert new_game("modern").parse_throw(new_game("modern").throw_from_numbers([3, 5])) == (3, 5)
    assert new_game("modern").parse_throw(new_game("modern").throw_from_numbers([4])) == (4,)  # M3: one die


def test_a_piece_is_known_by_its_owner_and_in_modern_by_its_dots():
    assert new_game("secret").piece_at(10) == ("B", None)
    assert new_game("secret").piece_at(20) is None
    owner, dots = new_game("modern").piece_at(10)
    assert owner in ("A", "B")
    assert isinstance(dots, int)  # M1: pieces carry 1-5 dots
