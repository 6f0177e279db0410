"""A card's update and rollback at boot (exhibit/card/update-at-boot), run on this machine against
folders standing for the boot partition, the journal partition and the card's own venv, with a
small senet-pi wheel made here: no qemu, no image. exhibit/boot-check does it on a booted image."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from senet_pi import __version__

SCRIPT = Path(__file__).resolve().parent.parent / "exhibit" / "card" / "update-at-boot"
OWN = Path(sys.prefix)  # the card's own venv: this one (it has pip, as the card's has)


def fake_wheel(folder: Path, version: str) -> Path:
    """A senet-pi wheel of `version` whose `senet-pi --version` says it: all an update needs."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"senet_pi-{version}.dist-info"
    files = {
        "senet_pi/__init__.py": f'__version__ = "{version}"\n\n\ndef main():\n    print("senet-pi", __version__)\n',
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: senet-pi\nVersion: {version}\nProvides-Extra: pi\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": "[console_scripts]\nsenet-pi = senet_pi:main\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    path = folder / f"senet_pi-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as whl:
        for name, text in files.items():
            whl.writestr(name, text)
        whl.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path


@dataclass
class Card:
    """The folders update-at-boot works on, and one boot's run of it."""

    boot: Path
    store: Path
    pycache: Path

    def run(self) -> str:
        env = dict(os.environ, SENET_PI_CARD_BOOT=str(self.boot), SENET_PI_CARD_STORE=str(self.store),
                   SENET_PI_CARD_OWN=str(OWN), SENET_PI_CARD_PYCACHE=str(self.pycache))  # fmt: skip
        # Run from / as the card's unit is: not from this checkout, whose senet_pi `python -c` would import.
        done = subprocess.run(["sh", str(SCRIPT)], env=env, capture_output=True, text=True, check=True, cwd="/")
        return done.stdout + done.stderr

    def link(self, name: str) -> Path:
        return Path(os.readlink(self.store / name))

    def version(self) -> str:
        said = subprocess.run([str(self.store / "current/bin/senet-pi"), "--version"], capture_output=True, text=True)
        return said.stdout.strip()

    def update(self, version: str) -> Path:
        return fake_wheel(self.boot / "senet-pi-update", version)


@pytest.fixture
def card(tmp_path: Path) -> Card:
    c = Card(tmp_path / "boot", tmp_path / "store", tmp_path / "pycache")
    c.boot.mkdir()
    c.store.mkdir()
    return c


def test_an_update_installs_into_its_own_venv_which_then_runs_and_the_card_s_own_is_kept(card):
    card.update("9.9.9")
    said = card.run()
    assert "updated to senet-pi 9.9.9" in said
    assert card.link("current") == card.store / "venvs/9.9.9"
    assert card.link("previous") == OWN
    assert card.version() == "senet-pi 9.9.9"
    assert list((card.boot / "senet-pi-update").iterdir()) == []  # the folder emptied
    # Its modules compiled once, as the service runs them (-OO, under its PYTHONPYCACHEPREFIX).
    compiled = list(card.pycache.glob(f"{str(card.store).lstrip('/')}/venvs/9.9.9/**/senet_pi/__init__*.opt-2.pyc"))
    assert compiled, f"no compiled module under {card.pycache}"


def test_a_second_update_keeps_the_first_and_a_rollback_goes_back_to_it(card):
    card.update("9.9.9")
    card.run()
    card.update("9.9.10")
    assert "updated to senet-pi 9.9.10" in card.run()
    assert card.link("previous") == card.store / "venvs/9.9.9"
    (card.boot / "senet-pi-rollback.txt").write_text("")
    said = card.run()
    assert "rolled back to senet-pi 9.9.9" in said
    assert card.version() == "senet-pi 9.9.9"
    assert card.link("previous") == card.store / "venvs/9.9.10"
    assert not (card.boot / "senet-pi-rollback.txt").exists()


def test_a_rollback_after_the_first_update_goes_back_to_the_card_s_own(card):
    card.update("9.9.9")
    card.run()
    (card.boot / "senet-pi-rollback").write_text("")
    assert f"rolled back to senet-pi {__version__}" in card.run()
    assert card.link("current") == OWN
    assert card.link("previous") == card.store / "venvs/9.9.9"  # a second rollback goes forward again
    assert not (card.boot / "senet-pi-rollback").exists()


def test_a_rollback_with_nothing_to_go_back_to_changes_nothing_and_says_so(card):
    (card.boot / "senet-pi-rollback").write_text("")
    assert "nothing to roll back to" in card.run()
    assert not (card.store / "current").exists()
    assert not (card.boot / "senet-pi-rollback").exists()


def test_a_wheel_that_does_not_install_changes_nothing_and_stays_on_the_boot_partition(card):
    card.update("9.9.9")
    card.run()
    broken = card.boot / "senet-pi-update/senet_pi-9.9.11-py3-none-any.whl"
    broken.write_bytes(b"not a zip")
    said = card.run()
    assert "did not install" in said
    assert broken.exists()
    assert card.link("current") == card.store / "venvs/9.9.9"
    assert not (card.store / "venvs/9.9.11").exists()
    assert card.version() == "senet-pi 9.9.9"


def test_the_update_that_runs_already_is_not_installed_again(card):
    card.update("9.9.9")
    card.run()
    marker = card.store / "venvs/9.9.9/kept"
    marker.write_text("")
    card.update("9.9.9")
    assert "runs already" in card.run()
    assert marker.exists()
    assert list((card.boot / "senet-pi-update").iterdir()) == []
