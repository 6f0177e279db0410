"""Verdicts: what the referee decided, as JSON-ready dicts (the replay contract's output lines).

The kinds outside tests read are `move`, `illegal`, `bonus`, `turn` and `win`
(`../shared/spec/replay.md`); `forfeit` and `out` are this project's additions. What the
rules did by themselves after a move rides on the move line as `effects`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

from .errors import IllegalMoveError
from .rules.board import square_name
from .rules.effects import Bonus, Effect, Eliminated, Forfeit, Turn, Win
from .rules.move import Move

Verdict = dict[str, object]


def _effect_fields(effect: Effect) -> dict[str, object]:
    data = asdict(effect)
    out: dict[str, object] = {"kind": data.pop("kind")}
    for key, value in data.items():
        if key == "from_sq":
            out["from"] = square_name(value)
        elif key == "to_sq":
            out["to"] = square_name(value)
        else:
            out[key] = value
    return out


def from_effects(effects: Sequence[Effect], move: Move | None = None, player: str | None = None) -> list[Verdict]:
    """The verdict lines for a played move (or throw) and the effects the engine reported."""
    lines: list[Verdict] = []
    rules_moved = []
    tail: list[Verdict] = []
    for effect in effects:
        if isinstance(effect, Bonus):
            tail.append({"v": "bonus", "player": effect.player})
        elif isinstance(effect, Turn):
            tail.append({"v": "turn", "player": effect.player})
        elif isinstance(effect, Win):
            line: Verdict = {"v": "win", "player": effect.player}
            if effect.scores is not None:
                line["scores"] = effect.scores
            tail.append(line)
        elif isinstance(effect, Forfeit):
            throw = _json_throw(effect.throw)
            lines.append({"v": "forfeit", "player": effect.player, "throw": throw, "reason": effect.reason})
        elif isinstance(effect, Eliminated):
            tail.append({"v": "out", "player": effect.player})
        else:
            rules_moved.append(_effect_fields(effect))
    if move is not None:
        line = {"v": "move", "player": player, "from": move.from_sq, "to": square_name(move.to_sq), "by": move.by}
        if rules_moved:
            line["effects"] = rules_moved
        lines.insert(0, line)
    elif rules_moved:  # e.g. pieces removed when a player leaves (M9)
        tail.insert(0, {"v": "removed", "effects": rules_moved})
    return lines + tail


def illegal(error: IllegalMoveError, **context: object) -> Verdict:
    """An `illegal` line: the reason in words, the ruling that decides it, and where it happened."""
    return {"v": "illegal", "reason": str(error), "ruling": error.ruling, **context}


def _json_throw(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value
