"""The journal a service keeps when it is given none: the journal's methods the service calls,
each doing nothing, so the service writes to its journal the same way with or without one."""

from __future__ import annotations

from collections.abc import Sequence

from ..verdicts import Verdict
from .journal import GameRecord


class NoJournal:
    """Writes nothing, holds nothing, is never in trouble: a service without a journal."""

    damaged: str | None = None
    notice: str | None = None
    trouble: str | None = None
    pending: int = 0

    def game_in_progress(self) -> GameRecord | None:
        """No game is ever left in progress."""
        return None

    def start_over(self, why: str) -> None:
        """Nothing to set aside."""

    def start_game(
        self,
        variant: str,
        players: int,
        options: dict[str, object],
        position: dict[str, object] | None = None,
        started: float | None = None,
    ) -> int:
        """Every game is game 0: nothing numbers them."""
        return 0

    def end_game(self, game: int, winner: str | None) -> None:
        """Nothing to end."""

    def record_event(self, game: int, seq: int, ms: int, kind: str, value: object) -> None:
        """An input is not kept."""

    def record_verdicts(self, game: int, event: int, verdicts: Sequence[Verdict]) -> None:
        """Verdicts are not kept."""

    def record_note(self, key: str, text: str) -> None:
        """A note is not kept (the service says it on the terminal all the same)."""

    def record_pending_date(self, game: int, column: str, boot: str, mono: float) -> None:
        """No date to put right later."""

    def shift_time(self, game: int, column: str, delta: float) -> None:
        """No date to move with the clock."""

    def flush(self) -> bool:
        """Nothing is ever held, so nothing is written."""
        return False

    def close(self) -> None:
        """Nothing to close."""
