"""A senet-pi card booted under emulation (exhibit/boot-check): the technician file applied at the
first boot, a throw and a move judged, the power cut mid-game, the root as the image left it, the
journal partition grown, and the game resumed at the second boot.

Opt-in and slow (minutes of qemu on two cores; see docs/benchmarks.md): SENET_PI_CARD_IMAGE names
an image exhibit/build-image made. `scripts/test --image` builds one (or reuses its cache) and runs
this test alone:

    sudo exhibit/build-image /var/cache/senet-pi-card/senet-pi-card.img
    SENET_PI_CARD_IMAGE=/var/cache/senet-pi-card/senet-pi-card.img pytest -m image tests/test_card_image.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

IMAGE = os.environ.get("SENET_PI_CARD_IMAGE")
BOOT_CHECK = Path(__file__).resolve().parent.parent / "exhibit" / "boot-check"
pytestmark = [
    pytest.mark.image,
    pytest.mark.skipif(not IMAGE, reason="opt-in and slow: set SENET_PI_CARD_IMAGE to an image (scripts/test --image)"),
]


def test_the_card_boots_applies_its_technician_file_and_survives_a_power_cut(tmp_path):
    done = subprocess.run(
        [sys.executable, str(BOOT_CHECK), str(IMAGE), "--keep", str(tmp_path)], capture_output=True, text=True
    )
    print(done.stdout)
    assert done.returncode == 0, done.stderr
    said = done.stdout
    for step in ("the technician file is applied", "a throw and a move judged", "power cut", "byte for byte",
                 "journal partition grew", "the game resumed", "still accepted", "the update runs",
                 "the rollback runs", "every check passed"):  # fmt: skip
        assert step in said, f"boot-check did not say {step!r}"
    if "kiosk" in Path(f"{IMAGE}.manifest").read_text().split("\n", 1)[0]:  # build-image --kiosk
        assert "the kiosk's screen shows the page" in said
