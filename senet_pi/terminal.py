"""Verdicts in words for a terminal: what `senet-pi run` prints beside the board."""

from __future__ import annotations

from .verdicts import Verdict


def describe(verdict: Verdict) -> str | None:
    """One line for a verdict, or None for those a person at the board need not read."""
    v = verdict["v"]
    if v == "move":
        text = f"{verdict['player']} moves {verdict['from']} -> {verdict['to']}"
        for effect in verdict.get("effects", []):  # type: ignore[attr-defined]
            where = f"{effect['from']} -> {effect['to']}" if "to" in effect else f"{effect['from']} -> out of the game"
            text += f"; {effect['player']}'s piece {where} ({effect['kind'].replace('_', ' ')})"
        return text
    if v == "bonus":
        return f"{verdict['player']} throws again"
    if v == "turn":
        return f"{verdict['player']} to throw"
    if v == "win":
        scores = verdict.get("scores")
        return f"*** {verdict['player']} wins" + (f" {scores}" if scores else "") + " ***"
    if v == "forfeit":
        return f"{verdict['reason']}"
    if v == "illegal":
        fixes = verdict.get("fix")
        return f"!! {verdict['reason']}" + (f" -> {'; '.join(fixes)}" if fixes else "")  # type: ignore[arg-type]
    if v in ("prompt", "fix", "offer", "refused", "cleared", "settled", "switch", "link", "journal", "idle"):
        marks = {
            "prompt": ">> ",
            "fix": "-> ",
            "offer": "?? ",
            "refused": "xx ",
            "switch": "!! ",
            "link": "~~ ",
            "journal": "!! ",
            "idle": "zz ",
        }
        return marks.get(v, "") + str(verdict["text"])
    if v == "question":
        options = ", ".join(f"{i}: {o}" for i, o in enumerate(verdict["options"]))  # type: ignore[arg-type]
        return f"?? {verdict['text']} ({options}) - type: answer N"
    if v == "throw":
        return f"{verdict['player']} throws {verdict['value']}"
    if v in ("undone", "new_game", "resync", "out", "removed", "answered"):
        return f"{v.replace('_', ' ')}: " + ", ".join(f"{k}={val}" for k, val in verdict.items() if k != "v")
    return None
