"""Wrong boards, generated: classes 4 and 5 below (and 6's "stuck only after no change").

A game is played by hand for a few turns in every rule set and player count; then, before the
next throw, people leave the board wrong: pieces moved to empty squares, taken off, put back on,
two pieces of different owners swapped (one or several of these, with or without a pause). The
real pieces are followed throughout.

- Class 4, no silent board: once settled, a board that is not the game's gets a warning with a fix
  (or a question) within the guidance delay, and a throw refused then comes with a fix shown.
- Class 5, fixes that can be carried out: the referee's fixes, followed one at a time as a person
  would (lift before place), never put a piece on an occupied square nor lift from an empty one,
  each names whose piece it puts down, and they lead back to the game within a bounded number of
  steps: no operator question on the way, no dead end, no owners swapped, the game unchanged and
  the next throw accepted.
- Class 6: every switch works here and people act within seconds, so no switch is ever judged stuck.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from senet_pi.rules import new_game
from senet_pi.rules.board import bit
from tests.referee_helpers import Hands
from tests.referee_physical_play import (
    Play,
    carries,
    check_real_pieces,
    current_fixes,
    follow_fixes,
    state,
    truthful_swap_answer,
    truthful_whose_answer,
)
from tests.referee_replay_helpers import GUIDE_MS, RULE_SETS, SETTLE_MS, Session, kinds, moves_in, of_kind


def spoil(
    s: Session,
    rng: random.Random,
    kinds: tuple[str, ...] = ("move", "move", "remove", "add", "swap"),
    avoid: frozenset[int] = frozenset(),
    legal: frozenset[tuple[int, int]] = frozenset(),
    pause: float = 0.3,
) -> list[str]:
    """Leave the board wrong by hand: one to three slips, each a physical action on real pieces.
    No piece is put on an `avoid` square, no `legal` pair (an exchange) is swapped."""
    done: list[str] = []
    for _ in range(rng.randint(1, 3)):
        on = sorted(s.pieces)
        empty = [sq for sq in range(1, 31) if sq not in s.pieces and s.board & bit(sq) == 0 and sq not in avoid]
        owners = s.owners_on_board()
        kind = rng.choice(kinds)
        if kind == "add" and not s.box:
            kind = "move"
        if kind == "move" and on and empty:
            a, b = rng.choice(on), rng.choice(empty)
            s.feed({"lift": a}, {"place": b, "piece": a})
        elif kind == "remove" and on:
            a = rng.choice(on)
            s.feed({"lift": a})
            s.retire(a)
        elif kind == "add" and empty:
            b = rng.choice(empty)
            s.feed({"place": b, "piece": s.box[-1][0]})
        elif kind == "swap":
            pairs = [
                (a, b)
                for a in on
                for b in on
                if a < b and owners[a] != owners[b] and (a, b) not in legal and (b, a) not in legal
            ]
            if not pairs:
                continue
            a, b = rng.choice(pairs)
            first, second = (a, b) if rng.random() < 0.5 else (b, a)
            s.feed({"lift": first}, {"lift": second}, {"place": a, "piece": b}, {"place": b, "piece": a})
        else:
            continue
        done.append(kind)
        if rng.random() < pause:
            s.wait(SETTLE_MS)
    return done


def answer_truthfully(s: Session) -> None:
    """Answer what the referee asks about the wrong board as the people who made it would."""
    for _ in range(3):
        q = s.question
        if q is None:
            return
        options = [str(o) for o in q.get("options", [])]
        if q["kind"] in ("swap", "back"):
            choice = truthful_swap_answer(s, q)
        elif q["kind"] == "whose":
            choice = truthful_whose_answer(s, q)
        else:  # "undo" or "new_game": the people did not mean to go back
            choice = next((o for o in options if "keep" in o), options[-1])
        s.answer(choice)


def prepare(rule_set: tuple[str, int], seed: int) -> Play:
    """A game played by hand for a few turns, stopped before a throw (or card) with nothing open."""
    play = Play(*rule_set, seed)  # the play before is not under test here: questions are answered
    for _ in range(play.rng.randint(0, 8)):
        if play.shadow.is_over:
            break
        play.turn(lambda sequences: (play.rng.choice(sequences), "plain"))
    return play


def throw_now(play: Play) -> list[dict]:
    """The player to move throws (or plays a card it can play, else exchanges one); the verdicts."""
    game = play.s.game
    if game.turn_starts_with == "card":
        hand = game.hand(game.to_move_id)
        playable = [c for c in hand if play.shadow.playable(c)]
        return play.s.feed({"card": playable[0]} if playable else {"exchange": hand[:1]})
    return play.s.throw(game.random_throw(play.rng))


#: A seed is the whole example: shrinking it teaches nothing and costs minutes on a failing referee.
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


def put_right(play: Play, start: int, what: str) -> None:
    """Class 4 then 5: the settled wrong board is said (a warning with a fix, or a question); the
    questions answered truthfully, the fixes followed one at a time lead back to the game."""
    s = play.s
    since = len(s.seen)
    if s.question is None:
        assert s.warning is not None, s.explain(f"class 4: {what} the board settled wrong and nothing was said", start)
        assert s.warning.get("fix") or current_fixes(s, since), s.explain(
            f"class 4: {what} a warning with no fix: {s.warning}", start
        )
    if s.game.pending is None and not s.game.is_over:  # the next throw, refused, comes with a fix shown
        refused = throw_now(play)
        assert refused and refused[0]["v"] == "illegal", s.explain(
            f"class 4: {what} a throw accepted on a wrong board", start
        )
        assert s.question is not None or (s.warning is not None and s.warning.get("fix")), s.explain(
            f"class 4: {what} the throw was refused with no fix shown: {refused}", start
        )
    answer_truthfully(s)
    wrong_squares = bin(s.board ^ s.game.occupied()).count("1") + len(s.swapped_owners())
    follow_fixes(s, what, limit=2 * wrong_squares + 4)
    faults = [v for v in of_kind(s.seen[start:], "switch") if v.get("fault")]
    assert not faults, s.explain(f"class 6: {what} a working switch judged stuck: {faults}", start)
    assert s.question is None and s.prompt is None, s.explain(f"class 5: {what} left open", start)
    assert s.board == s.game.occupied(), s.explain(f"class 5: {what} the fixes ended off the game's board", start)
    assert not s.swapped_owners(), s.explain(f"class 5: {what} owners swapped on {s.swapped_owners()}", start)
    check_real_pieces(s, f"class 5: {what}")  # in `modern`, dots too
    if state(s.game) != state(play.shadow) and state(s.game) in play.last_ways and s.game.pending is None:
        # The last move was still provisional (no throw since) and the board now shows another way
        # of playing its throw, the real pieces agreeing: a revision the README allows.
        play.shadow = s.game.copy()
    elif state(s.game) != state(play.shadow) and state(s.game) in play.last_firsts:
        # The slips carried the second move's piece back where it came from (modern): the board shows
        # the first die alone, the real pieces agreeing, and the other die is played again.
        play.shadow = s.game.copy()
        play.play_moves(play.rng.choice(play.shadow.move_sequences()), "plain")
    assert state(s.game) == state(play.shadow), s.explain(
        f"class 5: {what} the game changed while the board was put right", start
    )


@settings(max_examples=24, phases=NO_SHRINK)
@given(st.sampled_from(RULE_SETS), st.integers(0, 2**32 - 1))
def test_a_board_left_wrong_while_a_throw_waits_is_never_silent(rule_set, seed):
    """After the throw, a piece put where no legal move takes it (or taken off) and left there:
    within the guidance delay a warning with a fix, never silence."""
    play = prepare(rule_set, seed)
    s = play.s
    if s.game.is_over or s.game.turn_starts_with == "card":
        return
    play.throw()
    game = s.game
    if game.pending is None:
        return
    # Squares any legal way puts a piece on, in any order of its steps (a victim put straight on
    # the sun, M4, is a move under way): a piece put anywhere else is no move.
    landing = {c.to_sq for seq in game.move_sequences() for c in carries(game, seq)}
    start = len(s.seen)
    rng = play.rng
    on = sorted(s.pieces)
    empty = [sq for sq in range(1, 31) if sq not in s.pieces and sq not in landing]
    if not empty:
        return
    a = rng.choice(on)
    b = rng.choice(empty)
    s.feed({"lift": a}, {"place": b, "piece": a})
    s.wait(SETTLE_MS + GUIDE_MS)
    if s.question is None:
        assert s.warning is not None, s.explain(f"class 4: {a}->{b} after the throw: nothing said", start)
        fixes = of_kind(s.seen[start:], "fix")
        assert fixes, s.explain(f"class 4: {a}->{b}: no fix within the guidance delay", start)


@settings(max_examples=48, phases=NO_SHRINK)
@given(st.sampled_from(RULE_SETS), st.integers(0, 2**32 - 1))
# the second fix followed left the start setup's squares occupied: "new game?" was asked mid-fixes
@example(("cards", 2), 3507008601)
# 13 and 6 swapped, then 13's piece carried to 10: the board shows the first die alone (modern) and
# the piece on 10 may be B's; accepted in silence before, now the swap is warned about
@example(("modern", 3), 821267988)
# two captures by the sun (M4) in the order the hands showed, then the sun's piece carried off and
# back along the fix: revised into the other order, which the hands never showed (owners swapped on
# 1; or the revised order owed a prompt while the board stood right: nothing said)
@example(("modern", 4), 4057144200)
@example(("modern", 3), 2936345374)
# B's 14-15 then 10-16 accepted; much juggling later a stray piece on 14 revised it into 10-16 alone,
# though the evidence since the throw had too many stories to follow (lost): no revision on that
@example(("modern", 4), 3064644463)
# "put A's piece with one dot back on 23": the harness read no dots and put A's 5-dot piece there
@example(("modern", 2), 2739254377)
def test_following_the_referees_fixes_from_any_wrong_board_ends_at_the_game(rule_set, seed):
    """Before the throw: any slip is wrong (nothing may move)."""
    play = prepare(rule_set, seed)
    s = play.s
    if s.game.is_over:
        return
    start = len(s.seen)
    slips = spoil(s, play.rng)
    s.wait(SETTLE_MS)
    if s.board == s.game.occupied() and not s.swapped_owners():
        return  # the slips undid one another
    what = f"before the throw, after {slips}"
    put_right(play, start, what)
    assert throw_now(play)[0]["v"] != "illegal", s.explain(f"class 5: {what} a dead end: the throw is refused", start)


@settings(max_examples=36, phases=NO_SHRINK)
@given(st.sampled_from(RULE_SETS), st.integers(0, 2**32 - 1))
# four pieces mixed up; the answers lead to "swap 12 and 14 back", a swap that is also B's legal
# exchange with the card 2: following the fix was taken as that move, and the owners ended swapped
@example(("cards", 2), 3313795190)
def test_following_the_referees_fixes_while_a_throw_waits_ends_at_the_game(rule_set, seed):
    """After the throw: pieces moved or added where no legal way puts a piece, two pieces swapped
    that no exchange explains. Put right, the throw still waits and its move is then accepted."""
    play = prepare(rule_set, seed)
    s, shadow = play.s, play.shadow
    if shadow.is_over:
        return
    if shadow.turn_starts_with == "card":
        hand = shadow.hand(shadow.to_move_id)
        playable = [c for c in hand if shadow.playable(c)]
        if not playable:
            return
        s.feed({"card": playable[0]})
        shadow.push_card(playable[0])
    else:
        play.throw()
    sequences = [seq for seq in shadow.move_sequences() if all(m.from_sq != m.to_sq for m in seq)]
    if shadow.pending is None or not sequences or shadow.is_over:
        return
    ways = [carries(shadow, seq) for seq in shadow.move_sequences()]
    landing = frozenset(c.to_sq for cs in ways for c in cs)
    legal = frozenset((c.from_sq, c.to_sq) for cs in ways for c in cs)
    start = len(s.seen)
    slips = spoil(s, play.rng, kinds=("move", "move", "add", "swap"), avoid=landing, legal=legal, pause=0)
    s.wait(SETTLE_MS)
    if s.board == s.game.occupied() and not s.swapped_owners():
        return
    what = f"with {shadow.pending} to play, after {slips}"
    put_right(play, start, what)
    play.play_moves(play.rng.choice(sequences), "plain")  # no dead end: the throw is then played


@pytest.mark.parametrize("parked", [6, 12])
def test_fixes_that_put_a_moves_pieces_back_never_revise_the_move_in_modern(parked):
    """Found on seed 4201523351 (modern, two players): B's 4-12 by the sum is accepted; then B's 6
    and 12 are lifted together and one is parked on 29, and A's throw is refused. The first fix names
    B's piece with 3 dots. With it in the hand (12's piece parked), following the fixes puts every
    piece back: the board is no evidence that B played 6-12 then 4-6 instead (the same squares, the
    dots swapped), so the move stands (class 2). With 6's piece parked, which piece stands where is
    unsure (both were in the hand): the fixes take the doubtful pieces off and put each back by its
    dots, never one onto the square of a piece with other dots, so no pair ends swapped and the
    move stands too."""
    s = Session("modern")
    s.throw([2, 4])
    s.do("lift 7", "place 11 from 7", "lift 5", "place 7 from 5")
    s.throw([2, 6])
    s.do("lift 4", "place 12 from 4")
    assert moves_in(s.seen) == ["7-11", "5-7", "4-12"]
    start = len(s.seen)
    s.do("lift 6", "lift 12", f"place 29 from {parked}")
    assert of_kind(s.throw([2, 6]), "illegal"), s.explain("the throw was taken on a wrong board", start)
    follow_fixes(s, f"B's piece from {parked} parked on 29")
    check_real_pieces(s, f"B's piece from {parked} parked on 29")
    assert not of_kind(s.seen[start:], "revised"), s.explain("class 2: the accepted move was revised", start)
    swaps = [v for v in of_kind(s.seen[start:], "illegal") if v.get("swap")]
    assert not swaps, s.explain("the fixes left a swapped pair", start)
    assert s.game.piece_at(12) == ("B", 4)
    assert s.game.to_move_id == "A"


def test_a_move_taken_back_among_other_slips_is_put_right_not_asked_about():
    """Found on seed 3627116685 (houses, two players): A's 13-15 accepted, then by hand 15 back to
    13 and B's 6 to 11. The warning asks for both back; once B's piece is back on 6 the board stands
    as before A's move, but that is the first fix followed, not an undo: no "undo that move?"."""
    s = Session("houses", position={"A": [13, 20], "B": [6, 22], "off": {"A": 3, "B": 3}, "to_move": "A"})
    s.throw(2)
    s.do("lift 13", "place 15 from 13")
    assert moves_in(s.seen) == ["13-15"]
    game = state(s.game)
    start = len(s.seen)
    s.do("lift 15", "place 13 from 15", "lift 6", "place 11 from 6")
    s.wait(GUIDE_MS)
    follow_fixes(s, "13-15 taken back, B's 6 moved to 11")
    assert not of_kind(s.seen[start:], "question"), s.explain("asked while the fixes were followed", start)
    assert state(s.game) == game, s.explain("the accepted move did not stand", start)
    check_real_pieces(s, "13-15 taken back, B's 6 moved to 11")


def test_a_move_taken_back_slowly_is_still_offered_as_an_undo():
    """The other side of the case above: the piece held long enough to be warned about ("put B's
    piece back on 13"), then put back where it came from. Only the move was taken back: "undo?"."""
    s = Session("secret")
    s.throw(3)
    s.do("lift 10", "place 13 from 10")
    assert moves_in(s.seen) == ["10-13"]
    start = len(s.seen)
    s.do("lift 13", wait=GUIDE_MS)
    assert s.warning is not None, s.explain("a piece held off the board was not warned about", start)
    s.do("place 10 from 13")
    assert s.question is not None and s.question["kind"] == "undo", s.explain("no undo offered", start)


# ------------------------------------------------- a piece said to be another's is replaced, not accepted


def one_dot_short_board() -> Hands:
    """modern, before any throw: A on 3, 15, 22; B's 5-dot piece on 5 and 2-dot piece on 13."""
    game = new_game("modern", position={"A": {"2": 15, "4": 22, "5": 3}, "B": {"5": 5, "2": 13}, "to_move": "A"})
    return Hands(game)


def test_a_piece_said_not_to_be_in_the_game_is_replaced_never_accepted():
    """A piece from elsewhere put on 20, then lifted with B's 13 and one of them put on 13: the
    people say it is not in the game. The board's occupancy is right, but the game is not: the
    referee says so and guides the piece off and B's back (before, "the board is as the game
    expects" and the stray piece stood in the game)."""
    hands = one_dot_short_board()
    hands.do("place 20", wait=600)
    hands.do("lift 20", "lift 13", "place 13", wait=600)
    question = hands.referee.question
    assert question is not None
    assert question.kind == "whose"
    assert question.square == 13
    warning = of_kind(hands.call("answer", "a piece that is not in the game"), "illegal")
    assert warning
    assert warning[-1]["fix"] == ["remove the piece on 13", "put B's piece with 2 dots back on 13"]
    assert "not in the game" in warning[-1]["reason"]
    assert not hands.wait(600)
    assert hands.referee.warning is not None  # it stands
    lifted = hands.do("lift 13", wait=600)
    assert of_kind(lifted, "illegal")[-1]["fix"] == ["put B's piece with 2 dots back on 13"]
    assert not moves_in(lifted)
    assert kinds(hands.do("place 13", wait=600)) == ["cleared"]
    assert hands.referee.warning is None
    assert hands.referee.question is None
    assert hands.game.piece_at(13) == ("B", 2)


def test_pieces_mixed_with_one_from_elsewhere_are_put_right_one_square_at_a_time():
    """Three pieces in the hand (one from elsewhere, B's 13 and B's 5), two put back: the people say
    B's 2-dot piece is on 5 and a piece not in the game on 13. No swap puts that right; each square
    is replaced in turn, every fix one a person can carry out."""
    hands = one_dot_short_board()
    start = hands.game.board()
    hands.do("place 20", wait=600)
    hands.do("lift 20", "lift 13", "lift 5", "place 5", "place 13", wait=600)
    assert hands.referee.question is not None
    assert hands.referee.question.kind == "back"
    hands.call("answer", "some were mixed up")
    hands.call("answer", "B's piece with 2 dots")  # on 5
    first = of_kind(hands.call("answer", "a piece that is not in the game"), "illegal")[-1]  # on 13
    assert first["fix"] == ["remove the piece on 5", "put B's piece with 5 dots back on 5"]
    hands.do("lift 5", wait=600)
    second = of_kind(hands.do("place 5", wait=600), "illegal")[-1]
    assert second["fix"] == ["remove the piece on 13", "put B's piece with 2 dots back on 13"]
    hands.do("lift 13", wait=600)
    assert kinds(hands.do("place 13", wait=600)) == ["cleared"]
    assert hands.referee.warning is None
    assert hands.game.board() == start
