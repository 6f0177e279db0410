"""A card's boot (senet_pi/cli/card.py): the technician file on the boot partition applied to
config.toml on the journal partition through the settings table, the PIN taken once and never left
in clear, a wrong line said and the rest applied, what is unique made at the first boot and kept.
Here on folders standing for the partitions; exhibit/boot-check does it on a booted image."""

from __future__ import annotations

import importlib.machinery
import re
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import pytest

from senet_pi import __version__
from senet_pi.cli import card
from senet_pi.cli.card import CardPaths, boot, main, sort_keys

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "exhibit" / "card" / "senet-pi.toml"
MACHINE_ID = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def paths(tmp_path: Path) -> CardPaths:
    """A boot partition, a journal partition (etc/ as the image leaves it) and a root with /etc."""
    p = CardPaths(tmp_path / "boot", tmp_path / "store", tmp_path / "root", REPO / "exhibit" / "new-config")
    for folder in (p.boot, p.store / "etc", p.store / "journal", p.root / "etc"):
        folder.mkdir(parents=True)
    (p.root / "etc/machine-id").write_text(MACHINE_ID + "\n")
    return p


def config(paths: CardPaths) -> dict[str, object]:
    return tomllib.loads(paths.config.read_text(encoding="utf-8"))


def test_the_technician_file_is_applied_and_a_wrong_line_said_with_the_tables_message(paths):
    (paths.boot / "senet-pi.toml").write_text(
        '# the museum\nBOARD = "hall-1"\nLANGUAGE = "de"\nPIN = "428163"\nIDLE_MINUTES = -1\n'
        'LANGAUGE = "ar"\nTIME_ZONE = "Europe/Berlin"\nWIFI_COUNTRY = "DE"\nWIFI_SSID = "Museum"\n'
        'WIFI_PASSPHRASE = "correct horse"\n'
    )
    said = boot(paths)
    got = config(paths)
    assert got["BOARD"] == "hall-1"
    assert got["LANGUAGE"] == "de"
    assert got["EXHIBIT"] is True
    assert "IDLE_MINUTES" not in got or got["IDLE_MINUTES"] == 5  # the wrong value is not applied
    assert str(got["OPERATOR_PIN_HASH"]).startswith(("scrypt:", "pbkdf2:"))
    assert any("LANGAUGE is not a setting: did you mean LANGUAGE?" in line for line in said)
    assert any("IDLE_MINUTES must be" in line for line in said)
    left = (paths.boot / "senet-pi.toml").read_text()
    assert "428163" not in left
    assert "# PIN was set on" in left
    assert "# the museum" in left
    assert (paths.root / "etc/hostname").read_text() == "hall-1\n"
    assert str((paths.root / "etc/localtime").readlink()) == "/usr/share/zoneinfo/Europe/Berlin"
    wifi = (paths.root / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf").read_text()
    assert "country=DE" in wifi
    assert 'ssid="Museum"' in wifi
    assert 'psk="correct horse"' in wifi


def test_the_first_boot_makes_what_is_unique_and_later_boots_keep_it(paths):
    boot(paths)
    first = config(paths)
    assert first["BOARD"] == "senet-0123"
    assert re.fullmatch(r"[0-9a-f]{64}", str(first["SECRET_KEY"]))
    assert (paths.store / "machine-id").read_text() == MACHINE_ID + "\n"
    (paths.root / "etc/machine-id").write_text("f" * 32 + "\n")  # never read again once kept
    boot(paths)
    again = config(paths)
    assert again["SECRET_KEY"] == first["SECRET_KEY"]
    assert again["BOARD"] == "senet-0123"
    assert (paths.store / "machine-id").read_text() == MACHINE_ID + "\n"


def test_a_file_that_is_not_toml_is_said_and_the_exhibit_keeps_its_config(paths, monkeypatch, capsys):
    boot(paths)
    before = paths.config.read_text()
    (paths.boot / "senet-pi.toml").write_text('BOARD = "hall-2\nPIN = 1\n')
    for name, value in (("BOOT", paths.boot), ("STORE", paths.store), ("ROOT", paths.root)):
        monkeypatch.setenv(f"SENET_PI_CARD_{name}", str(value))
    monkeypatch.setenv("SENET_PI_CARD_NEW_CONFIG", str(paths.new_config))
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "is not valid TOML" in out
    assert "nothing in it was applied" in out
    assert paths.config.read_text() == before
    assert "is not valid TOML" in (paths.root / "etc/issue.d/senet-pi-card.issue").read_text()


def test_a_weak_pin_is_refused_and_still_not_left_in_clear(paths):
    (paths.boot / "senet-pi.toml").write_text('PIN = "1234"\n')
    said = boot(paths)
    assert any("PIN: a PIN must be 6 to 12 digits" in line for line in said)
    assert "OPERATOR_PIN_HASH" not in config(paths)
    left = (paths.boot / "senet-pi.toml").read_text()
    assert "1234" not in left
    assert "# PIN was NOT set" in left


def test_the_secret_key_is_never_taken_from_the_file():
    found = sort_keys({"SECRET_KEY": "x", "pin": "428163", "SCREEN_ROTATE": 45})
    assert found.settings == {}
    assert found.card == {}
    assert any("SECRET_KEY is made by the card itself" in p for p in found.problems)
    assert any("pin is not a setting: write it PIN" in p for p in found.problems)
    assert any("SCREEN_ROTATE must be 0, 90, 180 or 270" in p for p in found.problems)


def test_the_shipped_file_is_one_commented_key_a_line_and_every_key_passes_its_check():
    lines = SHIPPED.read_text().splitlines()
    assert not [ln for ln in lines if ln.strip() and not ln.startswith("#")], "the shipped file sets nothing"
    keys = [ln[1:] for ln in lines if re.match(r"#[A-Z_]+ = ", ln)]
    data = tomllib.loads("\n".join(keys))
    assert set(card.CARD_KEYS) <= set(data)
    assert sort_keys(data).problems == []


def test_the_page_and_its_state_name_the_board(sim_service):
    """The board's name (config.toml's BOARD, from a card's technician file) where staff and
    visitors look: the page's heading and `/api/state`'s `board`."""
    from senet_pi_web import create_app

    service, backend = sim_service
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "BOARD": "hall-1"}, service=service, backend=backend)
    client = app.test_client()
    state = client.get("/api/state").get_json()
    assert state["board"] == "hall-1"
    assert state["version"] == __version__
    assert '<span class="board-name" id="board-name" translate="no">hall-1</span>' in client.get("/").get_data(
        as_text=True
    )


def test_screen_rotate_goes_into_kiosk_env_beside_the_owners_lines(paths):
    (paths.store / "etc/kiosk.env").write_text("SENET_PI_URL=https://127.0.0.1:8443/\n")
    (paths.boot / "senet-pi.toml").write_text("SCREEN_ROTATE = 90\n")
    boot(paths)
    assert (
        paths.store / "etc/kiosk.env"
    ).read_text() == "SENET_PI_URL=https://127.0.0.1:8443/\nSENET_PI_SCREEN_ROTATE=90\n"
    (paths.boot / "senet-pi.toml").write_text("")
    boot(paths)
    assert (paths.store / "etc/kiosk.env").read_text().endswith("SENET_PI_SCREEN_ROTATE=0\n")


CARD_SCRIPTS = ["exhibit/build-image", "exhibit/new-config", "exhibit/card/update-at-boot", "exhibit/card/grow-journal",
                "exhibit/card/senet-pi-venv", "exhibit/card/initramfs-machine-id",
                "exhibit/card/strip-spi"]  # fmt: skip


def test_the_cards_scripts_pass_shellcheck():
    done = subprocess.run(["shellcheck", *(str(REPO / s) for s in CARD_SCRIPTS)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_the_card_takes_its_debian_packages_from_the_installer():
    """One list: build-image puts in the card's base root what install.sh would install on a Pi."""
    plain = subprocess.run(
        ["bash", str(REPO / "exhibit/install.sh"), "--print-packages"], capture_output=True, text=True
    )
    kiosk = subprocess.run(
        ["bash", str(REPO / "exhibit/install.sh"), "--print-packages", "--kiosk"], capture_output=True, text=True
    )
    assert plain.stdout.split() == ["python3-venv", "python3-lgpio", "python3-spidev", "sqlite3"]
    assert "chromium" in kiosk.stdout.split()
    assert "xinit" in kiosk.stdout.split()
    assert '"$SOURCE/exhibit/install.sh" --print-packages' in (REPO / "exhibit/build-image").read_text()


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["exhibit/build-image"], "say where the image goes"),
        (["exhibit/build-image", "--bogus", "x.img"], "unknown option --bogus"),
        ([sys.executable, "exhibit/boot-check", "/nonexistent.img"], "no image /nonexistent.img"),
    ],
)
def test_the_builder_and_the_boot_check_refuse_in_one_line(command, said):
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 1
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_boot_check_counts_a_screens_colours_and_knows_a_kiosk_image_by_its_manifest(tmp_path):
    """The kiosk's screen check: a console's few colours against the page's many (qemu's P6 screendump)."""
    loader = importlib.machinery.SourceFileLoader("boot_check", str(REPO / "exhibit/boot-check"))
    check = types.ModuleType(loader.name)
    loader.exec_module(check)
    console = b"P6\n7 2\n255\n" + bytes([0, 0, 0]) * 7 + bytes([10, 32, 9]) * 7  # whitespace bytes are pixels too
    assert check.ppm_colours(console) == {bytes([0, 0, 0]), bytes([10, 32, 9])}
    page = b"P6\n700 1\n255\n" + b"".join(bytes([i % 256, i // 256, 7]) for i in range(700))
    assert len(check.ppm_colours(page)) == 100  # every 7th pixel
    # a page still connecting: its heading's many colours over a body of one; the board, once drawn, many
    heading = b"".join(bytes([i % 256, 9, 9]) for i in range(700))
    connecting = b"P6\n700 4\n255\n" + heading + bytes([250, 246, 240]) * 2100
    assert len(check.ppm_colours(connecting)) == 101
    assert check.ppm_colours(connecting, below=0.25) == {bytes([250, 246, 240])}
    drawn = b"P6\n700 4\n255\n" + heading + bytes([250, 246, 240]) * 1400 + page[len(b"P6\n700 1\n255\n") :]
    assert len(check.ppm_colours(drawn, below=0.25)) == 101
    with pytest.raises(check.CheckFailed):
        check.ppm_colours(b"P5\n1 1\n255\n\0")
    image = tmp_path / "card.img"
    assert not check.is_kiosk(image)
    Path(f"{image}.manifest").write_text("# senet-pi card 0.3.0, built ... (Debian bookworm arm64), kiosk\n")
    assert check.is_kiosk(image)


def test_the_technician_file_with_its_pin_line_forgotten_is_written_down_at_once(paths, monkeypatch):
    """The boot partition is FAT: a power cut soon after the boot must not find the rewrite in memory."""
    synced = []
    monkeypatch.setattr(card.os, "sync", lambda: synced.append(True))
    (paths.boot / "senet-pi.toml").write_text('PIN = "428163"\n')
    boot(paths)
    assert synced
    assert "428163" not in (paths.boot / "senet-pi.toml").read_text()


def test_the_mqtt_password_is_taken_into_the_config_and_its_line_made_a_comment(paths):
    """Whoever holds the card can read its FAT partition: the broker's password moves to the journal
    partition's config, and a later boot (the line now a comment) keeps it there."""
    (paths.boot / "senet-pi.toml").write_text(
        'MQTT_URL = "mqtts://fleet.local:8883"\nMQTT_USERNAME = "board-hall-1"\nMQTT_PASSWORD = "s3cret-Pass"\n'
    )
    boot(paths)
    left = (paths.boot / "senet-pi.toml").read_text()
    assert "s3cret-Pass" not in left
    assert "# MQTT_PASSWORD was taken (kept on the card, not here) on" in left
    assert config(paths)["MQTT_PASSWORD"] == "s3cret-Pass"
    boot(paths)
    assert config(paths)["MQTT_PASSWORD"] == "s3cret-Pass"
    assert config(paths)["MQTT_URL"] == "mqtts://fleet.local:8883"


def test_a_password_inside_mqtt_url_moves_to_mqtt_password_and_the_url_line_keeps_the_rest(paths):
    (paths.boot / "senet-pi.toml").write_text('MQTT_URL = "mqtt://board-hall-2:p%40ss@fleet.local:1883"\n')
    boot(paths)
    left = (paths.boot / "senet-pi.toml").read_text()
    assert "p%40ss" not in left
    assert 'MQTT_URL = "mqtt://board-hall-2@fleet.local:1883"' in left
    got = config(paths)
    assert got["MQTT_URL"] == "mqtt://board-hall-2@fleet.local:1883"
    assert got["MQTT_PASSWORD"] == "p@ss"
    boot(paths)
    assert config(paths)["MQTT_PASSWORD"] == "p@ss"


def test_the_wifi_passphrase_is_kept_for_its_network_and_not_on_the_boot_partition(paths):
    (paths.boot / "senet-pi.toml").write_text('WIFI_SSID = "Museum"\nWIFI_PASSPHRASE = "correct horse"\n')
    boot(paths)
    assert "correct horse" not in (paths.boot / "senet-pi.toml").read_text()
    conf = paths.root / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
    conf.unlink()  # the next boot's /etc is a fresh RAM overlay
    boot(paths)
    assert 'psk="correct horse"' in conf.read_text()
    (paths.boot / "senet-pi.toml").write_text('WIFI_SSID = "Cafe"\n')  # another, open network
    boot(paths)
    assert "correct horse" not in conf.read_text()
    assert "key_mgmt=NONE" in conf.read_text()


def test_a_refused_secret_is_still_not_left_in_clear(paths):
    (paths.boot / "senet-pi.toml").write_text('WIFI_SSID = "Museum"\nWIFI_PASSPHRASE = "short"\n')
    said = boot(paths)
    assert any("WIFI_PASSPHRASE must be 8 to 63" in line for line in said)
    left = (paths.boot / "senet-pi.toml").read_text()
    assert '"short"' not in left
    assert "# WIFI_PASSPHRASE was NOT taken (see the log)" in left


def test_the_boot_check_tells_a_kiosks_chromium_to_draw_without_a_gpu_in_a_throw_away_copy_only(tmp_path: Path) -> None:
    """Emulation has no GL: the flag goes into /etc/chromium.d on the copy's root partition (debugfs),
    the image and the copy's other partitions stay as they were."""
    loader = importlib.machinery.SourceFileLoader("boot_check", str(REPO / "exhibit/boot-check"))
    check = types.ModuleType(loader.name)
    loader.exec_module(check)
    (tmp_path / "tree/etc/chromium.d").mkdir(parents=True)
    mib = 1 << 20
    image = tmp_path / "card.img"
    parts = tmp_path / "root.img"
    subprocess.run(["truncate", "-s", "8M", str(parts)], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-d", str(tmp_path / "tree"), str(parts)], check=True)
    subprocess.run(["truncate", "-s", "20M", str(image)], check=True)
    subprocess.run(["sfdisk", "-q", str(image)], input="start=2048, size=4M, type=c\nstart=10240, size=8M\n",
                   text=True, check=True)  # fmt: skip
    with image.open("r+b") as out:
        out.seek(1 * mib)
        out.write(b"\xab" * 4 * mib)  # the boot partition's bytes
        out.seek(5 * mib)
        out.write(parts.read_bytes())
    before = image.read_bytes()
    card = check.Card(image, tmp_path, kiosk=True)
    assert card.parts[1] == (5 * mib, 8 * mib)
    subprocess.run(["cp", str(image), str(card.disk)], check=True)
    card.without_gpu()
    root = f"{card.disk}?offset={5 * mib}"
    written = subprocess.run(["debugfs", "-R", f"cat {check.NO_GPU_PATH}", root], capture_output=True, text=True)
    assert "--disable-gpu" in check.NO_GPU
    assert written.stdout == check.NO_GPU
    assert image.read_bytes() == before  # the image itself is not touched
    copy = card.disk.read_bytes()
    assert copy[: 5 * mib] == before[: 5 * mib]  # the table and the boot partition
    assert copy[13 * mib :] == before[13 * mib :]
    assert copy[5 * mib : 13 * mib] != before[5 * mib : 13 * mib]
