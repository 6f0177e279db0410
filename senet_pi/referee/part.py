"""A part of the referee, over the one `Core`: it reads the core's state and game each time (an undo
or a new game replaces them, so they are never kept)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rules import Game
from .state import RefereeState

if TYPE_CHECKING:
    from .core import Core


class Part:
    """A part of the referee, composed over one `Core`: it reads the core's one state and game
    (through `state` and `game` each time, never kept: an undo or a new game replaces them)."""

    def __init__(self, core: Core) -> None:
        self.core = core

    @property
    def state(self) -> RefereeState:
        """The referee's one state, as the core holds it now."""
        return self.core.state

    @property
    def game(self) -> Game:
        """The game the referee follows, as the core holds it now."""
        return self.core.game
