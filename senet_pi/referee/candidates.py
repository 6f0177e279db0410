"""The ways to play the throw in play, as the board would show them stage by stage.

A `Candidate` is one way to play the throw (one move, or two in `modern`) turned into the
physical steps of `physical.py` and the boards they pass through, with what the hands must
have done to get to each stage. `shown()` asks the evidence of an `Attempt` whether the
hands did that; the helpers below choose among the candidates that fit a settled board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rules import Game, Move
from ..rules.board import OFF, bit, squares_in
from .attempt import Attempt, Identity
from .physical import (
    Outcome,
    Step,
    StepWhy,
    play_out,
    walk,
)


@dataclass
class Candidate:
    """A way to play the throw (one move, or two in `modern`) and the boards it passes through."""

    moves: tuple[Move, ...]
    steps: list[Step]
    boards: tuple[int, ...]
    first_stage: int  # stages before this one are the player's own moves still under way
    touched: int  # the squares its steps start or end on
    outcome: Outcome  # the resulting position: candidates with the same outcome are the same move
    lifts: tuple[int, ...]  # per stage, the switches that must have opened to get there
    places: tuple[int, ...]  # per stage, the squares a piece was put on to get there
    origins: tuple[int, ...]  # per step, where its piece stood when the move began
    swaps: tuple[tuple[tuple[int, int], ...], ...]  # per stage, square pairs that must have been empty at once (P4)
    visible: bool  # whether the board shows it at all (a bounce back onto its own square does not)
    landed: tuple[tuple[tuple[int, int], ...], ...]  # per stage, (square, where its piece came from) of moved pieces
    whole: bool = True  # the whole throw played (not `modern`'s first die alone, the other still to play)

    @property
    def final(self) -> int:
        return self.boards[-1]

    def between_moves(self) -> list[int]:
        """The boards once each move but the last is done with all the rules did after it: the
        hands make them on the way when they play the moves in this order."""
        starts = [i for i, s in enumerate(self.steps) if s.why is StepWhy.MOVE]
        return [self.boards[i - 1] for i in starts[1:] if i > 0]

    def label(self, with_dice: bool = False) -> str:
        """How the move is offered as an answer: "10-13", or "24-28 (by 4) then 20-26 (by 6)"."""
        with_dice = with_dice or len(self.moves) > 1
        return " then ".join(str(m) + (f" (by {m.by})" if with_dice else "") for m in self.moves)

    @classmethod
    def of_steps(
        cls, start: int, steps: Sequence[Step], moves: tuple[Move, ...] = (), outcome: Outcome = (), whole: bool = True
    ) -> Candidate:
        """The candidate that carries out `steps` from the board `start`."""
        steps = list(steps)
        movers = [i for i, s in enumerate(steps) if s.why is StepWhy.MOVE]
        walked = walk(start, steps)
        return cls(
            moves=moves,
            steps=steps,
            boards=walked.boards,
            first_stage=movers[-1] if movers else 0,
            touched=walked.touched,
            outcome=outcome,
            lifts=walked.lifts,
            places=walked.places,
            origins=walked.origins,
            swaps=walked.swaps,
            visible=any(s.from_sq != s.to_sq for s in steps),  # a bounce back onto its own square is not
            landed=walked.landed,
            whole=whole,
        )


def candidates(game: Game) -> list[Candidate]:
    """Every way to play the throw waiting, and in `modern` the first die of each alone; in `cards`,
    a bearing off with the residue's move after it too (K9), so hands that bear off from 28 and
    then play 26-28 are read as those moves, not as 26 borne off with the same final board."""
    out: list[Candidate] = []
    seen: set[tuple[Move, ...]] = set()
    start = game.occupied()
    for seq in game.move_sequences():
        for moves in ([seq[0]], seq) if len(seq) > 1 else (seq,):
            key = tuple(moves)
            if key in seen:
                continue
            seen.add(key)
            steps, _, outcome = play_out(game, moves)
            out.append(Candidate.of_steps(start, steps, key, outcome, whole=len(moves) == len(seq)))
    for seq in _with_residue(game):
        if seq not in seen:
            seen.add(seq)
            steps, _, outcome = play_out(game, seq)
            out.append(Candidate.of_steps(start, steps, seq, outcome))
    return out


def _with_residue(game: Game) -> list[tuple[Move, ...]]:
    """`cards` (K9): each bearing off that leaves a residue to play, followed by each move of it."""
    out: list[tuple[Move, ...]] = []
    for seq in game.move_sequences():
        if len(seq) != 1 or seq[0].to_sq != OFF:
            continue
        after = game.copy(history=False)
        after.push(seq[0])
        if getattr(after, "phase", None) == "residue" and after.to_move == game.to_move and not after.is_over:
            out += [(seq[0], *rest) for rest in after.move_sequences() if len(rest) == 1]
    return out


def shown(cand: Candidate, k: int, ev: Attempt, unknown: int = 0) -> bool:
    """Whether the hands' evidence shows `cand` done up to stage `k`: every square it must have
    emptied opened, both squares of an exchange were empty at once, and the pieces it moved stand
    where it puts them and every other piece the hands touched is back on its own square (some
    story of the hands has them so; own pieces alike, as in a shuffle up 8-9 then 6-8 for 6-9);
    for a stage the board has gone past, every piece was put down after its square opened.
    Squares with a faulty switch (`unknown`) prove nothing."""
    need = cand.lifts[k] & ~unknown
    if ev.lifted & ~ev.jolted & need != need:  # a piece knocked off its switch is not one picked up
        return False
    if any(not ev.empty_together(a, b) for a, b in cand.swaps[k] if not unknown & (bit(a) | bit(b))):
        return False
    if not ev.lost and not (cand.boards[k] ^ ev.board()) & ~unknown:
        return ev.could_be(placing(cand, k, ev, unknown))
    for square, origin in cand.landed[k]:
        if unknown & bit(square):
            continue
        known_origin = origin != OFF and ev.start & bit(origin) and not unknown & bit(origin)
        if known_origin and not ev.put_down_after(square, origin):
            return False  # a piece cannot land before it is picked up
        if ev.start & bit(square) and not ev.put_down_after(square, square):
            return False  # nor land on a square before the piece there made room
    return True


def placing(cand: Candidate, k: int, ev: Attempt, unknown: int = 0) -> list[tuple[int, Identity]]:
    """Whose piece stands on each square the hands touched if `cand` is done up to stage `k`: the
    pieces it moved where it puts them, every other piece back on its own square."""
    landed = dict(cand.landed[k])
    out = []
    for sq in squares_in(cand.boards[k] & (ev.lifted | ev.placed) & ~unknown):
        origin = landed.get(sq, sq if ev.start & bit(sq) else OFF)
        if origin != OFF:
            out.append((sq, ev.piece(origin)))
    return out


def distinct(fits: list[tuple[Candidate, int]]) -> list[tuple[Candidate, int]]:
    """One fit per resulting position: two orders of the same two moves are one answer, not a question."""
    seen: dict[Outcome, tuple[Candidate, int]] = {}
    for cand, stage in fits:
        seen.setdefault(cand.outcome, (cand, stage))
    return list(seen.values())


def on_the_way(board: int, start: int, cand: Candidate) -> bool:
    """Whether `board` could be `cand` half done, with pieces in the hand: every square that changed
    is one the move touches, and every newly filled square is where a piece now free could go. A
    piece is free once its square is empty, or once a free piece has landed on its square."""
    if (board ^ start) & ~cand.touched:
        return False
    free = {origin for origin in cand.origins if origin == OFF or not board & bit(origin)}
    grown = True
    while grown:
        grown = False
        for step, origin in zip(cand.steps, cand.origins, strict=True):
            if origin in free and step.to_sq != OFF and start & bit(step.to_sq) and step.to_sq not in free:
                free.add(step.to_sq)  # it landed on a piece, which is now in the hand
                grown = True
    return all(
        any(s.to_sq == sq and origin in free for s, origin in zip(cand.steps, cand.origins, strict=True))
        for sq in squares_in(board & ~start)
    )


def in_the_order_shown(fits: list[tuple[Candidate, int]], ev: Attempt, unknown: int = 0) -> list[tuple[Candidate, int]]:
    """Of ways that fit the board, those whose moves the hands made in their order (two captures,
    each piece's trip to the sun seen before the next move began), when that tells the orders of
    the same moves apart. Other moves are not judged by it: a board on the way to one of them may
    never show because a piece was in the hand for another reason (a neighbour brushed up)."""
    keys = [tuple(sorted(str(m) for m in c.moves)) for c, _ in fits]
    in_order = [ev.passed_through(c.between_moves(), unknown) for c, _ in fits]
    groups: dict[tuple[str, ...], set[bool]] = {}
    for key, shown_so in zip(keys, in_order, strict=True):
        groups.setdefault(key, set()).add(shown_so)
    # within a group of the same moves, drop the orders not shown when another order was shown
    return [fit for fit, key, shown_so in zip(fits, keys, in_order, strict=True) if shown_so or groups[key] == {False}]


def put_down_after_lifting(ev: Attempt, step: Step) -> bool:
    """Whether a piece was put on the step's square after its own square opened: a piece cannot
    land before it is picked up."""
    return step.to_sq == OFF or ev.put_down_after(step.to_sq, step.from_sq)


def _explained(fit: tuple[Candidate, int], ev: Attempt) -> int:
    """The switch changes a fit accounts for: its lifts in the low bits, its places above them."""
    cand, k = fit
    return (ev.lifted & cand.lifts[k]) | (ev.placed & cand.places[k]) << 32


def best_explained(fits: list[tuple[Candidate, int]], ev: Attempt) -> list[tuple[Candidate, int]]:
    """Of moves that fit the board, those that account for the most switches that opened: a lift
    no move needs is a knock, and the fewer knocks assumed, the likelier the move. A piece lifted
    and put straight back, with nothing else in the hand, is as likely a knock as part of a move: it
    decides nothing (`Attempt.knocked`)."""
    explained = [_explained(fit, ev) for fit in fits]
    knocks = ev.knocked | ev.knocked << 32
    return [
        fit
        for fit, mine in zip(fits, explained, strict=True)
        if not any(other != mine and other & mine == mine and (other & ~mine) & ~knocks for other in explained)
    ]


def _lifts_unexplained(cand: Candidate, k: int, ev: Attempt) -> int:
    """How many times the hands picked a piece up that `cand` up to stage `k` does not need (one
    lift per step from a square: a piece passing through a square it is sent on from is picked up
    there again)."""
    needed: dict[int, int] = {}
    for step in cand.steps[: k + 1]:
        if step.from_sq != OFF:
            needed[step.from_sq] = needed.get(step.from_sq, 0) + 1
    return sum(max(0, n - needed.get(sq, 0)) for sq, n in ev.lifts.items())


def touch_rivals(
    fits: list[tuple[Candidate, int]], chosen: list[tuple[Candidate, int]], ev: Attempt, unknown: int = 0
) -> list[tuple[Candidate, int]]:
    """Whole moves left out only because they take one standing piece as touched: lifted together
    with the mover and put back on its square (every other lift is one the move needs). With two
    pieces in the hand, the one put down there may be either (a neighbour brushed up with the mover,
    or the mover landing while the other is on its way, a capture's victim): when no story of the
    hands fits both readings, the board cannot tell, so the touch is offered beside the `chosen`.
    Not where the chosen move bears the touched square's piece off: a piece borne off is set aside
    (bear off 25, then 21-25 is the plain way to play it, not 21 off and a touch)."""
    board = ev.board()
    rivals = []
    for fit in fits:
        cand, k = fit
        if fit in chosen or k != len(cand.boards) - 1 or _lifts_unexplained(cand, k, ev) > 1:
            continue
        mine = _explained(fit, ev)
        stories = ev.stories(placing(cand, k, ev, unknown))
        for other in chosen:
            extra = _explained(other, ev) & ~mine
            square = (extra | extra >> 32) & 0xFFFFFFFF
            if (
                _explained(other, ev) & mine == mine
                and len(squares_in(square)) == 1
                and square & ev.start & board & ~unknown
                and not any(bit(st.from_sq) == square and st.to_sq == OFF for st in other[0].steps[: other[1] + 1])
                and stories
                and not stories & ev.stories(placing(*other, ev, unknown))
            ):
                rivals.append(fit)
                break
    return rivals
