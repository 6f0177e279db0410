"""The commands the docs give work as given: `senet-pi selftest` right after joining the group gpio
(before logging in again) says so and how to go on, `sudo -u senet senet-pi selftest` from a folder
senet may not write gives lgpio a folder it can, and a self test off a Pi says it checked the
simulated board."""

from __future__ import annotations

import grp
import os
import pwd
import tempfile

import pytest

from senet_pi.cli.command import main
from senet_pi.errors import BackendError
from senet_pi.hardware import pinaccess


def test_lgpio_gets_a_writable_folder_when_the_current_one_is_not(monkeypatch):
    monkeypatch.delenv("LG_WD", raising=False)
    cwd = os.getcwd()
    monkeypatch.setattr(os, "access", lambda path, mode: path != cwd)  # as for senet in /home/pi
    assert pinaccess.lgpio_work_dir() == tempfile.gettempdir()
    assert os.environ["LG_WD"] == tempfile.gettempdir()
    monkeypatch.setenv("LG_WD", "/srv/mine")
    assert pinaccess.lgpio_work_dir() is None  # a person's own choice is kept
    assert os.environ["LG_WD"] == "/srv/mine"


def test_lgpio_is_left_alone_in_a_writable_folder(monkeypatch):
    monkeypatch.delenv("LG_WD", raising=False)
    assert pinaccess.lgpio_work_dir() is None
    assert "LG_WD" not in os.environ


@pytest.fixture
def chip(tmp_path, monkeypatch):
    """A gpiochip this user may not open, belonging to a group `gpio` (as on Raspberry Pi OS)."""
    device = tmp_path / "gpiochip0"
    device.write_text("")
    os.chown(device, 0, 997)
    device.chmod(0o660)
    me = pwd.getpwuid(os.geteuid()).pw_name

    def group(gid):
        assert gid == 997
        return grp.struct_group(("gpio", "x", 997, [me, "pi"]))

    monkeypatch.setattr(grp, "getgrgid", group)
    monkeypatch.setattr(os, "access", lambda path, mode: str(path) != str(device))
    return device, me


def test_a_group_joined_after_this_login_is_said_with_what_to_do(chip, monkeypatch):
    device, me = chip
    monkeypatch.setattr(os, "getgroups", lambda: [0])  # the login's groups: gpio not among them yet
    said = pinaccess.pin_access_problem((str(device),))
    assert said is not None
    assert f"{me} joined after this login began" in said
    assert "Log out and in again" in said
    assert "sg gpio -c 'senet-pi selftest'" in said


def test_a_user_not_in_the_group_is_told_to_join_it(chip, monkeypatch):
    device, me = chip
    monkeypatch.setattr(grp, "getgrgid", lambda gid: grp.struct_group(("gpio", "x", 997, ["pi"])))
    said = pinaccess.pin_access_problem((str(device),))
    assert said == (
        f"this user may not use the pins: {device} belongs to the group gpio. Join it with: sudo adduser {me} gpio, "
        "then log in again"
    )


def test_no_pins_or_pins_this_user_may_open_are_no_problem(chip, tmp_path):
    """Only the fixture's chip is closed to this user (its os.access): the others are open or absent."""
    assert pinaccess.pin_access_problem((str(tmp_path / "none"),)) is None
    open_to_me = tmp_path / "gpiochip4"
    open_to_me.write_text("")
    assert pinaccess.pin_access_problem((str(open_to_me),)) is None


def test_the_gpio_backend_says_the_group_not_the_library_when_the_pins_are_closed(monkeypatch):
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory

    from senet_pi.hardware import backend

    def no_factory():
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(backend, "on_a_pi", lambda: True)
    monkeypatch.setattr(Device, "ensure_pin_factory", staticmethod(no_factory))
    monkeypatch.setattr(pinaccess, "pin_access_problem", lambda: "this user may not use the pins yet: ...")
    with pytest.raises(BackendError) as caught:
        backend._default_pin_factory()
    assert str(caught.value) == "the gpio backend cannot open the pins: this user may not use the pins yet: ..."


def test_a_self_test_off_a_pi_says_it_checked_the_simulated_board(capsys, monkeypatch):
    from senet_pi.hardware import backend

    monkeypatch.setattr(backend, "on_a_pi", lambda: False)
    assert main(["selftest"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("This checked the simulated board: this machine is not a Raspberry Pi")
    monkeypatch.setattr(backend, "on_a_pi", lambda: True)
    assert main(["selftest", "--backend", "sim"]) == 0
    assert "run senet-pi selftest without --backend sim" in capsys.readouterr().out


def test_pins_only_root_may_open_are_said_so_not_as_a_group_to_join(tmp_path, monkeypatch):
    """Plain Debian leaves /dev/gpiochip0 root:root 0600: "join the group root" would be wrong advice
    (and `sudo adduser pi gpio` fails there: no such group); the message names the installer."""
    device = tmp_path / "gpiochip0"
    device.write_text("")
    os.chown(device, 0, 0)
    device.chmod(0o600)
    monkeypatch.setattr(os, "access", lambda path, mode: str(path) != str(device))
    said = pinaccess.pin_access_problem((str(device),))
    assert said is not None
    assert f"only root may open {device} on this system" in said
    assert "scripts/install-pi or exhibit/install.sh gives them to the group gpio" in said
    assert "adduser" not in said
