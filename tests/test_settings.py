"""The settings table (senet_pi/settings.py): every config.toml key typed and checked at start,
one line naming the key; the page's defaults and the docs' Configuration page come from it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from senet_pi import environment, settings
from senet_pi.errors import ConfigError
from senet_pi_web import CONFIG_TYPES, create_app, load_instance_config

ROOT = Path(__file__).resolve().parents[1]

#: (key, a bad TOML value, what the one line says after "the config PATH: ")
BAD = [
    ("SECRET_KEY", "5", "SECRET_KEY must be a string, not a int"),
    ("OPERATOR_PIN_HASH", "true", "OPERATOR_PIN_HASH must be a string (set it with senet-pi set-pin), not a bool"),
    ("PIN_DELAY", '"slow"', "PIN_DELAY must be a number of seconds from 0 to 30, not a str"),
    ("PIN_DELAY", "31", "PIN_DELAY must be a number of seconds from 0 to 30"),
    ("MAX_CONTENT_LENGTH", "1.5", "MAX_CONTENT_LENGTH must be a whole number of bytes, not a float"),
    ("MAX_CONTENT_LENGTH", "100", "MAX_CONTENT_LENGTH must be at least 1024"),
    ("THROWER_GESTURES", "1", "THROWER_GESTURES must be true or false"),
    ("HOSTS", "5", "HOSTS must be a host name, or a list of the names the page is reached by, not a int"),
    (
        "HOSTS",
        '["senet.local", 5]',
        "HOSTS must be a host name, or a list of the names the page is reached by, not a list holding a",
    ),
    ("LANGUAGE", '"fr"', "LANGUAGE must be one of en, de, ar (the page's and the terminal's default language), not"),
    ("EXHIBIT", '"yes"', "EXHIBIT must be true or false"),
    ("IDLE_MINUTES", "0", "IDLE_MINUTES must be a number of minutes more than 0"),
    (
        "IDLE_MINUTES",
        "true",
        "IDLE_MINUTES must be a number of minutes more than 0 (exhibit mode: idle time before a new game), not",
    ),
    ("COMPUTER", "2", "COMPUTER must be the seats the computer plays"),
    (
        "COMPUTER_LEVEL",
        "5",
        "COMPUTER_LEVEL must be the computer's level: 1 (beginner), 2 (club), 3 (expert) or 4 (master), not 5",
    ),
    ("HINT_WAIT", "-1", "HINT_WAIT must be a number of seconds from 0 to 60, not -1"),
    ("QUESTION_SECONDS", "4", "QUESTION_SECONDS must be a number of seconds from 5 to 600"),
    ("QUESTION_SECONDS", '"soon"', "QUESTION_SECONDS must be a number of seconds from 5 to 600"),
    ("SERVER_NAME", "5", "SERVER_NAME must be a host name, with :PORT if not the usual one (e.g. senet.local:8080)"),
    ("SERVER_NAME", '"http://senet.local/"', "(e.g. senet.local:8080), not 'http://senet.local/'"),
    ("SESSION_COOKIE_SAMESITE", "5", 'SESSION_COOKIE_SAMESITE must be "Strict" or "Lax", not a int'),
    ("SESSION_COOKIE_SAMESITE", '"sometimes"', 'SESSION_COOKIE_SAMESITE must be "Strict" or "Lax", not \'sometimes\''),
    ("SESSION_COOKIE_HTTPONLY", '"no"', "SESSION_COOKIE_HTTPONLY must be true or false, not a str"),
    ("SESSION_COOKIE_SECURE", "0", "SESSION_COOKIE_SECURE must be true or false, not a int"),
    ("MAX_LIVE_STREAMS", '"many"', "MAX_LIVE_STREAMS must be a whole number of live streams, 1 or more, not a str"),
    ("MAX_LIVE_STREAMS", "-1", "MAX_LIVE_STREAMS must be a whole number of live streams, 1 or more, not -1"),
    ("MAX_LIVE_STREAMS", "0", "MAX_LIVE_STREAMS must be a whole number of live streams, 1 or more, not 0"),
    ("TLS_CERT", "[1]", "TLS_CERT must be the path of the page's HTTPS certificate"),
    ("TLS_KEY", "1", "TLS_KEY must be the path of the HTTPS certificate's private key"),
    ("MQTT_URL", "1883", "MQTT_URL must be a broker URL"),
    ("BOARD", "7", "BOARD must be the board's name on the broker"),
    ("STAFF_CONTACT", '""', "STAFF_CONTACT must be one line of up to 200 characters"),
    ("STAFF_CONTACT", '"Ana\\nWeber"', "STAFF_CONTACT must be one line of up to 200 characters"),
    ("MQTT_USERNAME", "7", "MQTT_USERNAME must be a string (the broker's user name), not a int"),
    ("MQTT_PASSWORD", "7", "MQTT_PASSWORD must be a string (the broker's password), not a int"),
    ("MQTT_CA_FILE", "false", "MQTT_CA_FILE must be the path of a CA bundle"),
    ("MQTT_COMMANDS", '"on"', "MQTT_COMMANDS must be true or false"),
    ("MQTT_COMMAND_SECRET", "12345678901234567", "MQTT_COMMAND_SECRET must be a string of 16 or more characters"),
    ("MQTT_DISCOVERY_PREFIX", "1", "MQTT_DISCOVERY_PREFIX must be Home Assistant's discovery prefix"),
    ("MQTT_BUTTONS", '["explode"]', "MQTT_BUTTONS must be true (every button), false, or a list of"),
    ("MQTT_AREA", "3", "MQTT_AREA must be a room's name, not a int"),
    ("MQTT_PAGE_URL", '"hall-1:8080"', "MQTT_PAGE_URL must be the board page's address"),
    ("MQTT_STAFF_AFTER", "0", "MQTT_STAFF_AFTER must be a number of seconds from 5 to 3600"),
    ("ANSWERS_FROM_ANY_PHONE", '"yes"', "ANSWERS_FROM_ANY_PHONE must be true or false, not a str"),
    ("LIGHTS", '"on"', "LIGHTS must be true or false, not a str"),
    ("SPEAK", "1", "SPEAK must be true or false, not a int"),
    ("SPEAK_VOLUME", "120", "SPEAK_VOLUME must be a whole number of percent from 0 to 100, not 120"),
    ("SPEAK_QUIET", '"late"', 'SPEAK_QUIET must be hours like "22:00-08:00" (or ""), not \'late\''),
    ("LIGHTS_BRIGHTNESS", "0", "LIGHTS_BRIGHTNESS must be a whole number of percent from 1 to 100, not 0"),
    ("LIGHTS_BRIGHTNESS", "50.5", "LIGHTS_BRIGHTNESS must be 1 to 100, not a float"),
    ("LIGHTS_OFF", '["sparkle"]', "LIGHTS_OFF must list kinds of light (move, fix_from"),
    ("LIGHTS_COLOURS", '["move=red"]', 'LIGHTS_COLOURS must be a list of "kind=RRGGBB"'),
]


@pytest.mark.parametrize(("key", "value", "said"), BAD, ids=[f"{k}={v}" for k, v, _ in BAD])
def test_a_bad_setting_is_one_line_naming_the_key(tmp_path, key, value, said):
    (tmp_path / "config.toml").write_text(f"{key} = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_instance_config(tmp_path)
    line = str(raised.value)
    assert "\n" not in line
    assert line.startswith(f"the config {tmp_path / 'config.toml'}: {key} ")
    assert said in line


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("EXHBIT = true", "EXHIBIT"),
        ("exhibit = true", "EXHIBIT"),
        ('MQTT_PASWORD = "x"', "MQTT_PASSWORD"),
        ('PERMANENT_SESSION_LIFETIME = "x"', "PERMANENT_SESSION_LIFETIME is not a setting (the Configuration page"),
    ],
)
def test_a_key_that_is_no_setting_is_one_line_not_ignored(tmp_path, line, said):
    (tmp_path / "config.toml").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_instance_config(tmp_path)
    assert "\n" not in str(raised.value)
    assert said in str(raised.value)
    assert "is not a setting" in str(raised.value)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[page]\nLANGUAGE = "de"\n', "LANGUAGE is inside [page]: settings go at the top of config.toml"),
        ("EXHIBIT = true\n[kiosk]\nidle_minutes = 3\n", "idle_minutes is inside [kiosk]"),
    ],
)
def test_a_setting_under_a_table_is_one_line_not_ignored(tmp_path, text, said):
    (tmp_path / "config.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_instance_config(tmp_path)
    assert said in str(raised.value)


@pytest.mark.parametrize(
    "text",
    [
        '[extra]\nnote = "mine"\n',  # the owner's own table, as Flask leaves lowercase keys alone
        'note = "mine"\n[[boards]]\nname = "a"\n',
        'LANGUAGE = "de"\n[old]\nLANGUAGE = "en"\n',  # a stale copy under a table: the top-level one is read
    ],
)
def test_the_owners_own_keys_and_tables_are_left_alone(tmp_path, text):
    (tmp_path / "config.toml").write_text(text, encoding="utf-8")
    loaded = load_instance_config(tmp_path)
    assert all(key.isupper() for key in loaded)


def test_every_setting_has_a_bad_value_tested():
    assert {key for key, _, _ in BAD} == set(settings.BY_NAME)


@pytest.mark.parametrize(
    "line",
    [
        'SERVER_NAME = "senet.local:8080"',
        'SERVER_NAME = "[::1]:8080"',
        'SESSION_COOKIE_SAMESITE = "Lax"',
        "MAX_LIVE_STREAMS = 1",
        'HOSTS = ["senet.local", "senet"]',
        "HINT_WAIT = 0",
        "PIN_DELAY = 0.5",
    ],
)
def test_a_good_setting_is_loaded_as_written(tmp_path, line):
    (tmp_path / "config.toml").write_text(line + "\n", encoding="utf-8")
    key = line.split(" = ")[0]
    assert key in load_instance_config(tmp_path)


def test_run_says_a_bad_setting_in_one_line_before_anything_starts(tmp_path):
    instance = tmp_path / "instance"
    instance.mkdir()
    (instance / "config.toml").write_text('MAX_LIVE_STREAMS = "many"\n', encoding="utf-8")
    env = {"HOME": str(tmp_path), "SENET_PI_INSTANCE": str(instance), "SENET_PI_JOURNAL": str(tmp_path / "j.sqlite")}
    result = subprocess.run(
        [sys.executable, "-m", "senet_pi", "run", "--page-port", "0"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"senet-pi run: the config {instance / 'config.toml'}: "
        "MAX_LIVE_STREAMS must be a whole number of live streams, 1 or more, not a str"
    ]
    assert not (tmp_path / "j.sqlite").exists()  # nothing started


def test_the_page_starts_from_the_tables_defaults():
    app = create_app({"SECRET_KEY": "t"})
    for setting in settings.SETTINGS:
        if setting.name not in ("SECRET_KEY",):
            assert app.config[setting.name] == setting.default, setting.name
    assert CONFIG_TYPES["PIN_DELAY"] == ((int, float), "a number of seconds from 0 to 30")


#: Keys the page sets itself from the command line or at start; not a user's to write.
INTERNAL = {"PIN_FILE", "LISTEN_HOST", "TESTING"}


def test_every_key_the_code_reads_from_the_config_is_in_the_table():
    read = set()
    for folder in ("web", "senet_pi"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            read |= set(re.findall(r"config(?:\.get\(|\[)\"([A-Z][A-Z_]+)\"", text))
    assert read, "the pattern found nothing"
    assert read - INTERNAL <= set(settings.BY_NAME), read - INTERNAL - set(settings.BY_NAME)


def test_every_environment_variable_the_code_reads_is_in_the_table():
    named = set()
    for folder in ("senet_pi", "web", "scripts", "exhibit", ".ci"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix not in (".po", ".pot", ".png", ".pyc"):
                text = path.read_text(encoding="utf-8", errors="replace")
                named |= set(re.findall(r"SENET_PI_[A-Z0-9_]*[A-Z0-9]", text))
    assert "SENET_PI_JOURNAL" in named
    assert named <= {v.name for v in environment.ENVIRONMENT}, named - {v.name for v in environment.ENVIRONMENT}


def test_every_setting_says_what_it_means_in_the_docs_words():
    for setting in settings.SETTINGS:
        assert setting.meaning.endswith(".") and "issue" not in setting.meaning + setting.wanted, setting.name
        assert setting.type_name and setting.shown_default, setting.name


def test_the_table_imports_nothing_of_the_page():
    """senet_pi knows no Flask: the settings table is read by the page, never the other way."""
    code = (
        "import sys, senet_pi.settings; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'senet_pi_web')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.strip() == "[]", result.stdout + result.stderr


def test_the_buttons_a_setting_allows_are_the_fleets():
    from senet_pi.fleet.address import BUTTONS

    assert settings._BUTTONS == BUTTONS
