"""Driving a referee event by event, the way `senet-pi replay` does, and keeping the events as a
replay file, so that every failure of a generated test is a replay anyone can run.

`Session` feeds replay events (`{"lift": 10}`, `{"wait": 600}`, `{"throw": 3}`, `{"answer": 1}`...)
to a `Referee` through `Referee.apply` on a virtual clock, as `run_replay` does, and tracks the
board the hands leave. Verdicts are read in their JSON form (the replay contract's), whatever
type the referee returns them as.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from typing import Any

from senet_pi.events import parse_event
from senet_pi.referee import Referee
from senet_pi.rules import Game
from senet_pi.rules.board import bit, squares_in
from senet_pi.rules.cards import default_deck
from senet_pi.service.replay import load_replay, run_replay
from senet_pi.verdicts import Verdict

#: Past the settle time (0.4 s).
SETTLE_MS = 600
#: Past the guidance delay (3 s) after a warning: the first `fix` line is due.
GUIDE_MS = 3500

#: Every rule set and player count the generated tests run in.
RULE_SETS = [("secret", 2), ("houses", 2), ("cards", 2), ("modern", 2), ("modern", 3), ("modern", 4)]


def options_for(variant: str, seed: int) -> dict[str, object]:
    """Options that make a game repeatable: the card game's whole deck order and reshuffles."""
    if variant != "cards":
        return {}
    deck = default_deck()
    random.Random(seed).shuffle(deck)
    return {"deck_order": deck, "shuffle_seed": seed}


def as_json(verdict: Verdict) -> dict[str, Any]:
    """A verdict's JSON form: what the journal stores and `senet-pi replay` prints."""
    return verdict.json()


class Session:
    """A referee fed replay events on a virtual clock, the board as the hands leave it, every verdict."""

    def __init__(
        self,
        variant: str,
        players: int = 2,
        options: Mapping[str, object] | None = None,
        position: Mapping[str, object] | None = None,
        events: Iterable[Mapping[str, object]] = (),
    ) -> None:
        self.spec: dict[str, object] = {"variant": variant, "players": players}
        if options:
            self.spec["options"] = dict(options)
        if position:
            self.spec["position"] = dict(position)
        loaded = load_replay({**self.spec, "events": []})
        self._checker = loaded.new_game()  # what replay files are checked against, as `load_replay` does
        self.referee = Referee(loaded.new_game())
        self.board = self.referee.game.occupied()
        #: The real pieces: square -> (owner, dots, number); `held` are off the board, last lifted last.
        self.pieces: dict[int, tuple[str, object, int]] = {
            sq: (*self.referee.game.piece_at(sq), sq) for sq in self.referee.game.board()
        }
        self.held: list[tuple[tuple[str, object, int], int]] = []  # (piece, the square it was lifted from)
        #: Pieces put aside for good (borne off, gone up, out of the game); `place ... from A` can use them.
        self.box: list[tuple[str, object, int]] = []
        self.ms = 0
        self.events: list[dict[str, object]] = []
        self.seen: list[dict[str, Any]] = []
        self.feed(*events)

    @property
    def game(self) -> Game:
        return self.referee.game

    def feed(self, *events: Mapping[str, object]) -> list[dict[str, Any]]:
        """Feed events in order; return the verdicts they produced (also kept in `seen`)."""
        out: list[dict[str, Any]] = []
        for raw in events:
            event = dict(raw)
            want = event.pop("piece", None)  # which real piece: the test's knowledge, not the board's
            checked = parse_event(len(self.events), event, self._checker)  # a valid replay event
            if checked.kind == "wait":
                self.ms += checked.value
            elif checked.kind == "lift":
                self.board &= ~bit(checked.value)
                piece = self.pieces.pop(checked.value, None)
                if piece is not None:
                    self.held.append((piece, checked.value))
            elif checked.kind == "place":
                self.board |= bit(checked.value)
                if checked.value not in self.pieces and want != "stray" and (self.held or self.box):
                    self.pieces[checked.value] = self._take(want)
            elif checked.kind == "sense":
                self.board = sum(bit(sq) for sq in checked.value)
            self.events.append(event)
            got = [as_json(v) for v in self.referee.apply(*checked.as_input(), self.ms / 1000)]
            out += got
        self.seen += out
        return out

    def _take(self, want: object) -> tuple[str, object, int]:
        """The piece a place puts down: the one lifted from `want` (a square), or one of `want`'s
        (an owner, "A"; from the hand, else from the box), else the last one lifted."""
        if want is None:
            return self.held.pop()[0] if self.held else self.box.pop()
        if isinstance(want, tuple):  # ("box", owner[, dots]): one of owner's pieces put aside for good
            for i in reversed(range(len(self.box))):
                if self.box[i][0] == want[1] and (len(want) < 3 or self.box[i][1] == want[2]):
                    return self.box.pop(i)
        for i in reversed(range(len(self.held))):
            (owner, _, _), lifted_from = self.held[i]
            if want in (lifted_from, owner):
                return self.held.pop(i)[0]
        for i in reversed(range(len(self.box))):
            if self.box[i][0] == want:
                return self.box.pop(i)
        raise AssertionError(self.explain(f"no piece {want!r} in the hand {self.held} or the box {self.box}"))

    def retire(self, square: int) -> None:
        """The piece lifted from `square` is put aside for good (borne off, out of the game)."""
        for i in reversed(range(len(self.held))):
            if self.held[i][1] == square:
                self.box.append(self.held.pop(i)[0])
                return

    def do(self, *actions: str, wait: int = SETTLE_MS) -> list[dict[str, Any]]:
        """`lift N` / `place N` now, then `wait` milliseconds. `place N from M` puts down the piece
        lifted from M (when several are in the hand); `place N from A` one of A's; `place N from
        stray` closes the switch with no piece of the game (a weld, a foreign piece)."""
        events: list[dict[str, object]] = []
        for action in actions:
            words = action.split()
            event: dict[str, object] = {words[0]: int(words[1])}
            if len(words) == 4 and words[2] == "from":
                event["piece"] = int(words[3]) if words[3].isdigit() else words[3]
            events.append(event)
        if wait:
            events.append({"wait": wait})
        return self.feed(*events)

    def wait(self, ms: int = SETTLE_MS) -> list[dict[str, Any]]:
        return self.feed({"wait": ms})

    def throw(self, value: object) -> list[dict[str, Any]]:
        return self.feed({"throw": value})

    def answer(self, choice: object) -> list[dict[str, Any]]:
        return self.feed({"answer": choice})

    def owners_on_board(self) -> dict[int, str]:
        """Whose real piece stands on each square."""
        return {sq: p[0] for sq, p in self.pieces.items()}

    def swapped_owners(self) -> list[int]:
        """Squares where the real piece's owner is not the one the game has there."""
        game = self.game.board()
        return sorted(sq for sq, owner in self.owners_on_board().items() if game.get(sq) not in (None, owner))

    # ------------------------------------------------------------ what the referee has open

    def status(self) -> dict[str, Any]:
        return self.referee.status().as_dict()

    @property
    def warning(self) -> dict[str, Any] | None:
        w = self.status().get("warning")
        return None if w is None else dict(w)

    @property
    def question(self) -> dict[str, Any] | None:
        q = self.status().get("question")
        return None if q is None else dict(q)

    @property
    def prompt(self) -> dict[str, Any] | None:
        p = self.status().get("prompt")
        return None if p is None else dict(p)

    # ------------------------------------------------------------ as a replay file

    def setup(self) -> int:
        """The rule set's starting setup (occupied squares), as a new game with these options starts."""
        spec = {k: v for k, v in self.spec.items() if k != "position"}
        return load_replay({**spec, "events": []}).new_game().occupied()

    def replay(self) -> dict[str, object]:
        return {**self.spec, "events": list(self.events)}

    def replay_text(self) -> str:
        """The replay as one compact JSON line, for failure messages and the lead's notes."""
        return json.dumps(self.replay(), separators=(",", ":"))

    def explain(self, what: str, since: int = 0) -> str:
        """An assertion message: what went wrong, the replay, and the verdicts since `since`."""
        verdicts = "\n  ".join(json.dumps(v) for v in self.seen[since:][-12:])
        return f"{what}\nreplay: {self.replay_text()}\nverdicts:\n  {verdicts}"


def replay_verdicts(replay: Mapping[str, object]) -> list[dict[str, Any]]:
    """Every verdict `senet-pi replay` prints for this replay, in their JSON form."""
    return list(run_replay(load_replay(dict(replay))))


def kinds(verdicts: Iterable[Mapping[str, Any]]) -> list[str]:
    return [str(v["v"]) for v in verdicts]


def moves_in(verdicts: Iterable[Mapping[str, Any]]) -> list[str]:
    return [f"{v['from']}-{v['to']}" for v in verdicts if v["v"] == "move"]


def of_kind(verdicts: Iterable[Mapping[str, Any]], *names: str) -> list[dict[str, Any]]:
    return [dict(v) for v in verdicts if v["v"] in names]


def occupied_squares(board: int) -> list[int]:
    return squares_in(board)
