"""`cards` (seed 001): one test or more per ruling K1-K10."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from senet_pi.errors import IllegalMoveError
from senet_pi.rules import Move, Reason, new_game
from senet_pi.rules.cards import CardsGame, default_deck
from senet_pi.rules.effects import Bonus, Relocated, Turn
from senet_pi.rules.random_play import play_random_card_turn
from senet_pi.service.replay import load_replay, run_replay


def dealt(mine: list[str], theirs: list[str], rest: list[str] | None = None) -> list[str]:
    """A deck order that deals `mine` to the player to move and `theirs` to the other (K3: alternately)."""
    deck = default_deck()
    for card in mine + theirs:
        deck.remove(card)
    order = [card for pair in zip(mine, theirs, strict=True) for card in pair]
    if rest:
        for card in rest:
            deck.remove(card)
        order += rest
    return order + deck


def cards_at(A, B, mine, theirs, to_move="A", rest=None, **off) -> CardsGame:
    position = {
        "A": A,
        "B": B,
        "to_move": to_move,
        "off": {"A": off.get("A", 5 - len(A)), "B": off.get("B", 5 - len(B))},
    }
    options = {"deck_order": dealt(mine, theirs, rest), "shuffle_seed": 1}
    return new_game("cards", position=position, options=options)  # type: ignore[return-value]


def test_K1_movement_follows_houses_blocks_and_26():
    game = cards_at([9, 24], [10, 11, 12], ["4", "5", "2", "2", "1"], ["1", "1", "2", "2", "3"])
    game.push_card("4")
    assert {str(m) for m in game.legal_moves()} == {"24-26"}  # 9-13 jumps B's block (H3); 24+4 stops on 26 (H5)


def test_K2_the_default_deck():
    deck = Counter(default_deck())
    assert deck == Counter(
        {"1": 8, "2": 12, "3": 8, "4": 2, "5": 2, "H26": 1, "H28": 1, "H29": 1, "NA": 1, "NB": 1, "HAND": 1}
    )
    assert sum(deck.values()) == 38
    assert len(new_game("cards", options={"copies": 1, "specials": False}).options["deck_order"]) == 16


def test_K3_green_B_starts_and_players_draw_alternately_to_five():
    order = default_deck()
    random.Random(4).shuffle(order)
    game = new_game("cards", options={"deck_order": order, "shuffle_seed": 0})
    assert game.to_move_id == "B"
    assert game.hand("B") == order[0:10:2]
    assert game.hand("A") == order[1:10:2]
    assert game.cards().to_json()["stack"] == 28


def test_K4_play_one_card_then_refill_to_five():
    game = cards_at([12], [20], ["2", "2", "3", "3", "H26"], ["2", "2", "2", "2", "2"], rest=["3"])
    game.push_card("2")
    effects = game.push(Move(12, 14, 2))
    assert effects == (Turn("B"),)
    assert len(game.hand("A")) == 5
    assert game.hand("A")[-1] == "3"
    assert game.cards().to_json()["discard"] == ["2"]


def test_K4_exchange_up_to_two_cards_to_the_dead_pile():
    game = cards_at([12], [20], ["2", "2", "3", "3", "H26"], ["2", "2", "2", "2", "2"], rest=["1", "5"])
    effects = game.push_exchange(["H26", "3"])
    assert effects == (Turn("B"),)
    assert game.cards().to_json()["dead"] == ["H26", "3"]
    assert sorted(game.hand("A")) == ["1", "2", "2", "3", "5"]
    with pytest.raises(IllegalMoveError) as err:
        game.push_exchange(["2", "2", "2"])
    assert err.value.reason is Reason.CARD_EXCHANGE_COUNT


def test_K4_an_empty_stack_is_replaced_by_the_shuffled_discard_pile():
    game = cards_at([12], [20], ["2", "2", "3", "3", "H26"], ["2", "2", "2", "2", "2"])
    game.stack.clear()
    game.discard[:] = ["1", "4"]
    game.push_card("2")
    game.push(Move(12, 14, 2))
    # The 2 just played went to the discard pile too: the three were shuffled into a new stack.
    assert game.hand("A")[-1] in ("1", "4", "2")
    assert game.cards().to_json()["discard"] == []
    assert game.cards().to_json()["stack"] == 2


def test_K5_a_bonus_card_draws_one_and_acts_again():
    game = cards_at([12, 2], [20], ["4", "2", "3", "3", "H26"], ["2", "2", "2", "2", "2"], rest=["1"])
    game.push_card("4")
    assert game.push(Move(12, 16, 4)) == (Bonus("A"),)
    assert game.to_move_id == "A"
    assert len(game.hand("A")) == 5
    assert game.hand("A")[-1] == "1"
    game.push_card("2")
    assert game.push(Move(2, 4, 2)) == (Turn("B"),)


def test_K5_a_residue_earns_no_bonus_of_its_own():
    # A 3 bears off the pawn on 29 (needs 2): the residue of 1 moves 12-13, and a 3 is no bonus card.
    game = cards_at([29, 12], [20], ["3", "2", "2", "2", "2"], ["2", "2", "2", "2", "2"])
    game.push_card("3")
    game.push(Move(29, 31, 3))
    assert game.phase == "residue"
    assert game.pending == 1
    assert game.push(Move(12, 13, 1)) == (Turn("B"),)


def test_K5_a_residue_landing_on_a_bonus_square_earns_the_bonus_action():
    # The residue of 1 takes 14 to 15 (H4): the landing grants the bonus action, not the value 1.
    game = cards_at([29, 14], [20], ["3", "2", "2", "2", "2"], ["2", "2", "2", "2", "2"])
    game.push_card("3")
    game.push(Move(29, 31, 3))
    assert game.push(Move(14, 15, 1)) == (Bonus("A"),)


def test_K6_a_hieroglyph_goes_straight_to_its_square_when_the_way_is_clear():
    game = cards_at([20, 3], [10], ["H26", "2", "3", "3", "2"], ["2", "2", "2", "2", "2"])
    game.push_card("H26")
    assert {str(m) for m in game.legal_moves()} == {"20-26", "3-26"}
    game.push(Move(20, 26, 0))
    assert game.board()[26] == "A"


@pytest.mark.parametrize(
    ("A", "B", "card"),
    [
        ([20], [26], "H26"),  # 26 taken
        ([20], [22, 23, 24], "H26"),  # a block on the way (H3)
        ([24], [10], "H28"),  # 26 would be passed
        ([26], [28], "H28"),  # 28 taken
    ],
)
def test_K6_a_hieroglyph_that_cannot_go_is_refused_before_any_piece_moves(A, B, card):
    game = cards_at(A, B, [card, "2", "3", "3", "2"], ["2", "2", "2", "2", "2"])
    with pytest.raises(IllegalMoveError) as err:
        game.push_card(card)
    assert err.value.reason is Reason.CARD_NO_MOVE
    assert err.value.ruling == "K4"
    assert card in game.hand("A")


def test_K6_from_28_the_29_card_moves_the_pawn_on_one_square():
    # K6 asks only for a clear way and an empty 29; H7's exact counts are about stick values.
    game = cards_at([28, 3], [10], ["H29", "2", "3", "3", "2"], ["2", "2", "2", "2", "2"])
    game.push_card("H29")
    assert {str(m) for m in game.legal_moves()} == {"28-29"}
    assert game.check_move(28, 29) == Move(28, 29, 0)


@pytest.mark.parametrize(
    ("A", "B", "card", "from_sq", "to_sq"),
    [
        ([20, 3], [10], "H26", 20, 27),  # not the card's square
        ([20, 3], [10], "H26", 10, 26),  # not the player's pawn
        ([20, 25], [22, 23, 24], "H26", 20, 26),  # a block of B's on the way (H3)
        ([24, 26], [10], "H28", 24, 28),  # 26 would be passed (H5)
        ([28, 20], [10], "H26", 28, 26),  # backward
        ([26, 3], [10], "H29", 3, 29),  # 26 would be passed, from further back
    ],
)
def test_K6_the_validator_refuses_a_hieroglyph_move_the_card_does_not_allow(A, B, card, from_sq, to_sq):
    game = cards_at(A, B, [card, "2", "3", "3", "2"], ["2", "2", "2", "2", "2"])
    game.push_card(card)
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(from_sq, to_sq)
    assert err.value.reason is Reason.CARD_HIEROGLYPH
    assert err.value.ruling == "K6"


def test_K7_the_validator_takes_only_the_named_players_pawns_on_16_30_to_the_nile():
    game = cards_at([18], [17, 22, 5], ["NB", "2", "3", "3", "2"], ["2", "2", "2", "2", "2"])
    game.push_card("NB")
    assert game.check_move(17, 27) == Move(17, 27, 0)
    for from_sq, to_sq in [(18, 27), (5, 27), (17, 15)]:
        with pytest.raises(IllegalMoveError) as err:
            game.check_move(from_sq, to_sq)
        assert err.value.reason is Reason.CARD_NILE
        assert err.value.ruling == "K7"


def test_K7_the_nile_card_makes_the_named_player_drown_a_pawn_of_their_choice():
    game = cards_at([12], [17, 22, 5], ["NB", "2", "3", "3", "2"], ["2", "2", "2", "2", "2"])
    game.push_card("NB")
    assert game.mover_id == "B"
    assert {str(m) for m in game.legal_moves()} == {"17-27", "22-27"}
    effects = game.push(Move(22, 27, 0))
    assert Relocated("B", 27, 15, "drowned", "K7") in effects
    assert effects[-1] == Turn("B")
    assert game.board()[15] == "B"
    assert 22 not in game.board()


def test_K7_without_a_pawn_on_16_30_the_nile_card_has_no_effect():
    game = cards_at([12], [5, 6], ["NB", "2", "3", "3", "2"], ["2", "2", "2", "2", "2"])
    assert game.push_card("NB") == (Turn("B"),)


def test_K8_the_hand_card_swaps_hands_and_the_opponent_refills():
    game = cards_at([12], [20], ["HAND", "1", "1", "1", "1"], ["2", "2", "2", "2", "2"], rest=["5"])
    game.push_card("HAND")
    assert game.hand("A") == ["2", "2", "2", "2", "2"]
    assert game.hand("B") == ["1", "1", "1", "1", "5"]


def test_K9_bearing_off_with_more_than_needed_and_moving_another_pawn_with_the_rest():
    game = cards_at([28, 12], [20], ["5", "2", "3", "3", "2"], ["2", "2", "2", "2", "2"])
    game.push_card("5")
    assert "28-off" in {str(m) for m in game.legal_moves()}
    game.push(Move(28, 31, 5))
    assert game.phase == "residue"
    assert game.pending == 2
    assert {str(m) for m in game.legal_moves()} == {"12-14"}
    game.push(Move(12, 14, 2))
    assert game.to_move_id == "A"
    assert game.phase == "play"  # 5 was a bonus card (K5): act again


def test_K9_the_residue_is_optional():
    game = cards_at([28, 12], [20], ["3", "5", "3", "3", "2"], ["2", "2", "2", "2", "2"])
    game.push_card("5")
    game.push(Move(28, 31, 5))
    game.push_pass()
    assert game.to_move_id == "A"  # the bonus of the 5 card still stands


def test_K9_the_validator_gives_the_last_pawn_the_exact_rule_too():
    # The last pawn on 29 with a residue of 3 (from 30 by a 4): 29 needs exactly 2, so the residue
    # has nothing to move and the 4 card's bonus follows at once.
    game = cards_at([30, 29], [20], ["4", "3", "2", "2", "2"], ["2", "2", "2", "2", "2"])
    game.push_card("4")
    assert game.push(Move(30, 31, 4)) == (Bonus("A"),)
    assert game.board()[29] == "A"
    # Play never asks the validator about it (such a card is refused first); asked, it says why.
    game = cards_at([28], [20], ["5", "3", "2", "2", "2"], ["2", "2", "2", "2", "2"])
    game.pending = 5
    assert game.generate_legal_moves() == []
    with pytest.raises(IllegalMoveError) as err:
        game.check_move(28, 31)
    assert err.value.reason is Reason.LAST_PAWN_EXACT
    assert err.value.ruling == "K9"


def test_K9_a_residue_can_bear_off_another_pawn_and_leave_a_residue_again():
    game = cards_at([30, 29, 12], [20], ["5", "2", "2", "2", "2"], ["2", "2", "2", "2", "2"])
    game.push_card("5")
    game.push(Move(30, 31, 5))  # 30 needs 1: residue 4
    assert game.pending == 4
    game.push(Move(29, 31, 4))  # 29 needs 2: residue 2
    assert game.phase == "residue"
    assert game.pending == 2
    assert game.push(Move(12, 14, 2)) == (Bonus("A"),)  # the 5 card's bonus, after the residues (K5, K9)


def test_K9_the_last_pawn_needs_the_exact_value():
    game = cards_at([28], [20], ["5", "3", "2", "2", "2"], ["2", "2", "2", "2", "2"])
    with pytest.raises(IllegalMoveError):
        game.push_card("5")
    game.push_card("3")
    effects = game.push(Move(28, 31, 3))
    assert game.winner_id == "A"
    assert effects[-1].player == "A"


def test_K10_each_hand_is_its_players_and_open_hands_is_on_by_default():
    game = new_game("cards")
    assert game.options["open_hands"] is True
    assert len(game.hand("A")) == len(game.hand("B")) == 5


def test_throws_have_no_place_in_the_card_game():
    with pytest.raises(IllegalMoveError) as err:
        new_game("cards").push_throw(3)
    assert err.value.ruling == "K4"


GAMES = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=30)
@given(GAMES)
def test_random_card_games_conserve_cards_keep_hands_to_five_and_end(seed):
    rng = random.Random(seed)
    deck = default_deck()
    rng.shuffle(deck)
    game = new_game("cards", options={"deck_order": deck, "shuffle_seed": seed})
    for _ in range(3000):
        if game.is_over:
            break
        play_random_card_turn(game, rng)
        c = game.cards()
        assert c.stack + len(c.discard) + len(c.dead) + sum(map(len, c.hands.values())) == 38
        assert all(len(h) <= 5 for h in c.hands.values())
        assert sum(o.bit_count() for o in game.occ) + sum(game.off) == 10
    assert game.is_over


@settings(max_examples=10)
@given(GAMES)
def test_a_random_card_game_replays_from_its_own_log(seed):
    rng = random.Random(seed)
    deck = default_deck()
    rng.shuffle(deck)
    options = {"deck_order": deck, "shuffle_seed": seed}
    game = new_game("cards", options=options)
    while not game.is_over:
        play_random_card_turn(game, rng)
    events = []
    for kind, value in game.actions:
        if kind == "move":
            events.append({"move": [value.from_sq, "off" if value.to_sq == 31 else value.to_sq], "by": value.by})
        else:
            events.append({kind: value})
    verdicts = list(run_replay(load_replay({"variant": "cards", "options": options, "events": events})))
    assert not [v for v in verdicts if v["v"] == "illegal"]
    assert verdicts[-1] == {"v": "win", "player": game.winner_id}
