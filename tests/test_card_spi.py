"""The LED strip's SPI on a card: the overlay exhibit/card/senet-pi-spi.dts applied to the device trees
Debian ships for every Pi the card boots, what exhibit/card/strip-spi puts into the card's root, and
build-image's use of it. The firmware's own overlay loader (start.elf) cannot run here: dtc's
fdtoverlay stands in for it, applying the same fragments by path.

The trees are Debian's, as raspi-firmware copies them onto the card's boot partition: from
linux-image-6.1.0-57-arm64 (6.1.192-3), /usr/lib/linux-image-6.1.0-57-arm64/broadcom/bcm27*.dtb and
bcm28*.dtb, kept in tests/card/debian-6.1.0-57-arm64-dtbs.tar.xz (9 KB)."""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CARD = REPO / "exhibit" / "card"
DTBS = REPO / "tests" / "card" / "debian-6.1.0-57-arm64-dtbs.tar.xz"
#: Every Pi the card boots (docs: The card, Which Pi), by the tree the firmware picks for it.
BOARDS = {
    "Pi 3 B": "bcm2837-rpi-3-b",
    "Pi 3 B+": "bcm2837-rpi-3-b-plus",
    "Pi 3 A+": "bcm2837-rpi-3-a-plus",
    "Zero 2 W": "bcm2837-rpi-zero-2-w",
    "CM3": "bcm2837-rpi-cm3-io3",
    "Pi 4 B": "bcm2711-rpi-4-b",
    "Pi 400": "bcm2711-rpi-400",
    "CM4": "bcm2711-rpi-cm4-io",
}
SPI, GPIO = "/soc/spi@7e204000", "/soc/gpio@7e200000"


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Debian's device trees, unpacked."""
    folder = tmp_path_factory.mktemp("dtbs")
    with tarfile.open(DTBS) as tar:
        for member in tar.getmembers():  # plain files by plain names (Debian's 3.11.2 has no extract filter)
            data = tar.extractfile(member)
            assert data is not None, member.name
            assert "/" not in member.name
            (folder / member.name).write_bytes(data.read())
    return folder


@pytest.fixture(scope="module")
def overlay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The overlay as build-image compiles it (through exhibit/card/strip-spi)."""
    root = tmp_path_factory.mktemp("root")
    subprocess.run([str(CARD / "strip-spi"), str(root)], check=True, capture_output=True, text=True)
    return root / "boot/firmware/overlays/senet-pi-spi.dtbo"


def fdtget(tree: Path, node: str, prop: str) -> str:
    """A property's value as fdtget prints it."""
    done = subprocess.run(["fdtget", str(tree), node, prop], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def children(tree: Path, node: str) -> list[str]:
    """The names of a node's children."""
    done = subprocess.run(["fdtget", "-l", str(tree), node], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_trees_debian_ships_leave_spi0_off_with_no_labels_for_raspberry_pi_oss_settings(trees):
    """Why the card needs an overlay of its own: spi0 is disabled, no device hangs on it, and with no
    __symbols__ the firmware's dtparam=spi=on and label-based overlays have nothing to name."""
    for name in BOARDS.values():
        tree = trees / f"{name}.dtb"
        assert fdtget(tree, SPI, "status") == "disabled", name
        assert children(tree, SPI) == [], name
        assert "__symbols__" not in children(tree, "/"), name
        assert "__overrides__" not in children(tree, "/"), name


def test_the_overlay_needs_no_symbols_of_the_base_tree(overlay):
    """Fragments by target-path and only its own phandle: nothing for the firmware to look up."""
    assert "__fixups__" not in children(overlay, "/")
    assert "__local_fixups__" in children(overlay, "/")
    for fragment in ("fragment@0", "fragment@1", "fragment@2"):
        assert fdtget(overlay, f"/{fragment}", "target-path").startswith("/")


@pytest.mark.parametrize("board", list(BOARDS))
def test_the_overlay_turns_spi0_on_with_its_pins_and_the_strips_device_on_every_pi_the_card_boots(
    board, trees, overlay, tmp_path
):
    merged = tmp_path / "merged.dtb"
    done = subprocess.run(
        ["fdtoverlay", "-i", str(trees / f"{BOARDS[board]}.dtb"), "-o", str(merged), str(overlay)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert fdtget(merged, SPI, "status") == "okay"
    strip = f"{SPI}/led-strip@0"
    assert fdtget(merged, strip, "compatible") == "senet-pi,led-strip"
    assert fdtget(merged, strip, "reg") == "0"
    pins = f"{GPIO}/senet-pi-spi0-pins"
    assert fdtget(merged, pins, "brcm,pins") == "7 8 9 10 11"  # CE1, CE0, MISO, MOSI (the strip), SCLK
    assert fdtget(merged, pins, "brcm,function") == "4"  # ALT0: SPI0's
    assert fdtget(merged, SPI, "pinctrl-0") == fdtget(merged, pins, "phandle")
    assert fdtget(merged, SPI, "pinctrl-names") == "default"
    assert fdtget(merged, "/aliases", "spi0") == SPI  # bus 0: /dev/spidev0.0


def test_strip_spi_puts_the_overlay_its_config_line_and_the_udev_rule_into_the_cards_root(tmp_path):
    done = subprocess.run([str(CARD / "strip-spi"), str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    dtbo = tmp_path / "boot/firmware/overlays/senet-pi-spi.dtbo"
    assert dtbo.read_bytes()[:4] == bytes.fromhex("d00dfeed")  # a flattened device tree
    # The firmware loads overlays/NAME.dtbo for dtoverlay=NAME; Debian's hook copies this file into
    # config.txt as it stands.
    custom = (tmp_path / "etc/default/raspi-firmware-custom").read_text()
    lines = [line for line in custom.splitlines() if line and not line.startswith("#")]
    assert lines[0] == f"dtoverlay={dtbo.stem}"
    # the core clock held steady on each Pi the card boots (the SPI clock is divided from it), and
    # every filter closed again, so nothing Debian writes after the file is limited to one model
    assert lines[1:] == ["[pi3]", "core_freq=250", "[pi02]", "core_freq=250", "[pi4]", "core_freq_min=500", "[all]"]
    rule = (tmp_path / "etc/udev/rules.d/60-senet-pi-spi.rules").read_text()
    (line,) = [line for line in rule.splitlines() if line and not line.startswith("#")]
    # The kernel's modalias of a device-tree SPI device is its compatible after the vendor's comma.
    compatible = fdtget(dtbo, "/fragment@1/__overlay__/led-strip@0", "compatible")
    assert f'ENV{{MODALIAS}}=="spi:{compatible.split(",", 1)[1]}"' in line
    assert 'SUBSYSTEM=="spi"' in line
    assert 'ATTR{driver_override}="spidev"' in line
    assert "/sys/bus/spi/drivers/spidev/bind" in line


def test_strip_spi_refuses_in_one_line_without_a_root(tmp_path):
    done = subprocess.run([str(CARD / "strip-spi"), str(tmp_path / "none")], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.strip() == f"strip-spi: no folder {tmp_path / 'none'}"


def test_build_image_has_debians_hook_write_config_txt_with_the_overlay_and_checks_it():
    """build-image runs strip-spi into the card's root, then Debian's raspi-firmware hook (as the
    package's postinst does), which writes config.txt with raspi-firmware-custom; it refuses to make
    an image whose config.txt does not load the overlay. dtc is among the tools it installs."""
    text = (REPO / "exhibit/build-image").read_text()
    steps = [
        '"$CARD/strip-spi" "$WORK"',
        "in_root env DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware",
        """grep -qx 'dtoverlay=senet-pi-spi' "$BOOTDIR/config.txt" || die""",
        '[ -s "$BOOTDIR/overlays/senet-pi-spi.dtbo" ] || die',
        'mcopy -s -p -i "$PARTS/boot.img"',  # the boot partition, overlays/ and all
    ]
    where = [text.index(step) for step in steps]
    assert where == sorted(where)
    assert "dtc:device-tree-compiler" in text
