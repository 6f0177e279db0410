"""What the page and `GET /api/state` show: the service's snapshot (the game and the referee's open
business), shaped here into the page's view: the players named by their pieces, the rule set's
texts and signs, the pieces in a hand and those that may move, the backend's health and this
session's operator status. The service serves the data; the page's names live here."""

from __future__ import annotations

import random
from functools import lru_cache
from typing import cast

from flask import current_app

from senet_pi.hardware.backend import Backend, SimBackend
from senet_pi.i18n import Text
from senet_pi.rules import find_ruleset
from senet_pi.rules.effects import KIND_WORDS, kind_word
from senet_pi.rules.random_play import play_random_turn
from senet_pi.service.core import HISTORY_KINDS, Service
from senet_pi.verdicts import Illegal, Verdict

#: The colours the page gives the players (P2: display names are configurable; ids stay A-D).
NAMES = {"A": Text("white"), "B": Text("green"), "C": Text("red"), "D": Text("blue")}  # translated in JSON
#: How a visitor is called wherever the page names a player: by their pieces' colour (A and B
#: stay internal: the journal, the replays and the operator's forms keep the ids).
PLAYERS = {"A": Text("White"), "B": Text("Green"), "C": Text("Red"), "D": Text("Blue")}
#: The pieces each player plays with, as the board draws them (A and C cones, B and D spools).
PIECES = {
    "A": Text("the white cones"),
    "B": Text("the green spools"),
    "C": Text("the red cones"),
    "D": Text("the blue spools"),
}
#: The Text params that name a player: said with the player's name on the page.
PLAYER_PARAMS = frozenset({"player", "owner", "winner", "other"})


def services() -> tuple[Service, Backend | None]:
    senet = current_app.extensions["senet"]
    return senet["service"], senet["backend"]


def state(for_session: bool = True) -> dict:
    """The whole state the page needs; `for_session` adds this session's operator status (the live
    stream, shared by all pages, leaves it out)."""
    service, backend = services()
    with service.lock:  # the move list's first number, counted at the same moment as the list
        out = service.snapshot().to_json()
        listed = sum(isinstance(v, HISTORY_KINDS) for v in service.history)
    out["history_from"] = listed - len(cast(list, out["history"])) + 1  # the list keeps its numbering
    out.update(view(out))
    recovery = getattr(service.journal, "recovery", None)  # a damaged journal recovered at this start
    if recovery is not None and recovery.lost:
        out["journal_notes"] = [f"the journal was damaged and {recovery.said()}", *out["journal_notes"]]
    senet = current_app.extensions["senet"]
    for part in ("computer", "coach"):  # the computer's seats and move, the hints' word: web/computer.py
        shown = senet.get(part)
        out[part] = shown.view() if shown is not None else None
    players = cast(list[str], out["players"])
    out = cast(dict, named(out))
    out["names"] = {pid: NAMES[pid] for pid in players}
    out["player_names"] = {pid: PLAYERS[pid] for pid in players}
    out["pieces"] = {pid: PIECES[pid] for pid in players}
    out["backend"] = backend.describe() if backend is not None else {"backend": "none"}
    out["sim"] = isinstance(backend, SimBackend)
    fleet = current_app.extensions["senet"].get("fleet")  # the board on an MQTT broker, if it is
    out["mqtt"] = fleet.describe() if fleet is not None else None
    if current_app.config.get("EXHIBIT"):  # the attract loop's demo: only an exhibit shows it
        out["demo"] = demo_game(str(out["variant"]), len(cast(list[str], out["players"])))
    if for_session:
        from .security import exposed
        from .signin import guard, is_operator

        out["operator"] = {
            "enabled": bool(guard().pin_hash),
            "signed_in": is_operator(),
            "needed_for_sim": exposed(),  # beyond localhost the simulated board is the operator's too
        }
    return out


def view(snapshot: dict) -> dict[str, object]:
    """The page's own part of the state, from the snapshot alone: the rule set's texts and signs,
    and, for a visitor who has never seen Senet, the pieces in a hand with where each may
    go, and the pieces that may move for the throw waiting to be played."""
    rules = find_ruleset(str(snapshot["variant"]))
    moves = sorted(snapshot["moves"], key=lambda m: (m[0], 31 if m[1] == "off" else m[1]))
    sensed = set(snapshot["sensed"])
    squares = snapshot["squares"]
    lifted = [  # the game expects a piece where the switch is open: it is in a hand
        {"square": sq, "owner": squares[str(sq)]["owner"], "targets": [to for frm, to in moves if frm == sq]}
        for sq in snapshot["expected"]
        if sq not in sensed and str(sq) in squares
    ]
    return {
        "wood": wooden_board(snapshot),
        "rules": {"name": rules.name, "summary": rules.summary, "how_to_play": list(rules.how_to_play)},
        "special": {str(sq): sp.text for sq, sp in rules.special_squares.items()},
        "symbols": {str(sq): sp.symbol for sq, sp in rules.special_squares.items()},
        "lifted": lifted,
        "movable": sorted({frm for frm, _to in moves}),
        "kind_words": {kind: kind_word(kind) for kind in KIND_WORDS},  # the move list's "(exchange)"
        # why a move throws again, for the page to say it (a bonus throw is never silent)
        "bonus": {"throws": sorted(rules.bonus_throws), "squares": sorted(rules.bonus_landings)},
        # "stuck closed" said in the page's language here: the page's script knows only its own texts
        "switch_faults": {sq: Text(str(fault)) for sq, fault in (snapshot.get("switch_faults") or {}).items()},
    }


def wooden_board(snapshot: dict) -> dict[str, object] | None:
    """The wooden board while the people carry out steps the rules owe, put a wrong board right or
    set a new game up: on each square whose switch is closed, whose piece stands there as the
    referee's evidence tells (the game may already have another there), the pieces lifted drawn
    faded where they stood, and a ghost where the game puts a piece the wood lacks. None in plain
    play, where the game's board is the wood's but for the pieces in a hand."""
    if not snapshot.get("owed") and not snapshot.get("warning") and not snapshot.get("setup"):
        return None
    game = {sq: p["owner"] for sq, p in snapshot["squares"].items() if p.get("owner")}
    sensed = {str(sq) for sq in snapshot["sensed"]}
    holders = snapshot.get("holders") or {}
    lifted = {sq: owner for sq, owner in (snapshot.get("in_hand") or {}).items() if sq not in sensed and owner}
    pieces: dict[str, dict[str, object]] = {}
    for sq in sorted(sensed, key=int):
        owner = holders.get(sq)
        if owner is None:  # not known from the hands: whose it must be when only one player's is in a hand
            owners = set(lifted.values()) or {o for s, o in game.items() if s not in sensed}
            owner = game[sq] if game.get(sq) in owners else next(iter(owners)) if len(owners) == 1 else "X"
        pieces[sq] = {"owner": owner, "lifted": False}
    for sq, owner in lifted.items():
        pieces[sq] = {"owner": owner, "lifted": True}
    # where the game puts a piece the wood does not have there: a ghost where an owed step puts it;
    # beside a fix or the setup, the game's piece drawn faded where the fix puts it back
    missing = {sq: owner for sq, owner in game.items() if sq not in pieces}
    if not snapshot.get("owed"):
        pieces.update({sq: {"owner": owner, "lifted": True} for sq, owner in missing.items()})
        missing = {}
    return {"pieces": pieces, "ghosts": missing}


def named(value: object) -> object:
    """`value` (a state, verdicts) with each sentence's player ids said as the players' names
    ("B to throw" -> "Green to throw", in every language); plain data keeps the ids."""
    if isinstance(value, Text):
        params = {
            k: PLAYERS[v] if k in PLAYER_PARAMS and isinstance(v, str) and v in PLAYERS else named(v)
            for k, v in value.params.items()
        }
        return value if params == value.params else Text(value.msgid, **params)
    if isinstance(value, dict):
        return {k: named(v) for k, v in value.items()}
    if isinstance(value, list):
        return [named(v) for v in value]
    return value


def for_page(verdicts: list[Verdict]) -> list[dict]:
    """Verdicts in their JSON form as the page says them: the players named as in `named`."""
    return cast(list[dict], named([v.json() for v in verdicts]))


def refusals(verdicts: list[Verdict]) -> list[object]:
    """Why the referee refused an input (its `illegal` verdicts' reasons), the players named."""
    return [named(v.reason) for v in verdicts if isinstance(v, Illegal)]


#: How many moves the attract loop's demo game plays.
DEMO_MOVES = 6


@lru_cache(maxsize=16)
def demo_game(variant: str, players: int) -> list[dict[str, object]]:
    """The first moves of a game of `variant` played by the rules with a fixed seed, each with the
    board after it: the attract loop shows them on its board drawing (computed once per rule set)."""
    cls = find_ruleset(variant)
    game = cls(players, cls.seeded_options(15), None)
    rng = random.Random(15)
    steps: list[dict[str, object]] = []
    for _turn in range(100):  # a bound, though a few turns always make the moves
        if len(steps) >= DEMO_MOVES or game.winner is not None:
            break
        before = len(game.actions)
        play_random_turn(game, rng)
        thrown: object = None  # the throw each move was made with: the demo shows the sticks too
        for kind, move in game.actions[before:]:
            if kind == "throw":
                thrown = list(move) if isinstance(move, tuple) else move
            if kind == "move":
                steps.append(
                    {
                        "from": move.from_sq,  # type: ignore[attr-defined]
                        "to": move.to_sq,  # type: ignore[attr-defined]  # beyond 30: borne off
                        "board": {str(sq): owner for sq, owner in game.board().items()},
                        "throw": thrown,
                    }
                )
    return steps[:DEMO_MOVES]
