"""What the service shows: the game, the board and the referee's open business taken at one
moment, as typed values; `View.to_json()` makes the JSON the page, the fleet and the terminal read
(the `GET /api/state` contract), so the data stays typed until it leaves the program."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..referee import Referee
from ..rules import Game
from ..rules.board import square_name, squares_in
from ..rules.text import Text
from ..verdicts import Forfeit, Moved, NewGame, Resynced, Thrown, Undone, Verdict, Win

#: The verdicts the page lists as the game's history.
HISTORY_KINDS = (Moved, Forfeit, Win, Undone, NewGame, Resynced)

#: How many of the history's last verdicts the view carries.
HISTORY_SHOWN = 40

#: How many of the discard pile's last cards the view carries.
DISCARD_SHOWN = 6


@dataclass(frozen=True)
class SquareView:
    """Whose piece the game has on a square ("" for none) and its mark (the dots), if any."""

    owner: str
    dots: object

    def to_json(self) -> dict[str, object]:
        """The square as the page reads it."""
        return {"owner": self.owner, "dots": self.dots}


@dataclass(frozen=True)
class ThrowsView:
    """What the game throws: the kind's name, and for sticks what counts as a zero and how many count."""

    kind: str
    zero: object
    counted: object

    def to_json(self) -> dict[str, object]:
        """The throw kind as the page reads it."""
        return {"kind": self.kind, "zero": self.zero, "counted": self.counted}


@dataclass(frozen=True)
class OwedStep:
    """One step still owed by hand on the wooden board: whose piece, from where, to where."""

    player: str
    from_sq: int | str  # a square's number, or "off"
    to_sq: int | str

    def to_json(self) -> dict[str, object]:
        """The step as the page reads it."""
        return {"player": self.player, "from": self.from_sq, "to": self.to_sq}


@dataclass(frozen=True)
class QuestionView:
    """The referee's open question, and when answers are taken for nobody, the option taken and
    the seconds it waits in all (`wait`) and from now (`left`)."""

    verdict: Verdict
    likelier: int | None = None
    wait: float | None = None
    left: float | None = None

    def to_json(self) -> dict[str, object]:
        """The question's verdict JSON, with the wait when there is one."""
        out: dict[str, object] = dict(self.verdict.json())
        if self.wait is not None:
            out.update(likelier=self.likelier, wait=self.wait, left=self.left)
        return out


@dataclass(frozen=True)
class AssumedView:
    """An answer taken for nobody: its question as the page showed it, the option taken and how
    many seconds nobody answered."""

    question: Mapping[str, object]
    chosen: int
    seconds: float

    def to_json(self) -> dict[str, object]:
        """The question's JSON with the option taken and the whole seconds waited."""
        return {**self.question, "chosen": self.chosen, "seconds": round(self.seconds)}


@dataclass(frozen=True)
class SetupStep:
    """The next fix to set a new game's board up: take a piece off or put one on `square`, said in
    `text`, with `left` fixes to go."""

    action: str
    square: int
    text: Text
    left: int

    def to_json(self) -> dict[str, object]:
        """The fix as the page reads it."""
        return {"action": self.action, "square": self.square, "text": self.text, "left": self.left}


@dataclass(frozen=True)
class CardsView:
    """The card game's table (K10): the stack's count, the discard pile's last cards, the dead
    cards' count, the hands (None unless they are played open), each hand's size and the phase."""

    stack: int
    discard: tuple[str, ...]
    dead: int
    hands: Mapping[str, tuple[str, ...]] | None
    counts: Mapping[str, int]
    phase: str

    def to_json(self) -> dict[str, object]:
        """The cards as the page reads them."""
        return {
            "stack": self.stack,
            "discard": list(self.discard),
            "dead": self.dead,
            "hands": {pid: list(hand) for pid, hand in self.hands.items()} if self.hands is not None else None,
            "counts": dict(self.counts),
            "phase": self.phase,
        }


@dataclass(frozen=True)
class View:
    """Everything the page and the terminal show, taken at one moment under the service's lock."""

    game: int
    variant: str
    players: tuple[str, ...]
    to_move: str
    turn_starts_with: str
    throw: object  # the throw waiting to be played (None: none)
    last_throw: object
    throws: ThrowsView
    squares: Mapping[int, SquareView]
    off: Mapping[str, int]
    scores: Mapping[str, int] | None
    winner: str | None
    prompt: Verdict | None
    owed: tuple[OwedStep, ...]  # every step still owed by hand, in order (the prompt is the first)
    holders: Mapping[int, str | None]  # whose piece stands on each sensed square as the hands tell
    in_hand: Mapping[int, str | None]  # the squares whose piece is in a hand, with its owner
    warning: Verdict | None
    question: QuestionView | None
    assumed: AssumedView | None
    in_progress: bool
    journal: str | None  # why the journal cannot write now, or None
    journal_notes: tuple[Text, ...]  # what the resume found, for its game only
    switch_faults: Mapping[int, str]  # squares whose switch the referee judges stuck
    sensed: tuple[int, ...]
    expected: tuple[int, ...]
    legal: tuple[str, ...]
    moves: tuple[tuple[int, int | str], ...]  # the single moves the pending throw allows ("off" past 30)
    history: tuple[Verdict, ...]
    touched: bool  # a person did something since the game began
    setup: SetupStep | None
    cards: CardsView | None
    lights: Mapping[str, str]  # the lights under the squares (service/lights.py): "1".."30", sticks, button -> kind

    def to_json(self) -> dict[str, object]:
        """The view as `GET /api/state` answers it (before the page adds its own parts): plain
        JSON-ready data, `cards` only in the card game."""
        out: dict[str, object] = {
            "game": self.game,
            "variant": self.variant,
            "players": list(self.players),
            "to_move": self.to_move,
            "turn_starts_with": self.turn_starts_with,
            "throw": list(self.throw) if isinstance(self.throw, tuple) else self.throw,
            "last_throw": self.last_throw,
            "throws": self.throws.to_json(),
            "squares": {str(sq): square.to_json() for sq, square in self.squares.items()},
            "off": dict(self.off),
            "scores": dict(self.scores) if self.scores is not None else None,
            "winner": self.winner,
            "prompt": self.prompt.json() if self.prompt is not None else None,
            "owed": [step.to_json() for step in self.owed],
            "holders": {str(sq): who for sq, who in self.holders.items()},
            "in_hand": {str(sq): who for sq, who in self.in_hand.items()},
            "warning": self.warning.json() if self.warning is not None else None,
            "question": self.question.to_json() if self.question is not None else None,
            "assumed": self.assumed.to_json() if self.assumed is not None else None,
            "in_progress": self.in_progress,
            "journal": self.journal,
            "journal_notes": list(self.journal_notes),
            "switch_faults": {str(sq): fault for sq, fault in self.switch_faults.items()},
            "sensed": list(self.sensed),
            "expected": list(self.expected),
            "legal": list(self.legal),
            "moves": [[from_sq, to_sq] for from_sq, to_sq in self.moves],
            "history": [verdict.json() for verdict in self.history],
            "touched": self.touched,
            "setup": self.setup.to_json() if self.setup is not None else None,
            "lights": dict(self.lights),
        }
        if self.cards is not None:
            out["cards"] = self.cards.to_json()
        return out


def view_of(
    referee: Referee,
    *,
    game_id: int,
    history: Sequence[Verdict],
    question: QuestionView | None,
    assumed: AssumedView | None,
    journal: str | None,
    journal_notes: Sequence[Text],
    touched: bool,
    lights: Mapping[str, str] | None = None,
) -> View:
    """The view of `referee`'s game and board with the service's own parts (called under its lock)."""
    game = referee.game
    squares = {}
    for sq in game.board():
        owner, mark = game.piece_at(sq) or ("", None)
        squares[sq] = SquareView(owner, mark)
    throws = [v for v in history if isinstance(v, Thrown)]
    moves = game.legal_moves() if game.pending is not None and game.winner_id is None else []
    kind = game.throw_kind
    sensed = tuple(squares_in(referee.sensed))
    return View(
        game=game_id,
        variant=game.name,
        players=tuple(game.player_ids),
        to_move=game.to_move_id,
        turn_starts_with=game.turn_starts_with,
        throw=game.pending,
        last_throw=throws[-1].value if throws else None,
        throws=ThrowsView(kind.name, getattr(kind, "zero", None), getattr(kind, "counted", None)),
        squares=squares,
        off=dict(zip(game.player_ids, game.off, strict=True)),
        scores=game.scores(),
        winner=game.winner_id,
        prompt=referee.owed.prompt() if referee.owed is not None else None,
        owed=tuple(OwedStep(s.player, square_name(s.from_sq), square_name(s.to_sq)) for s in referee.steps_left),
        holders={sq: referee.attempt.holder(sq) for sq in sensed},
        in_hand={sq: referee.attempt.owners.get(sq) for sq in squares_in(referee.attempt.in_hand())},
        warning=referee.warning.verdict() if referee.warning is not None else None,
        question=question,
        assumed=assumed,
        in_progress=referee.in_progress,
        journal=journal,
        journal_notes=tuple(journal_notes),
        switch_faults=dict(sorted(referee.faults.items())),
        sensed=sensed,
        expected=tuple(squares_in(referee.expected)),
        legal=tuple(" then ".join(str(m) for m in seq) for seq in game.move_sequences()),
        moves=tuple((m.from_sq, square_name(m.to_sq)) for m in moves),
        history=tuple(v for v in history if isinstance(v, HISTORY_KINDS))[-HISTORY_SHOWN:],
        touched=touched,
        setup=setup_step(game, referee),
        cards=cards_view(game),
        lights=dict(lights or {}),
    )


@dataclass(frozen=True)
class HandView:
    """One player's view of their cards in the card game (K10): the hand, the cards they may play
    now, whether it is their turn to play a card, to play out the rest (residue) or to move a piece,
    who is to move and who has won."""

    player: str
    cards: tuple[str, ...]
    playable: tuple[str, ...]
    your_turn: bool
    residue: bool
    moving: bool
    to_move: str
    winner: str | None

    def to_json(self) -> dict[str, object]:
        """The hand as the player's own page reads it."""
        return {
            "player": self.player,
            "cards": list(self.cards),
            "playable": list(self.playable),
            "your_turn": self.your_turn,
            "residue": self.residue,
            "moving": self.moving,
            "to_move": self.to_move,
            "winner": self.winner,
        }


def hand_of(game: Game, player: str) -> HandView | None:
    """`player`'s view of their hand, or None when they hold none (not a player, not a card game)."""
    if game.turn_starts_with != "card" or player not in game.player_ids:
        return None
    to_move = game.to_move_id == player
    phase = game.phase
    cards = tuple(game.hand(player))
    return HandView(
        player=player,
        cards=cards,
        playable=tuple(c for c in cards if to_move and game.playable(c)),
        your_turn=to_move and phase == "play" and game.pending is None,
        residue=to_move and phase == "residue",
        moving=to_move and phase == "play" and game.pending is not None,
        to_move=game.to_move_id,
        winner=game.winner_id,
    )


def cards_view(game: Game) -> CardsView | None:
    """The card game's table as the main page shows it (K10: both hands only if open), or None."""
    cards = game.cards()
    if cards is None:
        return None
    return CardsView(
        stack=cards.stack,
        discard=cards.discard[-DISCARD_SHOWN:],
        dead=len(cards.dead),
        hands=cards.hands if game.options.get("open_hands") else None,
        counts={pid: len(hand) for pid, hand in cards.hands.items()},
        phase=game.phase,
    )


def setup_step(game: Game, referee: Referee) -> SetupStep | None:
    """While a new game's board differs from its starting setup: the one next fix, pieces off the
    squares that should be empty first, then the missing ones, lowest square first, and how many
    fixes are left. None once the game is under way or the board is set up."""
    if game.actions or game.is_over:
        return None
    missing, extra = referee.differences()
    if not missing and not extra:
        return None
    left = len(missing) + len(extra)
    if extra:
        return SetupStep("remove", extra[0], Text("take the piece off square {square}", square=extra[0]), left)
    return SetupStep("place", missing[0], Text("put a piece on square {square}", square=missing[0]), left)
