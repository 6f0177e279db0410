"""One line of `senet-pi status` (a name, whether it is fine, what was found), and the unit it asks about."""

from __future__ import annotations

from dataclasses import dataclass

UNIT = "senet-pi.service"


@dataclass(frozen=True)
class Check:
    """One line of the report: `ok` True (fine), False (a problem) or None (for information)."""

    name: str
    ok: bool | None
    text: str

    def line(self) -> str:
        mark = {True: "ok", False: "FAIL", None: "--"}[self.ok]
        return f"{self.name:<10}{mark:<6}{self.text}"
