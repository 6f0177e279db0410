"""Driving a referee the way hands drive a board: `board.do("lift 10", "place 13", wait=500)`."""

from __future__ import annotations

from senet_pi.referee import Referee
from senet_pi.rules import Game


class Hands:
    """A referee, a clock in seconds, and every verdict seen so far."""

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
            out += getattr(self.referee, verb)(int(square), self.clock)
        self.seen += out
        if wait:
            out += self.wait(wait)
        return out

    def wait(self, ms: int) -> list[dict]:
        self.clock += ms / 1000
        out = self.referee.tick(self.clock)
        self.seen += out
        return out

    def throw(self, value: object) -> list[dict]:
        out = self.referee.throw(value, at=self.clock)
        self.seen += out
        return out

    def call(self, name: str, *args: object) -> list[dict]:
        out = getattr(self.referee, name)(*args, at=self.clock)
        self.seen += out
        return out


def kinds(verdicts: list[dict]) -> list[str]:
    return [v["v"] for v in verdicts]


def moves_in(verdicts: list[dict]) -> list[str]:
    return [f"{v['from']}-{v['to']}" for v in verdicts if v["v"] == "move"]
