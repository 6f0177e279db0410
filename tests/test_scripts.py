"""`scripts/test`, the README's command 2, on a machine without what the tests need: stub
commands on a PATH without chromium record what it would install, and how."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def stub(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


#: What scripts/test runs last, given -q: every test, on two workers, measuring branch coverage.
PYTEST = "python -m pytest -n 2 --dist worksteal --cov=senet_pi --cov=senet_pi_web --cov-branch --cov-report=term -q"


@pytest.fixture
def machine(tmp_path):
    """A copy of the script in a repo-like folder, and a bin folder of stubs that is the whole PATH."""
    repo, bin_ = tmp_path / "repo", tmp_path / "bin"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "test", repo / "scripts" / "test")
    (repo / ".venv" / "bin").mkdir(parents=True)
    bin_.mkdir()
    log = tmp_path / "log"
    machine_said: list[str] = []  # each run's standard error
    for tool in ("dirname", "env", "mktemp", "grep", "cat", "rm", "sleep"):
        os.symlink(shutil.which(tool), bin_ / tool)
    stub(bin_ / "id", 'echo "$FAKE_UID"')
    stub(bin_ / "apt-get", f'echo "apt-get $*" >> {log}')
    stub(bin_ / "sudo", f'echo "sudo $1" >> {log}; exec "$@"')
    stub(bin_ / "python3", f'echo "python3 $*" >> {log}; [ "$1" != -c ] || exit "$HAS_VENV"')
    stub(repo / ".venv" / "bin" / "pip", f'echo "pip $*" >> {log}')
    stub(repo / ".venv" / "bin" / "python", f'echo "python $*" >> {log}; exit "$PYTEST_STATUS"')

    def run(
        *have: str,
        uid: int = 1000,
        has_venv: int = 0,
        pytest_status: int = 0,
        args: tuple[str, ...] = ("-q",),
        env: dict[str, str] | None = None,
        said: bool = False,
    ) -> tuple[int, list[str]]:
        """Runs the script; the log holds the stubs' calls, and with `said` its standard output too,
        in the order they happened."""
        for tool in have:
            stub(bin_ / tool, "exit 0")
        environ = {
            "PATH": str(bin_),
            "FAKE_UID": str(uid),
            "HAS_VENV": str(has_venv),
            "PYTEST_STATUS": str(pytest_status),
            "SENET_PI_MOSQUITTO": "/nonexistent",  # only the stubs say what is installed
            "SENET_PI_APT_WAIT": "0",
            "SENET_PI_SYSTEMD_RUNNING": "/nonexistent",  # no systemd runs, unless a test says so
            **(env or {}),
        }
        with open(log, "a") as out:
            result = subprocess.run(
                ["/bin/bash", str(repo / "scripts" / "test"), *args],
                env=environ,
                stdout=out if said else subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
            )
        machine_said.append(result.stderr)
        lines = log.read_text().splitlines() if log.exists() else []
        log.unlink(missing_ok=True)
        return result.returncode, lines

    run.stderr = machine_said  # type: ignore[attr-defined]
    return run


def test_a_fresh_machine_gets_the_debian_packages_then_the_venv_then_the_tests(machine):
    status, log = machine(uid=1000, has_venv=1)
    installs = [line for line in log if line.startswith("apt-get")]
    assert installs == [
        "apt-get update -q",
        "apt-get install -y -q chromium nodejs npm python3-venv systemd shellcheck mosquitto openssl"
        " device-tree-compiler",
    ]
    assert log.count("sudo apt-get") == 1
    assert "sudo env" in log  # not root: sudo, for both
    assert log[-3:] == ["python3 -m venv .venv", "pip install -q -e .[test]", PYTEST]
    assert status == 0


def test_as_root_only_what_is_missing_is_installed_without_sudo(machine):
    status, log = machine("chromium", "node", "systemd-analyze", uid=0)
    assert [line for line in log if line.startswith(("apt-get", "sudo"))] == [
        "apt-get update -q",
        "apt-get install -y -q npm shellcheck mosquitto openssl device-tree-compiler",
    ]
    assert status == 0


def test_a_machine_with_everything_installs_no_package_and_passes_pytests_status_through(machine):
    status, log = machine(
        "chromium",
        "node",
        "npm",
        "systemd-analyze",
        "shellcheck",
        "mosquitto",
        "openssl",
        "fdtoverlay",
        pytest_status=3,
    )
    assert not [line for line in log if line.startswith(("apt-get", "sudo"))]
    assert log[-1] == PYTEST
    assert status == 3


def test_it_says_what_it_will_install_before_installing_it(machine):
    status, log = machine("chromium", "node", "npm", "systemd-analyze", "openssl", "fdtoverlay", uid=0, said=True)
    said = log.index(
        "scripts/test: installing Debian packages the tests need (apt-get; scripts/test --no-install installs nothing):"
    )
    first_apt = next(i for i, line in enumerate(log) if line.startswith("apt-get"))
    assert said < first_apt
    listed = log[said + 1 : first_apt]
    assert [line.split()[0] for line in listed] == ["shellcheck", "mosquitto"]
    assert "left disabled at boot" in listed[1]
    venv = log.index("python3 -m venv .venv")
    assert any("pip install -e '.[test]'" in line for line in log[:venv])  # the pip step is said too
    assert status == 0


def systemctl_stub(tmp_path: Path, enabled: bool) -> None:
    """A systemctl that logs what it is asked and answers is-enabled for mosquitto."""
    stub(
        tmp_path / "bin" / "systemctl",
        f'echo "systemctl $*" >> {tmp_path / "log"}; [ "$1" != is-enabled ] || exit {0 if enabled else 1}',
    )


@pytest.mark.parametrize("running", [False, True], ids=["no systemd (CI)", "systemd runs"])
def test_a_broker_it_installed_is_left_disabled_at_boot(machine, tmp_path, running):
    """Debian's mosquitto package enables the broker at boot; the tests start their own."""
    systemctl_stub(tmp_path, enabled=False)
    env = {"SENET_PI_SYSTEMD_RUNNING": str(tmp_path)} if running else {}
    status, log = machine(
        "chromium", "node", "npm", "systemd-analyze", "shellcheck", "openssl", "fdtoverlay", uid=0, env=env
    )
    calls = [line for line in log if line.startswith(("apt-get", "systemctl"))]
    disable = "systemctl disable --now --quiet mosquitto" if running else "systemctl disable --quiet mosquitto"
    assert calls == [
        "systemctl is-enabled --quiet mosquitto",
        "apt-get update -q",
        "apt-get install -y -q mosquitto",
        disable,
    ]
    assert status == 0


def test_a_broker_enabled_before_stays_enabled(machine, tmp_path):
    systemctl_stub(tmp_path, enabled=True)  # removed, not purged: its boot link is still there
    status, log = machine("chromium", "node", "npm", "systemd-analyze", "shellcheck", "openssl", "fdtoverlay", uid=0)
    assert "apt-get install -y -q mosquitto" in log
    assert not [line for line in log if line.startswith("systemctl disable")]
    assert status == 0


def test_a_broker_already_installed_is_left_alone(machine, tmp_path):
    systemctl_stub(tmp_path, enabled=False)
    status, log = machine(
        "chromium", "node", "npm", "systemd-analyze", "shellcheck", "openssl", "fdtoverlay", "mosquitto"
    )
    assert not [line for line in log if line.startswith(("systemctl", "apt-get"))]
    assert status == 0


def test_no_install_installs_nothing_and_names_what_is_missing(machine):
    status, log = machine("chromium", "node", "npm", uid=0, args=("--no-install", "-q"), pytest_status=0)
    assert not [line for line in log if line.startswith(("apt-get", "sudo", "pip", "python3 -m venv"))]
    assert [line for line in log if not line.startswith("python3 -c")] == [PYTEST]  # never pytest's option
    (err,) = machine.stderr[-1].strip().splitlines()
    assert "not installing systemd shellcheck mosquitto openssl device-tree-compiler" in err
    assert "--no-install" in err
    assert status == 0


def test_no_install_without_a_venv_is_one_line_and_exit_1(machine, tmp_path):
    shutil.rmtree(tmp_path / "repo" / ".venv")
    everything = ("chromium", "node", "npm", "systemd-analyze", "shellcheck", "mosquitto", "openssl", "fdtoverlay")
    status, log = machine(*everything, args=("--no-install",))
    assert status == 1
    assert not [line for line in log if not line.startswith("python3 -c")]
    (err,) = machine.stderr[-1].strip().splitlines()
    assert "no .venv" in err
    assert "python3 -m venv .venv" in err


def test_ci_runs_exactly_the_readmes_command_2():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = readme.split("```sh\n", 1)[1].split("```", 1)[0]
    assert "scripts/test" in commands.splitlines()[-1]
    assert (ROOT / ".ci" / "run").read_text().rstrip().splitlines()[-1] == "exec scripts/test"
    assert "apt-get install chromium nodejs npm" not in readme  # no step to do by hand first


LOCKED = "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 812 (unattended-upgr)"


def test_apt_busy_with_another_install_is_waited_for_not_a_raw_error(machine, tmp_path):
    """On a fresh Pi, unattended-upgrades holds apt's lock for minutes."""
    count, log = tmp_path / "count", tmp_path / "log"
    body = f"""n=$(cat {count} 2>/dev/null || echo 0); echo $((n + 1)) > {count}
echo "apt-get $*" >> {log}
[ "$n" -ge 2 ] || {{ echo "{LOCKED}" >&2; exit 100; }}"""
    stub(tmp_path / "bin" / "apt-get", body)
    for tool in ("cat", "echo"):
        if shutil.which(tool) and not (tmp_path / "bin" / tool).exists():
            os.symlink(shutil.which(tool), tmp_path / "bin" / tool)
    status, lines = machine("chromium", "node", "npm", "systemd-analyze", uid=0)
    assert status == 0
    apt = [line for line in lines if line.startswith("apt-get")]
    assert apt == ["apt-get update -q"] * 3 + [
        "apt-get install -y -q shellcheck mosquitto openssl device-tree-compiler"
    ]
    assert lines[-1] == PYTEST


def test_apt_failing_for_another_reason_is_its_message_and_one_line_exit_1(machine, tmp_path):
    stub(tmp_path / "bin" / "apt-get", 'echo "E: Unable to locate package shellcheck" >&2; exit 100')
    repo = tmp_path / "repo"
    env = {"PATH": str(tmp_path / "bin"), "FAKE_UID": "0", "HAS_VENV": "0", "PYTEST_STATUS": "0"}
    for tool in ("chromium", "node", "npm", "systemd-analyze"):
        stub(tmp_path / "bin" / tool, "exit 0")
    result = subprocess.run(
        ["/bin/bash", str(repo / "scripts" / "test")], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    err = result.stderr.strip().splitlines()
    assert err[0] == "E: Unable to locate package shellcheck"
    assert len(err) == 2
    assert "failed" in err[1]
    assert "by hand" in err[1]
