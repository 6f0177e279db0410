"""The service never damages its own settings: any valid config.toml stays valid with one top-level
key of each; the page's signing key lives in a file of its own; set-pin checks that its hash reads back."""

from __future__ import annotations

import errno
import logging
import os
import tomllib
from pathlib import Path

import pytest
from werkzeug.security import check_password_hash

from senet_pi.cli.command import main
from senet_pi.server.serve import PinError, set_pin
from senet_pi_web import SECRET_FILE, ConfigError, create_app

PIN = "482913"
SHAPES = {
    "empty": "",
    "no final newline": 'LANGUAGE = "en"',
    "an empty secret key": 'SECRET_KEY = ""\nLANGUAGE = "en"\n',
    "ending in a comment": 'LANGUAGE = "en"\n# the end, no newline',
    "ending in a table": 'LANGUAGE = "en"\n[extra]\n',
    "ending in a table with keys": 'LANGUAGE = "en"\n[extra]\nnote = "mine"',
    "ending in an array of tables": '[[boards]]\nname = "a"\n[[boards]]\nname = "b"\n',
    "comments only": "# nothing set yet\n# really",
    "windows line ends": 'LANGUAGE = "en"\r\n[extra]\r\nnote = "x"\r\n',
    "a multi-line string": 'note = """\nOPERATOR_PIN_HASH = "not a key"\n[not a table]\n"""\n[extra]\n',
    "a hash left in a trailing table": 'LANGUAGE = "en"\n[extra]\nOPERATOR_PIN_HASH = "stray"\n',
    "a hash already set": 'OPERATOR_PIN_HASH = "old"\nLANGUAGE = "en"\n',
    "an inline table": 'seats = { A = "human", B = "computer" }',
}


@pytest.fixture
def instance(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "instance"
    folder.mkdir()
    monkeypatch.setenv("SENET_PI_INSTANCE", str(folder))
    return folder


@pytest.mark.parametrize("shape", SHAPES)
def test_config_starting_twice_leaves_any_valid_config_as_it_was(instance, shape):
    config = instance / "config.toml"
    config.write_bytes(SHAPES[shape].encode())
    if shape == "a hash left in a trailing table":  # as an older set-pin left it: said, not ignored
        with pytest.raises(ConfigError, match=r"OPERATOR_PIN_HASH is inside \[extra\]"):
            create_app()
        assert config.read_bytes() == SHAPES[shape].encode()
        return
    first = create_app().config["SECRET_KEY"]
    second = create_app().config["SECRET_KEY"]
    assert config.read_bytes() == SHAPES[shape].encode()  # never written
    assert first == second
    assert len(first) >= 32  # the key lasts from one start to the next
    assert (instance / SECRET_FILE).stat().st_mode & 0o077 == 0  # readable by its owner only


@pytest.mark.parametrize("shape", SHAPES)
def test_config_set_pin_keeps_one_top_level_hash_and_the_rest(instance, shape):
    config = instance / "config.toml"
    config.write_bytes(SHAPES[shape].encode())
    before = tomllib.loads(SHAPES[shape])
    for pin in (PIN, "271828182845"):  # set, then changed: still one key
        set_pin(pin, instance)
        after = tomllib.loads(config.read_text(encoding="utf-8"))
        assert check_password_hash(after["OPERATOR_PIN_HASH"], pin)
        assert {k: v for k, v in after.items() if k != "OPERATOR_PIN_HASH"} == {
            k: v for k, v in before.items() if k != "OPERATOR_PIN_HASH"
        }
        assert config.read_text(encoding="utf-8").count("OPERATOR_PIN_HASH") == SHAPES[shape].count(
            "OPERATOR_PIN_HASH"
        ) + (0 if 'OPERATOR_PIN_HASH = "old"' in SHAPES[shape] else 1)
    app = create_app()  # the page reads the hash: operator actions are on
    assert check_password_hash(app.config["OPERATOR_PIN_HASH"], "271828182845")
    set_pin("", instance)
    removed = tomllib.loads(config.read_text(encoding="utf-8"))
    assert "OPERATOR_PIN_HASH" not in removed
    assert removed == {k: v for k, v in before.items() if k != "OPERATOR_PIN_HASH"}


def test_config_set_pin_refuses_a_config_that_is_not_toml_and_changes_nothing(instance):
    config = instance / "config.toml"
    config.write_text('LANGUAGE = "en\n')
    with pytest.raises(PinError, match=r"not valid TOML.*unchanged"):
        set_pin(PIN, instance)
    assert config.read_text() == 'LANGUAGE = "en\n'


def test_config_set_pin_says_when_what_it_wrote_does_not_read_back(instance, monkeypatch):
    import senet_pi.configfile as configfile

    real = configfile._replace  # the disk gives back something else than was written
    monkeypatch.setattr(
        configfile, "_replace", lambda path, text, mode, owner: real(path, text + "[late]\n", mode, owner)
    )
    (instance / "config.toml").write_text("[late]\n")
    with pytest.raises(PinError, match=r"read back|invalid"):
        set_pin(PIN, instance)


def test_config_a_quoted_key_is_the_same_key_and_stays_one(instance):
    config = instance / "config.toml"
    config.write_text('"OPERATOR_PIN_HASH" = "quoted"\n')
    set_pin(PIN, instance)
    assert check_password_hash(tomllib.loads(config.read_text())["OPERATOR_PIN_HASH"], PIN)
    assert config.read_text().count("OPERATOR_PIN_HASH") == 1


def test_config_sudo_set_pin_keeps_the_exhibits_owner_and_mode(instance):
    """The exhibit's config is root:senet 0640 so the service reads it: set-pin (as root) keeps that."""
    config = instance / "config.toml"
    config.write_text('EXHIBIT = true\n[contacts]\nname = "Ada"\n')
    os.chown(config, 0, 4321)
    os.chmod(config, 0o640)
    set_pin(PIN, instance)
    after = config.stat()
    assert (after.st_uid, after.st_gid, after.st_mode & 0o777) == (0, 4321, 0o640)
    assert "OPERATOR_PIN_HASH" in tomllib.loads(config.read_text())  # at the top, not in [contacts]


def test_config_an_unwritable_instance_folder_is_said_at_start(instance, monkeypatch, caplog):
    import senet_pi_web

    def read_only(path, text, mode=0o600):  # the tests run as root, whom no mode bit stops
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setattr(senet_pi_web, "write_private", read_only)
    with caplog.at_level(logging.WARNING, logger="senet_pi.server.serve"):
        app = create_app()
    assert app.config["SECRET_KEY"]
    said = [r.getMessage() for r in caplog.records if r.name == "senet_pi.server.serve"]
    assert len(said) == 1
    assert "secret_key" in said[0]
    assert "last only until the service stops" in said[0]
    assert "Read-only file system" in said[0]
    assert not (instance / SECRET_FILE).exists()


def test_config_set_pin_on_an_unwritable_folder_is_one_line_not_exit_70(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv("SENET_PI_INSTANCE", str(blocker / "instance"))
    code = main(["set-pin", "--pin", PIN])
    err = capsys.readouterr().err
    assert code not in (0, 70)
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert "PIN" in err


def test_config_the_fleet_dashboard_keeps_the_same_key_file(instance):
    from senet_pi_web.fleet import create_fleet_app

    class NoBoards:  # the dashboard asks the watcher nothing while it is made
        def subscribe(self, _listener):
            return lambda: None

    (instance / "config.toml").write_text("[extra]\n")
    key = create_fleet_app(watcher=NoBoards()).config["SECRET_KEY"]
    assert isinstance(key, str)
    assert key == create_app().config["SECRET_KEY"]
    assert (instance / "config.toml").read_text() == "[extra]\n"
