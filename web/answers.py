"""The people at the table answer the referee's questions themselves: no sign-in, only the page's
CSRF token (a page on another site cannot answer for them).

`POST /api/answer` takes `{"answer": option index or text, "question": its id}`: the open question's
answer, or another answer to one the service took for nobody (open to change until the next input).
The id keeps a late tap from answering a newer question it never saw. Staff still answer from the
staff panel (`/api/op/answer`)."""

from __future__ import annotations

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from senet_pi.errors import BadInput, SenetError
from senet_pi.events import Answer
from senet_pi.i18n import Text, joined

from .errors import error, json_body, message_of
from .operator import _handled, csrf_ok
from .state import for_page, services, state

bp = Blueprint("answers", __name__, url_prefix="/api")


@bp.post("/answer")
def answer() -> ResponseReturnValue:
    """Answer the open question (or change the answer taken when nobody answered) as a visitor."""
    if not csrf_ok():
        return error(403, Text("missing or wrong CSRF token (reload the page)"))
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
