"""`senet-pi broker-files` against a real Mosquitto run with the files it writes: a board cannot
write another board's topics, Home Assistant's user can press a board's buttons but not pose as
a board, staff can send commands, anonymous clients are turned away, an oversized message is
refused by the broker, and a second run keeps the passwords of the users already there."""

from __future__ import annotations

import json
import random
import stat
import subprocess
import time
import tomllib
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from mqtt_helpers import Ear, Mosquitto, wait_until

from senet_pi.cli.command import main
from senet_pi.fleet import FleetSettings, parse_broker_url
from senet_pi.fleet.address import BUTTONS, fleet_settings
from senet_pi.fleet.broker_files import MESSAGE_SIZE_LIMIT, password_line
from senet_pi.fleet.client import disconnect
from senet_pi.fleet.on_run import start_board
from senet_pi.service.core import Service
from senet_pi_web import create_app


def _credentials(folder) -> dict[str, str]:
    data = tomllib.loads((folder / "credentials.toml").read_text())
    return {name: user["password"] for name, user in data["users"].items()}


def _client(port: int, user: str | None, password: str | None) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    if user:
        client.username_pw_set(user, password)
    connected = []
    client.on_connect = lambda _c, _u, _f, reason, _p: connected.append(reason)
    client.connect("127.0.0.1", port)
    client.loop_start()
    wait_until(lambda: connected)
    client.refused = connected[0].is_failure  # type: ignore[attr-defined]
    return client


@pytest.fixture
def museum(tmp_path, capsys):
    """A broker run with the files `senet-pi broker-files` wrote for two boards, staff and Home Assistant."""
    folder = tmp_path / "broker"
    args = ["broker-files", str(folder), "--board", "hall-1", "--board", "hall-2"]
    assert main([*args, "--staff", "staff", "--home-assistant", "homeassistant"]) == 0
    assert "credentials.toml" in capsys.readouterr().out
    broker = Mosquitto(tmp_path)
    broker.use_config((folder / "senet-pi.conf").read_text())
    broker.start()
    made: list = []
    try:
        yield broker, folder, _credentials(folder), made
    finally:
        for thing in made:
            thing.close()
        broker.stop()


def test_each_board_writes_only_its_own_topics_and_home_assistant_presses_the_buttons(museum):
    broker, _, passwords, made = museum
    ha = Ear(broker.port, "senet-pi/#", "homeassistant/#", user="homeassistant", password=passwords["homeassistant"])
    made.append(ha)
    service = Service(None)
    app = create_app({"TESTING": True}, service=service)
    url = f"mqtt://board-hall-1:{passwords['board-hall-1']}@127.0.0.1:{broker.port}"
    publisher = start_board(service, None, FleetSettings(parse_broker_url(url), "hall-1", buttons=BUTTONS), app)
    made.append(publisher)
    wait_until(lambda: publisher.listening)
    assert ha.last("senet-pi/hall-1/status").payload == b"online"
    ha.last("homeassistant/sensor/senet-pi_hall-1/game_state/config")  # its discovery went through
    ha.last("senet-pi/hall-1/summary")

    # Home Assistant's user presses the new-game button: the board carries it out.
    kinds: list[str] = []
    service.subscribe(lambda verdicts: kinds.extend(v.v for v in verdicts))
    service.press(random.Random(4))
    ha.client.publish("senet-pi/hall-1/button", "new_game", qos=1)
    assert ha.last("senet-pi/hall-1/command/result").json()["ok"] is True  # type: ignore[index]
    assert "new_game" in kinds

    # Board hall-1 cannot pose as hall-2, nor Home Assistant as a board: the broker drops it.
    intruder = _client(broker.port, "board-hall-1", passwords["board-hall-1"])
    made.append(_Closing(intruder))
    intruder.publish("senet-pi/hall-2/state", "{}", qos=1, retain=True).wait_for_publish(5)
    intruder.publish("senet-pi/hall-2/status", "online", qos=1, retain=True).wait_for_publish(5)
    intruder.publish("senet-pi/hall-2/button", "new_game", qos=1).wait_for_publish(5)
    intruder.publish("senet-pi/hall-2/command", "{}", qos=1).wait_for_publish(5)  # one exhibit cannot command another
    intruder.publish("homeassistant/sensor/senet-pi_hall-2/x/config", "{}", qos=1).wait_for_publish(5)
    ha.client.publish("senet-pi/hall-1/status", "offline", qos=1, retain=True).wait_for_publish(5)
    ha.client.publish("senet-pi/hall-1/command", "{}", qos=1).wait_for_publish(5)
    staff = _client(broker.port, "staff", passwords["staff"])  # staff may send commands
    made.append(_Closing(staff))
    staff.publish("senet-pi/hall-2/command", "{}", qos=1).wait_for_publish(5)
    wait_until(lambda: ha.on("senet-pi/hall-2/command"))
    time.sleep(0.3)
    assert len(ha.on("senet-pi/hall-2/command")) == 1  # the staff's, not the intruder's
    assert ha.on("senet-pi/hall-2/state") == []
    assert ha.on("senet-pi/hall-2/status") == []
    assert ha.on("senet-pi/hall-2/button") == []
    assert ha.on_prefix("homeassistant/sensor/senet-pi_hall-2") == []
    assert [h.payload for h in ha.on("senet-pi/hall-1/status")] == [b"online"] * len(ha.on("senet-pi/hall-1/status"))
    assert ha.on("senet-pi/hall-1/command") == []
    assert publisher.connected


def test_a_board_whose_user_may_not_write_its_topics_says_so(museum):
    broker, _, passwords, made = museum
    service = Service(None)
    app = create_app({"TESTING": True}, service=service)
    url = f"mqtt://board-hall-1:{passwords['board-hall-1']}@127.0.0.1:{broker.port}"
    said: list[str] = []
    publisher = start_board(service, None, FleetSettings(parse_broker_url(url), "hall-2"), app, said.append)
    made.append(publisher)  # hall-1's user, named hall-2: the access list refuses its messages
    wait_until(lambda: publisher.problem and "access list" in publisher.problem)
    assert publisher.connected
    assert any("access list" in line for line in said)


def test_anonymous_clients_are_turned_away_and_a_huge_message_is_refused(museum):
    broker, _, passwords, made = museum
    anonymous = _client(broker.port, None, None)
    made.append(_Closing(anonymous))
    assert anonymous.refused  # type: ignore[attr-defined]
    ha = Ear(broker.port, "senet-pi/#", user="homeassistant", password=passwords["homeassistant"])
    made.append(ha)
    staff = _client(broker.port, "staff", passwords["staff"])
    made.append(_Closing(staff))
    staff.publish("senet-pi/hall-1/command", b"x" * (MESSAGE_SIZE_LIMIT + 1), qos=0)
    staff.publish("senet-pi/hall-2/command", b"small", qos=1)
    wait_until(lambda: ha.on("senet-pi/hall-2/command") or not staff.is_connected())
    time.sleep(0.3)
    assert ha.on("senet-pi/hall-1/command") == []


def test_a_second_run_keeps_the_passwords_and_the_secret_files_are_private(tmp_path, capsys):
    folder = tmp_path / "b"
    assert main(["broker-files", str(folder), "--board", "hall-1", "--staff", "staff"]) == 0
    first = _credentials(folder)
    assert main(["broker-files", str(folder), "--board", "hall-1", "--board", "hall-9", "--staff", "staff"]) == 0
    second = _credentials(folder)
    assert second["board-hall-1"] == first["board-hall-1"]
    assert second["staff"] == first["staff"]
    assert set(second) == {"board-hall-1", "board-hall-9", "staff"}
    for name in ("passwd", "credentials.toml"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600
    assert 'MQTT_USERNAME = "board-hall-9"' in (folder / "credentials.toml").read_text()
    assert json.dumps(second) not in capsys.readouterr().out  # no password on the terminal


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "name at least one board"),
        (["--board", "hall/1"], "may hold only letters"),
        (["--staff", "a b"], "may not hold"),
        (["--staff", "x", "--home-assistant", "x"], "named twice"),
        (["--board", "h", "--certfile", "c.pem"], "both --certfile and --keyfile"),
    ],
)
def test_bad_broker_files_arguments_are_one_line_and_exit_1(tmp_path, capsys, args, said):
    assert main(["broker-files", str(tmp_path / "b"), *args]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert said in err


def test_the_password_lines_are_what_mosquitto_passwd_makes():
    line = password_line("u", "pw", salt=b"0123456789ab")
    assert line.startswith("u:$7$101$MDEyMzQ1Njc4OWFi$")
    assert len(line.split("$")[-1]) == 88


class _Closing:
    def __init__(self, client: mqtt.Client) -> None:
        self.client = client

    def close(self) -> None:
        disconnect(self.client)


def test_the_broker_conf_uses_no_key_mosquitto_2_warns_of(tmp_path):
    """Debian 12's Mosquitto 2.0.11 says "replace message_size_limit with max_packet_size" at every start."""
    assert main(["broker-files", str(tmp_path / "b"), "--board", "hall-1"]) == 0
    conf = (tmp_path / "b" / "senet-pi.conf").read_text().splitlines()
    assert "max_packet_size 1048576" in conf
    assert not [line for line in conf if line.startswith("message_size_limit")]


def _fence_with(page: str, words: str) -> str:
    """The one ```sh block of docs/PAGE that holds `words`."""
    text = (Path(__file__).resolve().parents[1] / "docs" / page).read_text()
    blocks = [block.split("```", 1)[0] for block in text.split("```sh\n")[1:]]
    found = [block for block in blocks if words in block]
    assert len(found) == 1, f"{len(found)} sh blocks of {page} hold {words!r}"
    return found[0]


def test_the_fleet_pages_tls_recipe_makes_a_broker_a_board_trusts_with_its_ca(tmp_path, capsys):
    """Fleet's step 2 as written (here without sudo, in a folder of the test's, the broker named
    localhost): its certificate authority and broker certificate, broker-files with every user of
    step 1 kept, Mosquitto with that configuration, and a board on mqtts:// with the CA file."""
    certs = tmp_path / "certs"
    recipe = _fence_with("fleet.md", "openssl req -x509")
    recipe = recipe.replace("sudo ", "").replace("/etc/mosquitto/certs", str(certs))
    recipe = recipe.replace("staff-pc.local", "localhost").replace("chown mosquitto", "chown $(id -un)")
    made = subprocess.run(["bash", "-euo", "pipefail", "-c", recipe], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    step1 = ["--board", "hall-1", "--board", "hall-2", "--staff", "staff", "--staff", "nodered"]
    folder = tmp_path / "broker"
    assert main(["broker-files", str(folder), *step1, "--home-assistant", "homeassistant"]) == 0
    command = _fence_with("fleet.md", "--certfile").replace("\\\n", " ").split("\n", 1)[0].split()
    assert command[:3] == ["sudo", "senet-pi", "broker-files"]
    assert all(arg in command for arg in step1)  # step 2 keeps step 1's users
    here = {"/etc/mosquitto/senet-pi": str(folder)}
    args = [here.get(a, a.replace("/etc/mosquitto/certs", str(certs))) for a in command[3:]]
    assert main(["broker-files", *args]) == 0
    capsys.readouterr()
    conf = (folder / "senet-pi.conf").read_text()
    assert "listener 8883" in conf
    assert f"certfile {certs / 'broker.crt'}" in conf
    assert set(_credentials(folder)) == {"board-hall-1", "board-hall-2", "staff", "nodered", "homeassistant"}
    broker = Mosquitto(tmp_path)
    broker.use_config(conf)
    broker.start()
    try:
        config = {"MQTT_URL": f"mqtts://localhost:{broker.port}", "BOARD": "hall-1", "MQTT_USERNAME": "board-hall-1"}
        config |= {"MQTT_PASSWORD": _credentials(folder)["board-hall-1"], "MQTT_CA_FILE": str(certs / "ca.crt")}
        settings = fleet_settings(None, None, config)
        service = Service(None)
        publisher = start_board(service, None, settings, create_app({"TESTING": True}, service=service))
        try:
            wait_until(lambda: publisher.connected, 10.0)
        finally:
            publisher.close()
    finally:
        broker.stop()
