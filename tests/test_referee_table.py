"""What happens at a real table between the moves, generated in every rule set and player count:
a bump (pieces jolted off their switches for tens of milliseconds and back) and the board knocked
over and set up again as it was are no move; the switch timing is the evidence (hands take hundreds
of milliseconds to carry a piece). After each, the player's real move is still judged as played.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from senet_pi.rules.board import squares_in
from tests.referee_physical_play import Play, check_real_pieces, state
from tests.referee_replay_helpers import RULE_SETS, SETTLE_MS, Session, moves_in, of_kind

NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
HOUSES_EXCHANGE = {"A": [12, 3, 5], "B": [10, 20, 1], "off": {"A": 2, "B": 2}, "to_move": "B"}


def played_plainly(rule_set: tuple[str, int], seed: int) -> Play | None:
    """A game played plainly for as many turns as its seed says, its next throw made; None when it
    is over, a card is to be played, or the throw has no move."""
    play = Play(*rule_set, seed)
    for _ in range(play.rng.randint(0, 14)):
        if play.shadow.is_over:
            return None
        play.turn(lambda sequences: (play.rng.choice(sequences), "plain"))
    shadow = play.shadow
    if shadow.is_over:
        return None
    if shadow.turn_starts_with == "card":  # the card game: a card that can be played is played
        playable = [c for c in shadow.hand(shadow.to_move_id) if shadow.playable(c)]
        if not playable:
            return None
        play.s.feed({"card": playable[0]})
        shadow.push_card(playable[0])
    else:
        play.throw()
    return play if not shadow.is_over and shadow.pending is not None and shadow.move_sequences() else None


def bump(s: Session, squares: list[int], lift_order: list[int], place_order: list[int], ms: int) -> None:
    """The pieces on `squares` jolted off their switches together, each back on its own within `ms`."""
    for sq in lift_order:
        s.feed({"lift": squares[sq]}, {"wait": 5})
    s.feed({"wait": ms})
    for sq in place_order:
        s.feed({"place": squares[sq], "piece": squares[sq]}, {"wait": 5})


def finish_turn(play: Play, since: int, what: str) -> None:
    """The player's real move, made plainly after the jolt: judged as played, nothing left open."""
    moves = play.rng.choice(play.shadow.move_sequences())
    play.play_moves(moves, "plain")
    s = play.s
    assert state(s.game) == state(play.shadow), s.explain(f"{what}: the game is not the one played", since)
    check_real_pieces(s, what)


@settings(max_examples=40, phases=NO_SHRINK, deadline=None)
@given(
    st.sampled_from(RULE_SETS),
    st.integers(0, 2**32 - 1),
    st.integers(2, 4),
    st.booleans(),
    st.booleans(),
    st.integers(10, 120),
)
@example(("houses", 2), 7, 2, True, False, 40)
@example(("secret", 2), 11, 2, False, True, 40)
def test_a_bump_is_no_move(rule_set, seed, n, lift_reversed, place_reversed, ms):
    """Two or more neighbouring pieces off their switches together for tens of ms and back: nothing
    is accepted, asked or warned, the turn stays, and the real move that follows is judged."""
    play = played_plainly(rule_set, seed)
    if play is None:
        return
    s = play.s
    standing = squares_in(s.board)
    if len(standing) < n:
        return
    first = play.rng.randrange(len(standing) - n + 1)
    squares = standing[first : first + n]
    lift_order = list(range(n))[:: -1 if lift_reversed else 1]
    place_order = list(range(n))[:: -1 if place_reversed else 1]
    since = len(s.seen)
    bump(s, squares, lift_order, place_order, ms)
    s.wait(SETTLE_MS)
    said = of_kind(s.seen[since:], "move", "turn", "question", "illegal")
    assert not said, s.explain(f"a {ms} ms bump of {squares} was taken for something", since)
    assert state(s.game) == state(play.shadow), s.explain("the bump changed the game", since)
    finish_turn(play, since, f"the move after a bump of {squares}")


def test_the_issue_bump_in_houses_is_no_exchange():
    """B has thrown 2 and 10-12 would be an exchange; both pieces off for 40 ms and back is a jolt.
    The exchange B then makes by hand, at a hand's pace, is accepted."""
    s = Session("houses", position=HOUSES_EXCHANGE)
    s.throw(2)
    s.feed({"lift": 10}, {"wait": 5}, {"lift": 12}, {"wait": 35}, {"place": 10}, {"wait": 5}, {"place": 12})
    s.wait(SETTLE_MS)
    assert not moves_in(s.seen) and s.game.pending is not None, s.explain("a 40 ms bump accepted as an exchange")
    s.feed({"lift": 12}, {"wait": 250}, {"lift": 10}, {"wait": 300}, {"place": 12, "piece": 10}, {"wait": 250})
    s.feed({"place": 10, "piece": 12}, {"wait": SETTLE_MS})
    assert moves_in(s.seen) == ["10-12"], s.explain("the real exchange after the bump was not accepted")
    assert s.question is None and s.warning is None, s.explain("the exchange was questioned")


@pytest.mark.parametrize("rule_set", RULE_SETS, ids=[f"{v}-{p}" for v, p in RULE_SETS])
@pytest.mark.parametrize("gap", [0, 150, 700])
@pytest.mark.parametrize("backwards", [False, True])
def test_the_board_knocked_over_and_rebuilt_is_never_a_move_in_silence(rule_set, gap, backwards):
    """Every piece off at once, then set back as it was, square by square: no move is accepted
    unasked; answered "no move", the game is as before and the real move that follows is judged."""
    plays = (played_plainly(rule_set, seed) for seed in range(200))
    play = next(p for p in plays if p is not None and len(squares_in(p.s.board)) >= 4)
    s = play.s
    since = len(s.seen)
    board = s.board
    for sq in squares_in(board):  # knocked over: every piece off its switch within a few ms
        s.feed({"lift": sq}, {"wait": 2})
    s.wait(200)
    for sq in squares_in(board)[:: -1 if backwards else 1]:
        s.feed({"place": sq, "piece": sq}, {"wait": gap})
    s.wait(SETTLE_MS)
    assert not moves_in(s.seen[since:]), s.explain("a rebuilt board was taken as a move in silence", since)
    q = s.question
    if q is not None:
        assert "no move" in q["options"] or q["kind"] in ("back", "whose"), s.explain("no way to say no move", since)
        if "no move" in q["options"]:
            s.answer("no move")
        elif q["kind"] == "back":
            s.answer(0)
    assert state(s.game) == state(play.shadow), s.explain("the rebuilt board changed the game", since)
    assert s.question is None and s.warning is None, s.explain("left open after the rebuild", since)
    assert s.board == s.game.occupied()
    finish_turn(play, since, "the move after the board was rebuilt")
