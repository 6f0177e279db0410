"""A senet-pi card's boot: the technician file on the boot partition applied to the exhibit's config.

Run at every boot by `senet-pi-card.service` (exhibit/card), before the exhibit starts, as
`python -m senet_pi.cli.card`. `senet-pi.toml` takes config.toml's own keys (checked by the settings
table, with its messages) and the card's (`CARD_KEYS`: the PIN, Wi-Fi, time zone, screen). A wrong
line is said on the screen and in the log and the rest is applied; the exhibit starts whatever the
file holds. What is unique to a card (its machine-id, the page's secret key, its board name) is made
at its first boot and kept on the journal partition, never in the image.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tomllib
import urllib.parse
import zoneinfo
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..configfile import ConfigWriteError, write_settings
from ..errors import SenetError
from ..server.serve import pin_problem, set_pin
from ..settings import BY_NAME, unknown
from ..tomlfile import write_private

TECHNICIAN_FILE = "senet-pi.toml"


def _wifi_country(value: object) -> str | None:
    ok = isinstance(value, str) and re.fullmatch(r"[A-Z]{2}", value)
    return None if ok else "WIFI_COUNTRY must be the country's two capital letters (ISO 3166), like DE or GB"


def _wifi_ssid(value: object) -> str | None:
    ok = isinstance(value, str) and 1 <= len(value.encode()) <= 32 and '"' not in value and "\n" not in value
    return None if ok else "WIFI_SSID must be the network's name: 1 to 32 bytes, no quotes"


def _wifi_passphrase(value: object) -> str | None:
    ok = isinstance(value, str) and (value == "" or re.fullmatch(r"[\x20-\x7e]{8,63}", value)) and '"' not in value
    return None if ok else "WIFI_PASSPHRASE must be 8 to 63 ASCII characters with no quotes (empty: an open network)"


def _time_zone(value: object) -> str | None:
    ok = isinstance(value, str) and value in zoneinfo.available_timezones()
    return None if ok else f"TIME_ZONE must be a time zone like Europe/Berlin, not {value!r}"


def _screen_rotate(value: object) -> str | None:
    ok = value in (0, 90, 180, 270) and not isinstance(value, bool)
    return None if ok else "SCREEN_ROTATE must be 0, 90, 180 or 270 (degrees clockwise)"


def _pin(value: object) -> str | None:
    if not isinstance(value, str):
        return 'PIN must be a string in quotes, like PIN = "428163"'
    problem = pin_problem(value)
    return f"PIN: {problem}" if problem else None


#: The card's own keys in the technician file, beside config.toml's: each with its check.
CARD_KEYS: Mapping[str, Callable[[object], str | None]] = {
    "PIN": _pin,
    "WIFI_COUNTRY": _wifi_country,
    "WIFI_SSID": _wifi_ssid,
    "WIFI_PASSPHRASE": _wifi_passphrase,
    "TIME_ZONE": _time_zone,
    "SCREEN_ROTATE": _screen_rotate,
}
#: Made by the card itself, never taken from the technician file.
NOT_FROM_THE_FILE = ("SECRET_KEY", "OPERATOR_PIN_HASH")


@dataclass(frozen=True)
class CardPaths:
    """Where a card keeps things; the environment names others (the tests, a card mounted elsewhere)."""

    boot: Path = Path("/boot/firmware")  #: the FAT partition, with the technician file
    store: Path = Path("/srv/senet-card")  #: the journal partition: etc/ (config), journal/, machine-id
    root: Path = Path("/")  #: the running system (its /etc is the RAM overlay on a card)
    new_config: Path = Path("/opt/senet-pi/new-config")  #: exhibit/new-config, as install.sh uses it
    senet_pi: Path = Path(sys.executable).parent / "senet-pi"  #: the senet-pi new-config runs

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> CardPaths:
        """The paths, each overridden by SENET_PI_CARD_BOOT, _STORE, _ROOT or _NEW_CONFIG."""
        d = cls()
        return cls(
            Path(environ.get("SENET_PI_CARD_BOOT", d.boot)),
            Path(environ.get("SENET_PI_CARD_STORE", d.store)),
            Path(environ.get("SENET_PI_CARD_ROOT", d.root)),
            Path(environ.get("SENET_PI_CARD_NEW_CONFIG", d.new_config)),
            d.senet_pi,
        )

    @property
    def config(self) -> Path:
        """config.toml, on the journal partition (bound onto /etc/senet-pi)."""
        return self.store / "etc" / "config.toml"


@dataclass
class Sorted:
    """The technician file's lines sorted: settings for config.toml, the card's own, and what is wrong."""

    settings: dict[str, object] = field(default_factory=dict)
    card: dict[str, object] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def read_technician_file(path: Path) -> tuple[dict[str, object], list[str]]:
    """The file's keys, or none and the one line saying why it cannot be read (none there: nothing)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), []
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"cannot read {path}: {exc.strerror or exc}"]
    except UnicodeDecodeError:
        return {}, [f"{path} is not a UTF-8 text file: save it as UTF-8"]
    except tomllib.TOMLDecodeError as exc:
        return {}, [f"{path} is not valid TOML ({exc}): nothing in it was applied"]
    except RecursionError:
        return {}, [f"{path} is nested too deeply"]


def sort_keys(data: Mapping[str, object]) -> Sorted:
    """Each key checked by the settings table (config.toml's keys) or by `CARD_KEYS`; what fails is
    named in the table's words and left out, the rest kept."""
    out = Sorted()
    for key, value in data.items():
        check = CARD_KEYS.get(key)
        if check is not None:
            problem = check(value)
            (out.problems.append(problem) if problem else out.card.__setitem__(key, value))
        elif key in NOT_FROM_THE_FILE:
            out.problems.append(f"{key} is made by the card itself: remove its line from {TECHNICIAN_FILE}")
        elif key in BY_NAME:
            problem = BY_NAME[key].problem(value)
            (out.problems.append(problem) if problem else out.settings.__setitem__(key, value))
        else:
            close = [k for k in CARD_KEYS if k == key.upper()]
            out.problems.append(f"{key} is not a setting: write it {close[0]}" if close else unknown(key))
    return out


def default_board(machine_id: str) -> str:
    """A new card's board name: senet- and four characters of its machine-id (unique on a fleet)."""
    return f"senet-{(machine_id.strip() or secrets.token_hex(2))[:4]}"


def host_name(board: str) -> str:
    """The card's host name (and NAME.local on the network) for its board name."""
    return re.sub(r"[^a-z0-9-]", "-", board.lower()).strip("-")[:63] or "senet-pi"


def _make_config(paths: CardPaths) -> None:
    """config.toml made at the first boot by exhibit/new-config (as install.sh makes it), root's
    and readable by the service's group only (the group of etc/ on the journal partition)."""
    if paths.config.exists():
        return
    group = paths.config.parent.stat().st_gid
    fd = os.open(paths.config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
    os.close(fd)
    if os.geteuid() == 0:
        os.chown(paths.config, 0, group)
    subprocess.run([str(paths.new_config), str(paths.config), str(paths.senet_pi)], capture_output=True, check=True)


def _keep_machine_id(paths: CardPaths) -> str:
    """This card's machine-id: kept on the journal partition from the first boot (the initramfs puts
    it back each boot), so the image carries none."""
    kept = paths.store / "machine-id"
    if kept.exists():
        return kept.read_text(encoding="ascii").strip()
    now = (paths.root / "etc/machine-id").read_text(encoding="ascii").strip()
    if re.fullmatch(r"[0-9a-f]{32}", now):
        write_private(kept, now + "\n", 0o444)
    return now


def _forget_lines(path: Path, lines_for: Mapping[str, str]) -> None:
    """The technician file with each named key's line replaced (a secret by a comment saying it was
    taken), written down at once: the boot partition never keeps a secret in clear."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    out = []
    for ln in lines:
        key = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=", ln)
        out.append(lines_for[key.group(1)] + "\n" if key and key.group(1) in lines_for else ln)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as new:
        new.write("".join(out))
        new.flush()
        os.fsync(new.fileno())
    os.replace(tmp, path)
    # On the card's FAT partition: the new name and the FAT itself written down now, so a power cut
    # soon after the boot leaves the partition whole (a boot check once read a broken FAT after its cut).
    os.sync()


def _taken(key: str, done: bool) -> str:
    """The comment a secret's line becomes once taken (or refused: the log says why)."""
    today = datetime.date.today().isoformat()
    verb = "set" if key == "PIN" else "taken"
    how = (
        f"was {verb}" + ("" if key == "PIN" else " (kept on the card, not here)")
        if done
        else f"was NOT {verb} (see the log)"
    )
    return f'# {key} {how} on {today}; to change it, write a new line {key} = "..."'


def split_url_password(url: str) -> tuple[str, str | None]:
    """A broker URL without its password, and the password (None: it had none), so the password can
    live in MQTT_PASSWORD on the card rather than in the technician file's MQTT_URL line."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    netloc = f"{userinfo.split(':', 1)[0]}@{hostport}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc)), urllib.parse.unquote(parts.password)


def _secret_lines(data: Mapping[str, object], found: Sorted) -> dict[str, str]:
    """The secrets the file holds, moved out of its lines: an MQTT_URL's password into MQTT_PASSWORD
    (the URL's line kept without it), and the comment each taken secret's line becomes."""
    lines = {}
    url = found.settings.get("MQTT_URL")
    if isinstance(url, str):
        bare, password = split_url_password(url)
        if password is not None:
            found.settings.update(MQTT_URL=bare, MQTT_PASSWORD=password)
            kept = "# its password was taken into MQTT_PASSWORD (kept on the card)"
            lines["MQTT_URL"] = f"MQTT_URL = {json.dumps(bare)}  {kept}"
    if "MQTT_PASSWORD" in data:
        lines["MQTT_PASSWORD"] = _taken("MQTT_PASSWORD", "MQTT_PASSWORD" in found.settings)
    if "WIFI_PASSPHRASE" in data and "WIFI_SSID" in found.card:
        lines["WIFI_PASSPHRASE"] = _taken("WIFI_PASSPHRASE", "WIFI_PASSPHRASE" in found.card)
    return lines


def apply_settings(paths: CardPaths, settings: Mapping[str, object]) -> list[str]:
    """The file's settings written into config.toml (`write_settings`: checked, comments, owner and
    mode kept, atomic); if the writer refuses one, the others are written one by one and it is said."""
    try:
        write_settings(paths.config, settings)
        return []
    except ConfigWriteError:
        pass
    said = []
    for key, value in settings.items():
        try:
            write_settings(paths.config, {key: value})
        except ConfigWriteError as exc:
            said.append(f"{TECHNICIAN_FILE}: {exc}")
    return said


def apply_system(paths: CardPaths, card: Mapping[str, object], board: str) -> list[str]:
    """The card's keys on the running system (its /etc is the RAM overlay: written at every boot)."""
    etc = paths.root / "etc"
    said = []
    name = host_name(board)
    (etc / "hostname").write_text(name + "\n", encoding="ascii")
    hosts = f"127.0.0.1\tlocalhost\n127.0.1.1\t{name}\n::1\t\tlocalhost ip6-localhost ip6-loopback\n"
    (etc / "hosts").write_text(hosts, encoding="ascii")
    if paths.root == Path("/"):
        try:
            socket.sethostname(name)
        except OSError as exc:
            said.append(f"cannot set the host name {name}: {exc.strerror or exc}")
    if "TIME_ZONE" in card:
        zone = str(card["TIME_ZONE"])
        (etc / "localtime").unlink(missing_ok=True)
        (etc / "localtime").symlink_to(f"/usr/share/zoneinfo/{zone}")
        (etc / "timezone").write_text(zone + "\n", encoding="ascii")
    if "WIFI_SSID" in card:
        country = card.get("WIFI_COUNTRY", "GB")
        secret = _wifi_passphrase_kept(paths.store / "etc/wifi-passphrase", card)
        network = f'  psk="{secret}"\n' if secret else "  key_mgmt=NONE\n"
        head = f"ctrl_interface=DIR=/run/wpa_supplicant\ncountry={country}\n"
        conf = f'{head}network={{\n  ssid="{card["WIFI_SSID"]}"\n{network}}}\n'
        (etc / "wpa_supplicant").mkdir(exist_ok=True)
        write_private(etc / "wpa_supplicant/wpa_supplicant-wlan0.conf", conf)
    _screen_rotate_line(paths.store / "etc/kiosk.env", card.get("SCREEN_ROTATE", 0))
    return said


def _wifi_passphrase_kept(kept: Path, card: Mapping[str, object]) -> str:
    """The Wi-Fi passphrase: the file's (then kept on the journal partition with its network's name,
    since its line becomes a comment), else the one kept for the same network; "": an open network."""
    ssid = str(card["WIFI_SSID"])
    if "WIFI_PASSPHRASE" in card:
        secret = str(card["WIFI_PASSPHRASE"])
        write_private(kept, f"{ssid}\n{secret}\n")
        return secret
    try:
        name, secret = kept.read_text(encoding="utf-8").splitlines()[:2]
    except (OSError, UnicodeDecodeError, ValueError):
        return ""
    return secret if name == ssid else ""


def _screen_rotate_line(kiosk_env: Path, rotate: object) -> None:
    """kiosk.env's SENET_PI_SCREEN_ROTATE line (the kiosk turns the screen by it), its other lines kept."""
    lines = kiosk_env.read_text(encoding="utf-8").splitlines(keepends=True) if kiosk_env.exists() else []
    kept = [ln for ln in lines if not ln.startswith("SENET_PI_SCREEN_ROTATE=")]
    if rotate or len(kept) != len(lines):
        write_private(kiosk_env, "".join(kept) + f"SENET_PI_SCREEN_ROTATE={rotate}\n", 0o644)


def boot(paths: CardPaths) -> list[str]:
    """One boot's work: the unique things at the first boot, then the technician file applied.
    Returns the lines to say (what was wrong, and what was done)."""
    machine_id = _keep_machine_id(paths)
    technician = paths.boot / TECHNICIAN_FILE
    data, said = read_technician_file(technician)
    found = sort_keys(data)
    said += [f"{TECHNICIAN_FILE}: {p}" for p in found.problems]
    _make_config(paths)
    current = tomllib.loads(paths.config.read_text(encoding="utf-8"))
    board = str(found.settings.get("BOARD") or current.get("BOARD") or default_board(machine_id))
    found.settings.setdefault("BOARD", board)
    forget = _secret_lines(data, found)
    said += apply_settings(paths, found.settings)
    if "PIN" in data:
        pin = found.card.pop("PIN", None)
        if isinstance(pin, str):
            set_pin(pin, paths.config.parent)
            said.append(f"{TECHNICIAN_FILE}: the operator PIN is set (its line is now a comment)")
        forget["PIN"] = _taken("PIN", isinstance(pin, str))
    said += apply_system(paths, found.card, board)
    if forget:
        _forget_lines(technician, forget)
    said.append(f"board {board}: the page at http://{host_name(board)}.local:8080/")
    return said


def show(lines: list[str], root: Path) -> None:
    """The lines on standard output (the unit sends it to the screen and the log), and above the
    console's login prompt until the next boot."""
    for line in lines:
        print(f"senet-pi card: {line}", flush=True)
    issue = root / "etc/issue.d"
    if (root / "etc").is_dir():
        issue.mkdir(exist_ok=True)
        (issue / "senet-pi-card.issue").write_text(
            "".join(f"senet-pi card: {ln}\n" for ln in lines) + "\n", encoding="utf-8"
        )


def main(argv: list[str] | None = None) -> int:
    """Apply the technician file; always 0, so a wrong line never keeps the exhibit from starting."""
    paths = CardPaths.from_environment()
    try:
        lines = boot(paths)
    except (OSError, SenetError, subprocess.CalledProcessError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        lines = [f"the technician file was not applied: {exc}; the exhibit starts with the config as it was"]
    try:
        show(lines, paths.root)
    except OSError as exc:
        print(f"senet-pi card: cannot write the console's message: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
