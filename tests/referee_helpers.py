"""Driving a referee the way hands drive a board: `board.do("lift 10", "place 13", wait=500)`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from senet_pi.events import timed_inputs
from senet_pi.referee import Referee
from senet_pi.referee.hands import scripted_game
from senet_pi.referee.physical import OFF
from senet_pi.referee.state import Asking, Nothing, Owing, RefereeState, Repairing, work
from senet_pi.rules import Game, new_game
from senet_pi.verdicts import Verdict


class Hands:
    """A referee, a clock in seconds, and every verdict seen so far, in its JSON form (the replay
    contract's lines, which these tests read)."""

    def __init__(self, game: Game, **kwargs: float) -> None:
        self.referee = Referee(game, **kwargs)
        self.clock = 0.0
        self.seen: list[dict] = []

    @property
    def game(self) -> Game:
        return self.referee.game

    def do(self, *actions: str, wait: int = 0) -> list[dict]:
        """Switch changes at the current time (`lift N`, `place N`), then `wait` milliseconds."""
        out: list[dict] = []
        for action in actions:
            verb, square = action.split()
            out += as_json(getattr(self.referee, verb)(int(square), self.clock))
        self.seen += out
        if wait:
            out += self.wait(wait)
        return out

    def wait(self, ms: int) -> list[dict]:
        self.clock += ms / 1000
        out = as_json(self.referee.tick(self.clock))
        self.seen += out
        return out

    def throw(self, value: object) -> list[dict]:
        out = as_json(self.referee.throw(value, at=self.clock))
        self.seen += out
        return out

    def call(self, name: str, *args: object) -> list[dict]:
        out = as_json(getattr(self.referee, name)(*args, at=self.clock))
        self.seen += out
        return out


def as_json(verdicts: list[Verdict]) -> list[dict]:
    """Typed verdicts in the JSON form the journal and `senet-pi replay` give them."""
    return [v.json() for v in verdicts]


def kinds(verdicts: list[dict]) -> list[str]:
    return [v["v"] for v in verdicts]


def moves_in(verdicts: list[dict]) -> list[str]:
    return [f"{v['from']}-{v['to']}" for v in verdicts if v["v"] == "move"]


def run_with_config(tmp_path, config: str, script: str):
    import os
    import subprocess
    import sys

    instance = tmp_path / "instance"
    instance.mkdir(parents=True)
    (instance / "config.toml").write_text(config)
    (tmp_path / "script.txt").write_text(script)
    return subprocess.run(
        [
            *(sys.executable, "-m", "senet_pi", "run", "--backend", "sim", "--page-port", "0"),
            *("--journal", str(tmp_path / "j.sqlite"), "--script", str(tmp_path / "script.txt")),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SENET_PI_INSTANCE": str(instance)},
    )


def walk(game, steps, victim_first: bool = False) -> list[tuple[str, int, dict[int, str]]]:
    """The switch changes of carrying out `steps`, each with the wooden board after it (`victim_first`:
    a piece in the way is lifted before the one that takes its square, as `switch_events` does)."""
    wood = {sq: piece[0] for sq in game.board() if (piece := game.piece_at(sq))}
    out: list[tuple[str, int, dict[int, str]]] = []
    in_hand: set[int] = set()  # squares whose piece was lifted out of the way (as switch_events)
    for step in steps:
        lifts = []
        if step.from_sq != OFF and step.from_sq not in in_hand:
            lifts.append(step.from_sq)
        if step.to_sq != OFF and step.to_sq in wood and step.to_sq != step.from_sq:
            lifts.insert(0 if victim_first else len(lifts), step.to_sq)
            in_hand.add(step.to_sq)
        in_hand.discard(step.from_sq)
        for sq in lifts:
            if sq in wood:
                del wood[sq]
                out.append(("lift", sq, dict(wood)))
        if step.to_sq != OFF:
            wood[step.to_sq] = step.player
            out.append(("place", step.to_sq, dict(wood)))
    return out


def well_formed(state: RefereeState) -> bool:
    """The referee's open work is one case of its union: a question over no question, and never a
    repair with nothing in it (`state.work` builds the smallest case that holds its parts)."""
    under = state.open.over if isinstance(state.open, Asking) else state.open
    if isinstance(under, Asking) or not isinstance(under, Nothing | Owing | Repairing):
        return False
    return not isinstance(under, Repairing) or work(under.toward, under.warning, under.guiding, under.repair) == under


def referee_for(script: dict, variant: str, players: int) -> Referee:
    """A referee at a scripted game's start, with the script's options (the card game's deck)."""
    options = script.get("options")
    return Referee(new_game(variant, players=players, options=options if isinstance(options, dict) else None))


def scripted_walks(rule_set: tuple[str, int], seeds: int = 2) -> Iterator[tuple[Referee, list[tuple[int, str, Any]]]]:
    """Whole scripted games of a rule set (variant, players): for each seed, a referee at the game's
    start and the game's timed inputs (ms, kind, value), for a test to feed one at a time."""
    variant, players = rule_set
    for seed in range(seeds):
        script = scripted_game(variant, seed, players)
        yield referee_for(script, variant, players), list(timed_inputs(script["events"]))
