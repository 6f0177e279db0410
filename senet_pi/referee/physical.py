"""What a move means for the pieces on a real board, where the switches see occupancy only.

A move (or a `modern` pair of moves) becomes a list of physical `Step`s: the player's own
piece first, then what the rules move by themselves (exchange, drowning, to the sun...).
`stages()` gives the occupancy after each step, which is what the referee compares a
settled board with. `fixes()` pairs what is missing with what is extra, by shortest
distance, to say how to put a wrong board right.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

from ..rules import Game, Move
from ..rules.board import OFF, bit, squares_in
from ..rules.effects import Exchanged, Relocated, Removed

HAND = 0  # where a piece is while someone holds it (or off the board)


@dataclass(frozen=True)
class Step:
    """One piece carried from `from_sq` to `to_sq` (OFF = off the board); `why` names the rule."""

    player: str
    from_sq: int
    to_sq: int
    why: str = "move"
    ruling: str = ""

    def prompt(self) -> str:
        """The instruction for the people at the board."""
        if self.why == "fix":
            return Fix(
                HAND if self.from_sq == OFF else self.from_sq,
                HAND if self.to_sq == OFF else self.to_sq,
                self.player or None,
            ).text()
        if self.to_sq == OFF:
            if self.why == "move":
                return f"bear off {self.player}'s piece from {self.from_sq}"
            return f"remove {self.player}'s piece on {self.from_sq} from the game ({self.ruling})"
        if self.why == "exchange":
            return f"put {self.player}'s piece that stood on {self.from_sq} on {self.to_sq} (exchange, {self.ruling})"
        if self.why == "move":
            return f"move {self.player}'s piece from {self.from_sq} to {self.to_sq}"
        if self.why == "to_sun":
            return f"put {self.player}'s piece from {self.from_sq} on the sun, square {self.to_sq} ({self.ruling})"
        if self.why == "to_15":
            return f"move {self.player}'s piece from {self.from_sq} back to {self.to_sq} ({self.ruling})"
        return f"move {self.player}'s {self.why} piece from {self.from_sq} to {self.to_sq} ({self.ruling})"


def steps_of(moves: Sequence[Move], effects: Sequence[tuple], player: str) -> list[Step]:
    """The physical steps of moves played in order, each followed by the effects it caused."""
    out: list[Step] = []
    for move, move_effects in zip(moves, effects, strict=True):
        # A bounce back onto its own square (M5) is still a lift and a place of that piece.
        out.append(Step(player, move.from_sq, move.to_sq))
        out += effect_steps(move_effects)
    return out


def effect_steps(effects: Sequence[object]) -> list[Step]:
    """What the people must do for the rules' own moves (exchange, drowning, removal...)."""
    out: list[Step] = []
    for effect in effects:
        if isinstance(effect, Exchanged):
            out.append(Step(effect.player, effect.from_sq, effect.to_sq, "exchange", "P4"))
        elif isinstance(effect, Relocated):
            out.append(Step(effect.player, effect.from_sq, effect.to_sq, effect.kind, effect.ruling))
        elif isinstance(effect, Removed):
            out.append(Step(effect.player, effect.from_sq, OFF, "removed", effect.ruling))
    return out


def play_out(game: Game, moves: Sequence[Move]) -> tuple[list[Step], int, str]:
    """Steps, final occupancy and resulting position (as text) of playing `moves` now; the game is
    left as it was."""
    player = game.mover_id
    effects = [game.push(move) for move in moves]
    final = game.occupied()
    outcome = json.dumps([game.position(), game.to_move, game.pending], sort_keys=True)
    for _ in moves:
        game.pop()
    return steps_of(moves, effects, player), final, outcome


def stages(start: int, steps: Sequence[Step]) -> list[int]:
    """Occupancy after each step (a piece landing on an occupied square pushes the other into a hand)."""
    return [board for board, _ in _simulate(start, steps)]


def origins(start: int, steps: Sequence[Step]) -> list[int]:
    """For each step, the square its piece stood on before the move began (OFF for a piece brought in)."""
    return [origin for _, origin in _simulate(start, steps)]


def _simulate(start: int, steps: Sequence[Step]) -> list[tuple[int, int]]:
    on: dict[int, int] = {sq: sq for sq in squares_in(start)}  # square -> piece (its start square)
    in_hand: dict[int, int] = {}  # the square a held piece was taken from -> piece
    out = []
    for n, step in enumerate(steps):
        # A piece pushed into a hand by a landing (exchange, capture) is the one that leaves next.
        piece = in_hand.pop(step.from_sq, None)
        if step.from_sq == OFF:
            piece = OFF + 1 + n  # a piece brought back onto the board
        elif piece is None:
            piece = on.pop(step.from_sq)
        if step.to_sq != OFF:
            displaced = on.get(step.to_sq)
            if displaced is not None:
                in_hand[step.to_sq] = displaced
            on[step.to_sq] = piece
        out.append((sum(bit(sq) for sq in on), piece if piece <= OFF else OFF))
    return out


def lifts_needed(start: int, steps: Sequence[Step]) -> list[int]:
    """After each step, the switches that must have opened: a piece cannot leave a square, nor make
    room on one, without lifting. Squares the move itself filled on the way do not count."""
    out, need, filled = [], 0, 0
    for step in steps:
        for sq in (step.from_sq, step.to_sq):
            if sq != OFF and start & bit(sq) and not filled & bit(sq):
                need |= bit(sq)
        if step.to_sq != OFF:
            filled |= bit(step.to_sq)
        out.append(need)
    return out


def places_needed(steps: Sequence[Step]) -> list[int]:
    """After each step, the switches that closed on the way: every square a piece was put on."""
    out, need = [], 0
    for step in steps:
        if step.to_sq != OFF:
            need |= bit(step.to_sq)
        out.append(need)
    return out


def touched(steps: Sequence[Step]) -> int:
    """Every board square a step starts or ends on."""
    m = 0
    for step in steps:
        for sq in (step.from_sq, step.to_sq):
            if sq != OFF:
                m |= bit(sq)
    return m


@dataclass(frozen=True)
class Fix:
    """One correction: carry a piece from `from_sq` to `to_sq`; HAND on either side = add or remove."""

    from_sq: int
    to_sq: int
    owner: str | None = None

    def text(self) -> str:
        if self.from_sq == HAND:
            who = f"{self.owner}'s piece" if self.owner else "a piece"
            return f"put {who} back on {self.to_sq}"
        if self.to_sq == HAND:
            return f"remove the piece on {self.from_sq}"
        return f"put the piece on {self.from_sq} back on {self.to_sq}"


def fixes(sensed: int, expected: int, owners: dict[int, str]) -> list[Fix]:
    """Corrections that turn `sensed` into `expected`, pairing extra and missing squares by shortest
    distance along the path; `owners` names whose piece belongs on each expected square."""
    missing = squares_in(expected & ~sensed)
    extra = squares_in(sensed & ~expected)
    pairs: list[tuple[int, int]] = []
    if missing and extra:
        pairs = _closest_pairs(extra, missing)
    paired_extra = {a for a, _ in pairs}
    paired_missing = {b for _, b in pairs}
    out = [Fix(a, b, owners.get(b)) for a, b in pairs]
    out += [Fix(a, HAND) for a in extra if a not in paired_extra]
    out += [Fix(HAND, b, owners.get(b)) for b in missing if b not in paired_missing]
    return sorted(out, key=lambda f: (f.from_sq or f.to_sq, f.to_sq))


def _closest_pairs(extra: list[int], missing: list[int]) -> list[tuple[int, int]]:
    """Pairs with the least total distance: exact for the few squares a slip of the hand leaves."""
    small, large, swap = (extra, missing, False) if len(extra) <= len(missing) else (missing, extra, True)
    if len(large) <= 7:
        best: tuple[int, tuple[int, ...]] | None = None
        for chosen in permutations(large, len(small)):
            cost = sum(abs(a - b) for a, b in zip(small, chosen, strict=True))
            if best is None or cost < best[0]:
                best = (cost, chosen)
        assert best is not None
        pairs = list(zip(small, best[1], strict=True))
    else:  # a board swept clean or set up anew: closest first is good enough
        pairs = []
        free = list(large)
        for a in small:
            b = min(free, key=lambda x: abs(x - a))
            free.remove(b)
            pairs.append((a, b))
    return [(b, a) for a, b in pairs] if swap else pairs
