"""The referee: reconciles what the switches sense with the rules, and says what to do.

It may import the rules, `errors`, `events` and `verdicts`, and does no I/O (no files, clock or
threads: the time of each input is given to it).
"""

from ..errors import RefereeError
from .physical import Fix, Step, fixes
from .referee import GUIDANCE_DELAY, SETTLE_TIME, Referee
from .state import Mode

__all__ = ["GUIDANCE_DELAY", "SETTLE_TIME", "Fix", "Mode", "Referee", "RefereeError", "Step", "fixes"]
