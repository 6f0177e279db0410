"""The one writer of `config.toml`: settings changed as a person would change them in an editor.

Every program write of a config file (``senet-pi set-pin``, ``senet-pi config set``, the installers
through it, the card image's technician file) goes through :func:`write_settings`, so each one:

- checks every value through the settings table first (`senet_pi.settings.SETTINGS`), with the same
  message the service prints at start, and writes nothing if one is refused;
- keeps the rest of the file: comments, blank lines, key order, `[tables]` (tomlkit edits the
  document rather than rewriting it);
- puts the keys at the top level, even when the file ends in a `[contacts]`-style table;
- is atomic: a temporary file in the same folder, flushed to the disk, renamed over the old one (a
  power cut leaves the old file or the new one, never half of one); the folder is synced after;
- keeps the file's owner, group and mode (a config that is root:senet 0640 stays so after
  ``sudo senet-pi set-pin``, so the service can still read it), except that a file given a secret
  (`SECRETS`: the PIN's hash, the signing key, the broker's password) is never left readable or
  writable by others.

API (stable; other modules and helpers build on it)::

    write_settings(path, {"LANGUAGE": "de", "MQTT_URL": None})   # None removes the key
    write_settings(path, changes, mode=0o640, owner=(0, gid))    # mode/owner: only for a new file
    value_problem("LANGUAGE", "fr")  # -> the settings message, or None when the value is good
    parse_value("8080") -> 8080; parse_value("hall-1.local") -> "hall-1.local"  (the command line's rule)

Errors: `ConfigWriteError` (a `SenetError` and a `ValueError`), one line naming the file and saying it
is unchanged; the file is then byte for byte as it was.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path

import tomlkit
import tomlkit.exceptions

from .errors import ConfigWriteError
from .settings import BY_NAME, unknown

__all__ = ["SECRETS", "ConfigWriteError", "parse_value", "value_problem", "write_settings"]

#: Settings that are secrets (or may hold one: a broker URL with its password): a file given one of
#: them loses any read or write bit for others.
SECRETS = frozenset({"OPERATOR_PIN_HASH", "SECRET_KEY", "MQTT_PASSWORD", "MQTT_COMMAND_SECRET", "MQTT_URL"})


def value_problem(key: str, value: object) -> str | None:
    """What is wrong with setting `key` to `value`, as the service would say it at start; None if
    it may be written (None as a value means: remove the key, which is always allowed)."""
    setting = BY_NAME.get(key)
    if setting is None:
        return unknown(key)
    if value is None:
        return None
    return setting.problem(value)


def parse_value(text: str) -> object:
    """A value typed on the command line: a TOML literal where it reads as one (a number, true or
    false, a "quoted string", a [list]), else the text itself as a string (a name, a URL, a path)."""
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    if isinstance(value, dict) or not isinstance(value, str | int | float | bool | list):
        return text  # an inline table, a date: no setting takes one, so keep what was typed
    return value


def write_settings(
    path: Path | str,
    changes: Mapping[str, object],
    *,
    mode: int = 0o600,
    owner: tuple[int, int] | None = None,
) -> Path:
    """Set (or, for None, remove) top-level settings in the config file at `path`, everything else
    kept; returns the path written (a symbolic link's target). A missing file is made with `mode`
    and, when given, `owner` (uid, gid); an existing one keeps its own (less the bits for others
    when a secret is written). ConfigWriteError, and the
    file as it was, when a value is refused or the file cannot be read, understood or written."""
    target = Path(path)
    if target.is_symlink():  # the file it points to is changed; the link stays
        target = Path(os.path.realpath(target))
    for key, value in changes.items():
        problem = value_problem(key, value)
        if problem:
            raise ConfigWriteError(f"{problem}; the config {target} is unchanged")
    text, old = _read(target)
    before = _parsed(text, target)
    new_text = _edited(text, changes, target)
    wanted = {k: v for k, v in before.items() if k not in changes}
    wanted.update({k: v for k, v in changes.items() if v is not None})
    _check_readback(new_text, wanted, target)
    if old is not None:
        mode, owner = stat.S_IMODE(old.st_mode), (old.st_uid, old.st_gid)
    if any(changes.get(key) is not None for key in SECRETS):
        mode &= ~0o007
    _replace(target, new_text, mode, owner)
    return target


def _check_readback(text: str, wanted: Mapping[str, object], path: Path) -> None:
    """ConfigWriteError unless `text` reads back as exactly `wanted`: tomlkit's edit changed nothing else."""
    try:
        readback = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # tomlkit made something TOML does not read: never written
        raise ConfigWriteError(
            f"the change would make the config {path} invalid TOML ({exc}); it is unchanged"
        ) from None
    if readback != wanted:
        raise ConfigWriteError(
            f"the config {path} cannot be changed without changing other settings; it is unchanged (edit it by hand)"
        )


def _read(path: Path) -> tuple[str, os.stat_result | None]:
    """The file's text and its status; an empty text and None for a file not there yet."""
    try:
        old = path.stat()
        return path.read_bytes().decode("utf-8"), old
    except FileNotFoundError:
        return "", None
    except UnicodeDecodeError:
        raise ConfigWriteError(f"the config {path} is not a UTF-8 text file: fix it first; it is unchanged") from None
    except OSError as exc:
        raise ConfigWriteError(f"cannot read the config {path}: {exc.strerror or exc}; it is unchanged") from None


def _parsed(text: str, path: Path) -> dict[str, object]:
    """The file as TOML reads it; ConfigWriteError when it is not TOML (a change would hide where)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigWriteError(f"the config {path} is not valid TOML ({exc}): fix it first; it is unchanged") from None
    except RecursionError:
        raise ConfigWriteError(f"the config {path} is nested too deeply: fix it first; it is unchanged") from None


def _edited(text: str, changes: Mapping[str, object], path: Path) -> str:
    """`text` with the changes made at its top level by tomlkit, in the file's own line ends."""
    try:
        document = tomlkit.parse(text)
        for key, value in changes.items():
            if value is None:
                if key in document:
                    del document[key]
            else:
                document[key] = value
        result = tomlkit.dumps(document)
    except (tomlkit.exceptions.TOMLKitError, RecursionError) as exc:
        raise ConfigWriteError(f"the config {path} cannot be edited ({exc}); it is unchanged") from None
    if "\r\n" in text and "\n" not in text.replace("\r\n", ""):  # a file of Windows line ends stays one
        result = re.sub(r"(?<!\r)\n", "\r\n", result)
    return result


def _own(fd: int, path: Path, owner: tuple[int, int] | None) -> None:
    """Give the open temporary file `owner`; ConfigWriteError when this user may not (not root, and
    not the owner or not in the group), rather than a config that changes hands."""
    if owner is None or owner == (os.geteuid(), os.getegid()):
        return
    try:
        os.fchown(fd, *owner)
    except PermissionError:
        raise ConfigWriteError(
            f"cannot keep the owner of the config {path} (uid {owner[0]}, gid {owner[1]}): run this as its owner "
            "or with sudo; it is unchanged"
        ) from None


def _replace(path: Path, text: str, mode: int, owner: tuple[int, int] | None) -> None:
    """Write `text` over `path` whole or not at all, with `mode` and `owner`: a temporary file in
    the same folder, fsynced, renamed in place, the folder fsynced so the rename lasts a power cut."""
    folder = path.parent
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise ConfigWriteError(
            f"cannot write the config {path}: {exc.strerror or exc} (in its folder {folder}); it is unchanged"
        ) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            _own(f.fileno(), path, owner)
            os.fchmod(f.fileno(), mode)  # after chown, which may clear set-id bits
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except (OSError, ConfigWriteError) as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, ConfigWriteError):
            raise
        raise ConfigWriteError(f"cannot write the config {path}: {exc.strerror or exc}; it is unchanged") from None
    with contextlib.suppress(OSError):  # the rename is made; syncing the folder only makes it last sooner
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
