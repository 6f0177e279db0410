"""Verdicts in words for a terminal: what `senet-pi run` prints beside the board.

The words it adds are `Text` too, so `describe(verdict, "de")` says the whole line in German;
in English the line is exactly what it always was (replays and the README compare it)."""

from __future__ import annotations

from .i18n import DEFAULT, Text, translate
from .rules.effects import kind_word
from .rules.text import form, joined
from .verdicts import Verdict

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
}


def describe(verdict: Verdict, language: str = DEFAULT) -> str | None:
    """One line for a verdict in `language`, or None for those a person at the board need not read."""
    text = _words(verdict)
    return None if text is None else str(translate(text, language))


def _words(verdict: Verdict) -> str | None:
    v = verdict["v"]
    if v == "move":
        text = Text(
            "{player} moves {from_sq} -> {to}", player=verdict["player"], from_sq=verdict["from"], to=verdict["to"]
        )
        for effect in verdict.get("effects", []):  # type: ignore[attr-defined]
            if "to" in effect:
                where = form("{from_sq} -> {to}", from_sq=effect["from"], to=effect["to"])
            else:
                where = Text("{from_sq} -> out of the game", from_sq=effect["from"])
            kind = kind_word(effect["kind"])
            text = Text(
                "{move}; {player}'s piece {where} ({kind})", move=text, player=effect["player"], where=where, kind=kind
            )
        return text
    if v == "bonus":
        return Text("{player} throws again", player=verdict["player"])
    if v == "turn":
        return Text("{player} to throw", player=verdict["player"])
    if v == "win":
        scores = verdict.get("scores")
        if scores:
            return Text("*** {player} wins {scores} ***", player=verdict["player"], scores=scores)
        return Text("*** {player} wins ***", player=verdict["player"])
    if v == "forfeit":
        return form("{reason}", reason=verdict["reason"])
    if v == "illegal":
        fixes = verdict.get("fix")
        if fixes:
            return form("!! {reason} -> {fixes}", reason=verdict["reason"], fixes=joined(fixes))  # type: ignore[arg-type]
        return form("!! {reason}", reason=verdict["reason"])
    if v in ("prompt", "fix", "offer", "refused", "cleared", "settled", "switch", "link", "journal", "idle"):
        return form(MARKS.get(v, "") + "{text}", text=verdict["text"])
    if v == "question":
        numbered = [form("{n}: {option}", n=i, option=o) for i, o in enumerate(verdict["options"])]  # type: ignore[arg-type]
        options = joined(numbered, ", ")
        return Text("?? {question} ({options}) - type: answer N", question=verdict["text"], options=options)
    if v == "throw":
        return Text("{player} throws {value}", player=verdict["player"], value=verdict["value"])
    if v in ("undone", "new_game", "resync", "out", "removed", "answered"):
        return f"{v.replace('_', ' ')}: " + ", ".join(f"{k}={val}" for k, val in verdict.items() if k != "v")
    return None
