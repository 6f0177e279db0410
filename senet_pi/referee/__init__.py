"""The referee: reconciles what the switches sense with the rules, and says what to do."""

from .physical import Fix, Step, fixes
from .referee import GUIDANCE_DELAY, SETTLE_TIME, Referee, RefereeError
from .state import Mode

__all__ = ["GUIDANCE_DELAY", "SETTLE_TIME", "Fix", "Mode", "Referee", "RefereeError", "Step", "fixes"]
