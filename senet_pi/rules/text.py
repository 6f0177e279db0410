"""A sentence that knows its template, so it can be said again in another language.

It lives with the rules (the lowest layer) because their reasons are sentences; reading the
catalogues and translating is `senet_pi.i18n`'s job, above them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Text(str):
    """`Text("{player} must throw before moving", player="A")` is the English string itself (the
    journal, replays and `json()` see plain English) and keeps `.msgid` and `.params` for
    `senet_pi.i18n.translate`. Params may be `Text` themselves; the msgid must be a literal so
    that `pybabel extract -k Text` finds it."""

    msgid: str
    params: dict[str, object]

    def __new__(cls, msgid: str, /, **params: object) -> Text:
        self = super().__new__(cls, msgid.format(**params) if params else msgid)
        self.msgid = msgid
        self.params = params
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.msgid, self.params))

    def __copy__(self) -> Text:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Text:
        return self


def _rebuild(msgid: str, params: dict[str, object]) -> Text:
    return Text(msgid, **params)


def N_(msgid: str) -> str:
    """Marks a template for extraction where it is defined (a table), to be made a `Text` later."""
    return msgid


def form(template: str, /, **params: object) -> Text:
    """A `Text` with no words of its own (punctuation around translated parts): never extracted,
    so no catalogue needs it; its params are still translated."""
    return Text(template, **params)


def joined(parts: Sequence[object], separator: str = "; ") -> Text:
    """Sentences side by side as one `Text` (each part still translated on its own)."""
    names = [f"p{n}" for n in range(len(parts))]
    return form(separator.join("{" + name + "}" for name in names), **dict(zip(names, parts, strict=True)))
