"""Driving a referee the way hands drive a board: `board.do("lift 10", "place 13", wait=500)`."""

from __future__ import annotations

from senet_pi.referee import Referee
from senet_pi.rules import Game
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
