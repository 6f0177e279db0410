"""Why a board is wrong, in a player's words, and how to put it right.

The referee compares a settled board with the board the game expects (or the board its owed
steps lead to). When they differ and no move explains it, the people are told the reason,
with the ruling that decides it, and the fixes: each piece back where the hands showed it
came from, each naming whose piece it is.
"""

from __future__ import annotations

from ..errors import IllegalMoveError
from ..rules import Game
from ..rules.board import OFF, bit, squares_in
from ..rules.reasons import Reason
from ..rules.text import Text, joined
from .attempt import Attempt, Identity
from .physical import HAND, Evidence, Fix, Step, fixes, piece_name


def board_differences(board: int, target: int, unknown: int = 0) -> tuple[list[int], list[int]]:
    """The squares `target` wants a piece on that `board` lacks (missing) and the squares `board`
    has a piece on that `target` wants empty (extra), each lowest first; `unknown` squares (a
    switch judged faulty) are in neither."""
    return squares_in(target & ~board & ~unknown), squares_in(board & ~target & ~unknown)


def owners_of(game: Game, owed: list[Step], target: int) -> dict[int, str]:
    """Whose piece belongs on each square of `target`: the game's, and where owed steps carry pieces."""
    owners = dict(game.board())
    for step in owed:
        if step.to_sq != OFF:
            owners[step.to_sq] = step.player
    return {sq: owner for sq, owner in owners.items() if target & bit(sq)}


def board_fixes(
    board: int, target: int, owners: dict[int, str], ev: Attempt, unknown: int, dots: dict[int, int | None]
) -> list[Fix]:
    """How to put `board` right, each piece back where the hands showed it came from."""
    todo = fixes(board & ~unknown, target & ~unknown, owners, evidence_on(board, ev), dots)
    return by_dots(todo, ev, dots)


def warning_fixes(game: Game, owed: list[Step], board: int, target: int, ev: Attempt, unknown: int) -> list[Fix]:
    """How to put `board` right toward `target`, whose pieces belong where as the game and the `owed`
    steps say (in `modern`, by their dots too), each piece back where the hands `ev` showed it came from."""
    owners = owners_of(game, owed, target)
    dots: dict[int, int | None] = {}  # `modern`: which of the owner's pieces belongs there
    for sq, owner in owners.items():
        piece = game.piece_at(sq)
        if isinstance(piece, tuple) and piece[0] == owner and isinstance(piece[1], int):
            dots[sq] = piece[1]
    return board_fixes(board, target, owners, ev, unknown, dots)


def unsure_square(todo: list[Fix], ev: Attempt, sensed: int, unknown: int) -> tuple[int, list[Identity]] | None:
    """A square a fix carries a piece from, or any square the hands lifted (the partner of a piece
    in the hand, or where a carried piece came from), whose piece the hands left unsure between
    players (two or more pieces were in the hand at once), with the pieces it may hold; None
    when all are known.
    (Who stands where among the pieces left standing is asked once the board is right: `Whereabouts.standing`.)"""
    carried = {f.from_sq for f in todo if f.from_sq != HAND}
    if todo:  # whose piece the hand holds, or where a carried piece came from: the lifted squares too
        carried |= set(squares_in(ev.lifted & sensed))
    for sq in ev.unsure_of(carried, unknown):  # a fix naming the wrong owner misleads
        pieces = ev.may_stand(sq)
        if len({p[0] if isinstance(p, tuple) else p for p in pieces}) > 1:
            return sq, pieces
    return None


def evidence_on(board: int, ev: Attempt) -> Evidence:
    """What the hands' stories `ev` tell of the pieces standing on `board`, as `fixes` reads it."""
    on = squares_in(board)
    known = {sq: ids[0] for sq in on if len(ids := ev.identities(sq)) == 1 and ids[0] is not None and not ev.lost}
    return Evidence(
        came_from={sq: ev.origin(sq) for sq in on},
        holders={sq: ev.holder(sq) for sq in on},
        pieces=known,
        strangers=sum(bit(sq) for sq in on if ev.stranger(sq)),
        in_hand=ev.in_hand(),
    )


def by_dots(todo: list[Fix], ev: Attempt, dots: dict[int, int | None]) -> list[Fix]:
    """`modern`: pieces carried to squares where the owner's pieces with given dots belong, when the
    hands left unsure which of the owner's pieces stands where each is carried from (two were in
    the hand together), are taken off first and then each put down by its dots: a fix never sends a
    piece onto the square of one with other dots."""
    out: list[Fix] = []
    put: list[Fix] = []
    for f in todo:
        want = dots.get(f.to_sq) if f.from_sq != HAND and f.to_sq != HAND else None
        may_be = {p for p in ev.identities(f.from_sq) if p is not None} if want is not None else set()
        if want is not None and len(may_be) > 1 and {p[1] for p in may_be} != {want}:
            out.append(Fix(f.from_sq, HAND))
            put.append(Fix(HAND, f.to_sq, f.owner, dots=want))
        else:
            out.append(f)
    if not put:
        return todo
    # every doubtful piece in the hand before any piece is put down from the hand: people pick them
    # by their dots (a piece carried square to square goes to a square that is empty already)
    removals = [f for f in out if f.to_sq == HAND]
    carried = [f for f in out if f.from_sq != HAND and f.to_sq != HAND]
    return removals + carried + [f for f in out if f.from_sq == HAND] + put


def explain(game: Game, board: int, target: int, unknown: int, owed: Step | None) -> tuple[str, str]:
    """Why this board is wrong, in a player's words, and the ruling that decides it: one case per
    kind of wrong board, in the order a person reads them, each with its ruling."""
    missing, extra = board_differences(board, target, unknown)
    owners = game.board()
    if owed is not None:
        why = Reason.BOARD_DIFFERS
        return why.sentence(detail=Text("{step} first", step=owed.prompt())), why.ruling
    if game.is_over:
        why = Reason.BOARD_AFTER_THE_END
        return why.sentence(winner=game.winner_id, detail=differences_text(missing, extra)), why.ruling
    if game.pending is None and missing:
        wrong = [sq for sq in missing if owners.get(sq) != game.to_move_id]
        if wrong:
            err = IllegalMoveError(
                Reason.NOT_YOUR_PIECE, square=wrong[0], owner=owners[wrong[0]], player=game.to_move_id
            )
        else:
            err = IllegalMoveError(Reason.NO_THROW, player=game.to_move_id)
        return err.text, err.ruling
    if game.pending is not None and len(missing) == 1 and len(extra) <= 1:
        off = _one_piece_off(game, missing[0], extra[0] if extra else None)
        if off is not None:
            return off
    unmoved = must_move(game, board)
    if unmoved is not None and missing:
        text = Text(
            "{piece} on {square} stands on 28-30 and must be moved this turn: {detail}",
            piece=piece_name(game.piece_at(unmoved)),
            square=unmoved,
            detail=differences_text(missing, extra),
        )
        return text, Reason.MUST_LEAVE_SAFE_TILE.ruling
    return Reason.BOARD_DIFFERS.sentence(detail=differences_text(missing, extra)), Reason.BOARD_DIFFERS.ruling


def _one_piece_off(game: Game, from_sq: int, to_sq: int | None) -> tuple[str, str] | None:
    """Why the one piece lifted from `from_sq` (put down on `to_sq`, or held) is no move of the throw
    waiting: the rules' own reason for that move, or for the piece not moving at all; None when the
    rules find nothing against it (the board is wrong for another reason)."""
    owners = game.board()
    unreachable: IllegalMoveError | None = None
    reach: int | None = None
    try:
        reach = reachable(game, from_sq)
    except IllegalMoveError as err:  # the throw takes this piece nowhere (S11's exact bear-off...)
        unreachable = err
    except ValueError:
        pass  # a card that moves by no count
    aim = to_sq if to_sq is not None else reach
    try:
        if reach is not None and aim != reach:
            game.check_move(from_sq, reach)  # the real obstacle, if the piece cannot move at all
        if aim is not None:
            game.check_move(from_sq, aim)
    except IllegalMoveError as err:
        return err.text, err.ruling
    if aim is None and owners.get(from_sq) != game.to_move_id:  # lifted and held: whose piece?
        owner = owners.get(from_sq)
        theirs = IllegalMoveError(Reason.NOT_YOUR_PIECE, square=from_sq, owner=owner, player=game.to_move_id)
        return str(theirs), theirs.ruling
    if aim is None and unreachable is not None:
        return str(unreachable), unreachable.ruling
    return None


def must_move(game: Game, board: int) -> int | None:
    """`modern` (M8): the square on 28-30 whose piece every way to play the dice moves, left standing
    on `board` while other pieces moved; None when there is none."""
    standing = [sq for sq in sorted(game.must_move_squares()) if board & bit(sq)]
    return standing[0] if standing else None


def swap_reason(game: Game, a: int, b: int) -> str:
    """Why two pieces swapped by hand are no legal move (P4's exchange is the mover's landing)."""
    pieces = game.board()
    mover = game.to_move_id
    mine, theirs = (a, b) if pieces.get(a) == mover else (b, a)
    reason: str = Reason.SWAPPED.explain(a=a, b=b)
    if game.pending is None:
        err = IllegalMoveError(Reason.NO_THROW, player=mover)
        reason = Reason.SWAPPED_BECAUSE.sentence(a=a, b=b, why=err.text)
    elif pieces.get(mine) == mover:
        try:
            game.check_move(mine, theirs)
        except IllegalMoveError as err:
            reason = Reason.SWAPPED_BECAUSE.sentence(a=a, b=b, why=err.text)
    return reason


def differences_text(missing: list[int], extra: list[int]) -> Text:
    parts = [Text("square {square} should be empty", square=sq) for sq in extra]
    parts += [Text("square {square} should hold a piece", square=sq) for sq in missing]
    return joined(parts)


def reachable(game: Game, from_sq: int) -> int:
    """Where the piece on `from_sq` would go with the throw waiting (for explaining a lifted piece)."""
    pending = game.pending
    if isinstance(pending, tuple) and all(isinstance(d, int) for d in pending):  # modern's dice
        value = sum(pending)
    elif isinstance(pending, int) and not isinstance(pending, bool):
        value = pending
    else:  # a hieroglyph or Nile card: no count of squares to explain by
        raise ValueError(f"no single value to move by: {pending!r}")
    return game.destination(from_sq, value)
