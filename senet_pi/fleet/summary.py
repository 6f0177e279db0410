"""What a board says to Home Assistant, Node-RED and people: a short retained summary and the
events worth acting on, in the board's language, beside the contract's raw state and verdicts.

The summary (`senet-pi/BOARD/summary`, retained, so nothing is stale after a restart): the game
as one of GAME_STATES, the player to move by name (none once the game is over), the last thing
that happened in words with its kind, and whether the table needs staff and why.

The events (`senet-pi/BOARD/event`, QoS 1, not retained), one of EVENT_TYPES each: a win (who
and the score), an illegal move, a new game, and a table needing staff: a question unanswered
or a fix not followed for `staff_after` seconds, or a switch gone faulty.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..verdicts import (
    Answered,
    Cleared,
    Fix,
    Illegal,
    NewGame,
    Question,
    Resynced,
    Settled,
    Switch,
    Verdict,
    Win,
    Withdrawn,
)

GAME_STATES = ["waiting", "playing", "won"]
EVENT_TYPES = ["win", "illegal", "new_game", "needs_staff"]
STAFF_AFTER = 60.0  # seconds a question may wait, or a fix be left undone, before staff are called

#: The kinds that count as "the last thing that happened" (not the referee's running commentary:
#: progress, settled, turn, bonus...).
NOTABLE = {
    "move", "illegal", "win", "forfeit", "out", "removed", "throw", "card", "exchange", "pass", "undone",
    "new_game", "resync", "question", "answered", "switch", "fix", "idle",
}  # fmt: skip


class Summary:
    """The board's summary and events, fed the service's verdicts (`heard`) and its state (`json`).

    `words(verdict)`: the verdict in words in the board's language, the players by name (or None).
    Every `now` given is the monotonic clock's (how long a question has waited must not follow a
    wall clock that NTP sets after a boot); `wall()` only dates the last thing for people (`last_at`).
    Not thread-safe: the board's publisher calls it under its own lock.
    """

    def __init__(
        self,
        words: Callable[[Verdict], str | None],
        staff_after: float = STAFF_AFTER,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._words = words
        self._wall = wall
        self.staff_after = staff_after
        self.last: str | None = None
        self.last_kind: str | None = None
        self.last_at: float | None = None
        self._question: tuple[float, str] | None = None  # since when, and its words
        self._fix: tuple[float, str] | None = None
        self._faults: dict[int, str] = {}  # square: words
        self._called: set[str] = set()  # staff reasons already told (once each until they clear)
        self._names: dict[str, str] = {}  # the players' names, from the last state
        self._run = secrets.token_hex(4)
        self._count = 0

    def heard(self, verdicts: list[Verdict], now: float) -> list[dict[str, Any]]:
        """Take the service's verdicts; the events they make, to publish.

        Complexity: one case per verdict kind the summary reports."""
        events = []
        for verdict in verdicts:
            kind = verdict.v
            text = self._words(verdict) if kind in NOTABLE else None
            if text:
                self.last, self.last_kind, self.last_at = text, kind, self._wall()
            if isinstance(verdict, Win):
                winner = self._names.get(verdict.player, verdict.player)
                events.append(self._event("win", text, player=verdict.player, winner=winner, scores=verdict.scores))
            elif isinstance(verdict, Illegal):
                player = verdict.player
                events.append(
                    self._event("illegal", text, player=player, reason=str(verdict.reason), ruling=verdict.ruling)
                )
                if verdict.fix and self._fix is None:
                    self._fix = (now, text or "")
            elif isinstance(verdict, NewGame | Resynced):
                if isinstance(verdict, NewGame):
                    events.append(self._event("new_game", text))
                self._question = self._fix = None
                self._called.discard("question")
                self._called.discard("fix")
            elif isinstance(verdict, Question):
                self._question = (now, text or str(verdict.text))
            elif isinstance(verdict, Answered | Withdrawn):
                self._question = None
                self._called.discard("question")
            elif isinstance(verdict, Fix) and self._fix is None:
                self._fix = (now, text or str(verdict.text))
            elif isinstance(verdict, Cleared | Settled):
                self._fix = None
                self._called.discard("fix")
            elif isinstance(verdict, Switch):
                if verdict.fault:
                    self._faults[verdict.square] = text or str(verdict.text)
                else:
                    self._faults.pop(verdict.square, None)
                    if not self._faults:
                        self._called.discard("switch")
        return events + self.due(now)

    def needs_staff(self, now: float) -> list[tuple[str, str]]:
        """(reason, words) for each reason the table needs staff now."""
        out = []
        if self._question and now - self._question[0] >= self.staff_after:
            out.append(("question", self._question[1]))
        if self._fix and now - self._fix[0] >= self.staff_after:
            out.append(("fix", self._fix[1]))
        if self._faults:
            out.append(("switch", "; ".join(self._faults[sq] for sq in sorted(self._faults))))
        return out

    def due(self, now: float) -> list[dict[str, Any]]:
        """The `needs_staff` events that became due (each reason once until it clears)."""
        events = []
        for reason, text in self.needs_staff(now):
            if reason not in self._called:
                self._called.add(reason)
                events.append(self._event("needs_staff", text, reason=reason))
        return events

    def _event(self, kind: str, text: str | None, **fields: Any) -> dict[str, Any]:
        self._count += 1
        return {"event_type": kind, "text": text, **fields, "event_id": f"{self._run}-{self._count}"}

    def json(self, state: Mapping[str, Any], now: float) -> dict[str, Any]:
        """The retained summary for the board's `state` (its GET /api/state object)."""
        names: dict[str, Any] = state["player_names"] if isinstance(state.get("player_names"), dict) else {}
        self._names = {str(k): str(v) for k, v in names.items()}
        winner, to_move = state.get("winner"), state.get("to_move")
        game = "won" if winner else "playing" if state.get("touched") or state.get("history") else "waiting"
        staff = self.needs_staff(now)
        return {
            "game": game,
            "to_move": None if winner or not to_move else names.get(to_move, to_move),
            "to_move_pieces": None if winner or not to_move else (state.get("pieces") or {}).get(to_move),
            "winner": names.get(winner, winner) if winner else None,
            "scores": state.get("scores"),
            "variant": state.get("variant"),
            "number": state.get("game"),
            "last": self.last,
            "last_kind": self.last_kind,
            "last_at": self.last_at,
            "needs_staff": bool(staff),
            "staff_reason": "; ".join(text for _, text in staff) or None,
        }
