"""Trust on the broker, against a real Mosquitto: verdict ids (none lost, none doubled across a
broker restart), a heartbeat so a board that died while the broker was away is shown offline,
commands at most once across restarts and never from a retained message, non-finite times
refused, oversized payloads never delivered, refusals that never crowd out the board's own
messages, reconnection that keeps up with a broker coming back, TLS and password failures said
as such, and a warning for a password on the command line."""

from __future__ import annotations

import json
import random
import time

import paho.mqtt.client as mqtt
import pytest
from mqtt_helpers import Ear, Mosquitto, wait_until

from senet_pi.fleet import FleetSettings, parse_broker_url
from senet_pi.fleet import board as board_module
from senet_pi.fleet import watcher as watcher_module
from senet_pi.fleet.address import PASSWORD_WARNING, fleet_settings, warn_of_password
from senet_pi.fleet.client import MAX_BACKOFF, disconnect
from senet_pi.fleet.commands import CommandCheck, sign
from senet_pi.fleet.on_run import start_board
from senet_pi.fleet.watcher import FleetWatcher
from senet_pi.service.core import Service
from senet_pi_web import create_app

SECRET = "a-museum-secret-of-some-length"


@pytest.fixture
def boards():
    """Start boards and watchers on a broker URL; all stopped after the test."""
    made: list = []

    class Made:
        def board(self, url: str, name: str, **settings):
            service = Service(None)
            app = create_app({"TESTING": True}, service=service)
            publisher = start_board(service, None, FleetSettings(parse_broker_url(url), name, **settings), app)
            made.append(publisher)
            return service, publisher

        def watcher(self, url: str) -> FleetWatcher:
            watcher = FleetWatcher(parse_broker_url(url))
            watcher.start()
            made.append(watcher)
            return watcher

    yield Made()
    for thing in reversed(made):
        thing.close()


def _publisher(port: int) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def _play(service: Service, throws: int, seed: int) -> int:
    """Throw `throws` times; the number of verdicts the service made."""
    rng = random.Random(seed)
    return sum(len(service.press(rng).verdicts) for _ in range(throws))


# ---------------------------------------------------------------------- verdict ids


def test_no_verdict_is_lost_or_doubled_across_a_broker_restart(tmp_path, boards):
    broker = Mosquitto(tmp_path)
    broker.start()
    try:
        service, publisher = boards.board(broker.url, "hall-r")
        watcher = boards.watcher(broker.url)
        wait_until(lambda: publisher.connected and watcher.view("hall-r"))
        made = _play(service, 5, 1)
        wait_until(lambda: watcher.view("hall-r")["verdicts"] == made)
        broker.stop()
        wait_until(lambda: not publisher.connected)
        made += _play(service, 5, 2)  # held by the board while the broker is away
        broker.start()
        made += _play(service, 3, 3)
        wait_until(lambda: watcher.view("hall-r")["verdicts"] == made, 15)
        time.sleep(1.5)  # anything late (a re-send) would show now
        assert watcher.view("hall-r")["verdicts"] == made

        last = watcher.view("hall-r")["last_verdict"]
        ear = Ear(broker.port, "senet-pi/+/verdicts")
        copy = _publisher(broker.port)
        copy.publish("senet-pi/hall-r/verdicts", json.dumps(last), qos=1).wait_for_publish(5)
        wait_until(lambda: ear.on("senet-pi/hall-r/verdicts"))  # the copy went through the broker...
        time.sleep(0.3)
        assert watcher.view("hall-r")["verdicts"] == made  # ...and was dropped by its id
        copy.disconnect()
        ear.close()
    finally:
        broker.stop()


# ---------------------------------------------------------------------- liveness


def test_a_board_that_died_while_the_broker_was_away_is_shown_offline(tmp_path, boards, monkeypatch):
    monkeypatch.setattr(board_module, "LIVENESS", 2)  # the state tells the watcher; a minute in real life
    monkeypatch.setattr(watcher_module, "SWEEP", 0.2)
    broker = Mosquitto(tmp_path)
    broker.start()
    try:
        _, publisher = boards.board(broker.url, "hall-d")
        watcher = boards.watcher(broker.url)
        wait_until(lambda: (watcher.view("hall-d") or {}).get("liveness") == 2)
        assert watcher.view("hall-d")["online"] is True
        broker.kill()  # the broker crashes (it sends no will)...
        publisher.client.loop_stop()  # ...and the board dies while it is away: no will, no `offline` ever
        publisher.close = lambda *a, **k: None  # type: ignore[method-assign]
        broker.start()
        wait_until(lambda: watcher.connected, 10)
        view = wait_until(lambda: (v := watcher.view("hall-d")) and v["online"] is False and v, 6)
        assert "hall-d stopped answering" in str(view["alert"])  # type: ignore[index]
    finally:
        broker.stop()


def test_online_is_said_again_as_a_heartbeat_and_expires_at_the_broker(mosquitto, boards, monkeypatch):
    monkeypatch.setattr(board_module, "HEARTBEAT", 0.5)
    heard: list[mqtt.MQTTMessage] = []
    ear = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    ear.on_message = lambda _c, _u, m: heard.append(m)
    ear.on_connect = lambda c, *_: c.subscribe("senet-pi/+/status", qos=1)
    ear.connect("127.0.0.1", mosquitto.port)
    ear.loop_start()
    try:
        boards.board(mosquitto.url, "beating")
        wait_until(lambda: len([m for m in heard if m.payload == b"online"]) >= 3, 5)
        expiry = [getattr(m.properties, "MessageExpiryInterval", None) for m in heard]
        assert all(0 < e <= board_module.LIVENESS for e in expiry)  # type: ignore[operator]
    finally:
        disconnect(ear)


# ---------------------------------------------------------------------- commands


def test_a_command_is_carried_out_once_and_never_again_from_a_retained_copy_after_a_restart(mosquitto, boards):
    service, first = boards.board(mosquitto.url, "hall-c", commands=True, command_secret=SECRET)
    new_games: list[str] = []
    service.subscribe(lambda verdicts: new_games.extend(v.json()["v"] for v in verdicts if v.json()["v"] == "new_game"))
    wait_until(lambda: first.connected)
    ear = Ear(mosquitto.port, "senet-pi/+/command/result")
    sender = _publisher(mosquitto.port)
    command = sign(SECRET, "hall-c", "new_game", nonce=first.command_nonce)
    sender.publish("senet-pi/hall-c/command", json.dumps(command), qos=1, retain=True).wait_for_publish(5)
    assert ear.last("senet-pi/hall-c/command/result").json()["ok"] is True  # type: ignore[index]
    assert len(new_games) == 1
    first.close()

    app = create_app({"TESTING": True}, service=service)
    settings = FleetSettings(parse_broker_url(mosquitto.url), "hall-c", True, SECRET)
    again = start_board(service, None, settings, app)  # the board restarted: the retained copy comes at once
    try:
        refused = ear.last("senet-pi/hall-c/command/result", where=lambda h: not h.json()["ok"])  # type: ignore[index]
        assert "retained" in refused.json()["error"]  # type: ignore[index]
        assert len(new_games) == 1
    finally:
        again.close()
        sender.publish("senet-pi/hall-c/command", b"", retain=True).wait_for_publish(5)
        sender.disconnect()
        ear.close()


def test_a_copied_command_is_refused_after_a_restart_whatever_the_clocks_say(monkeypatch):
    """A Pi without a real-time clock: restarted an hour behind, then set right by NTP. The copy of a
    command carried out before the restart is refused both before and after the clock is set, since
    the board reads no wall clock; a command made with the new start's nonce is carried out."""
    wall = [1_796_083_200.0]
    monkeypatch.setattr(time, "time", lambda: wall[0])
    first = CommandCheck(SECRET, "b", lambda: 50.0)
    command = json.dumps(sign(SECRET, "b", "new_game", nonce=first.nonce)).encode()
    assert first.check(command)["action"] == "new_game"
    with pytest.raises(ValueError, match="already carried out"):
        first.check(command)  # the same start: its id
    wall[0] -= 3600  # the restart: the clock an hour behind, the monotonic clock from zero again
    again = CommandCheck(SECRET, "b", lambda: 3.0)
    with pytest.raises(ValueError, match="made before this board started"):
        again.check(command)
    wall[0] += 3600 + 30  # NTP sets the clock
    with pytest.raises(ValueError, match="made before this board started"):
        again.check(command)
    assert again.check(json.dumps(sign(SECRET, "b", "new_game", nonce=again.nonce)).encode())["action"] == "new_game"


@pytest.mark.parametrize("jump", [-30 * 86400.0, 30 * 86400.0])
def test_a_clock_jump_either_way_neither_takes_a_copy_nor_refuses_a_fresh_command(monkeypatch, jump):
    wall = [1_796_083_200.0]
    monkeypatch.setattr(time, "time", lambda: wall[0])
    tick = [100.0]
    check = CommandCheck(SECRET, "b", lambda: tick[0])
    copy = json.dumps(sign(SECRET, "b", "resync", nonce=check.nonce)).encode()
    assert check.check(copy)["action"] == "resync"
    wall[0] += jump
    tick[0] += 1.0
    with pytest.raises(ValueError, match="already carried out"):
        check.check(copy)
    fresh = json.dumps(sign(SECRET, "b", "resync", nonce=check.nonce)).encode()
    assert check.check(fresh)["action"] == "resync"
    tick[0] += 3 * 120.0  # minutes later on the monotonic clock: the nonce is gone
    with pytest.raises(ValueError, match="more than 2 minutes ago"):
        check.check(copy)


def test_a_nonce_rotates_on_the_monotonic_clock_and_the_previous_one_still_counts():
    tick = [0.0]
    names = iter(["n1", "n2", "n3"])
    check = CommandCheck(SECRET, "b", lambda: tick[0], token=lambda: next(names))
    assert check.nonce == "n1"
    made = json.dumps(sign(SECRET, "b", "resync", nonce="n1")).encode()
    tick[0] = 121.0
    assert check.nonce == "n2"
    assert check.check(made)["action"] == "resync"  # made just before the change: still taken
    tick[0] = 242.0
    assert check.nonce == "n3"
    with pytest.raises(ValueError, match="nonce"):
        check.check(json.dumps(sign(SECRET, "b", "resync", nonce="n1")).encode())


@pytest.mark.parametrize("at", [float("nan"), float("inf"), float("-inf")])
def test_a_command_holding_no_number_is_refused(at):
    check = CommandCheck(SECRET, "b", lambda: 1000.0)
    fields = {"board": "b", "action": "new_game", "args": {"players": at}, "id": "x1", "nonce": check.nonce}
    from senet_pi.fleet.commands import _digest

    payload = json.dumps({**fields, "hmac": _digest(SECRET, fields)}).encode()  # signed, NaN and all
    with pytest.raises(ValueError, match="NaN or an infinity"):
        check.check(payload)


def test_an_oversized_command_is_never_delivered_to_the_board(mosquitto, boards):
    _, publisher = boards.board(mosquitto.url, "hall-big", commands=True, command_secret=SECRET)
    wait_until(lambda: publisher.listening)
    ear = Ear(mosquitto.port, "senet-pi/+/command/result")
    sender = _publisher(mosquitto.port)
    try:
        sender.publish("senet-pi/hall-big/command", b"x" * (8 * 1024 * 1024), qos=1).wait_for_publish(10)
        time.sleep(1.0)
        assert ear.on("senet-pi/hall-big/command/result") == []  # the broker kept it from the board
        sender.publish("senet-pi/hall-big/command", b"{}", qos=1)  # a small one is heard (and refused)
        assert "must have board" in ear.last("senet-pi/hall-big/command/result").json()["error"]  # type: ignore[index]
        assert publisher.connected
    finally:
        sender.disconnect()
        ear.close()


def test_a_flood_of_forged_commands_never_crowds_out_the_boards_verdicts(mosquitto, boards):
    service, publisher = boards.board(mosquitto.url, "hall-f", commands=True, command_secret=SECRET)
    wait_until(lambda: publisher.listening)
    ear = Ear(mosquitto.port, "senet-pi/hall-f/verdicts", "senet-pi/hall-f/command/result")
    sender = _publisher(mosquitto.port)
    forged = json.dumps(sign("another-secret-of-some-length", "hall-f", "new_game", nonce="n")).encode()
    made = 0
    try:
        for n in range(3000):
            sender.publish("senet-pi/hall-f/command", forged, qos=0)
            if n % 300 == 0:
                made += _play(service, 1, n)
        wait_until(lambda: len(ear.on("senet-pi/hall-f/verdicts")) >= made, 15)
        wait_until(lambda: publisher.unanswered > 0, 10)
        assert len({h.json()["verdict_id"] for h in ear.on("senet-pi/hall-f/verdicts")}) == made  # type: ignore[index]
        assert publisher.dropped == 0
        answered = len(ear.on("senet-pi/hall-f/command/result"))
        assert 0 < answered < 3000
        assert answered + publisher.unanswered <= 3000
    finally:
        sender.disconnect()
        ear.close()


# ---------------------------------------------------------------------- the link


def test_the_board_reconnects_within_the_capped_backoff_after_a_long_outage(tmp_path, boards):
    broker = Mosquitto(tmp_path)
    broker.start()
    try:
        _, publisher = boards.board(broker.url, "hall-b")
        wait_until(lambda: publisher.listening)
        broker.stop()
        time.sleep(7)  # long enough for a doubling backoff to reach 8 s
        broker.start()
        wait_until(lambda: publisher.connected, MAX_BACKOFF + 2)
    finally:
        broker.stop()


def test_an_untrusted_tls_certificate_is_said_as_such(tmp_path, boards):
    broker = Mosquitto(tmp_path, tls=True)
    broker.start()
    try:
        _, publisher = boards.board(f"mqtts://127.0.0.1:{broker.port}", "unsure")
        wait_until(lambda: publisher.problem != "not connected yet")
        assert "TLS certificate" in str(publisher.problem)
        assert "MQTT_CA_FILE" in str(publisher.problem)
    finally:
        publisher.close()
        broker.stop()
        import gc

        gc.collect()  # paho's failed TLS sockets are collected within this test


def test_a_wrong_password_is_said_as_such(tmp_path, boards):
    broker = Mosquitto(tmp_path, passwords={"keeper": "right-one"})
    broker.start()
    try:
        _, publisher = boards.board(f"mqtt://keeper:wrong-one@127.0.0.1:{broker.port}", "locked")
        wait_until(lambda: publisher.problem and "refused" in publisher.problem)
        assert "user name or password" in str(publisher.problem)
    finally:
        broker.stop()


def test_a_password_on_the_command_line_is_warned_of_and_one_in_the_config_is_not(capsys):
    fleet_settings("mqtt://keeper:secret-one@broker.local", "hall-1", {})
    err = capsys.readouterr().err
    assert PASSWORD_WARNING in err
    assert "secret-one" not in err
    fleet_settings(None, "hall-1", {"MQTT_URL": "mqtt://keeper:secret-one@broker.local"})
    fleet_settings("mqtt://keeper@broker.local", "hall-1", {"MQTT_PASSWORD": "secret-one"})
    assert capsys.readouterr().err == ""
    said: list[str] = []
    assert warn_of_password("mqtts://u:p@h", said.append)
    assert said == [PASSWORD_WARNING]


# ---------------------------------------------------------------------- timers on the monotonic clock


def _clocks():
    return [1_796_083_200.0], [500.0]  # the wall clock, the monotonic clock


@pytest.mark.parametrize("jump", [30 * 86400.0, -30 * 86400.0])
def test_needs_staff_follows_the_monotonic_clock_not_a_wall_clock_jump(jump):
    """+30 days on the wall clock calls nobody; -30 days does not keep staff from being called."""
    from senet_pi.verdicts import Question

    wall, tick = _clocks()
    settings = FleetSettings(parse_broker_url("mqtt://localhost:1"), "hall-t", staff_after=60.0)
    publisher = board_module.BoardPublisher(
        Service(None), settings, lambda: "{}", words=str, clock=lambda: wall[0], monotonic=lambda: tick[0]
    )
    publisher._listen([Question(1, "capture", "Which piece?", ["a", "b"])])
    wall[0] += jump
    tick[0] += 3.6
    assert publisher._summary.due(tick[0]) == []
    assert publisher._summary.json({}, tick[0])["needs_staff"] is False
    tick[0] += 60.0
    [called] = publisher._summary.due(tick[0])
    assert called["reason"] == "question"
    assert publisher._summary.last_at == wall[0] - jump  # the time shown to people is the wall clock's


@pytest.mark.parametrize("jump", [30 * 86400.0, -30 * 86400.0])
def test_the_dashboard_counts_a_board_offline_by_the_monotonic_clock(jump):
    wall, tick = _clocks()
    watcher = FleetWatcher(parse_broker_url("mqtt://localhost:1"), clock=lambda: wall[0], monotonic=lambda: tick[0])
    watcher._heard("hall-m", "status", b"online", False)
    watcher._heard("hall-m", "state", json.dumps({"mqtt": {"liveness": 60}}).encode(), False)
    wall[0] += jump
    tick[0] += 3.6
    assert watcher.sweep() == []
    assert watcher.view("hall-m")["online"] is True
    tick[0] += 60.0
    assert watcher.sweep() == ["hall-m"]


def test_the_dashboard_signs_with_the_nonce_the_board_said(monkeypatch):
    watcher = FleetWatcher(parse_broker_url("mqtt://localhost:1"), secret=SECRET)
    sent = []

    class Info:
        rc = mqtt.MQTT_ERR_SUCCESS

    monkeypatch.setattr(watcher.client, "publish", lambda topic, payload, qos: sent.append(payload) or Info())
    watcher._heard("hall-n", "status", b"online", False)
    watcher._heard("hall-n", "state", json.dumps({"mqtt": {"commands": True}}).encode(), False)
    with pytest.raises(Exception, match="has not said its command nonce yet"):
        watcher.send("hall-n", "resync")
    board = CommandCheck(SECRET, "hall-n")
    watcher._heard("hall-n", "command/nonce", board.nonce.encode(), True)
    watcher.send("hall-n", "resync")
    assert board.check(sent[0].encode())["action"] == "resync"


def test_the_dashboard_shows_a_refused_endgame_table_among_the_boards_faults():
    watcher = FleetWatcher(parse_broker_url("mqtt://localhost:1"))
    said = "the endgame table houses-sticks.table is not used (block 2 fails its checksum (the file is damaged)): ..."
    watcher._heard("hall-t", "state", json.dumps({"computer": {"seats": {}, "tables": [said]}}).encode(), False)
    assert watcher.view("hall-t")["faults"] == [said]
    watcher._heard("hall-t", "state", json.dumps({"computer": {"seats": {}, "tables": []}}).encode(), False)
    assert watcher.view("hall-t")["faults"] == []
