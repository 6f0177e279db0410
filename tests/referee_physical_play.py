"""Whole games played by hands on a `Session`, with every real piece followed.

A shadow game (the rules alone) says what should happen. Each turn's moves become `Carry`s (the
player's piece, then what the rules move by themselves: exchange, drowning, to the sun, removal),
and the carries become lifts and places in one of the ways people do them (victim first or
attacker first, a victim parked on a spare square, two pieces in the hand at once, a pause after
each piece). `Play.turn` checks the referee against the shadow and the real pieces after every
turn; the tests hook their own handlings in between.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from senet_pi.referee.core import piece_name
from senet_pi.rules import Game, Move
from senet_pi.rules.board import OFF, bit
from senet_pi.rules.effects import Exchanged, Relocated, Removed
from tests.referee_replay_helpers import GUIDE_MS, SETTLE_MS, Session, of_kind, options_for


@dataclass(frozen=True)
class Carry:
    """One real piece carried from `from_sq` to `to_sq` (OFF: off the board); `why` names the rule."""

    player: str
    from_sq: int
    to_sq: int
    why: str = "move"


def effect_carries(effects: Sequence[object]) -> list[Carry]:
    out: list[Carry] = []
    for e in effects:
        if isinstance(e, Exchanged):
            out.append(Carry(e.player, e.from_sq, e.to_sq, "exchange"))
        elif isinstance(e, Relocated):
            out.append(Carry(e.player, e.from_sq, e.to_sq, e.kind))
        elif isinstance(e, Removed):
            out.append(Carry(e.player, e.from_sq, OFF, "removed"))
    return out


def carries(game: Game, moves: Sequence[Move]) -> list[Carry]:
    """The real pieces `moves` carry, in order, each move followed by what the rules did after it
    (played on `game` and taken back: the game is left as it was)."""
    player = game.mover_id
    out: list[Carry] = []
    pushed = 0
    try:
        for m in moves:
            effects = game.push(m)
            pushed += 1
            out.append(Carry(player, m.from_sq, m.to_sq))
            out += effect_carries(effects)
    finally:
        for _ in range(pushed):
            game.pop()
    return out


def outcome(game: Game, moves: Sequence[Move]) -> str:
    """The position `moves` lead to, as text (the game is left as it was)."""
    for m in moves:
        game.push(m)
    try:
        return state(game)
    finally:
        for _ in moves:
            game.pop()


def net_moves(start: int, cs: Sequence[Carry]) -> list[tuple[int, int, str]]:
    """Where each real piece `cs` carried from the board `start` began and ended (OFF: off the
    board), with its owner: a piece carried twice (to the sun, then out of the game) is one piece."""
    where = {sq: sq for sq in range(1, 31) if start & bit(sq)}  # square -> the square its piece began on
    owner: dict[int, str] = {}
    pushed: dict[int, int] = {}  # a square a landing pushed a piece off -> where that piece began
    gone: list[tuple[int, int, str]] = []
    for c in cs:
        origin = pushed.pop(c.from_sq) if c.from_sq in pushed else where.pop(c.from_sq)
        owner.setdefault(origin, c.player)
        if c.to_sq == OFF:
            gone.append((origin, OFF, c.player))
            continue
        if c.to_sq in where:
            pushed[c.to_sq] = where.pop(c.to_sq)
        where[c.to_sq] = origin
    moved = [(origin, end, owner[origin]) for end, origin in where.items() if origin != end]
    return moved + gone


def state(game: Game) -> str:
    return json.dumps([game.position(), game.to_move, game.pending], sort_keys=True, default=str)


def label_matches(option: str, moves: Sequence[Move], ordered: bool = False) -> bool:
    """Whether a "which" option ("10-13", "24-28 (by 4) then 20-26 (by 6)") names these moves
    (in this order, when `ordered`)."""
    parts = [p.strip() for p in str(option).split(" then ")]
    if len(parts) != len(moves):
        return False
    mine = [(str(m), m.by) for m in moves]
    theirs: list[tuple[str, int | None]] = []
    for p in parts:
        text, _, by = p.partition(" (by ")
        theirs.append((text, int(by.rstrip(")")) if by else None))
    if not ordered:
        mine.sort()
        theirs.sort(key=lambda t: t[0])
    return all(t == m[0] and (b is None or b == m[1]) for (t, b), m in zip(theirs, mine, strict=True))


def held_from(s: Session, square: int) -> bool:
    return any(lifted == square for _, lifted in s.held)


def occupied(s: Session, square: int) -> bool:
    return bool(s.board & bit(square))


class Play:
    """A session, its shadow game and a random source; `turn()` plays one throw's moves by hand."""

    def __init__(
        self, variant: str, players: int, seed: int, position: dict[str, object] | None = None, strict: bool = False
    ) -> None:
        self.rng = random.Random(seed)
        self.strict = strict  # questions the hands' evidence answers fail the test (else they are answered)
        options = options_for(variant, seed)
        self.s = Session(variant, players, options, position)
        self.shadow = self.s.game.copy()
        self.variant = variant
        self.last_carries: list[Carry] = []  # the previous turn's, as carried out
        self.last_start = 0  # the board before them
        self.last_ways: set[str] = set()  # the positions every way of playing the last throw leads to
        self.last_firsts: set[str] = set()  # the positions its first die alone leads to (the other to play)
        self.held_two = False  # a mover and its victim were in the hand at once in this turn's carries
        self.counts: dict[str, int] = {}

    # ------------------------------------------------------------ carrying pieces

    def lift(self, square: int) -> None:
        self.s.feed({"lift": square})

    def place(self, square: int, piece: object) -> None:
        self.s.feed({"place": square, "piece": piece})

    def carry(self, c: Carry, victim_first: bool = True) -> None:
        """One carry, one piece at a time: a piece in the way is lifted first (or after the mover)."""
        s = self.s
        in_hand = held_from(s, c.from_sq)
        blocked = c.to_sq != OFF and c.to_sq != c.from_sq and occupied(s, c.to_sq)
        if not in_hand and c.from_sq != OFF:
            if blocked and victim_first:
                self.lift(c.to_sq)
            self.lift(c.from_sq)
            if blocked and not victim_first:
                self.lift(c.to_sq)
            self.held_two |= blocked  # the mover and its victim in the hand at once
        elif blocked:
            self.lift(c.to_sq)  # a piece on the sun makes room for the next (M4)
        if c.to_sq != OFF:
            self.place(c.to_sq, c.from_sq)
        elif c.from_sq != OFF:
            self.s.retire(c.from_sq)  # borne off, gone up or out of the game: put aside

    def carry_all(self, cs: Sequence[Carry], style: str) -> bool:
        """Carry out `cs` in one of the ways people do; True when two pieces were in the hand at once
        with nothing in the order of lifts and places to tell them apart."""
        rng = self.rng
        if style == "park":
            parked: dict[int, int] = {}  # the square a piece belongs to -> the spare square it waits on
            touched = {sq for c in cs for sq in (c.from_sq, c.to_sq)}
            for n, c in enumerate(cs):
                if c.from_sq in parked:
                    p = parked.pop(c.from_sq)
                    self.lift(p)
                    if c.to_sq != OFF:
                        if occupied(self.s, c.to_sq):
                            self.lift(c.to_sq)
                        self.place(c.to_sq, p)
                    else:
                        self.s.retire(p)
                    continue
                spare = [sq for sq in range(2, 25) if not occupied(self.s, sq) and sq not in touched and sq != 15]
                moves_on = any(d.from_sq == c.to_sq for d in cs[n + 1 :])
                if not parked and moves_on and spare and c.to_sq != c.from_sq and occupied(self.s, c.to_sq):
                    p = rng.choice(spare)  # the piece in the way is put aside on a spare square first
                    self.lift(c.to_sq)
                    self.place(p, c.to_sq)
                    parked[c.to_sq] = p
                    self.counts["park"] = self.counts.get("park", 0) + 1
                self.carry(c, victim_first=rng.random() < 0.5)
            return False
        if style == "two_hands" and len(cs) >= 2:
            a, b = cs[0], cs[1]
            squares = {a.from_sq, b.from_sq, a.to_sq, b.to_sq}
            # two pieces changing places (not one piece sent on back to its own square, 15-27-15, M7)
            exchange = b.from_sq == a.to_sq and b.to_sq == a.from_sq and occupied(self.s, b.from_sq)
            apart = (
                len(squares) == 4
                and OFF not in squares
                and not occupied(self.s, a.to_sq)
                and not occupied(self.s, b.to_sq)
            )
            if exchange or apart:  # both pieces in the hand at once, then both put down
                first, second = (a.from_sq, b.from_sq) if rng.random() < 0.5 else (b.from_sq, a.from_sq)
                self.lift(first)
                self.lift(second)
                for c in [a, b] if rng.random() < 0.5 else [b, a]:
                    self.place(c.to_sq, c.from_sq)
                self.counts["two_hands"] = self.counts.get("two_hands", 0) + 1
                for c in cs[2:]:
                    self.carry(c)
                return not exchange
        if style == "neighbour":
            touched = {sq for c in cs for sq in (c.from_sq, c.to_sq)}
            near = [sq for sq in range(1, 31) if occupied(self.s, sq) and sq not in touched]
            first = cs[0]
            comes_back = any(c.to_sq == first.from_sq for c in cs[1:])  # 15-27 sent back to 15 (M7)
            if near and first.from_sq != OFF and not held_from(self.s, first.from_sq) and not comes_back:
                n = min(near, key=lambda sq: (abs(sq - first.from_sq), rng.random()))
                # two pieces in the hand: the mover and a neighbour brushed up with it, in either order
                for sq in (n, first.from_sq) if rng.random() < 0.5 else (first.from_sq, n):
                    self.lift(sq)
                back_first = rng.random() < 0.5
                if back_first:
                    self.place(n, n)
                for c in cs:
                    self.carry(c)
                if not back_first:
                    self.place(n, n)
                self.counts["neighbour"] = self.counts.get("neighbour", 0) + 1
                return True
        for c in cs:
            self.carry(c, victim_first=rng.random() < 0.5)
            if style == "pause":
                self.s.wait(SETTLE_MS)
        return False

    # ------------------------------------------------------------ the referee's questions

    def answer_which(self, moves: Sequence[Move], cs: Sequence[Carry] | None = None, loose: bool = False) -> None:
        """Answer a "which" question with the moves made; when strict, fail if the evidence (the
        carries `cs` as the hands did them) already answered it."""
        q = self.s.question
        if q is None:
            return
        legit = not self.strict or cs is None or self.ambiguous(moves, cs, loose)
        assert q["kind"] == "which" and legit, self.s.explain(
            f"asked {q['kind']!r} although the hands showed {[str(m) for m in moves]}: {q}"
        )
        options = [o for o in q["options"] if label_matches(o, moves, ordered=True)]
        options = options or [o for o in q["options"] if label_matches(o, moves)]
        assert options, self.s.explain(f"no option names the moves made {[str(m) for m in moves]}: {q}")
        self.s.answer(options[0])

    def ambiguous(self, moves: Sequence[Move], cs: Sequence[Carry], loose: bool) -> bool:
        """Whether another legal way with another outcome leaves the same real board by the same
        squares (different dice), or, `loose` (two pieces in the hand at once), the same board."""
        mine = outcome(self.shadow, moves)
        squares = [(c.from_sq, c.to_sq) for c in cs]  # in the order the hands carried them
        final = self.final_board(cs)
        ways = {seq[:n] for seq in self.shadow.move_sequences() for n in range(1, len(seq) + 1)}
        for seq in ways:  # a way played so far may still go on with the other die (M3)
            if outcome(self.shadow, seq) == mine:
                continue
            theirs = carries(self.shadow, seq)
            if [(c.from_sq, c.to_sq) for c in theirs] == squares:
                return True
            if loose and self.final_board(theirs) == final:
                return True
            # a mover and its victim in the hand at once: the piece put on the victim's square may be
            # the victim put back, the mover gone on (lift 21 and 30, put one on 21 and one on the sun:
            # 30-21 with the victim sent to the sun, or 30-26 sent on to the sun, M6, with 21 touched)
            if self.held_two and self.final_board(theirs) == final and {str(m) for m in seq} != {str(m) for m in moves}:
                return True
        return False

    def final_board(self, cs: Sequence[Carry]) -> int:
        """The board the carries `cs` leave, each real piece followed (a mover landing on its victim's
        square, then the victim carried on to the sun, leaves both squares occupied)."""
        board = self.shadow.occupied()
        moved = net_moves(board, cs)
        for origin, _, _ in moved:
            board &= ~bit(origin)
        for _, end, _ in moved:
            if end != OFF:
                board |= bit(end)
        return board

    # ------------------------------------------------------------ whole turns

    def check_turn(self, since: int, what: str) -> None:
        """After a turn: the referee agrees with the shadow and with the real pieces, nothing open."""
        s = self.s
        verdicts = s.seen[since:]
        assert not of_kind(verdicts, "illegal"), s.explain(f"{what}: a legal move was flagged", since)
        assert state(s.game) == state(self.shadow), s.explain(
            f"{what}: the referee's game {s.game.board()} (pending {s.game.pending}) is not the game played "
            f"{self.shadow.board()} (pending {self.shadow.pending})",
            since,
        )
        assert s.warning is None and s.question is None and s.prompt is None, s.explain(
            f"{what}: left open: {s.warning or s.question or s.prompt}", since
        )
        check_real_pieces(s, what)
        faults = of_kind(verdicts, "switch")
        assert not [f for f in faults if f.get("fault")], s.explain(f"{what}: a working switch judged faulty", since)

    def throw(self, value: object | None = None) -> object:
        """The player to move throws (a random value unless given); the shadow follows."""
        shadow = self.shadow
        if value is None:
            value = shadow.random_throw(self.rng)
        start = shadow.occupied()
        self.s.throw(value)
        effects = shadow.push_throw(value)
        if effects and effect_carries(effects) and start != shadow.occupied():  # M9: a player leaves
            for c in effect_carries(effects):
                self.carry(c)
            self.s.wait(SETTLE_MS)
        return value

    def play_moves(self, moves: Sequence[Move], style: str) -> None:
        """Carry out `moves` by hand in `style`, let the board settle, answer what is fairly asked."""
        s, shadow = self.s, self.shadow
        since = len(s.seen)
        # every way to play this throw: the move stays provisional until the next throw (README)
        self.last_ways = {outcome(shadow, seq) for seq in shadow.move_sequences()}
        # and the first die alone (modern): the second move taken back by hand leaves the first standing
        self.last_firsts = {outcome(shadow, seq[:1]) for seq in shadow.move_sequences() if len(seq) > 1}
        if any(m.from_sq == m.to_sq for m in moves):  # M5: a bounce onto its own square is entered
            for m in moves:
                if m.from_sq == m.to_sq:
                    s.feed({"move": [m.from_sq, m.to_sq], "by": m.by})
                else:
                    self.carry_all(carries(shadow, [m]), "plain")
                    s.wait(SETTLE_MS)
                    self.answer_which([m], carries(shadow, [m]))
                shadow.push(m)
            self.last_carries = []
            self.check_turn(since, f"bounce {[str(m) for m in moves]}")
            return
        cs = carries(shadow, moves)
        self.last_start = s.board
        self.held_two = False
        together = self.carry_all(cs, style)
        s.wait(SETTLE_MS)
        self.answer_which(moves, cs, loose=together)
        for m in moves:
            shadow.push(m)
        self.last_carries = cs
        hint = " (two pieces were in the hand: where the board cannot tell, ask)" if together else ""
        self.check_turn(since, f"{style} {[str(m) for m in moves]}{hint}")

    def card_turn(self, choose: Callable[[list[tuple[Move, ...]]], tuple[tuple[Move, ...], str]]) -> None:
        """The card game's turn (K4): play a card, or exchange when none can be played."""
        shadow, s, rng = self.shadow, self.s, self.rng
        hand = shadow.hand(shadow.to_move_id)
        playable = [c for c in hand if shadow.playable(c)]
        if not playable:
            cards = hand[:1]
            s.feed({"exchange": cards})
            shadow.push_exchange(cards)
            return
        card = rng.choice(playable)
        s.feed({"card": card})
        shadow.push_card(card)
        while shadow.winner is None and (shadow.pending is not None or shadow.phase != "play"):
            if shadow.phase == "residue" and (not shadow.move_sequences() or rng.random() < 0.3):
                s.feed({"pass": True})
                shadow.push_pass()
                continue
            sequences = shadow.move_sequences()
            if not sequences:
                break
            moves, style = choose(sequences)
            self.play_moves(moves, style)

    def turn(self, choose: Callable[[list[tuple[Move, ...]]], tuple[tuple[Move, ...], str]] | None = None) -> None:
        """One throw (or card) and its moves, made by hand; `choose` picks the moves and the style."""
        choose = choose or self.random_choice
        if self.shadow.turn_starts_with == "card":
            self.card_turn(choose)
            return
        self.throw()
        sequences = self.shadow.move_sequences()
        if sequences:
            moves, style = choose(sequences)
            self.play_moves(moves, style)

    def random_choice(self, sequences: list[tuple[Move, ...]]) -> tuple[tuple[Move, ...], str]:
        return self.rng.choice(sequences), self.rng.choice(["plain", "plain", "park", "two_hands", "pause"])


def check_real_pieces(s: Session, what: str) -> None:
    """The real pieces stand where the referee's game has them, owners (and `modern`'s dots) right."""
    real = {sq: (p[0], p[1]) for sq, p in s.pieces.items()}
    game = {sq: s.game.piece_at(sq) for sq in s.game.board()}
    assert real == game, s.explain(
        f"{what}: the real pieces {sorted(real.items())} are not the game's {sorted(game.items())}"
        + (f" (owners swapped on {s.swapped_owners()})" if s.swapped_owners() else "")
    )


def follow_prompts(s: Session, limit: int = 10) -> int:
    """Do what the referee's prompts say, one at a time, as people would; return how many."""
    for n in range(limit):
        p = s.prompt
        if p is None:
            return n
        src, dst = p.get("from"), p.get("to")
        dst_sq = dst if isinstance(dst, int) else None
        owner = p.get("player")
        if isinstance(src, int) and 1 <= src <= 30 and s.board & bit(src):  # the piece standing there
            s.feed({"lift": src})
            if dst_sq is not None:
                assert not s.board & bit(dst_sq), s.explain(f"prompt puts a piece on occupied {dst_sq}: {p}")
                s.feed({"place": dst_sq, "piece": src})
        elif dst_sq is not None:
            assert not s.board & bit(dst_sq), s.explain(f"prompt puts a piece on occupied {dst_sq}: {p}")
            piece = src if isinstance(src, int) and held_from(s, src) else owner
            s.feed({"place": dst_sq, "piece": piece})
        else:
            raise AssertionError(s.explain(f"a prompt that cannot be carried out: {p}"))
        s.wait(SETTLE_MS)
    raise AssertionError(s.explain("the prompts never end"))


OWNER = re.compile(r"\b[A-D]'s\b")


def names_owner(text: str) -> bool:
    """Whether a fix or prompt says whose piece it is about ("put B's piece ...")."""
    return bool(OWNER.search(str(text)))


def current_fixes(s: Session, since: int) -> list[dict[str, Any]]:
    """The `fix` lines given since `since`, waiting out the guidance delay if none came yet."""
    fixes = of_kind(s.seen[since:], "fix")
    if not fixes:
        fixes = of_kind(s.wait(GUIDE_MS), "fix")
    return fixes


def do_fix(s: Session, fix: dict[str, Any]) -> None:
    """Carry out one fix as a person would (lift before place), checking it can be carried out."""
    a, b = fix.get("from"), fix.get("to")
    a = a if isinstance(a, int) and 1 <= a <= 30 else None
    b = b if isinstance(b, int) and 1 <= b <= 30 else None
    text = str(fix.get("text", ""))
    real = s.owners_on_board()
    swap = a is not None and b is not None and text.startswith("swap")  # two pieces, no choice to make
    if b is not None and not swap:
        assert names_owner(text), s.explain(f"class 5: a fix that puts a piece down names no owner: {fix}")
    if swap:
        assert a in real and b in real, s.explain(f"class 5: a swap of squares that are not both occupied: {fix}")
        s.feed({"lift": a}, {"lift": b}, {"place": a, "piece": b}, {"place": b, "piece": a})
        return
    if a is not None:
        assert s.board & bit(a), s.explain(f"class 5: a fix lifts from {a}, which is empty: {fix}")
        owner = OWNER.search(text)
        if owner and b is not None:
            who = owner.group(0)[0]
            assert real.get(a) == who, s.explain(
                f"class 5: the fix names {who}'s piece on {a}, but the piece there is {real.get(a)}'s: {fix}"
            )
        s.feed({"lift": a})
    if b is not None:
        assert not s.board & bit(b), s.explain(f"class 5: a fix puts a piece on {b}, which is occupied: {fix}")
        if a is not None:
            s.feed({"place": b, "piece": a})
        else:
            owner = OWNER.search(text)
            assert owner, s.explain(f"class 5: a piece to put back with no owner named: {fix}")
            who = owner.group(0)[0]
            off = [p[0] for p, _ in s.held] + [p[0] for p in s.box]
            assert who in off, s.explain(
                f"class 5: the fix asks for {who}'s piece, but the pieces off the board are {off} "
                f"(real owners on the board: {s.owners_on_board()}): {fix}"
            )
            dots = re.search(r"with (\d+) dots|with (one) dot", text)  # "with one dot" (modern's 1-dot piece)
            number = None if dots is None else 1 if dots.group(2) else int(dots.group(1))
            s.feed({"place": b, "piece": pick_piece(s, who, b, number)})
    elif a is not None:
        s.retire(a)
    if a is None and b is None:
        raise AssertionError(s.explain(f"class 5: a fix that names no square: {fix}"))


def pick_piece(s: Session, owner: str, square: int, dots: int | None = None) -> object:
    """Which of `owner`'s pieces off the board a person puts back on `square`: in `modern`, the one
    with the dots the fix names, else the one the game wants there when there is a choice."""
    want = (owner, dots) if dots is not None else s.game.piece_at(square)
    for piece, lifted in s.held:
        if want is not None and (piece[0], piece[1]) == want:
            return lifted
    if dots is not None and any((p[0], p[1]) == want for p in s.box):
        return ("box", owner, dots)
    return owner


def truly_swapped(s: Session, q: dict[str, Any]) -> bool:
    """Whether a "were they swapped?" question names two squares whose real pieces are swapped."""
    asked = [int(w) for w in re.findall(r"\b\d+\b", str(q.get("text", "")))]
    if len(asked) < 2:
        return False
    a, b = asked[:2]
    real = {sq: (p[0], p[1]) for sq, p in s.pieces.items()}  # owner and, in `modern`, dots: what people see
    return real.get(a) == s.game.piece_at(b) and real.get(b) == s.game.piece_at(a) != real.get(a)


def truthful_whose_answer(s: Session, q: dict[str, Any]) -> str:
    """The answer to "whose piece is on N now?" as the people see it (the session follows every real piece)."""
    square = int(q["text"].split(" on ")[1].split()[0])
    owner, dots, _ = s.pieces[square]
    wanted = str(piece_name((owner, dots)))
    in_game = {s.game.piece_at(sq) for sq in s.game.board()}
    if (owner, dots) not in in_game and "a piece that is not in the game" in q["options"]:
        return "a piece that is not in the game"  # one borne off or removed, put back on the board
    assert wanted in q["options"], s.explain(f"the piece on {square} ({wanted}) is not among the answers")
    return wanted


def truthful_swap_answer(s: Session, q: dict[str, Any]) -> str:
    """The answer to "were they swapped?" (two squares) or "is each back on its own square?"
    (several) as the people who see the pieces would give it."""
    options = [str(o) for o in q.get("options", [])]
    if q.get("kind") == "back":
        asked = [int(w) for w in re.findall(r"\b\d+\b", str(q.get("text", "")))]
        game = s.game
        each_home = all(s.pieces.get(sq, (None, None))[:2] == game.piece_at(sq) for sq in asked)
        return options[0] if each_home else options[1]
    if truly_swapped(s, q):
        return next((o for o in options if "swapped" in o), options[-1])
    return next((o for o in options if "back" in o), options[0])


def follow_fixes(s: Session, what: str, limit: int = 16) -> int:
    """Follow the referee's fixes one at a time until the warning clears; return how many. Fails on
    a question only an operator could answer (undo, new game, which move), a warning with no fix,
    or no end within `limit` fixes."""
    # the fixes given since the warning on show was raised (nothing on the board changed since)
    warnings = [i for i, v in enumerate(s.seen) if v["v"] == "illegal" and ("missing" in v or "swap" in v)]
    since = warnings[-1] if warnings else len(s.seen)
    for n in range(limit):
        q = s.question
        if q is not None and q.get("kind") in ("swap", "back", "whose"):
            # "were they swapped?" / "whose piece is on N?" about pieces lifted together (where the
            # switches cannot tell): the people at the board answer truthfully; the end state
            # shows whether owners were kept
            s.answer(truthful_whose_answer(s, q) if q["kind"] == "whose" else truthful_swap_answer(s, q))
            continue
        if q is not None:
            raise AssertionError(s.explain(f"{what}: class 5: an operator question while following the fixes", since))
        if s.warning is None:
            return n
        fixes = current_fixes(s, since)
        assert fixes, s.explain(f"{what}: a warning with no fix after the guidance delay: {s.warning}", since)
        since = len(s.seen)
        do_fix(s, fixes[-1])
        s.wait(SETTLE_MS)
    raise AssertionError(s.explain(f"{what}: a dead end: {limit} fixes followed and still {s.warning}"))


def verdicts_of(s: Session, since: int, *names: str) -> list[dict[str, Any]]:
    return of_kind(s.seen[since:], *names)


__all__ = ["GUIDE_MS", "SETTLE_MS", "Carry", "Play", "carries", "check_real_pieces", "follow_prompts"]
