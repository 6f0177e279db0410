"""The computer's levels and the baselines they are measured against, as players that pick a move.

A player is asked only when a throw (or a card's value) waits and there is a legal move;
everything it may use is the game as the person at the board sees it. In the card game it
never reads a hand it may not see: `Game.redeal_unseen` shuffles the cards it cannot see
(the other hand, the stack, the dead pile) into a sampled deal before it looks ahead.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..rules import Game, Move
from .evaluate import EVALUATIONS, Evaluator
from .fast_search import searcher
from .search import SearchStats
from .tables import Tables


@dataclass(frozen=True)
class Level:
    """How a player searches: throws looked ahead after its move, a node budget, noise, its evaluation."""

    name: str
    depth: int
    budget: int
    noise: float = 0.0
    tables: bool = True
    # "fitted" (features.py), "master" (master.py), "race" (the fitted pip curve) or "pip" (Horolsky's pip ratio)
    evaluation: str = "fitted"
    star2: bool = True
    random: bool = False
    samples: int = 4  # the card game: sampled deals of the cards it cannot see


#: The master's nodes a decision. A node (a move or throw pushed, with its share of leaves and table
#: reads) costs 3.5-6.3 µs of CPU on the machine the figures were measured on: 40,000 nodes took at
#: most 226 ms there (benchmarks/RESULTS-opponent.md). A Raspberry Pi 4 is taken as 5 times slower (the
#: top of the 3-5x the project measured), so 34,000 nodes answer within about 1 s there at worst (0.2 s
#: here). A budget in nodes rather than seconds keeps a seed's game the same on any machine.
MASTER_BUDGET = 34_000

#: The levels a person can choose, weakest first: only levels the ladder separates (see
#: benchmarks/RESULTS-opponent.md). The master deepens one throw at a time while its budget lasts
#: (most decisions finish 3 throws deep; endgames the tables settle stop at once), and starts no
#: fourth throw it foresees it cannot finish (search.py: one costs 10-15 times the third).
LEVELS: dict[int, Level] = {
    1: Level("beginner", depth=0, budget=200, noise=0.3, tables=False, evaluation="pip"),
    # the club reads no tables: with them it played level 3's endgames and was not separated from it
    # (50.8-53.2 % over 2,000-game deal ranges); without them the ladder holds on any deal
    2: Level("club", depth=0, budget=400, tables=False),
    3: Level("expert", depth=1, budget=4_000),
    # the master alone judges by its phased evaluation (master.py): the rungs below were measured with theirs
    4: Level("master", depth=12, budget=MASTER_BUDGET, evaluation="master"),
}

#: What the levels are measured against (`senet-pi tournament`).
BASELINES: dict[str, Level] = {
    "random": Level("random", depth=0, budget=1, random=True, tables=False),
    "greedy": Level("greedy", depth=0, budget=400, tables=False, evaluation="pip"),
    "pip3": Level("pip3", depth=2, budget=1 << 40, tables=False, evaluation="pip"),
}


def find_player(name: str) -> Level:
    """A level by number ("1"-"4") or name, or a baseline by name; ValueError if none."""
    if name.isdigit() and int(name) in LEVELS:
        return LEVELS[int(name)]
    for level in [*LEVELS.values(), *BASELINES.values()]:
        if level.name == name:
            return level
    raise ValueError(f"no player {name!r}: use a level 1-{len(LEVELS)} or one of {', '.join(BASELINES)}")


class Computer:
    """A player of one level. `seed` fixes its noise and sampling, so a seed replays its game."""

    def __init__(self, level: Level, tables: Tables | None = None, seed: int = 0) -> None:
        self.level = level
        self.rng = random.Random(seed)
        self.evaluator = Evaluator(tables if level.tables else None, EVALUATIONS[level.evaluation])
        self.last = SearchStats()

    def choose(self, game: Game) -> Move:
        """The move to play for the value waiting (the game must have a legal move)."""
        moves = game.legal_moves()
        if self.level.random:
            return moves[self.rng.randrange(len(moves))]
        if len(moves) == 1:
            self.last = SearchStats(values={str(moves[0]): float("nan")})
            return moves[0]
        scored, self.last = self.values(game)
        return self._pick(scored)

    def values(self, game: Game) -> tuple[list[tuple[Move, float]], SearchStats]:
        """Every legal move with the chance it leaves the mover (estimated by this level's search)."""
        exact = self.evaluator.exact if self.level.tables else None
        # the search asks the tables itself first, so its evaluation is the fallback alone (never a game that is over)
        search = searcher(game, self.evaluator.fallback, self.level.budget, self.level.star2, exact)
        depth = self.level.depth if game.turn_starts_with == "throw" else 0  # cards: no throws to look ahead on
        scored, stats = search.deepen(depth)
        stats.values = {str(m): v for m, v in scored}
        return scored, stats

    def _pick(self, scored: list[tuple[Move, float]]) -> Move:
        noise = self.level.noise
        best = max(scored, key=lambda mv: mv[1] + (self.rng.gauss(0.0, noise) if noise else 0.0))
        return best[0]

    # ------------------------------------------------------------------ the card game

    def card_turn(self, game: Game) -> None:
        """Play one whole turn of the card game: a card (or an exchange, or a pass) and its moves.

        Each option is tried on `samples` sampled deals of the cards this player cannot see, and the
        option with the best average evaluation afterwards is played on the real game."""
        p = game.to_move
        options: list[tuple[str, object]] = [
            ("card", c) for c in dict.fromkeys(game.hand(game.to_move_id)) if game.playable(c)
        ]
        if game.can_exchange():
            options.append(("exchange", None))
        if not options:
            game.push_pass()
            return
        if self.level.random or len(options) == 1:
            kind, card = options[self.rng.randrange(len(options))]
            self._act(game, kind, card)
            return
        best, best_value = options[0], -1.0
        for option in options:
            total = 0.0
            for _ in range(max(1, self.level.samples)):
                trial = game.copy(history=False)
                trial.redeal_unseen(game.to_move_id, self.rng)
                self._act(trial, *option)
                total += self.evaluator(trial)[p]
            value = total / max(1, self.level.samples) + (
                self.rng.gauss(0.0, self.level.noise) if self.level.noise else 0.0
            )
            if value > best_value:
                best, best_value = option, value
        self._act(game, *best)

    def _act(self, game: Game, kind: str, card: object) -> None:
        p = game.to_move
        if kind == "exchange":
            hand = game.hand(game.to_move_id)
            worst = sorted(hand, key=lambda c: (game.playable(c), c))[: min(2, len(hand))]
            game.push_exchange(worst)
        else:
            game.push_card(str(card))
        while (game.winner is None and game.to_move == p) or game.phase == "nile":
            moves = game.legal_moves()
            if game.phase == "residue" and not moves:
                game.push_pass()
            elif moves:
                game.push(moves[self.rng.randrange(len(moves))] if self.level.random else self.choose(game))
            else:
                break
            if game.phase == "play" and game.pending is None:
                break
