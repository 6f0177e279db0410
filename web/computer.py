"""Playing against the computer and hints on the page.

- `GET /api/hint`: the best move for the position on the board, with its chance (exact where the
  solved tables reach), as the analysis thread has it; 202 with Retry-After while it is still
  being worked out, so no request waits more than a moment and the live stream never waits.
- `POST /api/computer/alone` `{"on": true}`: a visitor plays alone; the computer takes the other
  seat(s) at the exhibit's level. From the exhibit's own screen (a loopback address) with the
  session's CSRF token, or by the signed-in operator from anywhere.
- `POST /api/op/computer` `{"seats": {"B": 3}}`: the operator gives the computer any seats at any
  level (`{}`: nobody).

The state (`web/state.py`) carries `computer` (its seats, the move it waits for a person to carry
out, in words) and `coach` (what the last person's move cost, when it cost more than a little).
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from senet_pi.errors import BadInput, SeatError
from senet_pi.i18n import Text
from senet_pi.opponent.levels import LEVEL_RANGE
from senet_pi.rules.core import PLAYER_IDS
from senet_pi.service.coach import Coach
from senet_pi.service.seat import ComputerPlayer

from .door import on_the_screen
from .errors import error, json_body, message_of
from .operator import csrf_ok, operator_check, operator_required
from .shared import shared
from .state import services, state

bp = Blueprint("computer", __name__, url_prefix="/api")

#: Seconds a hint request waits for the analysis before it answers 202 (ask again).
HINT_WAIT = 1.5


def _parts() -> tuple[ComputerPlayer | None, Coach | None]:
    board = shared().board
    return board.computer, board.coach


@bp.get("/hint")
def hint() -> Response | tuple[Response, int]:
    """The analysis of the position on the board now."""
    _, coach = _parts()
    if coach is None:
        return error(404, Text("hints are not available here (senet-pi run gives them)"))
    found = coach.hint(float(current_app.config.get("HINT_WAIT", HINT_WAIT)))
    if found is None:
        response = jsonify({"thinking": True})
        response.headers["Retry-After"] = "1"
        return response, 202
    return jsonify(found)


@bp.post("/computer/alone")
def alone() -> Response | tuple[Response, int]:
    """A visitor plays alone against the computer (or, `"on": false`, with another person again)."""
    if on_the_screen():
        if not csrf_ok():
            return error(403, Text("missing or wrong CSRF token (reload the page)"))
    else:
        refused = operator_check()
        if refused is not None:
            return refused
    computer, _ = _parts()
    if computer is None:
        return error(404, Text("the computer does not play here (senet-pi run gives it)"))
    on = json_body().get("on", True)
    if not isinstance(on, bool):
        raise BadInput(Text("say {on} or {off}", on='{"on": true}', off='{"on": false}'))
    service, _backend = services()
    level = shared().board.alone_level
    players = service.snapshot().players
    # the visitor keeps the first seat (White); the computer takes the others
    seats = dict.fromkeys(players[1:], level) if on else {}
    computer.set_seats(seats)
    return jsonify({"state": state()})


@bp.post("/op/computer")
@operator_required
def seats() -> Response | tuple[Response, int]:
    """The operator gives the computer seats: {"seats": {"B": 3}} ({} = nobody)."""
    computer, _ = _parts()
    if computer is None:
        return error(404, Text("the computer does not play here (senet-pi run gives it)"))
    wanted = json_body().get("seats")
    if not isinstance(wanted, dict):
        raise BadInput(
            Text(
                "name the seats and levels: {some}, or {none} for nobody",
                some='{"seats": {"B": 3}}',
                none='{"seats": {}}',
            )
        )
    for pid, level in wanted.items():
        if pid not in PLAYER_IDS or isinstance(level, bool) or not isinstance(level, int) or level not in LEVEL_RANGE:
            raise BadInput(
                Text(
                    "a seat is A-D and a level 1-{top}, not {seat}",
                    top=LEVEL_RANGE[-1],
                    seat=f"{pid!r}: {level!r}"[:120],
                )
            )
    try:
        computer.set_seats(wanted)
    except SeatError as exc:
        raise BadInput(message_of(exc)) from None
    return jsonify({"state": state()})
