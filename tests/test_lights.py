"""The lights under the squares, checked against the referee (service/lights.py).

Generated games in every rule set: after every lift of the mover's piece with the throw waiting,
the lit squares are exactly that piece's legal destinations; after every warning, exactly the
squares of its first fix (where from blinking, where to steady); and a wrong board is put right by
following the lights alone, as the fix-following tests put it right by following the fix lines.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from senet_pi.referee.state import Mode
from senet_pi.rules.board import bit
from senet_pi.service.lights import (
    LOOKS,
    Kind,
    LightSettings,
    Memory,
    check_colours,
    check_kinds,
    colours,
    level,
    shown,
)
from senet_pi.verdicts import parse_verdict
from tests.referee_physical_play import Play, pick_piece, truthful_swap_answer, truthful_whose_answer
from tests.referee_replay_helpers import GUIDE_MS, RULE_SETS, SETTLE_MS, Session


def prepare(rule_set: tuple[str, int], seed: int) -> Play:
    """A game played by hand for a few turns, stopped before a throw (or card)."""
    play = Play(*rule_set, seed)
    for _ in range(play.rng.randint(0, 8)):
        if play.shadow.is_over:
            break
        play.turn(lambda sequences: (play.rng.choice(sequences), "plain"))
    return play


def spoil(s: Session, rng: random.Random) -> list[str]:
    """Leave the board wrong by hand: one to three slips (a piece moved, taken off, put on, or two
    of different owners swapped), each a physical action on real pieces, sometimes with a pause."""
    done: list[str] = []
    for _ in range(rng.randint(1, 3)):
        on = sorted(s.pieces)
        empty = [sq for sq in range(1, 31) if sq not in s.pieces and not s.board & bit(sq)]
        owners = s.owners_on_board()
        pairs = [(a, b) for a in on for b in on if a < b and owners[a] != owners[b]]
        kind = rng.choice(["move", "move", "remove", "add", "swap"])
        if kind == "move" and on and empty:
            a, b = rng.choice(on), rng.choice(empty)
            s.feed({"lift": a}, {"place": b, "piece": a})
        elif kind == "remove" and on:
            a = rng.choice(on)
            s.feed({"lift": a})
            s.retire(a)
        elif kind == "add" and empty and s.box:
            s.feed({"place": rng.choice(empty), "piece": s.box[-1][0]})
        elif kind == "swap" and pairs:
            a, b = rng.choice(pairs)
            s.feed({"lift": a}, {"lift": b}, {"place": a, "piece": b}, {"place": b, "piece": a})
        else:
            continue
        done.append(kind)
        if rng.random() < 0.3:
            s.wait(SETTLE_MS)
    return done


def lights_of(s: Session) -> dict[str, str]:
    """The lights as the service shows them: the referee's state and every verdict said so far."""
    return shown(s.referee, Memory().took(parse_verdict(v) for v in s.seen))


class LitPlay(Play):
    """A game played by hand that checks the lights after each lift of the mover's piece."""

    checked = 0

    def lift(self, square: int) -> None:
        s = self.s
        game = s.game
        plain = s.board == game.occupied() and not s.held  # nothing in the hand, the board right
        mover = (game.piece_at(square) or ("",))[0] == game.to_move_id
        super().lift(square)
        if not (plain and mover and game.pending is not None and s.referee.mode is Mode.MOVE):
            return
        legal = {m.to_sq for m in game.legal_moves() if m.from_sq == square and 1 <= m.to_sq <= 30}
        lit = lights_of(s)
        assert lit == {str(sq): "move" for sq in legal}, s.explain(
            f"lifted {square} with {game.pending} to play: lights {lit}, legal destinations {sorted(legal)}"
        )
        self.checked += 1


@pytest.mark.parametrize("rule_set", RULE_SETS)
@pytest.mark.parametrize("seed", range(3))
def test_after_every_lift_the_lit_squares_are_that_pieces_legal_destinations(rule_set, seed):
    play = LitPlay(*rule_set, seed)
    for _ in range(14):
        if play.shadow.is_over:
            break
        play.turn(lambda sequences: (play.rng.choice(sequences), "plain"))
    assert play.checked >= 1, "no lift of the mover's piece with a throw waiting was played"


def first_fix_lights(text: str) -> dict[str, str]:
    """The lights a fix's words call for, read from the words (not from the lights' code)."""
    numbers = [n for n in re.findall(r"\b(\d+)\b", text) if not re.search(rf"with {n} dots", text)]
    if text.startswith("swap"):
        return {numbers[0]: "swap", numbers[1]: "swap"}
    if text.startswith("remove"):
        return {numbers[-1]: "fix_from"}
    if " on " in text and " back on " in text and len(numbers) >= 2:
        return {numbers[-2]: "fix_from", numbers[-1]: "fix_to"}
    return {numbers[-1]: "fix_to"}


@pytest.mark.parametrize("rule_set", RULE_SETS)
@pytest.mark.parametrize("seed", range(8))
def test_after_every_warning_the_lights_show_exactly_its_first_fix(rule_set, seed):
    play = prepare(rule_set, seed)
    s = play.s
    if s.game.is_over:
        return
    spoil(s, play.rng)
    s.wait(SETTLE_MS)
    warning = s.warning
    if warning is None or s.question is not None:
        return
    last = next(v for v in reversed(s.seen) if v["v"] in ("illegal", "fix"))
    if last["v"] == "illegal":  # the warning on show, not yet guided
        assert lights_of(s) == first_fix_lights(str(warning["fix"][0])), s.explain(f"warning {warning}")
    else:  # guided already (the same warning stood): the fix line on show
        assert set(lights_of(s)) == {str(last[k]) for k in ("from", "to") if isinstance(last.get(k), int)}


def follow_the_lights(s: Session, limit: int) -> int:
    """Put the board right by the lights alone: lift where a light blinks, put down where one is
    steady, swap the two squares that blink in turn. Whose piece to put back from off the board is
    the one thing a light does not say (the banner and the voice do): the game's piece for that square."""
    for n in range(limit):
        q = s.question
        if q is not None:  # the people answer what the switches cannot tell, truthfully
            s.answer(truthful_whose_answer(s, q) if q["kind"] == "whose" else truthful_swap_answer(s, q))
            continue
        if s.warning is None:
            return n
        lit = lights_of(s)
        where = {kind: [int(sq) for sq, k in lit.items() if k == kind and sq.isdigit()] for kind in set(lit.values())}
        carry(s, where, lit)
        s.wait(SETTLE_MS)
    raise AssertionError(s.explain(f"{limit} lights followed and the board is still wrong: {s.warning}"))


def carry(s: Session, where: dict[str, list[int]], lit: dict[str, str]) -> None:
    """One fix as the lights show it, carried out as a person would."""
    if "swap" in where:
        a, b = where["swap"]
        s.feed({"lift": a}, {"lift": b}, {"place": a, "piece": b}, {"place": b, "piece": a})
        return
    source, target = where.get("fix_from", []), where.get("fix_to", [])
    assert source or target, s.explain(f"a warning stands and the lights show no fix: {lit}")
    if source:
        s.feed({"lift": source[0]})
    if target:
        assert not s.board & bit(target[0]), s.explain(f"a steady light on occupied {target[0]}: {lit}")
        if source:
            s.feed({"place": target[0], "piece": source[0]})
        else:
            wanted: Any = s.game.piece_at(target[0])
            s.feed({"place": target[0], "piece": pick_piece(s, wanted[0], target[0], _dots(wanted))})
    elif source:
        s.retire(source[0])


def _dots(piece: Any) -> int | None:
    return piece[1] if isinstance(piece[1], int) and not isinstance(piece[1], bool) else None


@pytest.mark.parametrize("rule_set", RULE_SETS)
@pytest.mark.parametrize("seed", range(10))
def test_following_the_lights_alone_repairs_every_wrong_board(rule_set, seed):
    play = prepare(rule_set, seed)
    s = play.s
    if s.game.is_over:
        return
    slips = spoil(s, play.rng)
    s.wait(SETTLE_MS)
    if s.board == s.game.occupied() and not s.swapped_owners():
        return
    wrong = bin(s.board ^ s.game.occupied()).count("1") + len(s.swapped_owners())
    follow_the_lights(s, 2 * wrong + 6)
    assert s.board == s.game.occupied(), s.explain(f"after {slips}: the lights ended off the game's board")
    assert not s.swapped_owners(), s.explain(f"after {slips}: owners swapped on {s.swapped_owners()}")
    left = {sq: kind for sq, kind in lights_of(s).items() if sq.isdigit() and kind != "fault"}
    assert not left, s.explain(f"squares left lit on a board put right: {left}")


# ---------------------------------------------------------------------- the vocabulary itself


def test_no_two_kinds_that_show_together_look_alike_without_colour():
    """Colour is never the only cue: the kinds that can be lit at once differ in pattern."""
    together = [
        {Kind.FIX_FROM, Kind.FIX_TO, Kind.FAULT},
        {Kind.RULES_FROM, Kind.RULES_TO, Kind.FAULT},
        {Kind.COMPUTER_FROM, Kind.COMPUTER_TO, Kind.FAULT},
        {Kind.MOVE, Kind.FAULT},
        {Kind.QUESTION, Kind.FAULT},
        {Kind.SWAP, Kind.FAULT},
    ]
    for kinds in together:
        patterns = [LOOKS[k].pattern for k in kinds]
        assert len(set(patterns)) == len(patterns), kinds


def test_the_palette_is_okabe_ito_and_each_move_kind_has_its_own_colour():
    business = [Kind.MOVE, Kind.FIX_FROM, Kind.RULES_FROM, Kind.COMPUTER_FROM, Kind.QUESTION]
    assert len({LOOKS[k].colour for k in business}) == len(business)
    assert {look.colour for look in LOOKS.values()} <= {
        "E69F00", "56B4E9", "009E73", "F0E442", "0072B2", "D55E00", "CC79A7"
    }  # fmt: skip


def test_a_kind_turned_off_stays_dark_and_colours_and_brightness_follow_the_settings():
    s = Session("secret")
    s.throw(1)
    s.feed({"lift": 10})
    assert lights_of(s) == {"11": "move"}
    quiet = LightSettings(off=frozenset({Kind.MOVE}))
    assert shown(s.referee, Memory(), quiet) == {}
    assert shown(s.referee, Memory(), LightSettings(on=False)) == {}
    settings = LightSettings.from_config({"LIGHTS_COLOURS": ["move=102030"], "LIGHTS_BRIGHTNESS": 50})
    assert colours({"11": "move"}, 0.0, settings) == {"11": 0x081018}  # half of 10 20 30


def test_the_patterns_blink_as_documented():
    from senet_pi.service.lights import Pattern

    assert [level(Pattern.BLINK, t) for t in (0.0, 0.3, 0.5)] == [1.0, 0.0, 1.0]
    assert level(Pattern.ALTERNATE, 0.0, 0) != level(Pattern.ALTERNATE, 0.0, 1)
    assert [level(Pattern.DOUBLE, t) for t in (0.0, 0.15, 0.25, 0.5)] == [1.0, 0.0, 1.0, 0.0]
    assert level(Pattern.STEADY, 12.3) == 1.0


@pytest.mark.parametrize(
    ("check", "value", "says"),
    [
        (check_kinds, ["move", "sparkle"], "'sparkle'"),
        (check_kinds, "move", "'move'"),
        (check_colours, ["move=12345"], "'move=12345'"),
        (check_colours, ["glow=123456"], "'glow=123456'"),
        (check_colours, [3], "3"),
    ],
)
def test_wrong_light_settings_are_named(check, value, says):
    problem = str(check(value))
    assert says in problem, problem
    assert "LIGHTS_" in problem, problem


def test_good_light_settings_pass():
    assert check_kinds(["move", "attract"]) is None
    assert check_colours(["move=#0072b2", "fault = E69F00"]) is None


def test_an_idle_reset_lights_the_attract_pattern_until_someone_plays():
    memory = Memory().took([parse_verdict({"v": "idle", "text": "idle", "game": 1, "minutes": 5})])
    s = Session("secret")
    lit = shown(s.referee, memory)
    assert set(lit.values()) == {"attract"}
    assert len(lit) == 32, "30 squares, the sticks and the button"
    assert shown(s.referee, memory.took([parse_verdict({"v": "throw", "player": "B", "value": 2})])) == {}


def test_the_computers_move_shows_from_blinking_to_steady_until_it_is_made():
    s = Session("secret")
    s.throw(2)
    prompt = {"v": "prompt", "text": "B plays 10-12", "player": "B", "from": 10, "to": 12}
    memory = Memory().took(parse_verdict(v) for v in [*s.seen, prompt])
    assert shown(s.referee, memory) == {"10": "computer_from", "12": "computer_to"}
    s.feed({"lift": 10}, {"place": 12, "piece": 10})
    s.wait(SETTLE_MS)
    memory = memory.took(parse_verdict(v) for v in s.seen[-3:])
    assert "computer_from" not in shown(s.referee, memory).values()


def test_after_an_idle_reset_a_board_left_wrong_shows_its_fix_not_the_attract_pattern():
    memory = Memory().took([parse_verdict({"v": "idle", "text": "idle", "game": 1, "minutes": 5})])
    s = Session("secret")
    s.feed({"lift": 10})
    s.wait(SETTLE_MS + GUIDE_MS)
    assert s.warning is not None, "a piece missing from the setup"
    assert set(shown(s.referee, memory).values()) <= {"fix_to", "fix_from"}
    assert shown(s.referee, memory) != {}
