"""`cards`: the card game (seed 001), rulings K1-K10: `houses` played with a deck instead of sticks.

Cards are short names: "1"-"5" (stick cards, K2), "H26" "H28" "H29" (hieroglyphs, K6),
"NA" "NB" (the Nile card naming A or B, K7) and "HAND" (K8). A turn is one action: play a
card, or exchange up to two (K4). The deck's order and the seed of later reshuffles are
options, so a game is replayed exactly; when not given they are drawn at random.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from ..errors import IllegalMoveError, InvalidOptionError
from .board import OFF, between, bit, squares_in
from .core import Snapshot
from .effects import Bonus, Effect, Effects, Relocated
from .houses import HousesGame
from .legality import count_of
from .move import Move, cached_move
from .reasons import Reason
from .text import Text
from .throws import RandomSource

HAND_SIZE = 5
HIEROGLYPHS = {"H26": 26, "H28": 28, "H29": 29}
BONUS_CARDS = frozenset({"1", "4", "5"})  # K2: 1, 4 and 5 (the all-dark outcome counts 5)
#: K9: what a pawn on these squares needs to bear off.
NEEDS = {26: 5, 28: 3, 29: 2, 30: 1}
#: K2: how many of the 16 stick outcomes show each value (C(4, k) white sides; none = 5).
OUTCOMES = {"1": 4, "2": 6, "3": 4, "4": 1, "5": 1}

# What `cards` adds to the snapshot: stack, hands, discard, dead, the shuffler's state, phase, nile_player, bonus_due.
CardsExtra = tuple[
    tuple[str, ...],
    tuple[tuple[str, ...], ...],
    tuple[str, ...],
    tuple[str, ...],
    tuple[object, ...],
    str,
    int | None,
    bool,
]


def default_deck(copies: int = 2, specials: bool = True) -> list[str]:
    """K2: `copies` of each of the 16 stick outcomes, then the six special cards."""
    deck = [value for value, n in OUTCOMES.items() for _ in range(n * copies)]
    if specials:
        deck += [*HIEROGLYPHS, "NA", "NB", "HAND"]
    return deck


@dataclass(frozen=True)
class Cards:
    """Where every card of a card game is at one moment: how many are left in the stack, the
    discard pile and the dead cards in the order they went there, and each player's hand."""

    stack: int
    discard: tuple[str, ...]
    dead: tuple[str, ...]
    hands: Mapping[str, tuple[str, ...]]

    def to_json(self) -> dict[str, object]:
        """The cards as JSON-ready data (lists for the piles and the hands)."""
        return {
            "stack": self.stack,
            "discard": list(self.discard),
            "dead": list(self.dead),
            "hands": {pid: list(hand) for pid, hand in self.hands.items()},
        }


class CardsGame(HousesGame):
    """Houses movement (K1) driven by cards: a deck, two hands, a discard pile and a dead pile."""

    name = "cards"
    aliases = ("card", "card-game")
    how_to_play = (
        Text("Houses rules, but cards replace the sticks."),
        Text("Each turn either play a card or swap up to two cards for new ones (the swapped cards are out for good)."),
        Text("Stick cards move a pawn by their value; 1, 4 and 5 let you draw a card and act again."),
        Text("Hieroglyph cards move a pawn straight to 26, 28 or 29 if the way is clear and the square empty."),
        Text("A Nile card makes the player it names drown one of their pawns on 16-30."),
        Text("The Hand card swaps the two hands."),
        Text(
            "Bear off with at least what a pawn needs and move another pawn with the rest; your last pawn needs "
            "it exactly."
        ),
        Text("Refill to five cards at the end of your turn."),
    )
    turn_starts_with = "card"  # K4
    bonus_throws = frozenset({1, 4, 5})  # K2: the bonus cards
    opening_square = None  # K1 lists what follows houses; H2's opening is about the first throw

    @classmethod
    def seeded_options(cls, seed: int) -> dict[str, object]:
        """The whole deck shuffled by `seed`, and `seed` for later reshuffles (K4)."""
        deck = default_deck()
        random.Random(seed).shuffle(deck)
        return {"deck_order": deck, "shuffle_seed": seed}

    @classmethod
    def option_defaults(cls) -> dict[str, object]:
        return {"copies": 2, "specials": True, "deck_order": None, "shuffle_seed": None, "open_hands": True}

    def _read_options(self, options: Mapping[str, object]) -> dict[str, object]:
        out = super()._read_options(options)
        if isinstance(out["copies"], bool) or not isinstance(out["copies"], int) or not 1 <= out["copies"] <= 4:
            raise InvalidOptionError("option copies: how many of each stick outcome, 1-4")
        deck = default_deck(out["copies"], bool(out["specials"]))
        order = out["deck_order"]
        if order is None:
            order = list(deck)
            random.Random(secrets.randbits(64)).shuffle(order)
        elif not isinstance(order, list) or sorted(map(str, order)) != sorted(deck):
            raise InvalidOptionError("option deck_order must list every card of the deck once (top first)")
        out["deck_order"] = [str(card) for card in order]
        if out["shuffle_seed"] is None:
            out["shuffle_seed"] = secrets.randbits(32)
        elif isinstance(out["shuffle_seed"], bool) or not isinstance(out["shuffle_seed"], int):
            raise InvalidOptionError("option shuffle_seed must be a whole number")
        return out

    def __init__(
        self,
        players: int = 2,
        options: Mapping[str, object] | None = None,
        position: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(players, options, position)
        self.stack: list[str] = list(reversed(self._deck_order()))
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.discard: list[str] = []
        self.dead: list[str] = []
        seed = self.options["shuffle_seed"]
        if not isinstance(seed, int):  # _read_options made it one
            raise TypeError(f"shuffle_seed is not a whole number: {seed!r}")
        self._shuffler = random.Random(seed)
        self.phase = "play"  # "play", "nile" (the named player drowns a pawn), "residue" (K9, optional)
        self.nile_player: int | None = None
        self.bonus_due = False
        for _ in range(HAND_SIZE):  # K3: alternately, the player to move first
            for i in range(players):
                self._draw((self.to_move + i) % players)

    # ------------------------------------------------------------------ the deck

    def _draw(self, p: int) -> str | None:
        """K4: take the top card; an empty stack is replaced by the shuffled discard pile. When the
        discard pile is empty too, the dead pile comes back: K4 keeps it out, but a game whose cards
        have all been exchanged away could otherwise never end (see README, "How the rulings are read")."""
        if not self.stack and self.discard:
            self.stack, self.discard = self.discard, []
            self._shuffler.shuffle(self.stack)
        if not self.stack and self.dead:
            self.stack, self.dead = self.dead, []
            self._shuffler.shuffle(self.stack)
        if not self.stack:
            return None
        card = self.stack.pop()
        self.hands[p].append(card)
        return card

    def _refill(self, p: int) -> None:
        while len(self.hands[p]) < HAND_SIZE and self._draw(p) is not None:
            pass

    @property
    def mover_id(self) -> str:
        if self.phase == "nile" and self.nile_player is not None:  # nile_player is set whenever phase is "nile"
            return self.player_ids[self.nile_player]
        return self.to_move_id

    def hand(self, pid: str) -> list[str]:
        """The cards in a player's hand (K10: the program holds them)."""
        return list(self.hands[self.player_ids.index(pid)])

    def card_names(self) -> list[str]:
        """Every card name this game's deck holds, sorted."""
        return sorted(set(self._deck_order()))

    def _deck_order(self) -> list[str]:
        """Option deck_order: the deck's card names, top first (_read_options made it a list of names)."""
        order = self.options["deck_order"]
        if not isinstance(order, list):
            raise TypeError(f"deck_order is not a list of cards: {order!r}")
        return order

    def cards(self) -> Cards:
        """Where every card is, for the page and for tests that count them."""
        return Cards(
            stack=len(self.stack),
            discard=tuple(self.discard),
            dead=tuple(self.dead),
            hands={pid: tuple(h) for pid, h in zip(self.player_ids, self.hands, strict=True)},
        )

    # ------------------------------------------------------------------ snapshots for push / pop

    def _snapshot(self) -> tuple[Snapshot, CardsExtra]:
        extra = (
            tuple(self.stack),
            tuple(map(tuple, self.hands)),
            tuple(self.discard),
            tuple(self.dead),
            self._shuffler.getstate(),
            self.phase,
            self.nile_player,
            self.bonus_due,
        )
        return (super()._snapshot(), extra)

    def _restore(self, snap: Snapshot) -> None:
        base, extra = cast(tuple[Snapshot, CardsExtra], snap)
        stack, hands, discard, dead, rng, self.phase, self.nile_player, self.bonus_due = extra
        super()._restore(base)
        self.stack, self.discard, self.dead = list(stack), list(discard), list(dead)
        self.hands = [list(h) for h in hands]
        self._shuffler.setstate(rng)

    # ------------------------------------------------------------------ actions

    def parse_throw(self, raw: object) -> object:
        raise IllegalMoveError(Reason.CARD_NOT_A_THROW)

    def push_throw(self, value: object) -> Effects:
        raise IllegalMoveError(Reason.CARD_NOT_A_THROW)

    def playable(self, card: str) -> bool:
        """Whether playing `card` now would be accepted."""
        try:
            self._check_card(card)
        except IllegalMoveError:
            return False
        return True

    def _check_card(self, card: str) -> None:
        p = self.to_move
        if self.winner is not None:
            raise IllegalMoveError(Reason.GAME_OVER)
        if self.phase != "play" or self.pending is not None:
            raise IllegalMoveError(Reason.CARD_FINISH_FIRST, player=self.to_move_id)
        if card not in self.hands[p]:
            raise IllegalMoveError(Reason.CARD_NOT_IN_HAND, card=card, player=self.to_move_id)
        value = _card_value(card)
        if value is not None and not self._generate(p, value):
            raise IllegalMoveError(Reason.CARD_NO_MOVE, card=card, player=self.to_move_id)

    def push_card(self, card: str) -> Effects:
        """Play a card from the hand of the player to move (K4-K8); refused with the reason, before any
        piece moves, when its action is impossible."""
        self._check_card(card)
        self._save(("card", card))
        p = self.to_move
        self.hands[p].remove(card)
        self.discard.append(card)
        effects: list[Effect] = []
        value = _card_value(card)
        if value is not None:
            self.pending = value
        elif card in ("NA", "NB"):  # K7
            named = self.player_ids.index(card[1]) if card[1] in self.player_ids else p
            if self._nile_sources(named):
                self.phase, self.nile_player, self.pending = "nile", named, ("nile", named)
            else:
                self._end_turn(p, effects)
        else:  # K8: the hands change owners; the opponent refills
            q = (p + 1) % self.players
            self.hands[p], self.hands[q] = self.hands[q], self.hands[p]
            self._refill(q)
            self._end_turn(p, effects)
        self._version += 1
        self.effects = tuple(effects)
        return self.effects

    def push_exchange(self, cards: Sequence[str]) -> Effects:
        """K4: up to two cards go face down to the dead pile and are replaced; the turn ends."""
        p = self.to_move
        if self.phase != "play" or self.pending is not None or self.winner is not None:
            raise IllegalMoveError(Reason.CARD_FINISH_FIRST, player=self.to_move_id)
        hand = list(self.hands[p])
        if not 1 <= len(cards) <= 2:
            raise IllegalMoveError(Reason.CARD_EXCHANGE_COUNT)
        for card in cards:
            if card not in hand:
                raise IllegalMoveError(Reason.CARD_NOT_IN_HAND, card=card, player=self.to_move_id)
            hand.remove(card)
        self._save(("exchange", list(cards)))
        for card in cards:
            self.hands[p].remove(card)
            self.dead.append(card)
        effects: list[Effect] = []
        self._end_turn(p, effects)
        self._version += 1
        self.effects = tuple(effects)
        return self.effects

    def push_pass(self) -> Effects:
        """Decline the optional move with the residue of a bearing off (K9), or pass a turn in which
        nothing at all can be done."""
        p = self.to_move
        stuck = self.phase == "play" and self.pending is None and not self._can_act(p)
        if self.phase != "residue" and not stuck:
            raise IllegalMoveError(Reason.CARD_NOTHING_TO_PASS)
        self._save(("pass", True))
        effects: list[Effect] = []
        self.pending = None
        self.phase = "play"
        if self.bonus_due:
            self._bonus_action(p, effects)
        else:
            self._end_turn(p, effects)
        self._version += 1
        self.effects = tuple(effects)
        return self.effects

    def redeal_unseen(self, viewer: str | None, rng: RandomSource) -> None:
        v = self.player_ids.index(viewer) if viewer is not None else None
        others = [q for q in range(self.players) if q != v]
        # sorted first: what is dealt depends on which cards are hidden, never on where they were
        pool = sorted([card for q in others for card in self.hands[q]] + self.stack + self.dead)
        for i in range(len(pool) - 1, 0, -1):  # Fisher-Yates with the injected source
            j = rng.randrange(i + 1)
            pool[i], pool[j] = pool[j], pool[i]
        for q in others:
            self.hands[q], pool = pool[: len(self.hands[q])], pool[len(self.hands[q]) :]
        self.stack, self.dead = pool[: len(self.stack)], pool[len(self.stack) :]

    def can_exchange(self) -> bool:
        """Whether the player to move could exchange a card (there is a card to draw instead)."""
        return bool(self.hands[self.to_move]) and bool(self.stack or self.discard or self.dead)

    def _can_act(self, p: int) -> bool:
        return self.can_exchange() or any(self.playable(card) for card in self.hands[p])

    def _end_turn(self, p: int, effects: list[Effect]) -> None:
        """K4: refill to five, and the turn passes."""
        self._refill(p)
        self.pending = None
        self.phase = "play"
        self.nile_player = None
        self.bonus_due = False
        self.to_move = q = (p + 1) % self.players
        effects.append(self._turn[q])

    def _bonus_action(self, p: int, effects: list[Effect]) -> None:
        """K5: draw one card (never above five) and act again."""
        self.bonus_due = False
        if len(self.hands[p]) < HAND_SIZE:
            self._draw(p)
        effects.append(self._bonus[p])

    # ------------------------------------------------------------------ moves

    @classmethod
    def destination(cls, from_sq: int, throw: int) -> int:
        """K9: a pawn on 26 or 28-30 bears off with at least what it needs; otherwise as H5/H7."""
        need = NEEDS.get(from_sq)
        if need is not None and throw >= need:
            return OFF
        return super().destination(from_sq, throw)

    def _generate(self, p: int, t: object) -> list[Move]:
        if isinstance(t, tuple) and t[0] == "nile":
            q = t[1]
            return [cached_move(sq, 27, 0) for sq in self._nile_sources(q)]
        if isinstance(t, str):  # a hieroglyph card, while checking whether it is playable
            return self._hieroglyph_moves(p, HIEROGLYPHS[t])
        # past the Nile and the hieroglyphs, t is a stick card's value: an int
        count = count_of(t)
        moves = super()._generate(p, count)
        if self.occ[p].bit_count() == 1:  # K9: the last pawn bears off only exactly
            moves = [m for m in moves if m.to_sq != OFF or m.from_sq + count == OFF]
        return moves

    def _hieroglyph_moves(self, p: int, target: int) -> list[Move]:
        """K6: to the card's square if the way is legal (no block passed, 26 not passed unless the
        pawn starts there) and the square is empty."""
        if self.occupied() & bit(target):
            return []
        out = []
        blocks = self._blockade(1 - p)
        for f in squares_in(self.occ[p]):
            if f >= target or (target > 26 and f < 26):
                continue
            if between(f, target) & (blocks | (self.occupied() & bit(26))):
                continue
            out.append(cached_move(f, target, 0))
        return out

    def _nile_sources(self, q: int) -> list[int]:
        """K7: the named player's pawns on 16-30 (27 holds none: it drowns at once)."""
        return [sq for sq in squares_in(self.occ[q]) if 16 <= sq <= 30 and sq != 27]

    def push(self, move: Move) -> Effects:
        """A move with a stick or hieroglyph card, or the Nile's; then K9's residue, K5's bonus
        action, or the end of the turn (K4) instead of the core's bonus throw or turn."""
        if self.phase == "nile":
            return self._push_nile(move)
        p = self.to_move
        in_residue = self.phase == "residue"
        owed = in_residue and self.bonus_due  # K5: the card's bonus waits for its residue
        need = NEEDS.get(move.from_sq)
        residue = move.by - need if move.to_sq == OFF and need is not None and move.by else 0
        effects = list(super().push(move))
        if self.winner is not None:
            return self.effects
        bonus = isinstance(effects.pop(), Bonus)  # P6: one bonus at most for the card's action
        if in_residue:  # K5: a residue is no card: only the card's own bonus or a bonus square (H4, H7)
            bonus = owed or move.to_sq in self.bonus_landings
        self.to_move = p
        self.phase = "play"
        if residue > 0 and self.occ[p]:
            self.phase, self.pending, self.bonus_due = "residue", residue, bonus
            self._version += 1
            if not self.legal_moves():
                self.phase, self.pending = "play", None
                self._finish(p, bonus, effects)
        else:
            self._finish(p, bonus, effects)
        self._version += 1
        self.effects = tuple(effects)
        return self.effects

    def _finish(self, p: int, bonus: bool, effects: list[Effect]) -> None:
        if bonus:
            self._bonus_action(p, effects)
        else:
            self._end_turn(p, effects)

    def _push_nile(self, move: Move) -> Effects:
        """K7: the named player's pawn goes to the Nile and drowns as in H6; the turn then ends."""
        self._save(("move", move))
        q = self.nile_player
        assert q is not None
        self.occ[q] ^= bit(move.from_sq) | bit(27)
        effects: list[Effect] = []
        self._relocate(q, 27, effects)
        effects = [Relocated(e.player, 27, e.to_sq, "drowned", "K7") for e in effects if isinstance(e, Relocated)]
        self._end_turn(self.to_move, effects)
        self._version += 1
        self.effects = tuple(effects)
        return self.effects

    # ------------------------------------------------------------------ the readable validator
    #
    # Nile and hieroglyph moves are decided here from K6/K7 square by square, sharing no code with
    # their generators (`_nile_sources`, `_hieroglyph_moves`); stick cards go through the core's
    # validator, with K9 added.

    def check_move(self, from_sq: int, to_sq: int, by: int = 0) -> Move:
        if self.phase == "nile":
            return self._check_nile(from_sq, to_sq)
        if isinstance(self.pending, str):
            return self._check_hieroglyph(from_sq, to_sq, HIEROGLYPHS[self.pending])
        move = super().check_move(from_sq, to_sq, by)
        p = self.to_move
        if move.to_sq == OFF and self.occ[p].bit_count() == 1 and move.from_sq + move.by != OFF:
            # K9: the player's last pawn bears off only with the exact value
            raise IllegalMoveError(
                Reason.LAST_PAWN_EXACT, player=self.player_ids[p], square=from_sq, needed=OFF - from_sq
            )
        return move

    def _check_nile(self, from_sq: int, to_sq: int) -> Move:
        """K7: the named player sends one of their own pawns on 16-30 to the Nile (27)."""
        q = self.nile_player
        assert q is not None
        if to_sq != 27 or not 16 <= from_sq <= 30 or self.owner(from_sq) != self.player_ids[q]:
            raise IllegalMoveError(Reason.CARD_NILE, player=self.player_ids[q])
        return cached_move(from_sq, 27, 0)

    def _check_hieroglyph(self, from_sq: int, to_sq: int, target: int) -> Move:
        """K6: an own pawn goes forward straight to the card's square, if that square is empty, no
        block of the opponent stands between (H3), and 26 is not passed unless the pawn starts on it
        (H5)."""
        p = self.to_move
        board = self.board()
        me, them = self.player_ids[p], self.player_ids[1 - p]

        def in_block(sq: int) -> bool:
            """H3: part of a run of three or more of the opponent's pieces (corners allowed)."""
            return any(all(board.get(s) == them for s in range(start, start + 3)) for start in (sq - 2, sq - 1, sq))

        if (
            to_sq != target
            or board.get(from_sq) != me
            or from_sq >= target
            or target in board
            or from_sq < 26 < target
            or any(in_block(sq) for sq in range(from_sq + 1, target))
        ):
            raise IllegalMoveError(Reason.CARD_HIEROGLYPH, target=target)
        return cached_move(from_sq, target, 0)

    def random_throw(self, rng: RandomSource) -> object:
        raise IllegalMoveError(Reason.CARD_NOT_A_THROW)


def _card_value(card: str) -> int | str | None:
    """A stick card's value, a hieroglyph's name (its moves are generated by name), None otherwise."""
    if card in OUTCOMES:
        return int(card)
    if card in HIEROGLYPHS:
        return card
    return None
