"""Every environment variable senet-pi, its exhibit units and its scripts read, with its meaning and
default: the table the Configuration page and the docs test are made from (beside the settings
table of config.toml, `senet_pi.settings`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variable:
    """An environment variable senet-pi (or one of its scripts) reads."""

    name: str
    meaning: str
    default: str
    used_by: str  #: who reads it: senet-pi itself, the exhibit's units, or the developer's scripts


#: Every environment variable read; tests/test_docs.py checks that the code reads no other SENET_PI_*.
ENVIRONMENT: tuple[Variable, ...] = (
    Variable(
        "SENET_PI_INSTANCE",
        "The folder of config.toml (the instance folder).",
        "$XDG_CONFIG_HOME/senet-pi",
        "senet-pi",
    ),
    Variable(
        "SENET_PI_JOURNAL",
        "The journal file (`--journal` overrides it).",
        "$XDG_STATE_HOME/senet-pi/journal.sqlite",
        "senet-pi",
    ),
    Variable(
        "SENET_PI_PINMAP",
        "The pin map of the real board (`--pinmap` overrides it).",
        "the pin map installed with senet-pi",
        "senet-pi",
    ),
    Variable(
        "SENET_PI_TABLES",
        "The folder of the solved endgame tables.",
        "$XDG_CACHE_HOME/senet-pi/tables",
        "senet-pi",
    ),
    Variable(
        "SENET_PI_DEBUG",
        "Set to 1 to see the traceback of an internal error (exit status 70) when reporting a bug.",
        "unset",
        "senet-pi",
    ),
    Variable(
        "XDG_CONFIG_HOME",
        "Where the instance folder is when SENET_PI_INSTANCE is not set.",
        "~/.config",
        "senet-pi",
    ),
    Variable("XDG_STATE_HOME", "Where the journal is when SENET_PI_JOURNAL is not set.", "~/.local/state", "senet-pi"),
    Variable("XDG_CACHE_HOME", "Where the endgame tables are when SENET_PI_TABLES is not set.", "~/.cache", "senet-pi"),
    Variable(
        "SENET_PI_ARGS",
        "The arguments of `senet-pi run` for the exhibit's service (in /etc/senet-pi/senet-pi.env).",
        "set by the installer",
        "exhibit service",
    ),
    Variable("SENET_PI_BACKUP_ARGS", "The daily backup's arguments (in backup.env).", "install.sh's", "exhibit backup"),
    Variable(
        "SENET_PI_URL",
        "The address the exhibit's kiosk browser opens.",
        "http://127.0.0.1:8080/",
        "exhibit kiosk",
    ),
    Variable(
        "SENET_PI_KIOSK_WAIT",
        "Seconds the kiosk waits for the page after a boot or a restart.",
        "60",
        "exhibit kiosk",
    ),
    Variable(
        "SENET_PI_CHROMIUM",
        "Another chromium for the browser tests and scripts/screenshot.py.",
        "/usr/bin/chromium",
        "scripts/test, tests",
    ),
    Variable(
        "SENET_PI_MOSQUITTO",
        "Another mosquitto for the fleet's tests.",
        "/usr/sbin/mosquitto",
        "scripts/test, tests",
    ),
    Variable(
        "SENET_PI_SYSTEMD_RUNNING",
        "The folder whose presence says systemd runs (for the install scripts' tests).",
        "/run/systemd/system",
        "scripts, tests",
    ),
    Variable(
        "SENET_PI_UNITS",
        "Where the home-Pi installer writes its systemd unit (for its tests).",
        "/etc/systemd/system",
        "scripts/install-pi, tests",
    ),
    Variable(
        "SENET_PI_SUDO_BIN", "Where install-pi writes sudo's senet-pi.", "/usr/local/bin", "scripts/install-pi, tests"
    ),
    Variable(
        "SENET_PI_APT_WAIT",
        "Seconds scripts/test waits between tries while apt is busy.",
        "10",
        "scripts/test",
    ),
    Variable(
        "SENET_PI_ARM64",
        "1: CI runs scripts/arm64-check (a Debian 12 arm64 root under emulation) before the suite.",
        "unset",
        ".ci/run",
    ),
    Variable(
        "SENET_PI_ARM64_CACHE",
        "Where scripts/arm64-check keeps its arm64 root between runs.",
        "/var/cache/senet-pi-arm64",
        "scripts/arm64-check",
    ),
    Variable(
        "SENET_PI_APT_ETC",
        "The apt folder scripts/arm64-check reads the package mirror's address from (for its tests).",
        "/etc/apt",
        "scripts/arm64-check",
    ),
    Variable(
        "SENET_PI_CARD_CACHE",
        "Where exhibit/build-image keeps its base root and writes the card image (scripts/test --image reads it).",
        "/var/cache/senet-pi-card",
        "exhibit/build-image, scripts/test",
    ),
    Variable(
        "SENET_PI_XZ_PRESET",
        "xz's preset for the card image exhibit/build-image compresses (a higher one: a smaller file, a longer build).",
        "3",
        "exhibit/build-image",
    ),
    Variable(
        "SENET_PI_CARD_OWN",
        "Where a card's own senet-pi venv stands, for exhibit/card/update-at-boot (another folder only for its tests).",
        "/opt/senet-pi",
        "exhibit/card/update-at-boot",
    ),
    Variable(
        "SENET_PI_CARD_PYCACHE",
        "Where exhibit/card/update-at-boot compiles an update's modules (the service's PYTHONPYCACHEPREFIX; another "
        "folder only for its tests).",
        "/var/cache/senet-pi/python",
        "exhibit/card/update-at-boot",
    ),
    Variable(
        "SENET_PI_UDEV_RULES",
        "Where scripts/install-pi puts the udev rule giving the pins to the group gpio (another folder only for "
        "its tests).",
        "/etc/udev/rules.d",
        "scripts/install-pi",
    ),
    Variable(
        "SENET_PI_MODEL",
        "The file scripts/install-pi reads the machine's model from (another file only for its tests).",
        "/proc/device-tree/model",
        "scripts/install-pi",
    ),
    Variable(
        "SENET_PI_CHIP",
        "The pins' device scripts/install-pi checks the group of (another file only for its tests).",
        "/dev/gpiochip0",
        "scripts/install-pi",
    ),
    Variable(
        "SENET_PI_MIRROR",
        "The Debian mirror exhibit/build-image builds the card from.",
        "the first one in this machine's apt sources",
        "exhibit/build-image",
    ),
    Variable(
        "SENET_PI_SECURITY_MIRROR",
        "Debian's security archive for the card.",
        "the mirror's address with -security",
        "exhibit/build-image",
    ),
    Variable(
        "SENET_PI_CARD_IMAGE",
        "The card image the opt-in boot test (pytest -m image) boots; unset, the test is skipped.",
        "unset",
        "tests/test_card_image.py",
    ),
    Variable(
        "SENET_PI_GPIOSIM_CACHE",
        "The folder scripts/gpio-sim builds (the arm64 root with gpio-sim.ko, its disk, kernel and device "
        "tree); the opt-in test of the pins on a real kernel (pytest -m gpiosim) boots it; unset, it is skipped.",
        "/var/cache/senet-pi-gpiosim (scripts/gpio-sim); unset (the test)",
        "scripts/gpio-sim, tests/test_gpio_sim.py",
    ),
    Variable(
        "SENET_PI_GPIOSIM_STEPS",
        "The steps the gpio-sim machine runs (lines selftest faults game rest), to run fewer while working on one.",
        "all five",
        "tests/test_gpio_sim.py",
    ),
    Variable(
        "SENET_PI_QEMU_LOCK",
        "A file the gpio-sim test holds an flock on while its virtual machine runs: one machine at a time "
        "on a computer shared with other jobs that boot them.",
        "unset (no lock)",
        "tests/test_gpio_sim.py",
    ),
    Variable(
        "SENET_PI_CARD_BOOT",
        "The card's boot (FAT) partition, where the technician file and updates are read.",
        "/boot/firmware",
        "senet-pi card, exhibit/card/update-at-boot",
    ),
    Variable(
        "SENET_PI_CARD_STORE",
        "The card's journal partition: the journal, config, secrets and the venvs of updates.",
        "/srv/senet-card",
        "senet-pi card, exhibit/card/update-at-boot",
    ),
    Variable(
        "SENET_PI_CARD_ROOT",
        "The root the card's first boot writes into (tests point it at a folder).",
        "/",
        "senet-pi card",
    ),
    Variable(
        "SENET_PI_CARD_NEW_CONFIG",
        "The script that makes a new config.toml (the one install.sh uses).",
        "/opt/senet-pi/new-config",
        "senet-pi card",
    ),
    Variable(
        "SENET_PI_SCREEN_ROTATE",
        "The kiosk's screen turn in degrees (0, 90, 180, 270): kiosk.env's, from the technician file.",
        "0",
        "exhibit/kiosk-session",
    ),
)
