"""What the page and `GET /api/state` show: one JSON object built from the service and the backend."""

from __future__ import annotations

from flask import current_app

from senet_pi.hardware.backend import Backend, SimBackend
from senet_pi.rules.board import OFF
from senet_pi.rules.core import Game
from senet_pi.service import Service

#: Names the page gives the players (P2: display names are configurable; ids stay A-D).
NAMES = {"A": "white", "B": "green", "C": "red", "D": "blue"}
#: The special squares of each rule set, for the board's symbols and their tooltips.
SPECIAL = {
    "secret": {
        15: "Ankh (safe)",
        26: "Soul Bird: land exactly (safe)",
        27: "Rivers of Life: back to 15",
        28: "Three Truths (safe, throw again from 26)",
        29: "Eye of Ra (safe, throw again)",
        30: "Exit: leave with a 1",
    },
    "houses": {
        15: "House of Rebirth (safe, throw again)",
        26: "House of Happiness: stop here (safe)",
        27: "House of Water: drown, back to 15",
        28: "Three Truths: leave with 3",
        29: "Ra-Atum: leave with 2",
        30: "Ra-Horakhty: leave with 1",
    },
    "modern": {
        1: "the sun",
        15: "bird's birth",
        26: "moon: back to the sun",
        27: "bird: back to 15",
        28: "safe tile",
        29: "safe tile",
        30: "safe tile",
    },
}


def for_visitors(game: Game, status: dict) -> dict[str, object]:
    """What the page adds for a visitor who has never seen Senet (issue 16): the pieces in the hand
    and where each may go, the pieces that may move for the throw, and which stick face counts.

    Kept apart from `state()` so it can move into the service's snapshot unchanged."""
    moves = game.legal_moves() if game.pending is not None and game.winner_id is None else []
    board = game.board()
    sensed = set(status["sensed"])

    def square(sq: int) -> int | str:
        return "off" if sq == OFF else sq

    lifted = [
        {
            "square": sq,
            "owner": board[sq],
            "targets": sorted(
                {square(m.to_sq) for m in moves if m.from_sq == sq}, key=lambda t: 31 if t == "off" else t
            ),
        }
        for sq in status["expected"]
        if sq not in sensed and sq in board
    ]
    return {
        "lifted": lifted,  # pieces the game expects on squares whose switch is open: in a hand
        "movable": sorted({m.from_sq for m in moves}),  # the squares whose piece may move for the throw
        "counted": getattr(game.throw_kind, "counted", None),  # S1: "dark", H1: "white"; None for dice
    }


def services() -> tuple[Service, Backend | None]:
    senet = current_app.extensions["senet"]
    return senet["service"], senet["backend"]


def state(for_session: bool = True) -> dict:
    """The whole state the page needs; `for_session` adds this session's operator status (the live
    stream, shared by all pages, leaves it out)."""
    service, backend = services()
    with service.lock:
        referee = service.referee
        game = referee.game
        status = referee.status()
        squares: dict[str, object] = {}
        for sq, owner in game.board().items():
            piece = getattr(game, "piece_at", None)
            squares[str(sq)] = {"owner": owner, "dots": piece(sq)[1] if piece else None}
        history = [v for v in service.history if v["v"] in ("move", "forfeit", "win", "undone", "new_game", "resync")]
        throws = [v for v in service.history if v["v"] == "throw"]
        legal = [
            " then ".join(f"{m.from_sq}-{'off' if m.to_sq == OFF else m.to_sq}" for m in seq)
            for seq in game.move_sequences()
        ]
        kind = game.throw_kind
        out = {
            "game": service.game_id,
            "variant": game.name,
            "players": list(game.player_ids),
            "names": {pid: NAMES[pid] for pid in game.player_ids},
            "to_move": game.to_move_id,
            "throw": list(game.pending) if isinstance(game.pending, tuple) else game.pending,
            "last_throw": throws[-1]["value"] if throws else None,
            "throws": {"kind": kind.name, "zero": getattr(kind, "zero", None)},
            "squares": squares,
            "off": dict(zip(game.player_ids, game.off, strict=True)),
            "scores": game.scores(),
            "winner": game.winner_id,
            "prompt": status["prompt"],
            "warning": status["warning"],
            "question": status["question"],
            "in_progress": status["in_progress"],
            "journal": service.journal_trouble,  # "journal cannot write: disk full ..." or None
            "switch_faults": status["faults"],  # squares whose switch the referee judges stuck
            "sensed": status["sensed"],
            "expected": status["expected"],
            "legal": legal,
            "history": history[-40:],
            "rules": {"name": game.name, "summary": game.summary},
            "special": {str(k): v for k, v in SPECIAL.get(game.name, {}).items()},
            "backend": backend.describe() if backend is not None else {"backend": "none"},
            "sim": isinstance(backend, SimBackend),
            **for_visitors(game, status),
        }
        if hasattr(game, "hands"):  # the card game (K10): both hands on the main page only if open
            cards = game.cards()
            out["cards"] = {
                "stack": cards["stack"],
                "discard": cards["discard"][-6:],
                "dead": len(cards["dead"]),
                "hands": cards["hands"] if game.options.get("open_hands") else None,
                "counts": {pid: len(h) for pid, h in cards["hands"].items()},
                "phase": game.phase,
            }
    if for_session:
        from .security import exposed
        from .signin import guard, is_operator

        out["operator"] = {
            "enabled": bool(guard().pin_hash),
            "signed_in": is_operator(),
            "needed_for_sim": exposed(),  # beyond localhost the simulated board is the operator's too
        }
    return out
