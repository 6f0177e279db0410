"""Every error senet-pi raises on purpose: a `SenetError` plus the builtin it is a kind of."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules.reasons import Reason


class SenetError(Exception):
    """Base of all senet-pi errors; its message is meant for a player or an operator."""


class InvalidMoveError(SenetError, ValueError):
    """The text of a move or a square could not be read (syntax, not rules)."""


class InvalidThrowError(SenetError, ValueError):
    """A throw value the rule set cannot produce."""


class InvalidOptionError(SenetError, ValueError):
    """An unknown rule set, option or option value, or an impossible position."""


class IllegalMoveError(SenetError, ValueError):
    """A move the rules forbid here; `.reason` says why and `.ruling` which ruling decides it."""

    def __init__(self, reason: Reason, **details: object) -> None:
        self.reason = reason
        self.ruling = str(details.get("ruling", reason.ruling))
        self.details = details
        super().__init__(reason.explain(**details))

    @property
    def text(self) -> str:
        """The message as the `Text` it was made from, so it can be translated (str(error) is plain)."""
        message: str = self.args[0]
        return message


class ReplayError(SenetError, ValueError):
    """A replay file that is not valid; the message names the event index where there is one."""


class PinMapError(SenetError, ValueError):
    """A pin map file that cannot be used; the message says which line to fix."""


class BackendError(SenetError, OSError):
    """A board that cannot be reached: no pin library off a Pi, a port that will not open."""


class DeviceClosed(SenetError, RuntimeError):
    """A hardware device used after `close()` (gpiozero's DeviceClosed, for senet-pi's devices)."""


class BadEventHandler(SenetError, TypeError):
    """A `when_*` handler that is neither callable nor None (gpiozero's BadEventHandler)."""


class ConfigWriteError(SenetError, ValueError):
    """A change to a config.toml that was refused or could not be written; the file is as it was."""
