"""The people at the table answer the referee themselves (no sign-in, the page's CSRF token only),
and a question nobody answers never stalls the game: after the stated wait the likelier answer is
taken, said, and open to change until the next input, journaled so a restart resumes the same game."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from senet_pi.errors import ConfigError
from senet_pi.rules import find_ruleset
from senet_pi.service.core import Service, likelier
from senet_pi.service.journal import Journal
from senet_pi_web import create_app, load_instance_config


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def table(tmp_path):
    """A served game with a journal and a clock the test moves; the client is a visitor's page."""
    clock = Clock()
    journal = Journal(tmp_path / "journal.sqlite")
    service = Service(journal, variant="secret", settle=0.2, clock=clock)
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, service=service)
    client = app.test_client()
    client.get("/")  # the page: the session and its CSRF token
    csrf = client.get("/api/op/csrf").json["csrf"]
    yield SimpleNamespace(service=service, clock=clock, client=client, csrf=csrf, path=tmp_path / "journal.sqlite")
    service.close()


def ask_were_they_swapped(table) -> dict:
    """Two pieces lifted together and put back: "Were they swapped?"."""
    for kind, sq in (("lift", 9), ("lift", 10), ("place", 9), ("place", 10)):
        table.service.handle(kind, sq)
    table.clock.now += 0.3
    table.service.tick()
    question = table.service.question()
    assert question is not None
    assert question["kind"] == "swap"
    return question


def answer(table, body: dict, csrf: bool = True):
    return table.client.post("/api/answer", json=body, headers={"X-CSRF-Token": table.csrf} if csrf else {})


def test_a_visitor_answers_without_signing_in_and_the_throw_is_free_again(table):
    question = ask_were_they_swapped(table)
    state = table.client.get("/api/state").json
    assert state["question"]["likelier"] == 0
    assert state["question"]["wait"] == 20  # the stated wait
    assert answer(table, {"question": question["id"], "answer": 0}, csrf=False).status_code == 403
    response = answer(table, {"question": question["id"], "answer": "put back"})
    assert response.status_code == 200, response.json
    assert any(v["v"] == "answered" for v in response.json["verdicts"])
    assert response.json["state"]["question"] is None
    assert table.service.throw_blocked() is None


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"question": 99, "answer": 0}, 409, "that question is no longer open"),  # a late tap, another question
        ({"answer": 2}, 400, "2 is not one of the options: put back, swapped"),
        ({"answer": "maybe"}, 400, "'maybe' is not one of the options"),
        ({"answer": True}, 400, "answer with an option's number or its text"),
        ({"question": "1", "answer": 0}, 400, "question must be the question's id"),
    ],
)
def test_a_wrong_answer_is_one_clear_line_and_the_question_stays(table, body, status, message):
    question = ask_were_they_swapped(table)
    response = answer(table, body)
    assert response.status_code == status
    assert message in response.json["error"]
    assert table.service.question() == question


def test_with_no_question_open_an_answer_is_a_clear_409(table):
    response = answer(table, {"answer": 0})
    assert response.status_code == 409
    assert response.json["error"] == "that question is no longer open"


def test_nobody_answers_the_likelier_answer_is_taken_said_and_can_be_changed(table):
    question = ask_were_they_swapped(table)
    table.clock.now += 19.9
    assert table.service.tick() == []
    assert table.service.question() is not None  # not yet
    table.clock.now += 0.1
    taken = table.service.tick()
    assert [v.json()["v"] for v in taken][:1] == ["answered"]
    assert table.service.question() is None
    state = table.client.get("/api/state").json
    assert state["assumed"]["chosen"] == 0
    assert state["assumed"]["seconds"] == 20
    assert state["assumed"]["options"] == ["put back", "swapped"]
    assert table.service.throw_blocked() is None
    # they were swapped after all: a visitor says so, and the board is to be put right
    response = answer(table, {"question": question["id"], "answer": 1})
    assert response.status_code == 200, response.json
    state = response.json["state"]
    assert state["assumed"] is None
    assert state["warning"]["fix"] == ["swap the pieces on 9 and 10 back"]
    again = answer(table, {"question": question["id"], "answer": 0})  # once changed, it stands
    assert again.status_code == 409
    warning = table.service.snapshot().to_json()["warning"]
    table.service.close()
    resumed = Service(Journal(table.path), variant="secret", settle=0.2)
    try:
        assert resumed.snapshot().to_json()["warning"] == warning
        assert resumed.question() is None  # the journal says the same
    finally:
        resumed.close()


def test_the_chance_to_change_ends_with_the_next_input_and_the_taken_answer_is_journaled(table):
    question = ask_were_they_swapped(table)
    table.clock.now += 20
    table.service.tick()
    table.service.handle("throw", 3)
    assert table.service.snapshot().to_json()["assumed"] is None
    response = answer(table, {"question": question["id"], "answer": 1})
    assert response.status_code == 409
    assert table.service.snapshot().to_json()["throw"] == 3
    table.service.close()
    resumed = Service(Journal(table.path), variant="secret", settle=0.2)
    try:
        assert resumed.question() is None
        assert resumed.snapshot().to_json()["throw"] == 3
        assert resumed.snapshot().to_json()["warning"] is None
    finally:
        resumed.close()


def test_hands_on_the_board_start_the_wait_again(table):
    ask_were_they_swapped(table)
    table.clock.now += 15
    table.service.tick()
    table.service.handle("lift", 1)  # someone is still busy at the table
    table.clock.now += 10
    table.service.tick()
    snapshot = table.service.snapshot().to_json()
    assert snapshot["assumed"] is None
    assert snapshot["question"] is not None  # 25 s since it was asked
    table.clock.now += 20
    table.service.tick()
    assert table.service.snapshot().to_json()["assumed"] is not None  # 20 s since the hands were last seen


def test_the_likelier_reading_of_each_kind_of_question():
    game = find_ruleset("secret")(2, {}, None)
    ask = SimpleNamespace
    assert likelier(ask(kind="swap", options=["put back", "swapped"]), game) == 0
    assert likelier(ask(kind="back", options=["each on its own square", "some were mixed up"]), game) == 0
    assert likelier(ask(kind="which", options=["10-13", "9-12"]), game) == 0  # the referee lists the best first
    assert likelier(ask(kind="new_game", options=["new game", "keep"]), game) == 1  # never a new game by itself
    own = game.piece_at(10)
    other = game.piece_at(9)
    assert likelier(ask(kind="whose", options=["a", "b"], square=10, pieces=[other, own]), game) == 1


def test_the_wait_is_a_setting_checked_at_startup(tmp_path):
    (tmp_path / "config.toml").write_text("QUESTION_SECONDS = 45\n")
    assert load_instance_config(tmp_path)["QUESTION_SECONDS"] == 45
    for bad in ("2", "601", '"soon"'):
        (tmp_path / "config.toml").write_text(f"QUESTION_SECONDS = {bad}\n")
        with pytest.raises(ConfigError, match="QUESTION_SECONDS must be a number of seconds from 5 to 600"):
            load_instance_config(tmp_path)
    app = create_app({"SECRET_KEY": "t", "QUESTION_SECONDS": 45}, service=(service := Service(None)))
    assert app
    assert service.question_seconds == 45


def test_the_move_list_keeps_its_numbering_past_the_moves_it_shows(table):
    """The state lists the last 40 entries; `history_from` is the first one's number in the game."""
    import random

    from senet_pi.service.core import HISTORY_KINDS

    service, rng = table.service, random.Random(5)
    game = service.referee.game

    def listed() -> int:
        return sum(isinstance(v, HISTORY_KINDS) for v in service.history)

    while listed() < 47 and not game.is_over:  # a game played well past 40 entries, entered by hand
        service.handle("throw", game.random_throw(rng))
        if game.pending is not None and not game.is_over:
            for m in rng.choice(game.move_sequences()):
                service.handle("move", [m.from_sq, m.to_sq, m.by])
    state = table.client.get("/api/state").json
    assert listed() > 40
    assert len(state["history"]) == 40
    assert state["history_from"] == listed() - 40 + 1


def test_answers_are_compressed_for_a_browser_that_takes_gzip(table):
    """The page, its script, its style sheet and the state go gzipped (the first draw waits on their
    bytes); a client that does not ask gets them plain; a file's tag changes with its encoding."""
    import gzip

    client = table.client
    tags = {}
    for path in ("/", "/static/app.js", "/static/style.css", "/api/state"):
        with client.get(path) as plain, client.get(path, headers={"Accept-Encoding": "gzip, deflate, br"}) as packed:
            assert plain.status_code == packed.status_code == 200, path
            assert "Content-Encoding" not in plain.headers and packed.headers["Content-Encoding"] == "gzip", path
            assert "Accept-Encoding" in packed.headers["Vary"], path
            body = gzip.decompress(packed.get_data())
            if path.startswith("/static/"):  # a file: the same bytes (the page and state carry fresh tokens)
                assert body == plain.get_data(), path
                tags[path] = (plain.headers["ETag"], packed.headers["ETag"])
            assert len(packed.get_data()) < len(body) / 2, path
    for path, (plain_tag, packed_tag) in tags.items():
        assert packed_tag.endswith('-gzip"')
        assert packed_tag != plain_tag
        headers = {"Accept-Encoding": "gzip", "If-None-Match": packed_tag}
        with client.get(path, headers=headers) as again:  # asked again with the tag it was sent with
            assert again.status_code == 304 and not again.get_data(), path
