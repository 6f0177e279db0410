"""Answers come from the table: the exhibit's own screen and phones that joined with the code it
shows (a new code every game) answer the referee's questions; any other phone on the network is
refused with a clear message, every client is rate limited (429), the staff's answer names its
question, and a question nobody may answer still times out to its likelier answer."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from web_helpers import FAST_HASH, PIN

from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from senet_pi_web import create_app

PHONE = {"REMOTE_ADDR": "192.168.1.50"}
OTHER_PHONE = {"REMOTE_ADDR": "192.168.1.51"}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def ask_were_they_swapped(table) -> dict:
    """Two pieces lifted together and put back: "Were they swapped?"."""
    for kind, sq in (("lift", 9), ("lift", 10), ("place", 9), ("place", 10)):
        table.service.handle(kind, sq)
    table.clock.now += 0.3
    table.service.tick()
    question = table.service.question()
    assert question is not None
    return question


@pytest.fixture
def table(tmp_path):
    clock = Clock()
    service = Service(Journal(tmp_path / "journal.sqlite"), variant="secret", settle=0.2, clock=clock)
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "OPERATOR_PIN_HASH": FAST_HASH}, service=service)
    yield SimpleNamespace(service=service, clock=clock, app=app)
    service.close()


def _page(app, where=None):
    """A page's client (the exhibit's screen unless `where` names a phone) and its CSRF token."""
    client = app.test_client()
    if where is not None:
        client.environ_base.update(where)
    client.get("/")
    return client, client.get("/api/op/csrf").json["csrf"]


def _answer(client, csrf, question, choice=0):
    return client.post("/api/answer", json={"question": question, "answer": choice}, headers={"X-CSRF-Token": csrf})


def _join(client, csrf, code):
    return client.post("/api/join", json={"code": code}, headers={"X-CSRF-Token": csrf})


def test_a_phone_that_has_not_joined_is_refused_and_the_screen_answers(table):
    question = ask_were_they_swapped(table)
    phone, phone_csrf = _page(table.app, PHONE)
    refused = _answer(phone, phone_csrf, question["id"])
    assert refused.status_code == 403
    assert refused.json == {
        "error": "the table answers its questions: join with the code shown on the table's screen",
        "join": True,
    }
    assert table.service.question() is not None  # the phone answered nothing
    assert phone.get("/api/join").json == {"may_answer": False, "code": None}  # a phone never sees the code
    screen, screen_csrf = _page(table.app)
    assert _answer(screen, screen_csrf, question["id"]).status_code == 200
    assert table.service.question() is None


def test_a_phone_joins_with_the_code_on_the_screen_and_a_new_game_needs_a_new_code(table):
    screen, _ = _page(table.app)
    code = screen.get("/api/join").json["code"]
    assert len(code) == 6
    assert code.isdigit()
    phone, csrf = _page(table.app, PHONE)
    wrong = _join(phone, csrf, "000000" if code != "000000" else "111111")
    assert wrong.status_code == 403
    assert "not the table's code" in wrong.json["error"]
    assert _join(phone, csrf, code).json == {"may_answer": True}
    question = ask_were_they_swapped(table)
    assert _answer(phone, csrf, question["id"]).status_code == 200
    table.service.new_game("secret", 2)
    new_code = screen.get("/api/join").json["code"]
    assert new_code != code
    assert phone.get("/api/join").json["may_answer"] is False
    assert new_code not in screen.get("/api/state").get_data(as_text=True)  # never in the state everyone hears


def test_answers_are_rate_limited_per_client_with_a_clear_429(table):
    question = ask_were_they_swapped(table)
    phone, csrf = _page(table.app, PHONE)
    statuses = [_answer(phone, csrf, question["id"]).status_code for _ in range(40)]
    assert statuses[:5] == [403] * 5  # refused (not joined), but counted
    assert set(statuses[5:]) == {429}
    limited = _answer(phone, csrf, question["id"])
    assert limited.json["error"].startswith("too many answers from this page: wait ")
    assert int(limited.headers["Retry-After"]) >= 1
    other, other_csrf = _page(table.app, OTHER_PHONE)
    assert _answer(other, other_csrf, question["id"]).status_code == 403  # another client: its own allowance
    for _ in range(20):  # guessing the code is limited the same way
        last = _join(phone, csrf, "123456")
    assert last.status_code == 429


def test_nobody_needs_to_stand_by_the_table_the_question_times_out(table):
    question = ask_were_they_swapped(table)
    phone, csrf = _page(table.app, PHONE)
    assert _answer(phone, csrf, question["id"]).status_code == 403
    table.clock.now += 21
    table.service.tick()
    assert table.service.question() is None
    assert table.service.assumed is not None  # the likelier answer taken


def test_any_phone_answers_where_the_config_says_so(tmp_path):
    service_clock = Clock()
    service = Service(Journal(tmp_path / "j.sqlite"), variant="secret", settle=0.2, clock=service_clock)
    try:
        app = create_app({"TESTING": True, "SECRET_KEY": "t", "ANSWERS_FROM_ANY_PHONE": True}, service=service)
        table = SimpleNamespace(service=service, clock=service_clock)
        question = ask_were_they_swapped(table)
        phone, csrf = _page(app, PHONE)
        assert phone.get("/api/join").json["may_answer"] is True
        assert _answer(phone, csrf, question["id"]).status_code == 200
    finally:
        service.close()


def test_the_staff_answer_names_its_question_so_a_late_tap_answers_nothing_else(table):
    question = ask_were_they_swapped(table)
    staff, csrf = _page(table.app, PHONE)
    assert staff.post("/api/op/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).status_code == 200
    late = staff.post(
        "/api/op/answer", json={"question": question["id"] + 1, "answer": 0}, headers={"X-CSRF-Token": csrf}
    )
    assert late.status_code == 409
    assert late.json["error"] == "that question is no longer open"
    assert table.service.question() is not None
    bad = staff.post("/api/op/answer", json={"question": "7", "answer": 0}, headers={"X-CSRF-Token": csrf})
    assert bad.status_code == 400
    done = staff.post("/api/op/answer", json={"question": question["id"], "answer": 0}, headers={"X-CSRF-Token": csrf})
    assert done.status_code == 200
    assert table.service.question() is None
    assert _answer(staff, csrf, question["id"]).status_code == 409  # a signed-in operator may answer; nothing is open


def _frozen_door(table) -> Clock:
    """The app's door on a clock the test moves (no allowance refills unless it says so)."""
    from senet_pi_web.door import TableDoor

    clock = Clock()
    door = TableDoor(clock=clock)
    door.watch(table.service)
    table.app.extensions["senet"].door = door
    return clock


def test_a_client_that_drops_its_cookie_keeps_its_allowance(table):
    """The allowance is the address's, not the session's: a fresh session and CSRF token every time
    (a script that drops its cookie) is limited as one client."""
    _frozen_door(table)
    question = ask_were_they_swapped(table)
    statuses = []
    for _ in range(8):
        fresh, csrf = _page(table.app, PHONE)  # a new cookie jar each time: a new session
        statuses.append(_answer(fresh, csrf, question["id"]).status_code)
    assert statuses == [403] * 5 + [429] * 3
    screen, screen_csrf = _page(table.app)
    assert _answer(screen, screen_csrf, question["id"]).status_code == 200  # the screen's allowance is its own


@pytest.mark.parametrize(
    ("address", "client"),
    [
        ("192.168.1.50", "192.168.1.50"),
        ("::ffff:192.168.1.50", "192.168.1.50"),  # IPv4 on a dual-stack socket: the same client
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),  # a new privacy address in the same /64
        ("fe80::1%wlan0", "fe80::/64"),
        ("127.0.0.1", "screen"),
        ("::1", "screen"),
        ("::ffff:127.0.0.1", "screen"),
        ("?", "?"),
    ],
)
def test_a_client_is_its_address_an_ipv6_phone_its_64(address, client):
    from senet_pi_web.door import client_of

    assert client_of(address) == client


def test_a_phone_changing_its_ipv6_address_keeps_its_allowance(table):
    _frozen_door(table)
    question = ask_were_they_swapped(table)
    statuses = []
    for n in range(1, 9):
        phone, csrf = _page(table.app, {"REMOTE_ADDR": f"2001:db8:1:2::{n:x}"})
        statuses.append(_answer(phone, csrf, question["id"]).status_code)
    assert statuses == [403] * 5 + [429] * 3
    other, other_csrf = _page(table.app, {"REMOTE_ADDR": "2001:db8:1:3::1"})  # another /64: another phone
    assert _answer(other, other_csrf, question["id"]).status_code == 403


def test_many_addresses_share_one_allowance_the_screen_and_joined_phones_never_wait(table):
    """Phones that may not answer share STRANGERS_BURST answers (then STRANGERS_PER_SECOND) between
    them, so a script with an address per try gets no more than a few; guessing the code from many
    addresses is limited the same way. The screen and a joined phone answer all the same."""
    from senet_pi_web.door import STRANGERS_BURST, STRANGERS_PER_SECOND

    clock = _frozen_door(table)
    screen, screen_csrf = _page(table.app)
    code = screen.get("/api/join").json["code"]
    joined, joined_csrf = _page(table.app, PHONE)
    assert _join(joined, joined_csrf, code).status_code == 200  # one stranger's try at the code
    question = ask_were_they_swapped(table)
    statuses = []
    for n in range(30):
        phone, csrf = _page(table.app, {"REMOTE_ADDR": f"10.0.{n // 250}.{n % 250 + 1}"})
        statuses.append(_answer(phone, csrf, question["id"]).status_code)
    assert statuses == [403] * (STRANGERS_BURST - 1) + [429] * (31 - STRANGERS_BURST)
    limited = _answer(phone, csrf, question["id"])
    assert limited.json["error"].startswith("too many answers from phones that have not joined the table: wait ")
    guesses = [_join(*_page(table.app, {"REMOTE_ADDR": f"10.1.0.{n}"}), "000000").status_code for n in range(1, 6)]
    assert guesses == [429] * 5
    assert _answer(joined, joined_csrf, question["id"]).status_code == 200  # a joined phone is not a stranger
    clock.now += 1 / STRANGERS_PER_SECOND  # one more stranger's answer a second
    assert _answer(phone, csrf, question["id"]).status_code == 403
    assert _answer(*_page(table.app, {"REMOTE_ADDR": "10.2.0.1"}), question["id"]).status_code == 429
    assert _answer(screen, screen_csrf, question["id"]).status_code == 409  # answered already: not limited
