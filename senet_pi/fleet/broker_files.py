"""`senet-pi broker-files`: the broker's side of a fleet done for the user, as Mosquitto reads it.

For a set of boards, staff clients (the dashboard, Node-RED) and Home Assistant it writes, into
one folder:

- `passwd`: Mosquitto's password file (PBKDF2-SHA512 hashes, as `mosquitto_passwd` makes them),
- `acl`: the access list: each board may write only its own topics (and its Home Assistant
  discovery) and read only its own command and button topics; staff read every board and
  write the command and button topics; Home Assistant reads the boards and its discovery and
  writes only the button topics (its buttons), so it can press them but never pose as a board,
- `senet-pi.conf`: the Mosquitto configuration that uses both, with no anonymous access, a cap
  on a message's size (`max_packet_size`), and a TLS listener when a certificate is given,
- `credentials.toml` (readable only by its owner): every user's password, and what to put in
  each board's config. Run again with more boards: the users already there keep their passwords.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import secrets
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import FleetError
from . import topics
from .address import check_board_name

ITERATIONS = 101  # what mosquitto_passwd uses for its $7$ (PBKDF2-SHA512) hashes
MESSAGE_SIZE_LIMIT = 1024 * 1024  # bytes: a board's state is far smaller; a bigger message is refused by the broker
ROLES = ("board", "staff", "home_assistant")


@dataclass(frozen=True)
class User:
    name: str
    role: str  # one of ROLES
    password: str
    board: str | None = None  # for a board's user: its board


def password_line(user: str, password: str, salt: bytes | None = None) -> str:
    """One line of Mosquitto's password file for `user`."""
    salt = salt or secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, ITERATIONS)
    return f"{user}:$7${ITERATIONS}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def acl_text(users: Iterable[User], discovery_prefix: str = "homeassistant") -> str:
    """Mosquitto's access list for `users` (each board only its own topics)."""
    root = topics.ROOT
    lines = ["# senet-pi fleet: written by `senet-pi broker-files`; each board may write only its own topics", ""]
    for user in users:
        lines.append(f"user {user.name}")
        if user.role == "board":
            board = str(user.board)
            for topic in (topics.status, topics.state, topics.summary, topics.verdicts, topics.event):
                lines.append(f"topic write {topic(board)}")
            lines.append(f"topic write {topics.command_result(board)}")
            lines.append(f"topic write {topics.command_nonce(board)}")
            lines.append(f"topic read {topics.command(board)}")
            lines.append(f"topic read {topics.button(board)}")
            lines.append(f"topic write {discovery_prefix}/+/senet-pi_{board}/#")
        elif user.role == "staff":
            lines.append(f"topic read {root}/#")
            lines.append(f"topic write {root}/+/command")
            lines.append(f"topic write {root}/+/button")
            lines.append("topic readwrite museum/#")  # the museum's own flows: Node-RED's alerts
        else:  # Home Assistant: the boards and its discovery to read, the buttons to press, its own status
            lines.append(f"topic read {root}/#")
            lines.append(f"topic write {root}/+/button")
            lines.append(f"topic read {discovery_prefix}/#")
            lines.append(f"topic readwrite {discovery_prefix}/status")
        lines.append("")
    return "\n".join(lines)


def mosquitto_conf(folder: Path, port: int, certfile: str | None = None, keyfile: str | None = None) -> str:
    """The Mosquitto configuration for the fleet: this folder's password file and access list."""
    lines = [
        "# senet-pi fleet: written by `senet-pi broker-files`",
        f"listener {port}",
    ]
    if certfile:
        lines += [f"certfile {certfile}", f"keyfile {keyfile}"]
    lines += [
        "allow_anonymous false",
        f"password_file {folder / 'passwd'}",
        f"acl_file {folder / 'acl'}",
        f"max_packet_size {MESSAGE_SIZE_LIMIT}",  # not message_size_limit, which Mosquitto 2 warns of at every start
    ]
    return "\n".join(lines) + "\n"


def _known(folder: Path) -> dict[str, dict[str, object]]:
    """The users of an earlier run (credentials.toml), to keep their passwords."""
    path = folder / "credentials.toml"
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise FleetError(f"cannot read {path}: {exc}; move it away to make new passwords") from None
    users = data.get("users")
    return users if isinstance(users, dict) else {}


def plan(
    folder: Path, boards: list[str], staff: list[str], home_assistant: list[str], prefix: str = "board-"
) -> list[User]:
    """Every user to write: each board's (named PREFIX+BOARD), staff's and Home Assistant's."""
    known = _known(folder)
    wanted: list[tuple[str, str, str | None]] = [(f"{prefix}{check_board_name(b)}", "board", b) for b in boards]
    wanted += [(name, "staff", None) for name in staff] + [(name, "home_assistant", None) for name in home_assistant]
    names = [name for name, _, _ in wanted]
    if not wanted:
        raise FleetError(
            "name at least one board, staff client or Home Assistant user (--board, --staff, --home-assistant)"
        )
    for name in names:
        if names.count(name) > 1:
            raise FleetError(f"the user {name} is named twice")
        if not name or any(c in name for c in ":# \t\n") or len(name) > 64:
            raise FleetError(f"the user name {name!r} may not hold ':', '#' or spaces (64 characters at most)")
    users = []
    for name, role, board in wanted:
        old = known.get(name)
        password = old.get("password") if isinstance(old, dict) and old.get("role") == role else None
        users.append(User(name, role, password if isinstance(password, str) else secrets.token_urlsafe(18), board))
    return users


def write_files(
    folder: Path,
    users: list[User],
    port: int = 1883,
    certfile: str | None = None,
    keyfile: str | None = None,
    broker_host: str = "BROKER",
) -> list[Path]:
    """Write passwd, acl, senet-pi.conf and credentials.toml into `folder`; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    folder = folder.resolve()
    scheme = "mqtts" if certfile else "mqtt"
    credentials = ["# senet-pi fleet: every broker user's password. Keep this file secret.", ""]
    for user in users:
        credentials += [f'[users."{user.name}"]', f'role = "{user.role}"', f'password = "{user.password}"']
        if user.board:
            credentials.append(
                f"# in /etc/senet-pi/config.toml of board {user.board}:\n"
                f'# MQTT_URL = "{scheme}://{broker_host}:{port}"\n# BOARD = "{user.board}"\n'
                f'# MQTT_USERNAME = "{user.name}"\n# MQTT_PASSWORD = "{user.password}"'
            )
        credentials.append("")
    written = {
        "passwd": "\n".join(password_line(u.name, u.password) for u in users) + "\n",
        "acl": acl_text(users),
        "senet-pi.conf": mosquitto_conf(folder, port, certfile, keyfile),
        "credentials.toml": "\n".join(credentials),
    }
    paths = []
    for name, text in written.items():
        path = folder / name
        secret = name in ("passwd", "credentials.toml")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if secret else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        if secret:
            os.chmod(path, 0o600)
        paths.append(path)
    return paths


def _cmd_broker_files(args: argparse.Namespace) -> int:
    if bool(args.certfile) != bool(args.keyfile):
        raise FleetError("TLS needs both --certfile and --keyfile")
    port = args.port or (8883 if args.certfile else 1883)
    folder = Path(args.folder)
    users = plan(folder, args.board or [], args.staff or [], args.home_assistant or [])
    for path in write_files(folder, users, port, args.certfile, args.keyfile, args.broker_host):
        print(f"wrote {path}")
    print(
        f"next: include {folder.resolve() / 'senet-pi.conf'} in Mosquitto's configuration (e.g. copy it to "
        "/etc/mosquitto/conf.d/), restart Mosquitto, and give each board its lines from credentials.toml"
    )
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `broker-files` to the command line."""
    cmd = sub.add_parser(
        "broker-files",
        help="write a Mosquitto password file, access list and configuration for the fleet's boards, staff and HA",
        description="Write passwd, acl, senet-pi.conf and credentials.toml into FOLDER: a user per board that may "
        "write only its own topics, staff users that may send commands, a Home Assistant user that may press the "
        "boards' buttons. Users already in FOLDER/credentials.toml keep their passwords.",
    )
    cmd.add_argument("folder", metavar="FOLDER", help="where to write the files (e.g. /etc/mosquitto/senet-pi)")
    cmd.add_argument("--board", action="append", metavar="NAME", help="a board (repeat for each); its user: board-NAME")
    cmd.add_argument("--staff", action="append", metavar="USER", help="a staff client: the dashboard, Node-RED")
    cmd.add_argument("--home-assistant", action="append", metavar="USER", help="Home Assistant's user")
    cmd.add_argument("--port", type=int, help="the listener's port (default 1883, or 8883 with TLS)")
    cmd.add_argument("--certfile", metavar="PEM", help="the broker's TLS certificate (with --keyfile): mqtts://")
    cmd.add_argument("--keyfile", metavar="PEM", help="the certificate's private key")
    cmd.add_argument("--broker-host", default="BROKER", help="the broker's host name, for the boards' config lines")
    cmd.set_defaults(func=_cmd_broker_files)
