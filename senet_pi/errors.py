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


# ---------------------------------------------------------------------- the service, the fleet and the front ends


class ConfigError(SenetError, ValueError):
    """An instance `config.toml` that cannot be used; said at startup, not as a 500 later."""


class JournalError(SenetError, OSError):
    """The journal file cannot be opened or written (a full disk, a read-only folder...)."""


class UnjournalableError(SenetError, ValueError):
    """An input whose value no referee could judge again (not finite, too large, nested too deep):
    refused before it is journaled, so a resume never meets it."""


class StatsError(JournalError):
    """The journal cannot be read for statistics: missing, damaged, or not a senet-pi journal."""


class JournalInUse(SenetError, RuntimeError):
    """Another `senet-pi run` has this journal open."""


class QuestionClosed(SenetError, ValueError):
    """An answer to a question that is not open (answered already, withdrawn) or not an option."""


class SeatError(SenetError, ValueError):
    """A --computer or COMPUTER value that names no seat, or a level outside 1-4."""


class RefereeError(SenetError, ValueError):
    """An operator action that makes no sense now (no question to answer, nothing to undo...)."""


class FleetError(SenetError, ValueError):
    """A broker URL, board name or fleet setting that cannot be used."""


class PinError(SenetError, ValueError):
    """A PIN that is neither 6-12 digits nor a passphrase of 12-64 characters."""


class CommandError(SenetError, ValueError):
    """A line typed at `senet-pi run` that it cannot carry out."""


class SelfTestError(SenetError, ValueError):
    """A self test that cannot be carried out as asked."""


class BadInput(ValueError):
    """A request the API cannot use; becomes a 400 with this message (a `Text`)."""


class ConfigWriteError(SenetError, ValueError):
    """A change to a config.toml that was refused or could not be written; the file is as it was."""


class TableError(SenetError, ValueError):
    """An endgame table that fails a check (its header, its size or a block's checksum): it is never
    read; the board plays on by search alone and the table is rebuilt."""


class BackupError(SenetError, ValueError):
    """A backup that cannot be made, or an archive that is not a senet-pi backup or cannot be restored."""


class SpeechError(SenetError, RuntimeError):
    """espeak-ng is missing or failed: the board goes on without its voice."""
