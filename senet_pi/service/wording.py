"""Verdicts in words: the one wording of what the referee decided, for the terminal beside the
board, the fleet's summary and anyone else who says verdicts to people.

The words are `Text`, so `describe(verdict, "de")` says the whole line in German; in English the
line is exactly what the terminal always printed (replays and the README compare it)."""

from __future__ import annotations

from ..i18n import DEFAULT, Text, translate
from ..rules.effects import kind_word
from ..rules.text import form, joined
from ..verdicts import (
    Answered,
    Bonus,
    Cleared,
    Fix,
    Forfeit,
    Idle,
    Illegal,
    JournalNews,
    Link,
    Moved,
    NewGame,
    Offer,
    Out,
    Prompt,
    Question,
    Refused,
    Removed,
    Resynced,
    Settled,
    Switch,
    Thrown,
    Turn,
    Undone,
    Verdict,
    Win,
)
from .coach import Advice

#: The mark in front of each kind that is a sentence of its own.
MARKS = {
    "prompt": ">> ",
    "fix": "-> ",
    "offer": "?? ",
    "refused": "xx ",
    "switch": "!! ",
    "link": "~~ ",
    "journal": "!! ",
    "idle": "zz ",
    "advice": "ii ",
}


def describe(verdict: Verdict, language: str = DEFAULT) -> str | None:
    """One line for a verdict in `language`, or None for those a person at the board need not read."""
    text = words(verdict)
    return None if text is None else str(translate(text, language))


def words(verdict: Verdict) -> str | None:
    """A verdict in words (a `Text`, translated when said), or None for one a person need not read."""
    match verdict:
        case Moved():
            return _moved(verdict)
        case Bonus(player=player):
            return Text("{player} throws again", player=player)
        case Turn(player=player):
            return Text("{player} to throw", player=player)
        case Win(player=player, scores=scores) if scores:
            return Text("*** {player} wins {scores} ***", player=player, scores=scores)
        case Win(player=player):
            return Text("*** {player} wins ***", player=player)
        case Forfeit(reason=reason):
            return form("{reason}", reason=reason)
        case Illegal(reason=reason, fix=fixes) if fixes:
            return form("!! {reason} -> {fixes}", reason=reason, fixes=joined(fixes))
        case Illegal(reason=reason):
            return form("!! {reason}", reason=reason)
        case (
            Prompt() | Fix() | Offer() | Refused() | Cleared() | Settled() | Switch() | Link() | JournalNews() | Idle()
        ):
            return form(MARKS.get(verdict.v, "") + "{text}", text=verdict.text)
        case Question(text=question, options=options):
            numbered = [form("{n}: {option}", n=i, option=o) for i, o in enumerate(options)]
            return Text("?? {question} ({options}) - type: answer N", question=question, options=joined(numbered, ", "))
        case Advice(text=text, player=player):  # what a person's move cost, as the page says it
            return form(MARKS["advice"] + "{player}: {text}", player=player, text=text)
        case Thrown(player=player, value=value):
            return Text("{player} throws {value}", player=player, value=value)
        case Undone() | NewGame() | Resynced() | Out() | Removed() | Answered():
            fields = {k: val for k, val in verdict.json().items() if k != "v"}
            return f"{verdict.v.replace('_', ' ')}: " + ", ".join(f"{k}={val}" for k, val in fields.items())
    return None


def _moved(move: Moved) -> str:
    text = Text("{player} moves {from_sq} -> {to}", player=move.player, from_sq=move.from_sq, to=move.to)
    for effect in move.effects or []:
        if "to" in effect:
            where = form("{from_sq} -> {to}", from_sq=effect["from"], to=effect["to"])
        else:
            where = Text("{from_sq} -> out of the game", from_sq=effect["from"])
        kind = kind_word(str(effect["kind"]))
        text = Text(
            "{move}; {player}'s piece {where} ({kind})", move=text, player=effect["player"], where=where, kind=kind
        )
    return text


def unmarked(said: str) -> str:
    """A verdict's words without the terminal's marks ("?? ", "!! "...) and a win's stars: the
    sentence alone, as a summary or a screen shows it."""
    for mark in {*MARKS.values(), "!! "}:
        said = said.removeprefix(mark)
    return said.strip(" *")
