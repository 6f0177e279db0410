"""What a board shows: the service's state shaped as the page's `GET /api/state` answers it and as
the fleet's broker publishes it (the MQTT contract: the two are the same JSON object). The
players named by their pieces, the rule set's texts and signs, the pieces in a hand and those that
may move, the backend's health, the computer's seats and the hints' word. Made from a `Board` (the
objects one running board shares), with no request and no Flask: the page adds only what a session
sees (its operator status)."""

from __future__ import annotations

import json
import random
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from .. import __version__
from ..hardware.backend import Backend, SimBackend
from ..i18n import DEFAULT, Text, translate
from ..opponent.levels import ALONE_LEVEL
from ..rules import Move, find_ruleset
from ..rules.effects import KIND_WORDS, kind_word
from ..rules.random_play import play_random_turn
from ..service.core import HISTORY_KINDS, Service
from ..service.wording import unmarked, words
from ..verdicts import Verdict
from .words import summary_words

if TYPE_CHECKING:
    from ..service.coach import Coach
    from ..service.seat import ComputerPlayer
    from .board import BoardPublisher

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


def machine_name() -> str:
    """This machine's short host name: a board's name when config.toml names none."""
    return socket.gethostname().split(".")[0]


@dataclass(eq=False)
class Board:
    """The objects one running board shares between the page, the fleet and the command line: its
    service and backend, the computer's seats and the hints (`senet-pi run` starts them), its
    publisher on a broker, and the settings its state is shown with."""

    service: Service
    backend: Backend | None = None
    computer: ComputerPlayer | None = None  # the computer's seats (None: it does not play here)
    coach: Coach | None = None  # the hints' analysis (None: no hints here)
    alone_level: int = ALONE_LEVEL  # the computer's level when a visitor plays alone
    fleet: BoardPublisher | None = None  # the board on an MQTT broker, once `start_board` put it there
    exhibit: bool = False  # an exhibit shows the attract loop's demo game
    language: str = DEFAULT  # the language the fleet's copy of the state is said in
    words: Callable[[Verdict], str | None] | None = None  # a verdict in words, for the fleet's summary
    #: the operator status a visitor with no session is shown (the page's, which it sets); None with
    #: no page: `pin_set` says whether an operator PIN is set, and only this machine is served
    visitor: Callable[[], dict[str, object]] | None = None
    pin_set: bool = False
    #: the board's name (config.toml's BOARD, else the host name): on the page and in /api/state
    name: str = field(default_factory=machine_name)

    def visitor_status(self) -> dict[str, object]:
        """What `GET /api/state` says of the operator to a visitor who has not signed in."""
        if self.visitor is not None:
            return self.visitor()
        return {"enabled": self.pin_set, "signed_in": False, "needed_for_sim": False}


def board_state(board: Board) -> dict[str, object]:
    """The whole state a board shows (its `Text`s not yet said in a language): the service's
    snapshot, the page's view of it, the computer, the hints, the backend and the broker's link."""
    service, backend = board.service, board.backend
    with service.lock:  # the move list's first number, counted at the same moment as the list
        out = service.snapshot().to_json()
        listed = sum(isinstance(v, HISTORY_KINDS) for v in service.history)
    out["history_from"] = listed - len(cast(list[object], out["history"])) + 1  # the list keeps its numbering
    out.update(view(out))
    recovery = getattr(service.journal, "recovery", None)  # a damaged journal recovered at this start
    if recovery is not None and recovery.lost:
        notes = cast(list[object], out["journal_notes"])
        out["journal_notes"] = [f"the journal was damaged and {recovery.said()}", *notes]
    if service.journal is not None:  # a damaged journal set aside, its games not back yet
        out["journal_notes"] = [*service.journal.history_out(), *cast(list[object], out["journal_notes"])]
    # the same journals by name, for the page's staff section to say in its language
    out["set_aside"] = service.journal.set_aside() if service.journal is not None else []
    out["computer"] = board.computer.view() if board.computer is not None else None
    out["coach"] = board.coach.view() if board.coach is not None else None
    players = cast(list[str], out["players"])
    out = cast(dict[str, object], named(out))
    out["names"] = {pid: NAMES[pid] for pid in players}
    out["player_names"] = {pid: PLAYERS[pid] for pid in players}
    out["pieces"] = {pid: PIECES[pid] for pid in players}
    out["light_looks"] = service.light_looks()  # how the page's board glows each kind of light
    out["board"] = board.name  # the board's name, shown where staff and visitors look
    out["version"] = __version__  # which senet-pi runs (a card's update or rollback shows here)
    out["backend"] = backend.describe() if backend is not None else {"backend": "none"}
    out["sim"] = isinstance(backend, SimBackend)
    out["mqtt"] = board.fleet.describe() if board.fleet is not None else None
    if board.exhibit:  # the attract loop's demo: only an exhibit shows it
        out["demo"] = demo_game(str(out["variant"]), len(players))
    return out


def state_json(board: Board) -> bytes:
    """The state as the broker carries it: exactly the page's `GET /api/state` answer to a visitor
    with no session, in the board's language, written as the page writes it (keys sorted, ASCII,
    compact, a newline at the end)."""
    state = board_state(board)
    state["operator"] = board.visitor_status()
    said = translate(state, board.language)
    return (json.dumps(said, ensure_ascii=True, sort_keys=True, separators=(",", ":")) + "\n").encode()


def view(snapshot: Mapping[str, Any]) -> dict[str, object]:
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


def wooden_board(snapshot: Mapping[str, Any]) -> dict[str, object] | None:
    """The wooden board while the people carry out steps the rules owe, put a wrong board right or
    set a new game up: on each square whose switch is closed, whose piece stands there as the
    referee's evidence tells (the game may already have another there), the pieces lifted drawn
    faded where they stood, and a ghost where the game puts a piece the wood lacks. None in plain
    play, where the game's board is the wood's but for the pieces in a hand.

    Complexity: the setup and prompt cases of the wooden board, drawn as the people must make it, one per case."""
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


def verdict_words(language: str) -> Callable[[Verdict], str | None]:
    """A verdict in words, as the terminal says it but with the players by name, in `language`: the
    fleet summary's "last thing that happened" (None for a verdict said to nobody)."""

    def said(verdict: Verdict) -> str | None:
        text = summary_words(verdict) or words(verdict)  # a sentence for the kinds the terminal lists as fields
        return None if text is None else unmarked(str(translate(named(text), language)))

    return said


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
            if kind == "move" and isinstance(move, Move):
                steps.append(
                    {
                        "from": move.from_sq,
                        "to": move.to_sq,  # beyond 30: borne off
                        "board": {str(sq): owner for sq, owner in game.board().items()},
                        "throw": thrown,
                    }
                )
    return steps[:DEMO_MOVES]
