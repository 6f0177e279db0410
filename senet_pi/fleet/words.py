"""The last thing that happened, in words, for Home Assistant and Node-RED (the summary's `last`).

The terminal says most verdicts in sentences already (`senet_pi.cli.terminal`); the kinds it lists
as fields (`new game: variant=secret, to_move=B`), or says with a typing hint meant for the
terminal, or not at all, are said here in sentences a person at a dashboard reads, translated.
"""

from __future__ import annotations

from ..rules.text import Text, joined
from ..verdicts import (
    Answered,
    CardPlayed,
    Exchanged,
    Illegal,
    NewGame,
    Out,
    Passed,
    Question,
    Removed,
    Resynced,
    Undone,
    Verdict,
)


def summary_words(verdict: Verdict) -> Text | None:
    """The verdict in a sentence where the terminal's words will not do for a dashboard, else None."""
    match verdict:
        case NewGame(variant=variant, to_move=player):
            return Text("a new game of {variant}: {player} to move", variant=variant, player=player)
        case Undone(player=player, move=move):
            return Text("{player}'s move {move} was taken back", player=player, move=move)
        case Resynced(assumed=assumed):
            return Text("the board was taken as it stands ({count} changes assumed)", count=len(assumed))
        case Out(player=player):
            return Text("{player} has left the game", player=player)
        case Removed(effects=effects):
            return Text("{count} pieces were taken off the board by the rules", count=len(effects))
        case Answered(answer=answer):
            return Text("the question was answered: {answer}", answer=answer)
        case Question(text=question, options=options):
            return Text("a question: {question} ({options})", question=question, options=joined(options, " / "))
        case CardPlayed(player=player, card=card):
            return Text("{player} plays the card {card}", player=player, card=card)
        case Exchanged(player=player, count=count):
            return Text("{player} exchanges {count} cards", player=player, count=count)
        case Passed(player=player):
            return Text("{player} passes", player=player)
        case Illegal(reason=reason, fix=fixes) if fixes:
            return Text("{reason} (to put it right: {fixes})", reason=reason, fixes=joined(fixes))
    return None
