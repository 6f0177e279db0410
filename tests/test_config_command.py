"""`senet-pi config set|unset|get|check`: the one writer for people, with the service's messages
and exit statuses a script can rely on."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from senet_pi.cli.command import main
from senet_pi.settings import BY_NAME


@pytest.fixture
def instance(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "instance"
    folder.mkdir()
    monkeypatch.setenv("SENET_PI_INSTANCE", str(folder))
    return folder


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["config", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_config_set_writes_typed_values_and_get_reads_them_back(instance, capsys):
    code, out, err = run(capsys, "set", "LANGUAGE", "de", "COMPUTER_LEVEL", "3", "HOSTS", '["a.local", "b.local"]')
    assert code == 0, err
    assert "LANGUAGE, COMPUTER_LEVEL, HOSTS set in" in out
    data = tomllib.loads((instance / "config.toml").read_text())
    assert data == {"LANGUAGE": "de", "COMPUTER_LEVEL": 3, "HOSTS": ["a.local", "b.local"]}
    assert run(capsys, "get", "LANGUAGE")[1] == "de\n"  # a string as it is, for scripts
    assert run(capsys, "get", "COMPUTER_LEVEL")[1] == "3\n"
    assert run(capsys, "get", "HOSTS")[1] == '["a.local", "b.local"]\n'


def test_config_set_a_text_setting_takes_the_text_typed(instance, capsys):
    assert run(capsys, "set", "BOARD", "42", "SECRET_KEY", "0123456789")[0] == 0
    data = tomllib.loads((instance / "config.toml").read_text())
    assert data["BOARD"] == "42"
    assert data["SECRET_KEY"] == "0123456789"


def test_config_set_refuses_a_bad_value_with_the_services_message_and_writes_none(instance, capsys):
    config = instance / "config.toml"
    config.write_text("# mine\nEXHIBIT = true\n")
    before = config.read_bytes()
    code, out, err = run(capsys, "set", "IDLE_MINUTES", "10", "LANGUAGE", "fr")
    assert code == 1
    assert out == ""
    assert BY_NAME["LANGUAGE"].problem("fr") in err
    assert err.startswith("senet-pi config: ")
    assert len(err.strip().splitlines()) == 1
    assert config.read_bytes() == before  # the good value of the pair was not written either


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("set", "LANGAUGE", "de"), "LANGAUGE is not a setting: did you mean LANGUAGE?"),
        (("set", "language", "de"), "settings are written in capitals, LANGUAGE"),
        (("set", "LANGUAGE"), "LANGUAGE has no value: give KEY VALUE pairs (nothing changed)"),
        (("get", "nope"), "nope is not a setting"),
        (("unset", "EXHIBT"), "did you mean EXHIBIT?"),
    ],
)
def test_config_a_key_that_is_no_setting_is_one_line_and_exit_1(instance, capsys, args, said):
    code, _, err = run(capsys, *args)
    assert code == 1
    assert said in err
    assert not (instance / "config.toml").exists()


def test_config_get_says_a_default_and_exits_1_when_there_is_no_value(instance, capsys):
    code, out, err = run(capsys, "get", "IDLE_MINUTES")
    assert (code, out) == (0, "5\n")
    assert "IDLE_MINUTES is not set in" in err
    assert "that is its default" in err
    code, out, err = run(capsys, "get", "MQTT_URL")
    assert (code, out) == (1, "")
    assert "MQTT_URL is not set" in err


def test_config_unset_removes_the_key_and_keeps_the_rest(instance, capsys):
    config = instance / "config.toml"
    config.write_text('EXHIBIT = true\nLANGUAGE = "de"\n\n[contacts]\nname = "Ada"\n')
    code, out, _ = run(capsys, "unset", "EXHIBIT")
    assert code == 0
    assert "EXHIBIT removed from" in out
    assert tomllib.loads(config.read_text()) == {"LANGUAGE": "de", "contacts": {"name": "Ada"}}


def test_config_set_on_the_exhibits_file_keeps_it_for_the_service(tmp_path, capsys):
    """`sudo senet-pi config set` on /etc/senet-pi/config.toml (root:senet 0640), with --config."""
    config = tmp_path / "config.toml"
    config.write_text('SECRET_KEY = "k"\n\n[contacts]\nname = "Ada"\n')
    os.chown(config, 0, 4321)
    config.chmod(0o640)
    code, _, err = run(capsys, "set", "--config", str(config), "MQTT_URL", "mqtt://broker.museum:1883")
    assert code == 0, err
    after = config.stat()
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (0, 4321, 0o640)
    assert tomllib.loads(config.read_text())["MQTT_URL"] == "mqtt://broker.museum:1883"


def test_config_a_secret_never_stays_readable_by_others(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('LANGUAGE = "en"\n')
    config.chmod(0o644)
    assert run(capsys, "set", "--config", str(config), "LANGUAGE", "de")[0] == 0
    assert stat.S_IMODE(config.stat().st_mode) == 0o644  # no secret: the mode is the owner's choice
    assert run(capsys, "set", "--config", str(config), "MQTT_PASSWORD", "hunter2hunter2")[0] == 0
    assert stat.S_IMODE(config.stat().st_mode) == 0o640


def test_config_check_says_every_problem_and_exits_1(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('LANGUAGE = "fr"\nIDLE_MINUTES = 0\nEXHBIT = true\n')
    code, out, err = run(capsys, "check", str(config))
    assert code == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 3
    assert all(line.startswith(f"the config {config}: ") for line in lines), lines
    assert "did you mean EXHIBIT?" in lines[0]
    assert "LANGUAGE must be" in lines[1]
    assert "IDLE_MINUTES must be" in lines[2]


def test_config_check_finds_what_run_refuses_beyond_the_table(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('MQTT_COMMANDS = true\nCOMPUTER = "Q"\n')
    code, _, err = run(capsys, "check", str(config))
    assert code == 1
    assert "MQTT_COMMANDS needs a broker" in err
    assert "Q" in err.strip().splitlines()[-1]


def test_config_check_a_good_file_a_missing_one_and_one_not_toml(tmp_path, instance, capsys):
    (instance / "config.toml").write_text('EXHIBIT = true\n[contacts]\nname = "Ada"\n')
    code, out, _ = run(capsys, "check")
    assert code == 0
    assert out.endswith("is good: 1 setting set, the rest at their defaults\n")
    code, _, err = run(capsys, "check", str(tmp_path / "none.toml"))
    assert code == 1
    assert "there is no config" in err
    broken = tmp_path / "broken.toml"
    broken.write_text('LANGUAGE = "en\n')
    code, _, err = run(capsys, "check", str(broken))
    assert code == 1
    assert "is not valid TOML" in err
    assert "Traceback" not in err
