"""No input crashes the referee.

Arbitrary sequences of what can reach a referee (switches opening and closing, throws and card
actions the rule set can produce, time passing, answers, undo, resync, new game, moves entered by
hand, full switch snapshots) are fed to it as `senet-pi replay` feeds them, in every rule set and
player count. Whatever arrives is judged: no exception, ever; every verdict is one of the kinds
the replay contract and the project define; every operator action gets an answer (done, or
refused with a reason); and the same file replayed gives the same verdicts.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from senet_pi.cli.command import main
from senet_pi.events import timed_inputs
from senet_pi.rules.board import OFF
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from senet_pi.verdicts import parse_verdict
from tests.journal_helpers import ScriptClock, feed
from tests.referee_helpers import well_formed
from tests.referee_physical_play import carries
from tests.referee_replay_helpers import RULE_SETS, Session, as_json, options_for, replay_verdicts

#: Inputs that are an operator's (or a player's) action: each must get at least one verdict back.
ACTIONS = ("throw", "card", "exchange", "pass", "move", "answer", "undo", "resync", "new_game")


def random_event(rng: random.Random, s: Session) -> dict[str, object]:
    """One input a board, a thrower or an operator could send now; mostly plausible, sometimes not."""
    game = s.game
    on = [sq for sq in range(1, 31) if s.board >> (sq - 1) & 1]
    empty = [sq for sq in range(1, 31) if sq not in on]
    roll = rng.random()
    if roll < 0.22:
        return {"lift": rng.choice(on) if on and rng.random() < 0.9 else rng.randint(1, 30)}
    if roll < 0.44:
        return {"place": rng.choice(empty) if empty and rng.random() < 0.9 else rng.randint(1, 30)}
    if roll < 0.58:
        return {"wait": rng.choice([0, 50, 300, 600, 600, 3500, 16000])}
    if roll < 0.70:
        if s.spec["variant"] == "cards":
            names = game.card_names()
            hand = game.hand(game.to_move_id) if not game.is_over else []
            pick = rng.random()
            if pick < 0.6:
                return {"card": rng.choice(hand) if hand and rng.random() < 0.85 else rng.choice(names)}
            if pick < 0.85:
                pool = hand or names
                return {"exchange": rng.sample(pool, min(len(pool), rng.choice([1, 2])))}
            return {"pass": True}
        if s.spec["variant"] == "modern":
            dice = [rng.randint(1, 6) for _ in range(rng.choice([1, 2, 2, 2]))]
            return {"throw": dice}
        values = [1, 2, 3, 4, 6] if s.spec["variant"] == "secret" else [1, 2, 3, 4, 5]
        return {"throw": rng.choice(values)}
    if roll < 0.78:
        question = s.question
        if question and rng.random() < 0.7:
            options = list(question.get("options", []))
            if options and rng.random() < 0.5:
                return {"answer": str(rng.choice(options))}
            return {"answer": rng.randint(1, max(1, len(options)))}
        return {"answer": rng.choice([0, 1, 2, 3, "keep", "undo", "swapped", "put back", "no move"])}
    if roll < 0.85:
        legal = [m for seq in game.move_sequences() for m in seq] if game.pending is not None else []
        if legal and rng.random() < 0.6:
            m = rng.choice(legal)
            event: dict[str, object] = {"move": [m.from_sq, "off" if m.to_sq == 31 else m.to_sq]}
            if s.spec["variant"] == "modern" and m.by:
                event["by"] = m.by
            return event
        a = rng.choice(on) if on else rng.randint(1, 30)
        return {"move": [a, rng.choice([*range(1, 31), "off"])]}
    if roll < 0.90:
        return {"undo": True}
    if roll < 0.94:
        return {"resync": True}
    if roll < 0.96:
        return {"new_game": True}
    # a full snapshot, as a board sends on start and the USB bridge after a reconnect
    squares = set(on)
    for _ in range(rng.randint(0, 3)):
        squares ^= {rng.randint(1, 30)}
    return {"sense": sorted(squares)}


def random_handling(rng: random.Random, s: Session) -> list[dict[str, object]]:
    """What hands do in one go: a legal move carried out (pieces landed on lifted first or after), the
    prompt or fix on show followed, two pieces swapped, a piece moved or taken off; with waits."""
    game = s.game
    on = [sq for sq in range(1, 31) if s.board >> (sq - 1) & 1]
    empty = [sq for sq in range(1, 31) if sq not in on]
    roll = rng.random()
    events: list[dict[str, object]] = []
    if roll < 0.4 and game.pending is not None and not game.is_over:
        sequences = game.move_sequences()
        if sequences:
            for c in carries(game.copy(), rng.choice(sequences)):
                if c.from_sq != OFF and s.board >> (c.from_sq - 1) & 1 and rng.random() < 0.9:
                    events.append({"lift": c.from_sq})
                if c.to_sq != OFF:
                    events.append({"place": c.to_sq})
    elif roll < 0.6:
        shown = s.prompt or next((v for v in reversed(s.seen[-6:]) if v["v"] == "fix"), None)
        if shown:
            a, b = shown.get("from"), shown.get("to")
            if isinstance(a, int) and 1 <= a <= 30:
                events.append({"lift": a})
            if isinstance(b, int) and 1 <= b <= 30:
                events.append({"place": b})
    elif roll < 0.75 and len(on) >= 2:
        a, b = rng.sample(on, 2)
        events += [{"lift": a}, {"lift": b}, {"place": rng.choice([a, b])}, {"place": rng.choice([a, b])}]
    elif on and empty:
        a = rng.choice(on)
        events.append({"lift": a})
        if rng.random() < 0.7:
            events.append({"place": rng.choice(empty)})
    if rng.random() < 0.8:
        events.append({"wait": rng.choice([600, 600, 3500, 16000])})
    return events


def check_judged(s: Session, event: dict[str, object], verdicts: list[dict[str, object]]) -> None:
    for v in verdicts:
        json.dumps(v)  # every verdict has its JSON form
        parse_verdict(v)  # and it is one of the kinds the project defines, with their fields
    assert well_formed(s.referee.state), s.explain(f"{event} left open work no case holds: {s.referee.state.open}")
    (kind,) = [k for k in event if k != "by"]
    if kind in ACTIONS:
        assert verdicts, s.explain(f"{event} got no verdict at all: neither done nor refused with a reason")
    for v in verdicts:
        if v["v"] == "illegal":
            assert str(v.get("reason", "")).strip(), s.explain(f"{event} refused with no reason: {v}")


def fuzz(variant: str, players: int, seed: int, length: int, handling: float = 0.7) -> Session:
    rng = random.Random(seed)
    s = Session(variant, players, options_for(variant, seed))
    while len(s.events) < length:
        for event in random_handling(rng, s) if rng.random() < handling else [random_event(rng, s)]:
            try:
                verdicts = s.feed(event)
            except Exception as exc:  # the property under test: nothing may escape the referee
                raise AssertionError(s.explain(f"{event} raised {type(exc).__name__}: {exc}")) from exc
            check_judged(s, event, verdicts)
    s.seen += [as_json(v) for v in s.referee.flush()]
    return s


@settings(max_examples=60)
@given(st.sampled_from(RULE_SETS), st.integers(0, 2**32 - 1), st.sampled_from([0.3, 0.7, 0.9]))
@example(("modern", 4), 812, 0.7)  # found on main: KeyError in Referee._warn_swap
def test_no_input_crashes_the_referee(rule_set, seed, handling):
    """`handling`: how much of the input is whole handlings rather than single inputs (operator
    actions, throws, stray switches): each mix finds other crashes."""
    s = fuzz(*rule_set, seed, length=120, handling=handling)
    # The same events as a replay file are judged the same way (what `senet-pi replay` prints).
    again = [{k: val for k, val in v.items() if k != "event"} for v in replay_verdicts(s.replay())]
    assert again == [{k: val for k, val in v.items() if k != "event"} for v in s.seen], s.explain("replay differs")


@pytest.mark.parametrize("rule_set", RULE_SETS, ids=[f"{v}-{p}" for v, p in RULE_SETS])
def test_no_input_crashes_senet_pi_replay(rule_set, tmp_path, capsys):
    """The same, through the command line in-process: exit 0 and one JSON verdict per line."""
    for seed in range(3):
        s = fuzz(*rule_set, seed=1000 + seed, length=150)
        path = tmp_path / f"fuzz-{seed}.json"
        path.write_text(json.dumps(s.replay()), encoding="utf-8")
        code = main(["replay", str(path)])
        out, err = capsys.readouterr()
        assert code == 0 and not err, s.explain(f"exit {code}: {err}")
        lines = [json.loads(line) for line in out.splitlines()]
        assert all("v" in line for line in lines)
        assert len(lines) == len(s.seen), s.explain("the command printed other verdicts than the referee gave")


#: Inputs the fuzzer found crashing the referee (shrunk by hand-run delta debugging): each is a
#: replay file that must be judged to its end, whatever the verdicts.
KNOWN_CRASHES = [
    # KeyError in Referee._warn_swap: two pieces lifted together, one moved by an entered move
    {"variant": "modern", "players": 4, "events": [
        {"throw": [4, 2]}, {"lift": 11}, {"lift": 13}, {"wait": 600}, {"lift": 9}, {"lift": 16}, {"place": 16},
        {"throw": [5, 6]}, {"place": 9}, {"move": [9, 11], "by": 2}, {"lift": 17}, {"place": 23}, {"wait": 600},
        {"lift": 1}, {"wait": 16000}, {"place": 24},
    ]},
    # KeyError in Referee._warn_swap: a swap warned about, then a square of it judged stuck and emptied
    {"variant": "modern", "players": 4, "events": [
        {"place": 22}, {"wait": 600}, {"place": 28}, {"wait": 16000}, {"lift": 7}, {"throw": [6, 2]}, {"place": 7},
        {"lift": 7}, {"lift": 17}, {"place": 7}, {"place": 17}, {"wait": 16000}, {"lift": 17}, {"place": 23},
        {"wait": 600}, {"lift": 7}, {"place": 17}, {"wait": 16000}, {"place": 25}, {"wait": 600}, {"lift": 5},
    ]},
    # KeyError in Referee._warn_swap (two players): a swap warned about, then the squares change
    {"variant": "modern", "players": 2, "events": [
        {"throw": [2, 6]}, {"lift": 9}, {"lift": 8}, {"place": 8}, {"place": 9}, {"wait": 600}, {"place": 27},
        {"wait": 16000}, {"place": 12}, {"lift": 7}, {"place": 15}, {"wait": 3500}, {"lift": 9},
    ]},
    # KeyError in physical._simulate: undo twice after moves entered on a board that differs from the game
    {"variant": "secret", "players": 2, "events": [
        {"sense": [2, 3, 4, 5, 6, 8, 9, 11, 13, 18, 21, 29]}, {"wait": 600}, {"place": 16}, {"undo": True},
        {"lift": 16}, {"throw": 3}, {"lift": 3}, {"place": 3}, {"throw": 4}, {"lift": 9}, {"place": 9},
        {"throw": 1}, {"place": 14}, {"undo": True}, {"undo": True},
    ]},
    # KeyError in Referee._warn_swap: an undo while a swap is warned about
    {"variant": "modern", "players": 4, "events": [
        {"throw": [1, 5]}, {"lift": 18}, {"lift": 17}, {"place": 18}, {"place": 17}, {"wait": 3500}, {"place": 24},
        {"place": 23}, {"undo": True}, {"lift": 11}, {"wait": 600}, {"lift": 17},
    ]},
]  # fmt: skip


@pytest.mark.parametrize("replay", KNOWN_CRASHES, ids=[f"crash-{n}" for n in range(len(KNOWN_CRASHES))])
def test_inputs_that_once_crashed_the_referee_are_judged(replay):
    verdicts = replay_verdicts(replay)
    for v in verdicts:
        parse_verdict({k: value for k, value in v.items() if k != "event"})  # replay adds the event index
    # judged for real, not caught by the referee's last line of defence
    assert not [v for v in verdicts if "could not judge" in str(v.get("reason", ""))], verdicts


@pytest.mark.parametrize("replay", KNOWN_CRASHES, ids=[f"crash-{n}" for n in range(len(KNOWN_CRASHES))])
def test_inputs_that_once_crashed_the_referee_are_journaled_and_survive_a_restart(replay, tmp_path):
    """In the running service: each input is judged (or refused with a reason) and journaled; after a
    restart the game resumes from the journal with the same verdicts, nothing set aside."""
    path = tmp_path / "journal.sqlite"
    clock = ScriptClock()
    service = Service(
        Journal(path),
        variant=str(replay["variant"]),
        players=int(replay["players"]),
        clock=clock,
    )
    feed(service, clock, list(timed_inputs(replay["events"])))  # as replay times them
    clock.t += 1.0  # the board left still past the settle time (replay's end of file)
    service.tick()
    history = json.loads(json.dumps([v.json() for v in service.history]))
    service.close()
    resumed = Service(Journal(path), clock=ScriptClock(clock.t))
    try:
        assert not [n for n in resumed.notes if "damaged" in n or "cannot resume" in n], resumed.notes
        assert json.loads(json.dumps([v.json() for v in resumed.history])) == history
    finally:
        resumed.close()
