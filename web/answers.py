"""The people at the table answer the referee's questions themselves: no sign-in, only the page's
CSRF token (a page on another site cannot answer for them), from the table: the exhibit's own
screen, or a phone that joined with the code that screen shows (`door`), unless the config opens
answering to any page (`ANSWERS_FROM_ANY_PHONE`). Each client's answers are rate limited.

`POST /api/answer` takes `{"answer": option index or text, "question": its id}`: the open question's
answer, or another answer to one the service took for nobody (open to change until the next input).
The id keeps a late tap from answering a newer question it never saw. `GET /api/join` says whether
this page may answer (and, to the exhibit's own screen, the code); `POST /api/join` takes
`{"code": "123456"}`. Staff still answer from the staff panel (`/api/op/answer`). Nobody has to
answer: a question left alone takes its likelier answer after QUESTION_SECONDS."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request, session
from flask.typing import ResponseReturnValue

from senet_pi.errors import BadInput, SenetError
from senet_pi.events import Answer
from senet_pi.i18n import Text, joined

from .door import STRANGERS, client_of, on_the_screen
from .errors import error, json_body, message_of
from .operator import _handled, csrf_ok
from .shared import shared
from .signin import is_operator
from .state import for_page, services, state

bp = Blueprint("answers", __name__, url_prefix="/api")


def _code() -> str:
    service, _ = services()
    return shared().door.code(service.game_id)


def may_answer() -> bool:
    """Whether this request may answer: any page where the config says so, else the exhibit's own
    screen, a signed-in operator, or a phone that joined with this game's code."""
    if current_app.config.get("ANSWERS_FROM_ANY_PHONE") or on_the_screen() or is_operator():
        return True
    return session.get("joined") == _code()


def _too_many(stranger: bool) -> ResponseReturnValue | None:
    """429 once this client (its address: `door.client_of`) has used its allowance of answers and
    tries at the code, or, for a `stranger` (one that may not answer yet), once all of them have."""
    door = shared().door
    client = client_of(request.remote_addr or "?")
    wait, spent = door.wait(client, stranger)
    if wait <= 0:
        return None
    seconds = max(1, round(wait))
    if spent == STRANGERS:
        said = Text("too many answers from phones that have not joined the table: wait {seconds} s", seconds=seconds)
        return error(429, said, wait)
    return error(429, Text("too many answers from this page: wait {seconds} s", seconds=seconds), wait)


@bp.get("/join")
def join_status() -> ResponseReturnValue:
    """Whether this page may answer the table's questions; the code itself only to the table's screen."""
    return jsonify({"may_answer": may_answer(), "code": _code() if on_the_screen() else None})


@bp.post("/join")
def join() -> ResponseReturnValue:
    """A phone joins the table with the code its screen shows (for this game)."""
    if not csrf_ok():
        return error(403, Text("missing or wrong CSRF token (reload the page)"))
    limited = _too_many(stranger=True)  # every try at the code: guessing from many addresses is one guesser
    if limited is not None:
        return limited
    code = json_body().get("code")
    if not isinstance(code, str | int) or isinstance(code, bool) or str(code).strip() != _code():
        return error(403, Text("that is not the table's code: type the code shown on the table's screen"))
    session["joined"] = _code()
    return jsonify({"may_answer": True})


@bp.post("/answer")
def answer() -> ResponseReturnValue:
    """Answer the open question (or change the answer taken when nobody answered) as a visitor."""
    if not csrf_ok():
        return error(403, Text("missing or wrong CSRF token (reload the page)"))
    allowed = may_answer()
    limited = _too_many(stranger=not allowed)
    if limited is not None:
        return limited
    if not allowed:
        said = Text("the table answers its questions: join with the code shown on the table's screen")
        return jsonify({"error": said, "join": True}), 403  # `join`: the page shows its code field
    data = json_body()
    choice, asked = data.get("answer"), data.get("question")
    if isinstance(choice, bool) or not isinstance(choice, int | str):
        raise BadInput(Text("answer with an option's number or its text"))
    if asked is not None and (isinstance(asked, bool) or not isinstance(asked, int)):
        raise BadInput(Text("question must be the question's id, a whole number"))
    service, _ = services()
    with service.lock:  # the question cannot change between the check and the answer
        question = service.question()
        assumed = service.assumed
        if question is not None and asked in (None, question["id"]):
            _option(choice, question["options"])
            return _handled(Answer(choice))
        if assumed is not None and isinstance(asked, int) and asked == assumed.question.get("id"):
            index = _option(choice, assumed.question.get("options"))
            try:
                verdicts = service.change_answer(asked, index)
            except (SenetError, TypeError, ValueError) as exc:
                raise BadInput(message_of(exc)) from None
            return jsonify({"verdicts": for_page(verdicts), "state": state()})
    return error(409, Text("that question is no longer open"))


def _option(choice: int | str, options: object) -> int:
    """The index of `choice` (an index or an option's text) among `options`, else BadInput naming them."""
    listed = [str(o) for o in options] if isinstance(options, list) else []
    if isinstance(choice, str) and choice in listed:
        return listed.index(choice)
    if isinstance(choice, int) and 0 <= choice < len(listed):
        return choice
    raise BadInput(
        Text("{choice} is not one of the options: {options}", choice=repr(choice)[:40], options=joined(listed, ", "))
    )
