"""`senet-pi config set|unset|get|check`: the instance config.toml read, checked and changed through
the one writer (`senet_pi.configfile`), for people and for the installers."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ..configfile import parse_value, write_settings
from ..errors import SenetError
from ..settings import BY_NAME, ConfigError, problems, unknown
from ..tomlfile import read_toml

VALUE_RULE = (
    'VALUE is read as TOML where it reads as one (3, 1.5, true, false, a [list], a "quoted string"), '
    "else as the text typed (de, hall-1.local, mqtt://broker:1883); a setting that takes only text takes "
    "the text as typed (quote it in TOML's way only to keep surrounding spaces)"
)
CONFIG_HELP = "the config file (default: config.toml in the instance folder, $SENET_PI_INSTANCE or ~/.config/senet-pi)"


def _path(args: argparse.Namespace) -> Path:
    """The config file the command works on: --config (or check's FILE), else the instance's."""
    from ..settings import instance_folder

    given = getattr(args, "file", None) or args.config
    return Path(given) if given else instance_folder() / "config.toml"


def _known(key: str) -> str:
    """`key` if it is a setting; SenetError with the settings table's line (and its guess) if not."""
    if key not in BY_NAME:
        raise SenetError(unknown(key))
    return key


def typed_value(key: str, text: str) -> object:
    """What `config set KEY VALUE` writes: the command line's rule (`parse_value`), except that a
    setting taking only text takes the text typed (a board named 42, a secret of digits)."""
    value = parse_value(text)
    if BY_NAME[key].types == (str,) and not isinstance(value, str):
        return text
    return value


def shown(value: object) -> str:
    """A value as `config get` prints it: a string as it is (for scripts), anything else as TOML."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        import json

        return json.dumps(value)  # a list of strings in JSON is a TOML array too
    return str(value)


def _cmd_set(args: argparse.Namespace) -> int:
    pairs: list[str] = args.pairs
    if len(pairs) % 2:
        raise SenetError(f"{pairs[-1]} has no value: give KEY VALUE pairs (nothing changed)")
    changes = {_known(key): text for key, text in zip(pairs[::2], pairs[1::2], strict=True)}
    path = _path(args)
    write_settings(path, {key: typed_value(key, text) for key, text in changes.items()})
    print(f"{', '.join(changes)} set in {path} (a running board reads it at its next start)")
    return 0


def _cmd_unset(args: argparse.Namespace) -> int:
    key = _known(args.key)
    path = _path(args)
    write_settings(path, {key: None})
    print(f"{key} removed from {path}: its default holds (a running board reads it at its next start)")
    return 0


def _cmd_get(args: argparse.Namespace) -> int:
    key = _known(args.key)
    path = _path(args)
    data = read_toml(path, "the config", ConfigError, missing_ok=True)
    if key in data:
        print(shown(data[key]))
        return 0
    setting = BY_NAME[key]
    if setting.default is None:
        print(f"{key} is not set in {path} (its default: {setting.shown_default})", file=sys.stderr)
        return 1
    print(shown(setting.default))
    print(f"{key} is not set in {path}: that is its default", file=sys.stderr)
    return 0


def _start_problems(data: dict[str, object]) -> list[str]:
    """What `senet-pi run` would refuse at start beyond the table's checks: the broker, the board's
    name, the computer's seats, the HTTPS certificate and key."""
    from ..fleet import fleet_settings
    from ..server.listening import check_tls
    from ..service.seat import seats_from_config

    settings = {k: v for k, v in data.items() if k.isupper()}
    found = []
    checks: list[Callable[[], object]] = [
        lambda: fleet_settings(None, None, settings),
        lambda: seats_from_config(settings, None, None),
    ]
    if settings.get("TLS_CERT") or settings.get("TLS_KEY"):
        checks.append(lambda: check_tls(str(settings.get("TLS_CERT", "")), str(settings.get("TLS_KEY", ""))))
    for check in checks:
        try:
            check()
        except SenetError as exc:
            found.append(str(exc))
    return found


def _cmd_check(args: argparse.Namespace) -> int:
    path = _path(args)
    if not path.exists():
        raise SenetError(f"there is no config {path}: nothing to check (every setting has its default)")
    data = read_toml(path, "the config", ConfigError)
    found = problems(data) or _start_problems(data)
    for problem in found:
        print(f"the config {path}: {problem}", file=sys.stderr)
    if found:
        return 1
    count = sum(1 for key in data if key in BY_NAME)
    print(f"the config {path} is good: {count} setting{'' if count == 1 else 's'} set, the rest at their defaults")
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `config` and its actions to the `senet-pi` parser."""
    config = sub.add_parser(
        "config",
        help="read, check or change a setting of config.toml (comments, tables, owner and mode kept)",
        description="Read, check or change the settings of config.toml. A change is checked as the board checks "
        "it at start, keeps the file's comments, tables, owner, group and mode, and is written whole or not at all. "
        "Exit status: 0 done, 1 a refused value, a key that is no setting, or a config with a problem.",
    )
    actions = config.add_subparsers(dest="action", required=True, metavar="ACTION")
    setter = actions.add_parser(
        "set",
        help="set KEY to VALUE (several KEY VALUE pairs: all or none)",
        description=f"Set the setting KEY to VALUE at the top of the file; several pairs are written together, all or "
        f"none. {VALUE_RULE}.",
    )
    setter.add_argument(
        "pairs",
        nargs="+",
        metavar="KEY VALUE",
        help="a setting in capitals (see the Configuration page) and its value: TOML where it reads as one, else the "
        "text typed",
    )
    setter.set_defaults(func=_cmd_set)
    unsetter = actions.add_parser("unset", help="remove KEY, so its default holds")
    unsetter.add_argument("key", metavar="KEY", help="a setting, in capitals")
    unsetter.set_defaults(func=_cmd_unset)
    getter = actions.add_parser(
        "get",
        help="print KEY's value (its default when not set)",
        description="Print KEY's value: a string as it is, anything else as TOML. Not set: its default, and a note "
        "on standard error; exit status 1 when it has no default value.",
    )
    getter.add_argument("key", metavar="KEY", help="a setting, in capitals")
    getter.set_defaults(func=_cmd_get)
    checker = actions.add_parser(
        "check",
        help="check FILE (default: the instance's config) as the board checks it at start",
        description="Check every setting of FILE as `senet-pi run` does at start, and print each problem on its own "
        "line. Exit status 0 good, 1 a problem.",
    )
    checker.add_argument("file", nargs="?", metavar="FILE", help="the file to check (default: as --config)")
    checker.set_defaults(func=_cmd_check)
    for action in (setter, unsetter, getter, checker):
        action.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
