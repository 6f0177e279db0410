"""What happens at a real table between the moves, generated in every rule set and player count:
a bump (pieces jolted off their switches for tens of milliseconds and back) and the board knocked
over and set up again as it was are no move; the switch timing is the evidence (hands take hundreds
of milliseconds to carry a piece). After each, the player's real move is still judged as played.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import Phase, event, example, given, settings
from hypothesis import strategies as st

from senet_pi.rules.board import OFF, bit, squares_in
from senet_pi.rules.cards import default_deck
from tests.referee_physical_play import Play, carries, check_real_pieces, follow_fixes, state
from tests.referee_replay_helpers import GUIDE_MS, RULE_SETS, SETTLE_MS, Session, moves_in, of_kind

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
    st.integers(10, 100),
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
    for sq in squares_in(board):  # knocked over: every piece off its switch within a scan or two
        s.feed({"lift": sq}, {"wait": 5})
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


# ============================================================== strays beside a certain move

STRAYS = ["knock-onto", "knock-off", "spare", "weld"]
WHEN = ["before", "between", "after"]


def one_piece_moves(play: Play) -> list:
    """The throw's ways that carry one piece to an empty square on the board (one piece in the hand)."""
    shadow = play.shadow
    out = []
    for seq in shadow.move_sequences():
        cs = carries(shadow, seq)
        if len(cs) == 1 and cs[0].from_sq != OFF and cs[0].to_sq != OFF and not play.s.board & bit(cs[0].to_sq):
            out.append(seq)
    return out


def board_after(game, moves) -> int:
    """The occupancy `moves` leave."""
    after = game.copy()
    for m in moves:
        after.push(m)
    return after.occupied()


def stray_events(s: Session, kind: str, x: int, y: int) -> list[dict[str, object]]:
    """The switch events of one stray: a neighbour on `x` knocked onto the empty `y` or off the board,
    a spare piece put on `y`, or the switch under `y` welding shut."""
    if kind == "knock-onto":
        return [{"lift": x}, {"wait": 30}, {"place": y, "piece": x}]
    if kind == "knock-off":
        return [{"lift": x}]
    return [{"place": y, "piece": "stray"}]


@settings(max_examples=60, phases=NO_SHRINK, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 2**32 - 1), st.sampled_from(STRAYS), st.sampled_from(WHEN))
@example(("houses", 2), 3, "knock-onto", "between")
@example(("secret", 2), 5, "weld", "between")
@example(("secret", 2), 8, "spare", "after")
@example(("modern", 3), 13, "knock-off", "before")
def test_a_stray_beside_a_certain_move_never_makes_it_wrong(rule_set, seed, stray, when):
    """While the mover carries one piece to an empty square, a neighbour is knocked onto an empty
    square or off the board, a spare is added, or a switch welds shut in the same scan as the lift:
    the legal move stands, no fix takes it back, a fix is always given, and following the fixes (and
    answering truthfully what the switches cannot tell) leaves the game's board with its real pieces."""
    play = played_plainly(rule_set, seed)
    if play is None:
        return
    ways = one_piece_moves(play)
    if not ways:
        return
    s, shadow, rng = play.s, play.shadow, play.rng
    moves = rng.choice(ways)
    (c,) = carries(shadow, moves)
    touched = {sq for seq in shadow.move_sequences() for d in carries(shadow, seq) for sq in (d.from_sq, d.to_sq)}
    near = [sq for sq in squares_in(s.board) if sq not in touched]
    empty = [sq for sq in range(1, 31) if not s.board & bit(sq) and sq not in touched]
    if not near or not empty:
        return
    x, y = rng.choice(near), rng.choice(empty)
    events = stray_events(s, stray, x, y)
    since = len(s.seen)
    if stray == "weld":  # in the same scan as the mover's lift
        s.feed({"lift": c.from_sq}, *events, {"wait": 300}, {"place": c.to_sq, "piece": c.from_sq})
    else:
        before = events if when == "before" else []
        between = events if when == "between" else []
        after = events if when == "after" else []
        s.feed(*before, {"wait": 200}, {"lift": c.from_sq}, {"wait": 100}, *between, {"wait": 200})
        s.feed({"place": c.to_sq, "piece": c.from_sq}, {"wait": 100}, *after)
    s.wait(SETTLE_MS)
    for m in moves:
        shadow.push(m)
    what = f"{stray} {when} beside {[str(m) for m in moves]} ({x}, {y})"
    follow_fixes(s, what)  # fails on a warning with no fix, or fixes that lead nowhere
    for fix in of_kind(s.seen[since:], "fix", "illegal"):
        texts = fix.get("fix", []) if fix["v"] == "illegal" else [fix.get("text", "")]
        for text in texts:
            took_back = re.search(rf"back on {c.from_sq}\b|\bon {c.to_sq}\b", str(text))
            assert not took_back, s.explain(f"{what}: a fix takes the legal move back: {text!r}", since)
    assert state(s.game) == state(shadow), s.explain(f"{what}: the legal move did not stand", since)
    assert s.question is None and s.warning is None, s.explain(f"{what}: left open", since)
    assert s.board == s.game.occupied(), s.explain(f"{what}: the board is not the game's", since)
    check_real_pieces(s, what)


@pytest.mark.parametrize("weld", [8, 16, 25])
def test_the_issue_weld_in_the_same_scan_as_a_lift_is_no_piece_of_the_movers(weld):
    """B lifts 20 and, in the same scan, the reed under an empty square welds shut; B puts the piece
    on 23 (20-23 with a 3). The move stands; the phantom is no one's piece: it is to be removed."""
    s = Session("secret", position={"A": [12, 3, 5], "B": [10, 20, 1], "off": {"A": 2, "B": 2}, "to_move": "B"})
    s.throw(3)
    s.feed({"lift": 20}, {"place": weld, "piece": "stray"}, {"wait": 300}, {"place": 23}, {"wait": SETTLE_MS})
    assert moves_in(s.seen) == ["20-23"], s.explain("the legal move was not accepted beside the weld")
    warning = s.warning
    assert warning is not None and warning["fix"] == [f"remove the piece on {weld}"], s.explain("not the weld's fix")


# ============================================================== a piece teetering after a legal move


@settings(max_examples=60, phases=NO_SHRINK, deadline=None)
@given(st.sampled_from(RULE_SETS), st.integers(0, 2**32 - 1), st.sampled_from([0, 100, 450, 600]))
@example(("secret", 2), 68, 450)
@example(("houses", 2), 33, 600)
def test_a_piece_teetering_after_a_legal_move_raises_no_passing_warning(rule_set, seed, first):
    """The piece a legal move just put down teeters half on its square: its switch flickers for about
    half a second (open and closed for 10-450 ms at a time), starting as it lands or once the move
    was accepted, and ends closed. Nothing is warned or asked, and the next turn is judged as usual."""
    play = played_plainly(rule_set, seed)
    if play is None:
        return
    s, shadow, rng = play.s, play.shadow, play.rng
    boards = [board_after(shadow, seq) for seq in shadow.move_sequences()]
    ways = [seq for seq in one_piece_moves(play) if boards.count(board_after(shadow, seq)) == 1]  # no "which?"
    if not ways:
        return
    moves = rng.choice(ways)
    (c,) = carries(shadow, moves)
    since = len(s.seen)
    s.feed({"lift": c.from_sq}, {"wait": 300}, {"place": c.to_sq, "piece": c.from_sq}, {"wait": first + 1})
    events: list[dict[str, object]] = []
    closed, spent = True, 0
    while spent < 500 or not closed:
        ms = rng.randint(10, 450)
        spent += ms
        events += [{"wait": ms}, {"lift" if closed else "place": c.to_sq, "piece": c.to_sq}]
        closed = not closed
    s.feed(*events)
    s.wait(GUIDE_MS)
    for m in moves:
        shadow.push(m)
    said = of_kind(s.seen[since:], "illegal", "question", "fix")
    assert not said, s.explain(f"a piece teetering on {c.to_sq} after {moves} was warned", since)
    assert state(s.game) == state(shadow), s.explain("the teetering changed the game", since)
    play.turn(lambda sequences: (rng.choice(sequences), "plain"))


# ============================================================== cards: a bearing off and its residue


def cards_session(card: str, position: dict[str, object]) -> Session:
    """A card game from `position` whose player to move (B) holds `card`."""
    deck = default_deck()
    first = [card, "1", "2", "1", "2", "1", "2", "1", "2", "1"]
    for c in first:
        deck.remove(c)
    return Session("cards", options={"deck_order": first + deck}, position=position)


@settings(max_examples=60, phases=NO_SHRINK, deadline=None)
@given(
    st.sampled_from(["3", "4", "5"]),
    st.sets(st.integers(16, 30), min_size=2, max_size=3),
    st.sampled_from(["settled", "at once", "residue first"]),
    st.integers(0, 2**32 - 1),
)
@example("5", {26, 28}, "settled", 0)
@example("5", {26, 28}, "residue first", 0)
def test_cards_a_bearing_off_then_its_residue_is_recorded_as_played(card, squares, order, seed):
    """K9: a stick card bears a pawn off with more than it needs, and the residue moves another. The
    record shows those two moves, in every order of the hands, never one move with the same final
    board (a 5 bearing off from 28, then 26-28 with the 2 left, is no "26-off")."""
    position = {"A": [2, 4, 6], "B": sorted(squares), "off": {"A": 2, "B": 5 - len(squares)}, "to_move": "B"}
    s = cards_session(card, position)
    s.feed({"card": card})
    game = s.game
    sequences = [
        (off, then)
        for (off,) in game.move_sequences()
        if off.to_sq == OFF
        for then in residue_moves(game, off)
        if then.to_sq != OFF
    ]
    if not sequences:
        return
    rng = random.Random(seed)
    off, then = rng.choice(sequences)
    since = len(s.seen)
    lands_on_a_piece = bool(s.board & bit(then.to_sq)) and then.to_sq != off.from_sq
    if lands_on_a_piece:  # an exchange or another capture: not this class
        return
    if order == "settled":
        s.feed({"lift": off.from_sq}, {"wait": 300})
        s.retire(off.from_sq)
        s.wait(SETTLE_MS)
        s.feed({"lift": then.from_sq}, {"wait": 300}, {"place": then.to_sq, "piece": then.from_sq})
    elif order == "at once":
        s.feed({"lift": off.from_sq}, {"wait": 300}, {"lift": then.from_sq}, {"wait": 300})
        s.feed({"place": then.to_sq, "piece": then.from_sq})
        s.retire(off.from_sq)
    else:
        s.feed({"lift": then.from_sq}, {"wait": 300}, {"lift": off.from_sq}, {"wait": 300})
        s.feed({"place": then.to_sq, "piece": then.from_sq})
        s.retire(off.from_sq)
    s.wait(SETTLE_MS)
    made = [f"{off.from_sq}-off", f"{then.from_sq}-{then.to_sq}"]
    assert moves_in(s.seen[since:]) == made, s.explain(f"{order}: not recorded as {made}", since)
    assert s.warning is None and s.question is None, s.explain("left open", since)


def residue_moves(game, off) -> list:
    """The moves the residue of bearing `off` off allows (K9), none when it leaves none."""
    after = game.copy(history=False)
    after.push(off)
    if getattr(after, "phase", None) != "residue" or after.to_move != game.to_move:
        return []
    return after.legal_moves()


# ============================================================== modern: a piece the rules say must move


@settings(max_examples=80, phases=NO_SHRINK, deadline=None)
@given(
    st.sampled_from([2, 3, 4]),
    st.sampled_from([28, 29, 30]),
    st.tuples(st.integers(1, 6), st.integers(1, 6)),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
@example(2, 29, (1, 2), 0, True)
def test_modern_a_piece_that_must_move_left_standing_is_warned_by_rule_and_piece(players, safe, dice, seed, two):
    """M8: A's piece on 28-30 must move when it can; A moves other pieces instead (one by the sum, or
    two by a die each). The warning names the rule and the piece (owner and dots, and its square)."""
    rng = random.Random(seed)
    free = [sq for sq in range(2, 25) if sq != 15]
    rng.shuffle(free)
    a_squares = free[:3]
    position: dict[str, object] = {"A": {"3": safe, "4": a_squares[0], "2": a_squares[1], "1": a_squares[2]}}
    for n, pid in enumerate("BCD"[: players - 1]):
        position[pid] = {"5": free[3 + 2 * n], "4": free[4 + 2 * n]}
    position["to_move"] = "A"
    s = Session("modern", players, position=position)
    s.throw(list(dice))
    game = s.game
    sequences = game.move_sequences()
    if not sequences or not all(any(m.from_sq == safe for m in seq) for seq in sequences):
        return
    legal = {board_after(game, seq) for seq in sequences} | {board_after(game, seq[:1]) for seq in sequences}
    movers = sorted(a_squares)
    if two:
        (a, b) = movers[:2]
        moves = [(a, a + dice[0]), (b, b + dice[1])]
    else:
        moves = [(movers[0], movers[0] + sum(dice))]
    board = s.board
    for from_sq, to_sq in moves:
        if to_sq > 30 or board & bit(to_sq):
            return
        board = board & ~bit(from_sq) | bit(to_sq)
    if board in legal:
        return
    since = len(s.seen)
    for from_sq, to_sq in moves:
        s.feed({"lift": from_sq}, {"wait": 300}, {"place": to_sq, "piece": from_sq}, {"wait": 200})
    s.wait(SETTLE_MS)
    warnings = of_kind(s.seen[since:], "illegal")
    assert warnings, s.explain("another piece moved instead of the one on 28-30, and nothing was said", since)
    w = warnings[-1]
    assert w["ruling"] == "M8" and f"on {safe}" in w["reason"], s.explain("the warning names not M8 and the piece")
    assert not moves_in(s.seen[since:]), s.explain("a move was accepted", since)


# ============================================================== an ordinary exchange is never questioned


@settings(max_examples=160, phases=NO_SHRINK, deadline=None)
@given(
    st.sampled_from([("secret", 2), ("houses", 2), ("cards", 2)]),
    st.integers(0, 2**32 - 1),
    st.booleans(),
    st.booleans(),
    st.sampled_from([0, 150, 300, 600]),
)
@example(("houses", 2), 1, True, True, 300)
def test_an_ordinary_exchange_is_never_questioned(rule_set, seed, victim_first, mover_down_first, gap):
    """P4: the mover lifts the attacked piece and its own (either first), puts its own on the
    attacked square and the other on its square (either first), at a hand's pace or all at once.
    The hands did exactly what the move needs: it is accepted, nothing is asked or warned, and the
    next player's throw is taken."""
    play = played_plainly(rule_set, seed)
    if play is None:
        return
    s, shadow = play.s, play.shadow
    exchanges = []
    for seq in shadow.move_sequences():
        cs = carries(shadow, seq)
        if len(cs) == 2 and cs[1].from_sq == cs[0].to_sq and cs[1].to_sq == cs[0].from_sq:
            exchanges.append((seq, cs[0]))
    if not exchanges:
        return
    moves, c = play.rng.choice(exchanges)
    if len([seq for seq in shadow.move_sequences() if board_after(shadow, seq) == s.board]) > 1:
        return  # another move leaves the same squares: asking which is fair
    event(f"{rule_set[0]}: an exchange")
    since = len(s.seen)
    lifts = [c.to_sq, c.from_sq] if victim_first else [c.from_sq, c.to_sq]
    places = [(c.to_sq, c.from_sq), (c.from_sq, c.to_sq)]
    if not mover_down_first:
        places.reverse()
    for sq in lifts:
        s.feed({"lift": sq}, {"wait": gap})
    for sq, piece in places:
        s.feed({"place": sq, "piece": piece}, {"wait": gap})
    s.wait(SETTLE_MS)
    for m in moves:
        shadow.push(m)
    s.wait(GUIDE_MS)
    said = of_kind(s.seen[since:], "question", "illegal")
    assert not said, s.explain(f"the exchange {[str(m) for m in moves]} was questioned", since)
    assert state(s.game) == state(shadow), s.explain("the exchange is not the game", since)
    check_real_pieces(s, "after an exchange")
    if not shadow.is_over and shadow.turn_starts_with != "card":
        play.throw()
        assert not of_kind(s.seen[since:], "question", "illegal"), s.explain("the next throw was refused", since)


# ============================================================== modern: fixes and the dots of pieces aside


@settings(max_examples=80, phases=NO_SHRINK, deadline=None)
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32 - 1), st.booleans(), st.integers(0, 4))
@example(3, 0, True, 0)
def test_modern_pieces_moved_aside_are_fixed_each_to_its_own_square(players, seed, together, turns):
    """Before a throw, the player moves two of their own pieces aside onto empty squares, one at a
    time or both in the hand at once (which went where the switches cannot tell, but their dots
    differ). The fixes, with any question answered truthfully, put each piece back on its own
    square: never a piece onto the square of one with other dots, so no swapped pair and no second
    warning."""
    play = Play("modern", players, seed)
    for _ in range(turns):
        if play.shadow.is_over:
            return
        play.turn(lambda sequences: (play.rng.choice(sequences), "plain"))
    s, rng = play.s, play.rng
    game = s.game
    if game.is_over:
        return
    mine = [sq for sq, owner in game.board().items() if owner == game.to_move_id]
    empty = [sq for sq in range(2, 26) if not s.board & bit(sq)]
    if len(mine) < 2 or len(empty) < 2:
        return
    (a, b), (p, q) = rng.sample(mine, 2), rng.sample(empty, 2)
    since = len(s.seen)
    if together:
        s.feed({"lift": a}, {"wait": 200}, {"lift": b}, {"wait": 200}, {"place": p, "piece": a}, {"wait": 200})
        s.feed({"place": q, "piece": b})
    else:
        s.feed({"lift": a}, {"wait": 200}, {"place": p, "piece": a}, {"wait": 200}, {"lift": b}, {"wait": 200})
        s.feed({"place": q, "piece": b})
    s.wait(SETTLE_MS)
    what = f"{game.piece_at(a)} from {a} to {p}, {game.piece_at(b)} from {b} to {q}"
    follow_fixes(s, what)
    check_real_pieces(s, what)
    swaps = [v for v in of_kind(s.seen[since:], "illegal") if v.get("swap")]
    assert not swaps, s.explain(f"{what}: the fixes left a swapped pair", since)
    assert state(s.game) == state(play.shadow), s.explain(f"{what}: the game changed", since)
