"""A home Raspberry Pi: scripts/install-pi (Debian's pin library where apt has it, else PyPI's
wheel; a venv that sees it; the `pi` extra; an optional service that is the exhibit's unit run as
the owner), the `pi` extra itself (no compiler, the RPi.GPIO API over lgpio), the real pins by
default on a Pi, and a pin-library message whose command works. Stub commands record what the
script would run; scripts/arm64-check runs it for real in an arm64 root."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PI_EXTRA = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["pi"]


def stub(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


@pytest.fixture
def pi(tmp_path):
    """install-pi on a machine of stubs: apt, sudo, python3 (its venv), systemctl; a home of its own."""
    bin_, home, units, log = tmp_path / "bin", tmp_path / "home", tmp_path / "units", tmp_path / "log"
    sudo_bin = tmp_path / "usr-local-bin"
    for folder in (bin_, home, units, sudo_bin):
        folder.mkdir()
    stub(bin_ / "id", 'case "$1" in -u) echo "$FAKE_UID" ;; -un) echo pi ;; -gn) echo pi ;; *) echo pi ;; esac')
    stub(bin_ / "sudo", f'echo "sudo $1" >> {log}; exec "$@"')
    stub(bin_ / "apt-get", f'echo "apt-get $*" >> {log}')
    stub(bin_ / "apt-cache", 'exit "$HAS_LGPIO"')  # 0: Raspberry Pi OS's apt has python3-lgpio
    stub(bin_ / "dpkg-query", "exit 1")  # nothing installed yet
    stub(bin_ / "groupadd", f'echo "groupadd $*" >> {log}')
    stub(bin_ / "systemctl", f'echo "systemctl $*" >> {log}')
    venv_bin = '"$4/bin"'
    stub(
        bin_ / "python3",
        f'echo "python3 $*" >> {log}; mkdir -p {venv_bin}; '
        f"printf '#!/bin/sh\\necho \"pip $*\" >> {log}\\n' > {venv_bin}/pip; "
        f"printf '#!/bin/sh\\necho senet-pi 0.2.0\\n' > {venv_bin}/senet-pi; "
        f"printf '#!/bin/sh\\necho \"venv-python $*\" >> {log}\\n' > {venv_bin}/python; chmod +x {venv_bin}/*",
    )
    wheel = tmp_path / "senet_pi-0.2.0-py3-none-any.whl"
    wheel.write_bytes(b"PK")

    def run(*args: str, uid: int = 1000, has_lgpio: bool = True, systemd: bool = False, model: str = ""):
        (tmp_path / "model").write_text(model + "\0" if model else "")
        env = {
            "SENET_PI_MODEL": str(tmp_path / "model"),
            "SENET_PI_UDEV_RULES": str(tmp_path / "rules"),
            "SENET_PI_CHIP": str(tmp_path / "gpiochip0"),
            "PATH": f"{bin_}:/usr/bin:/bin",
            "HOME": str(home),
            "FAKE_UID": str(uid),
            "HAS_LGPIO": "0" if has_lgpio else "100",
            "SENET_PI_UNITS": str(units),
            "SENET_PI_SUDO_BIN": str(sudo_bin),
            "SENET_PI_SYSTEMD_RUNNING": str(units if systemd else tmp_path / "no-systemd"),
        }
        with open(log, "a") as out:
            result = subprocess.run(
                ["bash", str(ROOT / "scripts" / "install-pi"), *args],
                env=env,
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
                check=False,
            )
        lines = log.read_text().splitlines() if log.exists() else []
        log.unlink(missing_ok=True)
        return result.returncode, lines, result.stderr

    run.home, run.units, run.wheel, run.sudo_bin, run.bin = home, units, wheel, sudo_bin, bin_  # type: ignore[attr-defined]
    run.rules, run.log = tmp_path / "rules", log  # type: ignore[attr-defined]
    return run


def test_raspberry_pi_os_gets_debians_pin_library_and_a_venv_that_sees_it(pi):
    status, log, err = pi("--wheel", str(pi.wheel))
    assert status == 0, err
    venv = pi.home / ".local" / "share" / "senet-pi" / "venv"
    calls = [line for line in log if not line.startswith("senet-pi install-pi:")]
    assert calls == [
        "sudo apt-get",
        "apt-get update -q",
        "sudo env",
        "apt-get install -y -q --no-install-recommends python3-venv python3-lgpio",
        f"python3 -m venv --system-site-packages {venv}",
        f"pip install -q --prefer-binary --upgrade {pi.wheel}[pi]",
        "sudo tee",
        "sudo chmod",
    ]
    said = log.index(
        "senet-pi install-pi: installing python3-venv python3-lgpio (Debian packages: the venv and the "
        "pin library) with sudo apt-get"
    )
    assert said < log.index("apt-get update -q")  # said before it is done
    assert any(line.startswith(f"senet-pi install-pi: installing {pi.wheel}[pi]") for line in log[:-1])
    link = pi.home / ".local" / "bin" / "senet-pi"
    assert link.is_symlink()
    assert os.readlink(link) == str(venv / "bin" / "senet-pi")


def test_plain_debian_takes_lgpio_from_pypi_with_the_pi_extra(pi):
    status, log, err = pi("--wheel", str(pi.wheel), has_lgpio=False)
    assert status == 0, err
    assert "apt-get install -y -q --no-install-recommends python3-venv" in log
    assert not [line for line in log if line.startswith("apt-get install") and "python3-lgpio" in line]
    assert any("python3-lgpio is not in this system's apt" in line and "PyPI" in line for line in log)
    assert f"pip install -q --prefer-binary --upgrade {pi.wheel}[pi]" in log


def test_a_rerun_on_plain_debian_with_nothing_missing_asks_apt_nothing(pi):
    """Plain Debian never has python3-lgpio: once PyPI's lgpio is in the venv a re-run makes no
    network call (no apt-get update) and says what it kept; a venv without lgpio asks apt again."""
    status, log, err = pi("--wheel", str(pi.wheel), has_lgpio=False)
    assert status == 0, err
    assert "apt-get update -q" in log
    stub(pi.bin / "dpkg-query", 'case "$*" in *python3-venv*) printf "install ok installed" ;; *) exit 1 ;; esac')
    status, log, err = pi("--wheel", str(pi.wheel), has_lgpio=False)
    assert status == 0, err
    assert not [line for line in log if "apt-get" in line and not line.startswith("senet-pi install-pi:")]
    assert (
        "senet-pi install-pi: kept the Debian packages: python3-venv, lgpio (PyPI's, in the venv)"
        " (all there: no apt-get)" in log
    )
    stub(pi.home / ".local" / "share" / "senet-pi" / "venv" / "bin" / "python", "exit 1")  # no lgpio in it
    status, log, err = pi("--wheel", str(pi.wheel), has_lgpio=False)
    assert status == 0, err
    assert "apt-get update -q" in log


def groups_of_plain_debian(pi, tmp_path) -> Path:
    """getent, groupadd and usermod over a file of groups that starts without gpio or spi (plain Debian)."""
    groups = tmp_path / "groups"
    groups.write_text("pi:x:1000:\n")
    stub(pi.bin / "getent", f'grep "^$2:" {groups}')
    stub(pi.bin / "groupadd", f'echo "groupadd $*" >> {pi.log}; echo "$2:x:999:" >> {groups}')
    stub(pi.bin / "usermod", f'echo "usermod $*" >> {pi.log}; sed -i "s/^$2:x:999:$/&$3/" {groups}')
    stub(pi.bin / "udevadm", f'echo "udevadm $*" >> {pi.log}')
    return groups


def test_on_plain_debian_on_a_pi_the_pins_go_to_the_group_gpio_and_you_join_it(pi, tmp_path):
    """Plain Debian gives /dev/gpiochip* to no group, and `sudo adduser pi gpio` fails there (no
    such group): the installer makes gpio and spi, puts the exhibit's udev rule in place, adds you
    to gpio, and says to log in again; a second run finds the group and changes nothing."""
    groups = groups_of_plain_debian(pi, tmp_path)
    status, log, err = pi("--wheel", str(pi.wheel), "--no-apt", model="Raspberry Pi 4 Model B Rev 1.5")
    assert status == 0, err
    assert any("only root may open them: run this again without --no-apt" in line for line in log)
    assert not pi.rules.exists()
    status, log, err = pi("--wheel", str(pi.wheel), model="Raspberry Pi 4 Model B Rev 1.5")
    assert status == 0, err
    rule = (pi.rules / "60-senet-pi.rules").read_text()
    assert 'KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"' in rule
    assert rule == (ROOT / "exhibit" / "60-senet-pi.rules").read_text()
    assert [line for line in log if line.startswith(("groupadd", "usermod"))] == [
        "groupadd --system gpio",
        "groupadd --system spi",
        "usermod -aG gpio pi",
    ]
    assert "udevadm trigger --subsystem-match=gpio --subsystem-match=spidev" in log
    assert "gpio:x:999:pi" in groups.read_text().splitlines()
    assert (
        log[-2] == "senet-pi install-pi: you are in the group gpio from your next login: log out and in again"
        " before senet-pi selftest"
    )
    status, log, err = pi("--wheel", str(pi.wheel), model="Raspberry Pi 4 Model B Rev 1.5")
    assert status == 0, err
    assert not [line for line in log if line.startswith(("groupadd", "usermod", "udevadm"))]


def test_a_gpio_group_made_earlier_is_no_sign_the_pins_are_its(pi, tmp_path):
    """An earlier `--service` made the group gpio (the unit names it) on plain Debian, but the pins
    stayed root's (the walk's arm64 root: /dev/gpiochip0 root:root 0600): the rule goes in still."""
    groups = groups_of_plain_debian(pi, tmp_path)
    groups.write_text("pi:x:1000:\ngpio:x:995:\n")
    (tmp_path / "gpiochip0").write_text("")  # root's, as this test runs as root; or its runner's group
    status, log, err = pi("--wheel", str(pi.wheel), model="Raspberry Pi 4 Model B Rev 1.5")
    assert status == 0, err
    assert (pi.rules / "60-senet-pi.rules").exists()
    assert "usermod -aG gpio pi" in log
    assert not [line for line in log if line == "groupadd --system gpio"]


def test_off_a_pi_nothing_is_said_or_done_about_the_pins_groups(pi, tmp_path):
    groups_of_plain_debian(pi, tmp_path)
    status, log, err = pi("--wheel", str(pi.wheel))
    assert status == 0, err
    assert not [line for line in log if "group" in line or line.startswith(("groupadd", "usermod", "udevadm"))]
    assert not pi.rules.exists()


def test_the_lights_and_the_voice_get_their_debian_packages_when_asked_for(pi):
    stub(pi.bin / "raspi-config", 'echo "raspi-config $*" >> "$(dirname "$0")/../log"')
    status, log, err = pi("--wheel", str(pi.wheel), "--lights", "--voice")
    assert status == 0, err
    install = "apt-get install -y -q --no-install-recommends python3-venv python3-lgpio python3-spidev espeak-ng"
    assert install in log
    said = log.index(
        "senet-pi install-pi: installing python3-venv python3-lgpio python3-spidev espeak-ng (Debian packages: "
        "the venv and the pin library, the LED strip's SPI, the voice) with sudo apt-get"
    )
    assert said < log.index(install)
    assert "raspi-config nonint do_spi 0" in log  # SPI on, through sudo
    assert log[log.index("raspi-config nonint do_spi 0") - 1] == "sudo raspi-config"


def test_without_apt_the_lights_and_the_voice_say_what_to_install(pi):
    status, log, err = pi("--wheel", str(pi.wheel), "--no-apt", "--lights", "--voice")
    assert status == 0, err
    assert not [line for line in log if line.startswith(("apt-get", "sudo"))]
    assert any("install python3-spidev and turn SPI on yourself" in line for line in log)
    assert any("sudo apt install espeak-ng" in line for line in log)


def test_from_the_checkout(pi):
    status, log, _ = pi("--no-apt")
    assert status == 0
    assert not [line for line in log if line.startswith(("apt-get", "sudo"))]
    assert f"pip install -q --prefer-binary --upgrade {ROOT}[pi]" in log


@pytest.mark.parametrize(
    ("args", "uid", "said"),
    [
        ((), 0, "run it as your own user, not as root: it asks sudo when it needs it"),
        (("--wheel", "/nonexistent.whl"), 1000, "--wheel /nonexistent.whl: no such file"),
        (("--bogus",), 1000, "unknown option --bogus (see --help)"),
    ],
)
def test_a_wrong_start_is_one_line_and_changes_nothing(pi, args, uid, said):
    status, log, err = pi(*args, uid=uid)
    assert status == 1
    assert err.strip() == f"senet-pi install-pi: {said}"
    assert not [line for line in log if not line.startswith("senet-pi install-pi:")]


@pytest.mark.parametrize("systemd", [True, False], ids=["systemd runs", "a chroot"])
def test_the_service_is_the_exhibits_unit_run_as_the_owner(pi, systemd):
    status, log, err = pi("--wheel", str(pi.wheel), "--no-apt", "--service", systemd=systemd)
    assert status == 0, err
    assert (pi.units / "senet-pi.service").read_bytes() == (ROOT / "exhibit" / "senet-pi.service").read_bytes()
    drop_in = (pi.units / "senet-pi.service.d" / "home-pi.conf").read_text().splitlines()
    venv, home = pi.home / ".local" / "share" / "senet-pi" / "venv", pi.home
    for line in [
        "User=pi",
        "ExecStart=",  # the exhibit's ExecStart is replaced, not added to
        f"ExecStart={venv}/bin/senet-pi run $SENET_PI_ARGS",
        f"Environment=SENET_PI_INSTANCE={home}/.config/senet-pi",
        f"Environment=SENET_PI_JOURNAL={home}/.local/state/senet-pi/journal.sqlite",
        f"Environment=SENET_PI_TABLES={home}/.cache/senet-pi/tables",
        "ProtectHome=read-only",  # but the journal and the tables the board rebuilds are written
        f"ReadWritePaths={home}/.local/state/senet-pi {home}/.cache/senet-pi/tables",
    ]:
        assert line in drop_in
    assert (home / ".cache" / "senet-pi" / "tables").is_dir()  # there, or systemd cannot start the unit
    assert "--backend" not in "\n".join(drop_in)  # the real pins by default on a Pi
    # The unit's Python (no docstrings, modules in its cache) has its modules compiled ahead, as root.
    compiled = [line for line in log if "-m compileall" in line]
    assert compiled
    assert all(line.startswith("venv-python -OO -m compileall -q -j 0 ") for line in compiled), compiled
    as_root = [n for n, line in enumerate(log) if line.startswith("sudo ") and line.endswith("exhibit/compile-ahead")]
    assert as_root
    assert as_root[0] < log.index(compiled[0])
    enabled = [line for line in log if line.startswith("systemctl")]
    assert enabled == (["systemctl daemon-reload", "systemctl enable --now senet-pi.service"] if systemd else [])


def test_the_service_makes_every_group_the_unit_names_and_the_strip_needs_spi(pi):
    """systemd refuses a unit whose SupplementaryGroups names a missing group: install-pi makes each
    one the exhibit's unit names (here none exists yet), and those include `spi` for the LED strip."""
    stub(pi.bin / "getent", "exit 2")  # no group exists on this machine
    status, log, err = pi("--wheel", str(pi.wheel), "--no-apt", "--service")
    assert status == 0, err
    unit_file = (ROOT / "exhibit" / "senet-pi.service").read_text()
    named = re.findall(r"^SupplementaryGroups=(.*)$", unit_file, re.MULTILINE)
    assert len(named) == 1
    groups = named[0].split()
    assert {"gpio", "dialout", "spi"} <= set(groups)
    assert re.search(r"^DeviceAllow=char-spi rw$", unit_file, re.MULTILINE)  # /dev/spidev*, through the hardening
    made = [line.split()[-1] for line in log if line.startswith("groupadd --system ")]
    assert made == groups


def test_the_service_never_replaces_the_exhibits(pi):
    (pi.units / "senet-pi.service").write_text("[Service]\n")
    status, _, err = pi("--wheel", str(pi.wheel), "--no-apt", "--service")
    assert status == 1
    assert "is the exhibit's here" in err
    assert (pi.units / "senet-pi.service").read_text() == "[Service]\n"


def test_the_scripts_pass_shellcheck():
    scripts = [ROOT / "scripts" / name for name in ("install-pi", "arm64-check", "test", "gpio-sim")]
    scripts += [ROOT / "tests" / "gpiosim" / name for name in ("init", "rootinit")]  # the gpio-sim machine's start
    result = subprocess.run(["shellcheck", *map(str, scripts)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout


def pi_requirements(machine: str) -> list[str]:
    """The `pi` extra as a Pi of `machine` reads it (scripts/pi-requirements, which the card's build
    and the gpio-sim machine use, since pip judges markers for the PC it runs on)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "pi-requirements"), machine], capture_output=True, text=True, check=True
    )
    return [line.split(">=")[0] for line in done.stdout.splitlines()]


def test_the_pi_extra_needs_no_compiler_and_keeps_the_rpi_gpio_api():
    """lgpio (wheels for aarch64 and armv7l) and rpi-lgpio (pure Python, the RPi.GPIO module over
    lgpio, working on a Pi 5); never RPi.GPIO itself, which has no aarch64 wheel. gpiod (the button's
    edges from the kernel) only where PyPI has its wheel: a 32-bit Pi would have to compile it."""
    assert pi_requirements("aarch64") == ["lgpio", "rpi-lgpio", "gpiod"]
    assert pi_requirements("armv7l") == ["lgpio", "rpi-lgpio"]
    for req in PI_EXTRA:  # harmless anywhere but a Pi's Linux
        assert "platform_machine == 'aarch64'" in req
        assert "sys_platform == 'linux'" in req


def test_pi_requirements_says_how_it_is_used():
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "pi-requirements"), "x86_64"], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "usage: pi-requirements [aarch64 | armv7l]\n"


def test_the_real_pins_are_the_default_on_a_pi_and_the_simulated_board_elsewhere(monkeypatch):
    from senet_pi.hardware import backends

    chosen = []

    class Recorded:
        def __init__(self, pinmap, **kwargs):
            chosen.append(type(self).__name__)

    monkeypatch.setattr(backends, "GpioBackend", type("GpioBackend", (Recorded,), {}))
    monkeypatch.setattr(backends, "SimBackend", type("SimBackend", (Recorded,), {}))
    monkeypatch.setattr(backends, "on_a_pi", lambda: True)
    backends.make_backend(None)
    monkeypatch.setattr(backends, "on_a_pi", lambda: False)
    backends.make_backend(None)
    assert chosen == ["GpioBackend", "SimBackend"]


def test_on_a_pi_without_a_pin_library_the_message_gives_commands_that_work(monkeypatch):
    """The packages the message names are the `pi` extra's, installed by the Python running senet-pi."""
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory

    from senet_pi.errors import BackendError
    from senet_pi.hardware import backend

    def no_factory():
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(backend, "on_a_pi", lambda: True)
    monkeypatch.setattr(Device, "ensure_pin_factory", staticmethod(no_factory))
    with pytest.raises(BackendError) as caught:
        backend._default_pin_factory()
    text = str(caught.value)
    # the pin library every Pi needs; gpiod, for the button alone, is named by the button when missing
    names = " ".join(pi_requirements("armv7l"))
    assert f"{sys.executable} -m pip install {names}" in text
    assert "sudo apt install python3-lgpio" in text
    assert "--system-site-packages" in text
    assert "senet-pi[pi]" not in text  # a name on no package index
    assert "\n" not in text


def test_the_exhibit_installer_asks_for_no_compiler_and_works_without_python3_lgpio():
    script = (ROOT / "exhibit" / "install.sh").read_text()
    packages = next(line for line in script.splitlines() if line.startswith("packages=("))
    assert "gcc" not in packages
    assert "python3-dev" not in packages
    assert "python3-lgpio" in packages
    assert "apt-cache show python3-lgpio" in script  # plain Debian: PyPI's wheel instead
    assert shutil.which("bash")


def test_the_installing_page_shows_the_message_the_code_gives():
    """docs/installing.md's example of the pin-library message is the message, word for word."""
    from senet_pi.hardware.backend import INSTALL_PINS, NO_PINS

    page = (ROOT / "docs" / "installing.md").read_text(encoding="utf-8")
    block = page.split("```text\nsenet-pi selftest: ", 1)[1].split("```", 1)[0]
    python = "/home/pi/.local/share/senet-pi/venv/bin/python"
    said = NO_PINS.format(cause="no pin library loads (lgpio: ...)", fix=INSTALL_PINS.format(python=python))
    assert " ".join(block.split()) == said


def test_the_installing_page_names_every_option_of_the_scripts():
    page = (ROOT / "docs" / "installing.md").read_text(encoding="utf-8")
    for script, options in {
        "scripts/install-pi": ["--wheel", "--service", "--venv", "--no-apt", "--lights", "--voice"],
        "scripts/arm64-check": ["--fresh", "--root-only"],
        "scripts/test": ["--no-install"],
        "exhibit/install.sh": ["--anywhere", "--wheels"],
    }.items():
        text = (ROOT / script).read_text()
        for option in options:
            assert option in text, f"{script} has no {option}"
            said = re.search(rf"(?<![\w-]){option}(?![\w-])", page)
            assert said, f"docs/installing.md does not say {script} {option}"


@pytest.mark.parametrize(
    ("files", "mirror"),
    [
        (
            {
                "sources.list.d/debian.sources": "Types: deb\nURIs: http://security.example/debian-security\n"
                "Suites: bookworm-security\nComponents: main\n\n"
                "Types: deb\nURIs: http://off.example/debian\nSuites: bookworm\nEnabled: no\n\n"
                "Types: deb deb-src\n# a comment\nURIs: http://deb822.example/debian\n"
                "Suites: bookworm bookworm-updates\nComponents: main\n"
            },
            "http://deb822.example/debian",
        ),
        (
            {
                "sources.list": "# deb http://commented.example/debian bookworm main\n"
                "deb http://security.example/debian-security bookworm-security main\n"
                "deb [arch=amd64 signed-by=/k.gpg] http://one-line.example/debian bookworm main contrib\n"
            },
            "http://one-line.example/debian",
        ),
    ],
    ids=["deb822", "one-line"],
)
def test_the_arm64_check_takes_the_mirror_from_apts_sources(tmp_path, files, mirror):
    """Read from the machine's sources, never written into the repository."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "sources.list.d").mkdir(exist_ok=True)
    env = {**os.environ, "SENET_PI_APT_ETC": str(tmp_path)}
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "arm64-check"), "--mirror"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == mirror


def test_the_arm64_check_says_when_apt_has_no_mirror(tmp_path):
    (tmp_path / "sources.list.d").mkdir()
    env = {**os.environ, "SENET_PI_APT_ETC": str(tmp_path)}
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "arm64-check"), "--mirror"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert (
        result.stderr.strip() == f"arm64-check: found no Debian mirror in {tmp_path}/sources.list*: add one "
        "(deb URL bookworm main)"
    )


def test_no_mirror_is_written_into_the_repository():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    mirror = subprocess.run(
        ["bash", str(ROOT / "scripts" / "arm64-check"), "--mirror"], capture_output=True, text=True, timeout=60
    ).stdout.strip()
    if not mirror:
        return  # this machine's apt names none: nothing it could have written
    for name in tracked:
        path = ROOT / name
        if path.is_file() and path.stat().st_size < 2_000_000:
            assert mirror not in path.read_text(errors="replace"), f"{name} holds this machine's mirror {mirror}"


def test_the_home_service_passes_systemd_analyze_verify(pi):
    """The exhibit's unit with the home drop-in, read as systemd reads them (the drop-in folder
    beside the unit): one ExecStart, the venv's, and every setting known."""
    status, _, err = pi("--wheel", str(pi.wheel), "--no-apt", "--service")
    assert status == 0, err
    result = subprocess.run(
        ["systemd-analyze", "verify", str(pi.units / "senet-pi.service")],
        capture_output=True,
        text=True,
        cwd=pi.units,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Unknown" not in result.stderr
    assert "more than one ExecStart" not in result.stderr


def test_sudo_senet_pi_runs_the_venvs_with_the_owners_config_and_journal(pi):
    """The docs' `sudo senet-pi ...`: sudo's PATH has /usr/local/bin, where a wrapper runs this venv's
    senet-pi with the owner's folders (never root's, which sudo's HOME would give)."""
    status, log, err = pi("--wheel", str(pi.wheel))
    assert status == 0, err
    wrapper = pi.sudo_bin / "senet-pi"
    assert os.access(wrapper, os.X_OK)
    env = {"PATH": "/usr/bin:/bin", "HOME": "/root"}
    shown = subprocess.run([str(wrapper), "--version"], capture_output=True, text=True, env=env, timeout=30)
    assert shown.stdout == "senet-pi 0.2.0\n"  # the venv's (the stub's) senet-pi ran
    text = wrapper.read_text()
    assert f'SENET_PI_INSTANCE="${{SENET_PI_INSTANCE:-{pi.home}/.config/senet-pi}}"' in text
    assert f'SENET_PI_JOURNAL="${{SENET_PI_JOURNAL:-{pi.home}/.local/state/senet-pi/journal.sqlite}}"' in text
    assert (pi.home / ".config" / "senet-pi").is_dir()  # made as the user, before any sudo could
    assert any(f"sudo senet-pi runs {pi.home}" in line for line in log)


def test_an_exhibits_senet_pi_in_usr_local_bin_is_kept(pi):
    exhibits = pi.sudo_bin / "senet-pi"
    exhibits.write_text("#!/bin/sh\n# Written by exhibit/install.sh: senet-pi with the exhibit's config and journal.\n")
    status, log, _ = pi("--wheel", str(pi.wheel))
    assert status == 0
    assert "exhibit/install.sh" in exhibits.read_text()
    assert "sudo tee" not in log
    assert any(line.startswith(f"senet-pi install-pi: kept {exhibits}") for line in log)


def test_a_second_run_says_what_it_kept(pi):
    config = pi.home / ".config" / "senet-pi" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('LANGUAGE = "de"\n')
    assert pi("--wheel", str(pi.wheel))[0] == 0
    status, log, err = pi("--wheel", str(pi.wheel))
    assert status == 0, err
    venv = pi.home / ".local" / "share" / "senet-pi" / "venv"
    assert f"senet-pi install-pi: kept the venv {venv}: updating senet-pi in it" in log
    assert f"senet-pi install-pi: kept your config {config}" in log
    assert config.read_text() == 'LANGUAGE = "de"\n'
    assert not [line for line in log if line.startswith("python3 -m venv")]  # not made again
