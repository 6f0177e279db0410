"""Noisy human play, generated: whole games played by hands that slide, hover, knock, hold pieces,
exchange in either order and take moves back, plus the human errors (a wrong square, an illegal
swap). A shadow game says what should happen; the referee must agree after every turn:
every legal move accepted exactly once, every illegal one flagged, every fix followed leads
back to the game, and no dead end.
"""

from __future__ import annotations

import random

from hypothesis import event, given, settings
from hypothesis import strategies as st

from senet_pi.referee import Referee
from senet_pi.referee.core import piece_name
from senet_pi.referee.hands import _answer_for, switch_events
from senet_pi.referee.physical import play_out, stages
from senet_pi.rules import Game, new_game
from senet_pi.rules.board import OFF, bit, squares_in
from senet_pi.rules.cards import default_deck
from tests.referee_helpers import as_json

SETTLE_MS = 600


class Table:
    """A referee, its clock, the board as the hands leave it, and the verdicts so far."""

    def __init__(self, game: Game) -> None:
        self.referee = Referee(game.copy())
        self.board = game.occupied()
        self.clock = 0.0
        self.seen: list[dict] = []
        self.referee.sense(self.board, self.clock)  # the board has sensors

    def events(self, events: list[dict]) -> list[dict]:
        out: list[dict] = []
        for e in events:
            ((kind, value),) = e.items()
            if kind == "wait":
                self.clock += value / 1000
                out += as_json(self.referee.tick(self.clock))
                continue
            self.clock += 0.05
            out += as_json(getattr(self.referee, kind)(value, self.clock))
            self.board ^= bit(value)
        self.seen += out
        return out

    def settle(self) -> list[dict]:
        return self.events([{"wait": SETTLE_MS}])

    def call(self, name: str, *args: object) -> list[dict]:
        out = as_json(getattr(self.referee, name)(*args, at=self.clock))
        self.seen += out
        return out


def knock(rng: random.Random, occupied: int, avoid: int) -> list[dict]:
    """A sleeve brushes a piece that the move does not touch; it is put straight back."""
    choices = [sq for sq in squares_in(occupied & ~avoid)]
    if not choices:
        return []
    sq = rng.choice(choices)
    return [{"lift": sq}, {"place": sq}]


def noisy(rng: random.Random, occupied: int, steps, style: str) -> list[dict]:
    """The switch events of carrying out `steps` in one of the ways people do."""
    events = switch_events(
        occupied, steps, victim_first=rng.random() < 0.5, pause_ms=SETTLE_MS if style == "pause" else 0
    )
    touched = 0
    for s in steps:
        touched |= sum(bit(sq) for sq in {s.from_sq, s.to_sq} if sq != OFF)
    mover = steps[0]
    if style == "slide" and events[:2] == [{"lift": mover.from_sq}, {"place": mover.to_sq}]:
        between = [sq for sq in range(mover.from_sq + 1, mover.to_sq) if not occupied & bit(sq) and 1 <= sq <= 30]
        path: list[dict] = [{"lift": mover.from_sq}]
        for sq in between[:3]:
            path += [{"place": sq}, {"lift": sq}]
        events = path + events[1:]
    elif style == "hover":
        i = next((n for n, e in enumerate(events) if "place" in e), None)
        if i is not None:
            sq = events[i]["place"]
            events = [*events[: i + 1], {"lift": sq}, {"place": sq}, *events[i + 1 :]]
    elif style == "held" and events and "lift" in events[0]:
        events = [events[0], {"wait": 800}, *events[1:]]  # in the hand past the settle time
    elif style == "knock":
        k = knock(rng, occupied, touched)
        at = rng.randrange(len(events) + 1)
        events = [*events[:at], *k, *events[at:]]
    return events


def answer_questions(table: Table, shadow_moves) -> None:
    """Answer what the referee asks as the people would: the move they made, or keep the game."""
    for _ in range(3):
        question = table.referee.question
        if question is None:
            return
        options = question.options
        if question.kind == "which":  # the moves made, in whichever order the referee lists them
            choice = _answer_for(question.verdict(), shadow_moves)
        elif question.kind == "swap":
            choice = "put back"
        elif question.kind == "back":  # these hands never mix pieces up: each went back where it was
            choice = options[0]
        elif question.kind == "whose":  # the piece the game has there (the hands never mix pieces up)
            assert question.square is not None
            choice = str(piece_name(table.referee.game.piece_at(question.square)))
            assert choice in options, f"the piece on {question.square} is not offered: {question.verdict()}"
        else:
            choice = options[-1]  # keep
        table.call("answer", choice)


def follow_fixes(table: Table) -> int:
    """Do what the referee's guidance says, one fix at a time, until the warning clears."""
    for n in range(12):
        if table.referee.warning is None:
            return n
        out = table.events([{"wait": 3500}])
        fixes = [v for v in out if v["v"] == "fix"] or [v for v in table.seen[-3:] if v["v"] == "fix"]
        assert fixes, f"a warning with no guidance: {table.referee.warning}"
        fix = fixes[-1]
        a, b = fix["from"], fix["to"]
        if fix["text"].startswith("swap"):
            table.events([{"lift": a}, {"lift": b}, {"place": a}, {"place": b}])
        elif a and b:
            table.events([{"lift": a}, {"place": b}])
        elif a:
            table.events([{"lift": a}])
        else:
            table.events([{"place": b}])
        table.settle()
        answer_questions(table, [])
    raise AssertionError(f"the guidance never put the board right: {table.referee.warning}")


def wrong_square(table: Table, shadow: Game, mover) -> list[dict] | None:
    """A piece of the mover's put on a square that no legal move leaves (a human error)."""
    start = shadow.occupied()
    legal = set()
    for seq in shadow.move_sequences():
        for n in range(1, len(seq) + 1):
            legal.update(stages(start, play_out(shadow, seq[:n])[0]))
    legal.add(table.referee.start_board)
    # A square no legal way touches: a board half way through a legal pair, in any order, is not wrong.
    touched = {sq for seq in shadow.move_sequences() for s in play_out(shadow, seq)[0] for sq in (s.from_sq, s.to_sq)}
    for sq in range(mover.from_sq + 1, 31):
        board = start & ~bit(mover.from_sq) | bit(sq)
        if not start & bit(sq) and board not in legal and sq not in touched:
            return [{"lift": mover.from_sq}, {"place": sq}]
    return None


def illegal_swap(shadow: Game) -> tuple[int, int] | None:
    """An own piece and an opponent's piece that no legal move exchanges."""
    board = shadow.board()
    legal = {(m.from_sq, m.to_sq) for seq in shadow.move_sequences() for m in seq}
    me = shadow.mover_id
    mine = [sq for sq, o in board.items() if o == me]
    theirs = [sq for sq, o in board.items() if o != me]
    for a in mine:
        for b in theirs:
            if (a, b) not in legal and a < b:
                return a, b
    return None


def turn(table: Table, shadow: Game, rng: random.Random, counts: dict[str, int]) -> None:
    """One throw's (or card's) moves, made by noisy hands, and checked against the shadow."""
    sequences = shadow.move_sequences()
    if not sequences:
        return
    style = rng.choice(["plain", "slide", "hover", "held", "knock", "pause", "takeback", "wrong", "swap"])
    moves = rng.choice(sequences)
    if any(m.from_sq == m.to_sq for m in moves):  # M5: a bounce onto its own square is entered
        for move in moves:
            if move.from_sq == move.to_sq:
                verdicts = table.call("enter_move", move.from_sq, move.to_sq, move.by)
                assert [v for v in verdicts if v["v"] == "move"], verdicts
            else:
                steps, _, _ = play_out(shadow, [move])
                table.events(noisy(rng, table.board, steps, "plain"))
                table.settle()
                answer_questions(table, [move])
            shadow.push(move)
        counts["bounce"] += 1
        return
    if style == "wrong":
        events = wrong_square(table, shadow, moves[0])
        if events:
            before = len(table.seen)
            table.events(events)
            table.settle()
            answer_questions(table, moves)
            if table.referee.game.position() == shadow.position():  # still judged as no move
                assert [v for v in table.seen[before:] if v["v"] == "illegal"], (events, table.seen[before:])
                follow_fixes(table)
                counts["wrong"] += 1
    elif style == "swap" and shadow.pending is not None:
        pair = illegal_swap(shadow)
        if pair:
            a, b = pair
            before = len(table.seen)
            table.events([{"lift": b}, {"lift": a}, {"place": b}, {"place": a}])
            table.settle()
            flagged = [v for v in table.seen[before:] if v["v"] in ("illegal", "question")]
            assert flagged, table.seen[before:]
            if table.referee.question is not None:
                table.call("answer", "swapped")
            follow_fixes(table)
            counts["swap"] += 1
    elif style == "takeback" and len(sequences) > 1:
        other = next(seq for seq in sequences if seq != moves)
        steps, _, _ = play_out(shadow, other)
        if all(s.why == "move" for s in steps) and not any(m.from_sq == m.to_sq for m in other):
            table.events(noisy(rng, table.board, steps, "plain"))
            table.settle()
            back = switch_events(table.board, [type(s)(s.player, s.to_sq, s.from_sq) for s in reversed(steps)])
            table.events(back)
            table.settle()
            counts["takeback"] += 1
    assert table.referee.warning is None, table.referee.warning
    steps, _, _ = play_out(shadow, moves)
    before = len(table.seen)
    table.events(
        noisy(rng, table.board, steps, style if style in ("slide", "hover", "held", "knock", "pause") else "plain")
    )
    table.settle()
    answer_questions(table, moves)
    for move in moves:
        shadow.push(move)
    verdicts = table.seen[before:]
    assert not [v for v in verdicts if v["v"] == "illegal"], (moves, style, verdicts)
    assert table.referee.game.position() == shadow.position(), (moves, style, verdicts)
    assert not table.referee.steps_left and table.referee.warning is None, (table.referee.steps_left, verdicts)
    counts[style] += 1


def play(variant: str, players: int, seed: int, turns: int) -> dict[str, int]:
    rng = random.Random(seed)
    options: dict[str, object] = {}
    if variant == "cards":
        deck = default_deck()
        rng.shuffle(deck)
        options = {"deck_order": deck, "shuffle_seed": seed}
    shadow = new_game(variant, players=players, options=options)
    table = Table(shadow)
    counts: dict[str, int] = {
        k: 0 for k in ("plain", "slide", "hover", "held", "knock", "pause", "takeback", "wrong", "swap", "bounce")
    }
    for _ in range(turns):
        if shadow.is_over:
            break
        assert table.referee.throw_blocked() is None, table.referee.throw_blocked()  # no dead end
        if shadow.turn_starts_with == "card":
            hand = shadow.hand(shadow.to_move_id)
            playable = [c for c in hand if shadow.playable(c)]
            if not playable:
                cards = hand[:1]
                assert table.call("play_card", "exchange", cards)[-1]["v"] != "illegal"
                shadow.push_exchange(cards)
                continue
            card = rng.choice(playable)
            assert table.call("play_card", "card", card)[-1]["v"] != "illegal"
            shadow.push_card(card)
            while shadow.winner is None and (shadow.pending is not None or shadow.phase != "play"):
                if shadow.phase == "residue" and (not shadow.move_sequences() or rng.random() < 0.3):
                    table.call("play_card", "pass", True)
                    shadow.push_pass()
                    continue
                if not shadow.move_sequences():
                    break
                turn(table, shadow, rng, counts)
            continue
        value = shadow.random_throw(rng)
        start = shadow.occupied()
        table.call("throw", value)
        effects = shadow.push_throw(value)
        if table.referee.steps_left:  # M9: a player who leaves takes their pieces off
            from senet_pi.referee.physical import effect_steps

            table.events(switch_events(start, effect_steps(effects)))
            table.settle()
        assert table.referee.game.position() == shadow.position()
        turn(table, shadow, rng, counts)
    return counts


VARIANTS = st.sampled_from([("secret", 2), ("houses", 2), ("modern", 2), ("modern", 3), ("modern", 4), ("cards", 2)])


@settings(max_examples=40, deadline=None)
@given(VARIANTS, st.integers(0, 2**32 - 1))
def test_noisy_human_play_is_judged_like_a_careful_referee(variant, seed):
    counts = play(*variant, seed, turns=40)
    for style, n in counts.items():
        if n:
            event(f"{variant[0]}: {style}")
