"""The exhibit's install: the unit files pass `systemd-analyze verify`, the scripts pass
shellcheck, and install.sh refuses, changing nothing, anywhere but Raspberry Pi OS."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.exhibit_helpers import EXHIBIT, SENET_PI, unit, verify


def test_the_service_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    assert SENET_PI.exists()
    result = verify(tmp_path, "senet-pi.service", {"/opt/senet-pi/bin/senet-pi": str(SENET_PI)})
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr  # not even a warning (a bad value is only a warning)


def test_the_kiosk_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    xinit = shutil.which("xinit")
    if xinit is None:
        stand_in = tmp_path / "xinit"
        stand_in.write_text("#!/bin/sh\nexit 0\n")
        stand_in.chmod(0o755)
        xinit = str(stand_in)
    result = verify(tmp_path, "senet-pi-kiosk.service", {"/usr/bin/xinit": xinit})
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr


def test_the_service_is_notify_with_a_watchdog_and_restarts() -> None:
    service = unit("senet-pi.service")
    assert service["Type"] == ["notify"]
    assert service["NotifyAccess"] == ["main"]
    assert re.fullmatch(r"\d+s", service["WatchdogSec"][0])
    assert service["Restart"] in (["always"], ["on-failure"])
    assert service["ExecStart"][0].split()[:2] == ["/opt/senet-pi/bin/senet-pi", "run"]
    # What the hardening must still let through: the pins and the USB bridge.
    allowed = " ".join(service["DeviceAllow"])
    assert "gpiochip" in allowed
    assert "gpiomem" in allowed
    assert "ttyACM" in allowed
    assert set(service["SupplementaryGroups"][0].split()) >= {"gpio", "dialout"}
    assert service["StateDirectory"] == ["senet-pi"]
    assert "SENET_PI_JOURNAL=/var/lib/senet-pi/journal.sqlite" in service["Environment"]
    assert service["RequiresMountsFor"] == ["/var/lib/senet-pi"]


def test_restarts_that_never_succeed_stop_instead_of_looping() -> None:
    service = unit("senet-pi.service")
    assert int(service["StartLimitBurst"][0]) >= 3
    assert service["StartLimitIntervalSec"][0] not in ("0", "infinity")


def test_the_kiosk_opens_the_page_full_screen_without_a_cursor_or_crash_dialog() -> None:
    kiosk = unit("senet-pi-kiosk.service")
    assert "-nocursor" in kiosk["ExecStart"][0].split()
    assert "/opt/senet-pi/kiosk-session" in kiosk["ExecStart"][0].split()
    session = (EXHIBIT / "kiosk-session").read_text()
    for flag in ("--kiosk", "--noerrdialogs", "--disable-session-crashed-bubble", "--incognito"):
        assert flag in session
    assert os.access(EXHIBIT / "kiosk-session", os.X_OK)


def test_the_kiosk_s_chromium_never_offers_to_translate_the_page() -> None:
    """A German page in an English browser put Chromium's "German | English" bubble over the board
    (the kiosk card's screen, under emulation); its policy, not a flag, turns translation off."""
    policy = json.loads((EXHIBIT / "chromium-policy.json").read_text())
    assert policy == {"TranslateEnabled": False}
    script = (EXHIBIT / "install.sh").read_text()
    assert "CHROMIUM_POLICY=/etc/chromium/policies/managed/senet-pi-kiosk.json " in script
    kiosk_part = script[script.index('if [ "$kiosk" = yes ]; then\n  if ! id senet-kiosk') :]
    kiosk_part = kiosk_part[: kiosk_part.index("\nfi\n")]
    assert 'install -D -m 0644 "$SOURCE/exhibit/chromium-policy.json" "$CHROMIUM_POLICY"' in kiosk_part
    uninstall = script[script.index('if [ "$uninstall" = yes ]; then') :]
    assert '"$CHROMIUM_POLICY"' in uninstall[: uninstall.index("exit 0")]


def test_install_puts_everything_where_the_units_look() -> None:
    script = (EXHIBIT / "install.sh").read_text()
    assert "PREFIX=/opt/senet-pi " in script  # the units run /opt/senet-pi/bin/senet-pi, /opt/senet-pi/kiosk-session
    assert 'install -m 0755 "$SOURCE/exhibit/kiosk-session" "$PREFIX/kiosk-session"' in script
    assert "CONFIG=/etc/senet-pi " in script
    assert "SENET_PI_INSTANCE=/etc/senet-pi" in unit("senet-pi.service")["Environment"]
    assert script.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in script


def run_install_step(
    tmp_path: Path, step: str, stubs: dict[str, str], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """One step of install.sh run alone by bash, with stub commands first on PATH (each a line of
    shell, keyed by its path under tmp_path) and `env`; it must succeed."""
    for name, body in stubs.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", step],
        env={"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result


def test_install_gives_the_user_senet_every_group_the_unit_names(tmp_path: Path) -> None:
    """install.sh's groups step, run alone with stub commands: it reads the unit's SupplementaryGroups
    (the strip's `spi` among them), makes each missing group and puts the user senet in each."""
    script = (EXHIBIT / "install.sh").read_text()
    start = script.index("read -r -a groups <<<")
    step = script[start : script.index("done\n", start) + len("done\n")]
    log = tmp_path / "log"
    stubs = {"bin/getent": "exit 2", "bin/groupadd": f'echo "groupadd $*" >> {log}',
             "bin/usermod": f'echo "usermod $*" >> {log}'}  # fmt: skip
    run_install_step(tmp_path, step, stubs, {"SOURCE": str(EXHIBIT.parent)})
    groups = unit("senet-pi.service")["SupplementaryGroups"][0].split()
    assert "spi" in groups
    assert log.read_text().splitlines() == [
        line for g in groups for line in (f"groupadd --system {g}", f"usermod -aG {g} senet")
    ]


def packages_step(tmp_path: Path, installed: str, venv_has_lgpio: bool) -> tuple[str, list[str]]:
    """install.sh's Debian packages step, run alone with stub commands on plain Debian (apt has no
    python3-lgpio): `installed` is a pattern of the packages dpkg knows; what it said and ran."""
    script = (EXHIBIT / "install.sh").read_text()
    start = script.index("missing=()\nkept=()")
    step = script[start : script.index("# ---", start)]
    log = tmp_path / "log"
    stubs = {
        "bin/dpkg-query": f'case "$*" in {installed}) printf "install ok installed" ;; *) exit 1 ;; esac',
        "bin/apt-get": f'echo "apt-get $*" >> {log}',
        "bin/apt-cache": "exit 100",
        "venv/bin/python": "exit 0" if venv_has_lgpio else "exit 1",
    }
    head = "say() { printf 'senet-pi install: %s\\n' \"$*\"; }\n"
    head += "packages=(python3-venv python3-lgpio sqlite3)\nimage=no\n"
    result = run_install_step(tmp_path, head + step, stubs, {"PREFIX": str(tmp_path / "venv")})
    ran = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return result.stdout, ran


def test_a_rerun_on_plain_debian_with_nothing_missing_makes_no_network_call(tmp_path: Path) -> None:
    """Plain Debian never has python3-lgpio; with PyPI's lgpio already in the venv (an earlier run)
    and the rest installed, a re-run asks apt nothing and says what it kept."""
    said, ran = packages_step(tmp_path, "*python3-venv*|*sqlite3*", venv_has_lgpio=True)
    assert ran == []
    assert said == (
        "senet-pi install: kept the Debian packages: python3-venv, lgpio (PyPI's, in the venv), sqlite3"
        " (all there: no apt-get)\n"
    )
    said, ran = packages_step(tmp_path, "*python3-venv*", venv_has_lgpio=True)  # sqlite3 missing
    assert ran == ["apt-get update -q", "apt-get install -y -q --no-install-recommends sqlite3"]
    said, ran = packages_step(tmp_path, "*python3-venv*|*sqlite3*", venv_has_lgpio=False)  # a first run
    assert ran == ["apt-get update -q"]
    assert "python3-lgpio is not in this system's apt (plain Debian)" in said


def test_the_scripts_pass_shellcheck() -> None:
    result = subprocess.run(
        ["shellcheck", str(EXHIBIT / "install.sh"), str(EXHIBIT / "kiosk-session"), str(EXHIBIT / "compile-ahead")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout


def test_install_refuses_anywhere_but_raspberry_pi_os_and_changes_nothing() -> None:
    """This machine is not Raspberry Pi OS: one line, exit 1, before any apt, user or file."""
    result = subprocess.run(["bash", str(EXHIBIT / "install.sh")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("senet-pi install: ")
    assert re.search(r"root|Raspberry Pi OS|Bookworm", lines[0])
    assert not Path("/opt/senet-pi").exists()
    assert not Path("/etc/systemd/system/senet-pi.service").exists()


def test_install_names_a_wrong_option_in_one_line() -> None:
    result = subprocess.run(
        ["bash", str(EXHIBIT / "install.sh"), "--bogus"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert result.stderr.strip() == "senet-pi install: unknown option --bogus (see --help)"


def test_set_pin_keeps_the_group_read_the_installer_gave_and_never_lets_others_read(tmp_path: Path) -> None:
    """install.sh makes config.toml root:senet 0640 so the service can read what `sudo senet-pi
    set-pin` writes; set-pin must not take that away (nor leave the hash readable by everyone)."""
    from senet_pi.server.serve import set_pin

    config = tmp_path / "config.toml"
    config.write_text('SECRET_KEY = "x"\n')
    config.chmod(0o640)
    set_pin("246810", tmp_path)
    assert config.stat().st_mode & 0o777 == 0o640
    assert "OPERATOR_PIN_HASH" in config.read_text()
    config.chmod(0o644)
    set_pin("135790", tmp_path)
    assert config.stat().st_mode & 0o777 == 0o640
    fresh = tmp_path / "fresh"
    set_pin("135790", fresh)
    assert (fresh / "config.toml").stat().st_mode & 0o777 == 0o600


def test_fleet_settings_passes_shellcheck() -> None:
    script = str(EXHIBIT / "fleet-settings")
    result = subprocess.run(["shellcheck", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout


def test_install_mqtt_and_board_write_the_fleet_settings_once_and_keep_the_rest(tmp_path: Path) -> None:
    """install.sh --mqtt URL --board NAME: exhibit/fleet-settings writes MQTT_URL and BOARD
    into config.toml, replacing earlier ones on an update, keeping the other keys and the file's mode,
    and never prints the password."""
    from senet_pi.fleet import fleet_settings
    from senet_pi_web import load_instance_config

    config = tmp_path / "config.toml"
    config.write_text('SECRET_KEY = "k"\nEXHIBIT = true\nBOARD = "old"\n\n# whom to call\n[contacts]\nname = "Ada"\n')
    config.chmod(0o640)
    path = {**os.environ, "PATH": f"{SENET_PI.parent}:{os.environ['PATH']}"}  # as install.sh runs it
    for url, board in (("mqtt://h:1883", "first"), ("mqtts://keeper:pa$$word@broker.museum:8883", "hall-2")):
        result = subprocess.run(
            [str(EXHIBIT / "fleet-settings"), str(config), url, board],
            capture_output=True,
            text=True,
            timeout=30,
            env=path,
        )
        assert result.returncode == 0, result.stderr
    assert "pa$$word" not in result.stdout
    assert "mqtts://keeper@broker.museum:8883" in result.stdout
    loaded = load_instance_config(tmp_path)
    assert loaded["SECRET_KEY"] == "k"
    assert loaded["EXHIBIT"] is True
    settings = fleet_settings(None, None, loaded)
    assert settings is not None
    assert settings.board == "hall-2"
    assert settings.broker.password == "pa$$word"
    assert config.read_text().count("MQTT_URL") == 1
    assert oct(config.stat().st_mode & 0o777) == "0o640"
    assert "# whom to call" in config.read_text()
    assert tomllib.loads(config.read_text())["contacts"] == {"name": "Ada"}  # the keys went to the top, not in here


def test_fleet_settings_refuses_a_bad_board_and_leaves_the_config(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("EXHIBIT = true\n")
    path = {**os.environ, "PATH": f"{SENET_PI.parent}:{os.environ['PATH']}"}
    result = subprocess.run(
        [str(EXHIBIT / "fleet-settings"), str(config), "mqtt://h", "hall 2"],
        capture_output=True,
        text=True,
        timeout=30,
        env=path,
    )
    assert result.returncode == 1
    assert "the board name may hold only letters" in result.stderr
    assert config.read_text() == "EXHIBIT = true\n"


def test_install_writes_the_config_only_through_config_set() -> None:
    """No text appends to config.toml (they land inside a trailing [contacts] table): every key goes
    through `senet-pi config set`, and a re-run says what it kept."""
    script = (EXHIBIT / "install.sh").read_text()
    assert not re.search(r">>\s*\"?\$CONFIG/config\.toml", script)
    assert 'config set --config "$CONFIG/config.toml"' in script
    assert "kept $CONFIG/config.toml" in script


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--mqtt", "http://broker"], "--mqtt must be mqtt://"),
        (["--mqtt", "mqtt://h", "--board", "hall 2"], "--board may hold only letters"),
        (["--board", "hall-2"], "--board needs --mqtt URL too"),
        (["--mqtt"], "--mqtt needs a value"),
    ],
)
def test_install_refuses_a_bad_broker_or_board_in_one_line(args: list[str], said: str) -> None:
    result = subprocess.run(["bash", str(EXHIBIT / "install.sh"), *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert said in result.stderr
    assert result.stderr.count("\n") == 1


def test_compile_ahead_fills_the_units_cache_with_a_boards_modules_without_docstrings(tmp_path: Path) -> None:
    """The installers' compile step, run for real: Python's library and the venv, compiled as the
    service runs them (`-OO`), into the cache named; tests and IDLE left out."""
    cache = tmp_path / "cache"
    result = subprocess.run(
        [str(EXHIBIT / "compile-ahead"), sys.executable, str(cache)], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    compiled = [p.relative_to(cache).as_posix() for p in cache.rglob("*.pyc")]
    assert all(".opt-2." in name for name in compiled), [n for n in compiled if ".opt-2." not in n][:5]
    assert any(name.endswith(f"/asyncio/base_events.{sys.implementation.cache_tag}.opt-2.pyc") for name in compiled)
    assert any("/flask/app." in name for name in compiled)  # the venv's packages
    assert not [name for name in compiled if "/idlelib/" in name or "/tests/" in name or "/test/" in name]


def test_compile_ahead_says_how_it_is_used() -> None:
    result = subprocess.run([str(EXHIBIT / "compile-ahead")], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert result.stderr == "usage: compile-ahead PYTHON CACHE\n"


def test_the_pins_and_the_strips_spi_belong_to_the_groups_the_unit_runs_in() -> None:
    """Plain Debian (a card) has no rule giving /dev/gpiochip* and /dev/spidev* to a group: ours does,
    one rule for each device the unit's SupplementaryGroups name, read and write for the group only."""
    rules = [line for line in (EXHIBIT / "60-senet-pi.rules").read_text().splitlines() if line and line[0] != "#"]
    groups = unit("senet-pi.service")["SupplementaryGroups"][0].split()
    found = {}
    for rule in rules:
        keys = dict(re.findall(r'(\w+)=="?([^",]+)"?', rule))
        assigned = dict(re.findall(r'(\w+)="([^"]+)"', rule.split("==")[-1]))
        assert assigned["MODE"] == "0660", rule
        assert assigned["GROUP"] in groups, rule
        found[keys["KERNEL"]] = assigned["GROUP"]
    assert found == {"gpiochip*": "gpio", "spidev*": "spi"}


@pytest.mark.parametrize("image", ["yes", "no"])
def test_install_puts_the_udev_rule_in_place_on_a_pi_and_in_a_cards_root(tmp_path: Path, image: str) -> None:
    """One source for both: install.sh's step installs exhibit/60-senet-pi.rules, with --image too."""
    script = (EXHIBIT / "install.sh").read_text()
    start = script.index('install -D -m 0644 "$SOURCE/exhibit/60-senet-pi.rules"')
    step = script[start : script.index("\nfi\n", start) + len("\nfi\n")]
    log = tmp_path / "log"
    stubs = {f"bin/{name}": f'echo "{name} $*" >> {log}' for name in ("install", "udevadm")}
    run_install_step(tmp_path, step, stubs, {"SOURCE": str(EXHIBIT.parent), "image": image})
    said = log.read_text().splitlines()
    assert said[0] == f"install -D -m 0644 {EXHIBIT}/60-senet-pi.rules /etc/udev/rules.d/60-senet-pi.rules"
    if image == "yes":
        assert said == said[:1]  # a card's root being built: no udev to tell
