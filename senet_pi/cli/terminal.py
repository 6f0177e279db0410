"""Verdicts in words for a terminal: what `senet-pi run` prints beside the board. The wording is
the package's (`service.wording`); the terminal prints it, marks and all."""

from __future__ import annotations

from ..service.wording import MARKS, describe, words

__all__ = ["MARKS", "describe", "words"]
