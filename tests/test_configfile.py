"""The one writer of config.toml: values checked as the service checks them, the rest of the file,
its owner, group and mode kept, keys at the top level, and the file whole or unchanged."""

from __future__ import annotations

import errno
import os
import stat
import tomllib
from pathlib import Path

import pytest

import senet_pi.configfile as configfile
from senet_pi.configfile import ConfigWriteError, parse_value, value_problem, write_settings
from senet_pi.settings import BY_NAME, load_instance_config, problems

CONTACTS = """\
# The board in hall 1.
LANGUAGE = "de"  # the visitors are mostly German
EXHIBIT = true

[contacts]
# whom to call
name = "Ada"
phone = "+49 30 1234"
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(CONTACTS, encoding="utf-8")
    return path


def lines_in_order(old: str, new: str) -> bool:
    """Whether every line of `old` is in `new`, in the same order (lines may be added between)."""
    rest = iter(new.splitlines())
    return all(line in rest for line in old.splitlines())


def test_configfile_a_key_goes_to_the_top_level_of_a_file_ending_in_a_table(config):
    write_settings(config, {"MQTT_URL": "mqtt://broker.local:1883", "HOSTS": ["hall-1.local"]})
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    assert data["MQTT_URL"] == "mqtt://broker.local:1883"
    assert data["HOSTS"] == ["hall-1.local"]
    assert data["contacts"] == {"name": "Ada", "phone": "+49 30 1234"}  # nothing added to the table
    assert problems(data) == []
    os.environ["SENET_PI_INSTANCE"] = str(config.parent)
    try:
        assert load_instance_config()["MQTT_URL"] == "mqtt://broker.local:1883"  # the service starts
    finally:
        del os.environ["SENET_PI_INSTANCE"]


def test_configfile_comments_tables_and_order_are_kept(config):
    write_settings(config, {"COMPUTER_LEVEL": 3, "LANGUAGE": "ar"})
    new = config.read_text(encoding="utf-8")
    old_without_language = CONTACTS.replace('LANGUAGE = "de"  # the visitors are mostly German\n', "")
    assert lines_in_order(old_without_language, new)
    assert "# the visitors are mostly German" in new  # the changed key's own comment stays with it
    assert new.index('LANGUAGE = "ar"') < new.index("EXHIBIT = true") < new.index("[contacts]")
    assert tomllib.loads(new)["COMPUTER_LEVEL"] == 3


def test_configfile_none_removes_a_key_and_only_it(config):
    write_settings(config, {"EXHIBIT": None, "MQTT_URL": None})  # one there, one not: both fine
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    assert "EXHIBIT" not in data
    assert data == {"LANGUAGE": "de", "contacts": {"name": "Ada", "phone": "+49 30 1234"}}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"LANGUAGE": "fr"}, BY_NAME["LANGUAGE"].problem("fr")),
        ({"COMPUTER_LEVEL": 9}, BY_NAME["COMPUTER_LEVEL"].problem(9)),
        ({"EXHIBIT": "yes"}, "EXHIBIT must be true or false"),
        ({"IDLE_MINUTES": 5, "PIN_DELAY": 99}, BY_NAME["PIN_DELAY"].problem(99)),  # one bad: none written
        ({"exhibit": True}, "exhibit is not a setting: settings are written in capitals, EXHIBIT"),
        ({"MQTT_ULR": "mqtt://x"}, "did you mean MQTT_URL?"),
    ],
)
def test_configfile_a_refused_value_is_said_as_the_service_says_it_and_nothing_changes(config, changes, message):
    before = config.read_bytes()
    with pytest.raises(ConfigWriteError) as caught:
        write_settings(config, changes)
    assert message
    assert message in str(caught.value)
    assert str(config) in str(caught.value)
    assert "unchanged" in str(caught.value)
    assert config.read_bytes() == before


def test_configfile_owner_group_and_mode_are_kept(config):
    """As `sudo senet-pi set-pin` on the exhibit's root:senet 0640 file (the tests run as root)."""
    os.chown(config, 1234, 4321)
    os.chmod(config, 0o640)
    write_settings(config, {"LANGUAGE": "en"})
    after = config.stat()
    assert (after.st_uid, after.st_gid) == (1234, 4321)
    assert stat.S_IMODE(after.st_mode) == 0o640


def test_configfile_a_new_file_is_private_unless_told(tmp_path):
    plain = write_settings(tmp_path / "a.toml", {"LANGUAGE": "en"})
    assert stat.S_IMODE(plain.stat().st_mode) == 0o600
    told = write_settings(tmp_path / "b.toml", {"LANGUAGE": "en"}, mode=0o640, owner=(0, 4321))
    assert stat.S_IMODE(told.stat().st_mode) == 0o640
    assert told.stat().st_gid == 4321
    assert told.read_text(encoding="utf-8") == 'LANGUAGE = "en"\n'


def test_configfile_an_owner_that_cannot_be_kept_is_refused(config, monkeypatch):
    def not_allowed(fd, uid, gid):  # as for a user who is neither root nor in the file's group
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    os.chown(config, 1234, 4321)
    before = config.read_bytes()
    monkeypatch.setattr(os, "fchown", not_allowed)
    with pytest.raises(ConfigWriteError, match=r"cannot keep the owner .*uid 1234, gid 4321.*sudo"):
        write_settings(config, {"LANGUAGE": "en"})
    assert config.read_bytes() == before
    assert sorted(p.name for p in config.parent.iterdir()) == ["config.toml"]  # no temporary file left


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_configfile_a_failed_write_leaves_the_old_file_whole_and_no_partial_one(config, monkeypatch, failing):
    def full(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    before = config.read_bytes()
    monkeypatch.setattr(os, failing, full)
    with pytest.raises(ConfigWriteError, match=r"No space left on device; it is unchanged"):
        write_settings(config, {"LANGUAGE": "en"})
    monkeypatch.undo()
    assert config.read_bytes() == before
    assert sorted(p.name for p in config.parent.iterdir()) == ["config.toml"]


def test_configfile_the_new_file_is_written_whole_before_it_is_renamed_in(config, monkeypatch):
    seen = []
    real = os.replace

    def watching(src, dst):  # what is moved in place is already the whole new file
        seen.append((Path(src).parent, Path(src).read_text(encoding="utf-8")))
        real(src, dst)

    monkeypatch.setattr(os, "replace", watching)
    write_settings(config, {"LANGUAGE": "en"})
    assert seen == [(config.parent, config.read_text(encoding="utf-8"))]  # in the same folder: one rename


def test_configfile_a_file_that_is_not_toml_or_not_text_is_refused_unchanged(tmp_path):
    broken = tmp_path / "config.toml"
    broken.write_text('LANGUAGE = "en\n', encoding="utf-8")
    with pytest.raises(ConfigWriteError, match=r"is not valid TOML .*fix it first; it is unchanged"):
        write_settings(broken, {"EXHIBIT": True})
    assert broken.read_text(encoding="utf-8") == 'LANGUAGE = "en\n'
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigWriteError, match=r"not a UTF-8 text file"):
        write_settings(binary, {"EXHIBIT": True})
    with pytest.raises(ConfigWriteError, match=r"cannot write the config .*No such file or directory"):
        write_settings(tmp_path / "no folder" / "config.toml", {"EXHIBIT": True})


def test_configfile_windows_line_ends_stay_windows_line_ends(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b'LANGUAGE = "en"\r\n[extra]\r\nnote = "x"\r\n')
    write_settings(path, {"EXHIBIT": True})
    raw = path.read_bytes()
    assert raw.count(b"\n") == raw.count(b"\r\n")
    assert tomllib.loads(raw.decode())["EXHIBIT"] is True


def test_configfile_a_symbolic_link_stays_a_link_to_the_changed_file(tmp_path, config):
    link = tmp_path / "link.toml"
    link.symlink_to(config)
    assert write_settings(link, {"EXHIBIT": False}) == config
    assert link.is_symlink()
    assert tomllib.loads(config.read_text(encoding="utf-8"))["EXHIBIT"] is False


def test_configfile_an_edit_that_would_change_other_settings_is_refused(config, monkeypatch):
    monkeypatch.setattr(configfile, "_edited", lambda text, changes, path: text + 'EXTRA = "late"\n')
    before = config.read_bytes()
    with pytest.raises(ConfigWriteError, match=r"invalid TOML|without changing other settings"):
        write_settings(config, {"LANGUAGE": "en"})
    assert config.read_bytes() == before


def test_configfile_value_problem_is_the_settings_tables_line():
    assert value_problem("LANGUAGE", "de") is None
    assert value_problem("LANGUAGE", None) is None  # removing is always allowed
    assert value_problem("LANGUAGE", "fr") == BY_NAME["LANGUAGE"].problem("fr")
    assert (
        value_problem("Nope", 1)
        == "Nope is not a setting (the Configuration page of the documentation lists every one)"
    )


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("3", 3),
        ("1.5", 1.5),
        ("true", True),
        ("false", False),
        ('"007"', "007"),
        ('["a.local", "b.local"]', ["a.local", "b.local"]),
        ("hall-1.local", "hall-1.local"),
        ("mqtt://broker:1883", "mqtt://broker:1883"),
        ("/etc/ssl/cert.pem", "/etc/ssl/cert.pem"),
        ("de", "de"),
        ("", ""),
        ("{ a = 1 }", "{ a = 1 }"),
        ("1979-05-27", "1979-05-27"),
    ],
)
def test_configfile_a_typed_value_is_toml_where_it_reads_as_toml_else_a_string(typed, value):
    assert parse_value(typed) == value
    assert type(parse_value(typed)) is type(value)
