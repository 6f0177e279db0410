"""`senet-pi hint FILE`: the player to move's chance to win and every legal move's, best first.

The contract is `../shared/spec/opponent.md`: the replay file is judged as `senet-pi replay`
judges it, and the hint is for the game as it then stands. Exact (to 0.001, from the solved
tables) in `secret` and `houses` while each side has at most three pieces to bear off; the
search's estimate, marked `"exact": false`, anywhere else.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..errors import ReplayError
from ..opponent.fast_search import searcher
from ..opponent.players import LEVELS, Computer
from ..opponent.tables import Tables
from ..referee import Referee
from ..rules import Game
from .replay import Replay, run_replay


def game_after(replay: Replay) -> Game:
    """The game as it stands once the replay's events are judged."""
    referee = Referee(replay.new_game())
    for _ in run_replay(replay, referee):
        pass
    return referee.game


class Hinter:
    """Chances from the tables where they reach, else from the strongest level's search."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.computer = Computer(LEVELS[max(LEVELS)], tables)

    def chance(self, game: Game, player: int) -> tuple[float, bool]:
        """`player`'s chance to win from `game` (no throw waiting), and whether it is exact."""
        if game.is_over:
            return (1.0 if game.winner == player else 0.0), True
        v = self.tables.exact(game)
        if v is not None:
            return (v if game.to_move == player else 1.0 - v), True
        if game.turn_starts_with != "throw":
            return self.computer.evaluator(game)[player], False
        return self._searched(game, player), False

    def _searched(self, game: Game, player: int) -> float:
        """The strongest level's search from a position with no throw waiting, deepened while its budget lasts:
        on the rules' fast path where the rule set has one (`searcher`), which asks the tables first itself."""
        level, evaluator = self.computer.level, self.computer.evaluator
        v = evaluator(game)[game.to_move]
        search = searcher(game, evaluator.fallback, level.budget, level.star2, self.tables.exact)
        v = search.deepen_chance(level.depth, v)
        return v if game.to_move == player else 1.0 - v

    def moves(self, game: Game) -> tuple[list[tuple[str, float]], bool]:
        """Every legal move for the value waiting with the mover's chance after it, best first."""
        p = game.to_move
        out, exact = [], True
        moves = game.legal_moves()
        level = self.computer.level  # the strongest level's budget, shared among the moves
        self.computer = Computer(replace(level, budget=max(300, level.budget // max(1, len(moves)))), self.tables)
        for m in moves:
            game.push(m)
            try:
                if game.pending is not None and not game.is_over:  # dice left to play: the mover's best way on
                    scored, _ = self.computer.values(game)
                    v, ex = max((s for _, s in scored), default=0.0), False
                else:
                    v, ex = self.chance(game, p)
            finally:
                game.pop()
            out.append((str(m), v))
            exact = exact and ex
        out.sort(key=lambda mv: -mv[1])
        return out, exact


def hint(replay: Replay, tables: Tables) -> dict[str, Any]:
    """The hint object of opponent.md for the game a replay leads to; ReplayError for a game that is over."""
    game = game_after(replay)
    if game.is_over:
        raise ReplayError(f"the game is over: {game.winner_id} has won")
    hinter = Hinter(tables)
    actions = game.actions
    forfeited = (
        game.pending is None
        and bool(actions)
        and actions[-1][0] == "throw"
        and any(e.kind == "forfeit" for e in game.effects)
    )
    if game.pending is None and not forfeited:
        player = game.to_move
        win, exact = hinter.chance(game, player)
        out: dict[str, Any] = {"player": game.player_ids[player], "win": round(win, 4)}
    elif forfeited:  # P7: the throw could not be played; the chance after it is forfeited
        forfeiter = next(e for e in game.effects if e.kind == "forfeit").player
        index = game.player_ids.index(forfeiter)
        win, exact = hinter.chance(game, index)
        out = {"player": forfeiter, "throw": _throw(actions[-1][1]), "win": round(win, 4), "moves": []}
    else:
        player = game.to_move
        moves, exact = hinter.moves(game)
        best = moves[0][1] if moves else hinter.chance(game, player)[0]
        out = {
            "player": game.player_ids[player],
            "throw": _throw(game.pending),
            "win": round(best, 4),
            "moves": [{"move": m, "win": round(v, 4)} for m, v in moves],
        }
    if not exact:
        out["exact"] = False
    return out


def _throw(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    return value if isinstance(value, int) else str(value)
