"""Why a move is illegal, in words a player understands, each tied to the ruling that decides it.

One Enum shared by the rules engine, the replay output and (later) the referee and the page.
"""

from __future__ import annotations

from enum import Enum

from .text import N_, Text, form


class Reason(Enum):
    """A reason a move is refused: (ruling id, sentence template)."""

    GAME_OVER = ("P8", N_("the game is over"))
    NO_THROW = ("P3", N_("{player} must throw before moving"))
    THROW_PENDING = ("P3", N_("{player} must first play {throw}"))
    NOT_A_SQUARE = ("P1", N_("square {square} is not on the board (1-30)"))
    EMPTY_SQUARE = ("P3", N_("square {square} is empty"))
    NOT_YOUR_PIECE = ("P3", N_("the piece on {square} belongs to {owner}, and {player} is to move"))
    NOT_A_MOVE = ("P3", N_("a move must go from one square to another"))
    WRONG_DISTANCE = ("P3", N_("a throw of {throw} takes the piece on {square} to {expected}, not {target}"))
    OWN_PIECE = ("P3", N_("square {target} already holds one of {player}'s pieces"))
    PROTECTED_RUN = ("P5", N_("square {target} is protected: two of its owner's pieces stand together"))
    PROTECTED_SAFE = ("{ruling}", N_("square {target} is a safe square: its piece cannot be attacked"))
    BLOCKADE = ("{ruling}", N_("{owner}'s blockade on {first}-{last} cannot be passed"))
    OPENING = ("{ruling}", N_("the first move of the game must be the piece on {square}"))
    TOP_ROW = ("S3", N_("in row 1 only {player}'s most advanced piece, on {square}, may move"))
    MUST_STOP_ON_26 = ("S6", N_("every piece must land on 26 exactly: the move from {square} by {throw} would pass it"))
    EXACT_BEAR_OFF = ("S11", N_("bearing off needs an exact throw: {square} + {throw} goes past the end"))
    ONLY_SMALL_THROWS = ("{ruling}", N_("a piece on {square} moves only with a throw of at most {limit}"))
    ONLY_EXACT_THROW = ("H7", N_("a piece on {square} moves only with exactly {needed}, which bears it off"))
    ROW1_GATE = ("S11", N_("no piece may bear off while {player} still has a piece in row 1"))
    HOUSE_26_OCCUPIED = ("H5", N_("square 26 is occupied: no piece may land on or pass it"))
    NO_BACKWARD = ("H9", N_("this rule set has no backward moves"))
    BACKWARD_NOT_NEEDED = ("S12", N_("a piece may move backward only when no forward move exists"))
    BACKWARD_SPECIAL = ("S12", N_("backward moves never start on or land on squares 26-30"))
    BELOW_SQUARE_1 = ("S12", N_("a backward move by {throw} from {square} would leave the board"))
    # modern
    WRONG_DIE = ("M3", N_("{by} is not one of the dice left to play ({left})"))
    SAME_PIECE_TWICE = ("M3", N_("the two dice must move two different pieces"))
    SAFE_TILE = ("M8", N_("a piece outside 28-30 may not land on the piece on {target}"))
    MUST_LEAVE_SAFE_TILE = ("M8", N_("the piece on {square} stands on 28-30 and must be moved first"))
    EXACT_GOING_UP = ("M5", N_("a piece goes up only with an exact count"))
    ONE_DIE_NEEDS_ONE_PIECE = ("M3", N_("only a player with exactly one piece left on the board may throw one die"))
    NO_COMPLETION = ("M3", N_("after this move the other die could not be played by another piece"))
    # cards
    NOT_A_CARD_GAME = ("K4", N_("{game} is played with a throw, not with cards"))
    CARD_NOT_A_THROW = ("K4", N_("in the card game a turn is a card played or exchanged, not a throw"))
    CARD_FINISH_FIRST = ("K4", N_("{player} must first finish the card being played"))
    CARD_NOT_IN_HAND = ("K4", N_("{player} holds no {card} card"))
    CARD_NO_MOVE = ("K4", N_("no pawn of {player} can be moved with the {card} card"))
    CARD_EXCHANGE_COUNT = ("K4", N_("exchange one or two cards"))
    CARD_NOTHING_TO_PASS = ("K9", N_("there is no optional move to decline"))
    CARD_NILE = ("K7", N_("{player} must send one of their pawns on 16-30 to the Nile"))
    LAST_PAWN_EXACT = ("K9", N_("{player}'s last pawn bears off only with the exact value, {needed} from {square}"))
    # the referee: what the people must do before the game can go on
    NOT_NOW = ("P3", "{why}")
    ANSWER_FIRST = ("P3", N_("answer the question first: {question}"))
    FINISH_FIRST = ("P3", N_("finish on the board first: {step}"))
    BOARD_FIRST = ("P3", N_("put the board right first: {warning}"))
    BOARD_DIFFERS = ("P3", N_("the board differs from the game: {detail}"))
    BOARD_AFTER_THE_END = ("P8", N_("the game is over ({winner} won): {detail}"))
    SWAPPED = ("P4", N_("the pieces on {a} and {b} were swapped, and no legal move exchanges them"))
    SWAPPED_BECAUSE = ("P4", N_("the pieces on {a} and {b} were swapped: {why}"))
    CARD_HIEROGLYPH = (
        "K6",
        N_(
            "a hieroglyph card moves a pawn straight to {target}, if the way is clear, 26 is not passed, and "
            "{target} is empty"
        ),
    )

    @property
    def ruling(self) -> str:
        """The ruling id in `rulings.md`; `{ruling}` means it depends on the square or rule set."""
        return self.value[0]

    def sentence(self, **details: object) -> Text:
        """The sentence for this reason with its details filled in (a `Text`: English, translatable)."""
        return Text(str(self.value[1]), **details)

    def explain(self, **details: object) -> Text:
        """The sentence for this reason with its details filled in, ending with the ruling id."""
        ruling = str(details.get("ruling", self.ruling))
        return form("{sentence} ({ruling})", sentence=self.sentence(**details), ruling=ruling)
