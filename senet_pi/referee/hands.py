"""Hands for a board: the lifts and places a person makes to carry out moves.

Used to script physical games (tests, demos, the simulated board's self-play): a move's
steps become switch events, a piece landed on is lifted off first, and `wait`s leave the
board still long enough for the referee to judge it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ..events import as_input, read_input, split
from ..rules import Game, Move, find_ruleset, new_game
from ..rules.board import OFF, bit
from ..verdicts import Question
from .physical import Step, effect_steps, play_out
from .state import QuestionKind

Event = dict[str, object]


def switch_events(start: int, steps: Sequence[Step], victim_first: bool = False, pause_ms: int = 0) -> list[Event]:
    """Lifts and places carrying out `steps` from the board `start` (a piece in the way goes into the
    hand first); with `pause_ms`, the board is left still after each step."""
    events: list[Event] = []
    occupied = start
    in_hand: set[int] = set()
    for step in steps:
        lifts = []
        if step.from_sq != OFF and step.from_sq not in in_hand:
            lifts.append(step.from_sq)
        if step.to_sq != OFF and occupied & bit(step.to_sq) and step.to_sq != step.from_sq:
            lifts.insert(0 if victim_first else len(lifts), step.to_sq)
            in_hand.add(step.to_sq)
        in_hand.discard(step.from_sq)
        for sq in lifts:
            if occupied & bit(sq):
                events.append({"lift": sq})
                occupied &= ~bit(sq)
        if step.to_sq != OFF:
            events.append({"place": step.to_sq})
            occupied |= bit(step.to_sq)
        if pause_ms:
            events.append({"wait": pause_ms})
    return events


def scripted_game(
    ruleset: str, seed: int, players: int = 2, max_throws: int = 2_000, entered: int = 0, late: bool = False
) -> dict[str, object]:
    """A whole random game as a replay file of throws and switch events only: moves done by hand in
    varied ways (all at once, or step by step after the referee's prompts), now and then a piece
    knocked and put back, and the referee's questions answered as the people would. With `entered`,
    the moves of the first that many throws are entered on the page instead, on a board whose
    switches report nothing yet; with `late`, the board then starts reporting with a snapshot of
    its switches (a USB bridge plugged in mid-game) before its first move by hand."""
    from .referee import Referee

    rng = random.Random(seed)
    options = find_ruleset(ruleset).seeded_options(seed)  # the card game's deck is part of the script
    game = new_game(ruleset, players=players, options=options)
    referee = Referee(new_game(ruleset, players=players, options=options))
    events: list[Event] = []
    clock_ms = 0

    def feed(batch: list[Event], intended: Sequence[Move] | None = None) -> None:
        nonlocal clock_ms
        for event in batch:
            events.append(event)
            kind, value, by = split(event)
            if kind == "wait" and isinstance(value, int | float):  # a wait's value is its milliseconds
                clock_ms += int(value)
            verdicts = referee.take(read_input(*as_input(kind, value, by)), clock_ms / 1000)
            question = next((v for v in verdicts if isinstance(v, Question)), None)
            if question is not None and intended is not None:
                feed([{"answer": _answer_for(question, intended)}])

    throws = 0

    def by_hand(moves: Sequence[Move]) -> None:
        if throws <= entered:  # no switch reports yet: the moves are entered on the page
            for move in moves:
                feed([{"move": [move.from_sq, move.to_sq], "by": move.by}])
                game.push(move)
            return
        if any(m.from_sq == m.to_sq for m in moves):  # a bounce onto its own square is entered (M5)
            for move in moves:
                if move.from_sq == move.to_sq:
                    feed([{"move": [move.from_sq, move.to_sq], "by": move.by}])
                    game.push(move)
                else:
                    by_hand([move])
            return
        steps, _, _ = play_out(game, moves)
        pause = 500 if rng.random() < 0.4 else 0
        feed([*switch_events(game.occupied(), steps, rng.random() < 0.5, pause), {"wait": 600}], moves)
        for move in moves:
            game.push(move)

    for _ in range(max_throws):
        if game.is_over:
            break
        throws += 1
        if throws == entered + 1 and entered and late:  # the board's first report, mid-game
            feed([{"sense": [sq for sq in range(1, 31) if game.occupied() & bit(sq)]}])
        if game.turn_starts_with == "card":
            _card_turn(game, rng, feed, by_hand)
            continue
        value = game.random_throw(rng)
        feed([{"throw": list(value) if isinstance(value, tuple) else value}])
        start = game.occupied()
        steps = effect_steps(game.push_throw(value))  # M9: a player who leaves takes their pieces off
        if steps and throws > entered:
            feed([*switch_events(start, steps), {"wait": 600}])
        sequences = game.move_sequences()
        if not sequences:
            continue
        if throws > entered and rng.random() < 0.1:  # a sleeve brushes a piece, which is put straight back
            knocked = rng.choice([sq for sq in range(1, 31) if game.occupied() & bit(sq)])
            feed([{"lift": knocked}, {"place": knocked}, {"wait": 100}])
        by_hand(rng.choice(sequences))
    return {"variant": ruleset, "players": players, "options": options, "events": events}


def _card_turn(
    game: Game,
    rng: random.Random,
    feed: Callable[[list[Event]], None],
    by_hand: Callable[[Sequence[Move]], None],
) -> None:
    """One turn of the card game: a card played (or an exchange), then its moves done by hand."""
    hand = game.hand(game.to_move_id)
    playable = [c for c in hand if game.playable(c)]
    if playable and (not game.can_exchange() or rng.random() > 0.05):
        card = rng.choice(playable)
        feed([{"card": card}])
        game.push_card(card)
    elif game.can_exchange():
        cards = hand[: 1 + int(rng.random() * 2)]
        feed([{"exchange": cards}])
        game.push_exchange(cards)
        return
    else:
        feed([{"pass": True}])
        game.push_pass()
        return
    while game.winner is None and (game.pending is not None or game.phase != "play"):
        sequences = game.move_sequences()
        if game.phase == "residue" and (not sequences or rng.random() < 0.3):
            feed([{"pass": True}])
            game.push_pass()
            continue
        if not sequences:
            break
        by_hand(rng.choice(sequences))


def _answer_for(question: Question, moves: Sequence[Move]) -> object:
    """The option naming the move the hands made (or its first part), else "no move"."""
    options = question.options
    if question.kind != QuestionKind.WHICH:
        return "keep"  # the hands made a move: no undo, no new game
    for n in range(len(moves), 0, -1):  # the whole move if offered, else its first part
        for order in (list, sorted):  # in the order made, else in another (the same moves, M3)
            plain = order(str(m) for m in moves[:n])
            with_dice = order(f"{m} (by {m.by})" for m in moves[:n])
            for i, option in enumerate(options):
                if order(option.split(" then ")) in (plain, with_dice):
                    return i
    return options.index("no move") if "no move" in options else 0
