"""The service layer: one referee fed by the board, the thrower and the page, and its journal.

What it holds: the service (`core`), the journal and what reads it (`journal`, `resume`, `stats`,
`dates`, `wallclock`), the exhibit's idle reset (`idle`), the one-run lock (`runlock`), and the seats
the service gives the opponent (`seat`, the computer at the board; `coach`, the page's hints), the
lights under the squares (`lights`, worked out from the referee's verdicts and state) and the voice
(`speech`, espeak-ng).
It may import the rules, the referee, the opponent and the shared vocabulary (`errors`, `events`,
`verdicts`, `settings`, `i18n`); never the hardware, the front ends (`cli`, `server`) or the web package.
"""

from .core import Service

__all__ = ["Service"]
