"""Reading a TOML file a person wrote (the pin map, the instance config) with one clear error, and
setting one top-level key in it without changing anything else."""

from __future__ import annotations

import contextlib
import json
import os
import tomllib
from pathlib import Path

from .errors import SenetError


def read_toml(path: Path, what: str, error: type[SenetError], missing_ok: bool = False) -> dict[str, object]:
    """The parsed file; `error` names `what` and the problem (unreadable, not UTF-8, not TOML,
    nested too deeply). With `missing_ok`, a file that is not there reads as empty."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if missing_ok:
            return {}
        raise error(f"cannot read {what} {path}: no such file") from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise error(f"{what} {path} is not a UTF-8 text file") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{what} {path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise error(f"{what} {path} is nested too deeply") from None


def with_top_level(text: str, key: str, value: str | None) -> str:
    """`text` (valid TOML) with one top-level `key` set to the string `value` (None: removed), the
    rest read back unchanged; SenetError when that cannot be done (nothing is written then).

    The line goes after the file's leading comments, where it is top-level whatever follows (a file
    ending in a `[table]`, a comment or no newline); an earlier line of the key is removed only if
    removing it takes away the top-level key and nothing else."""
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SenetError(f"it is not valid TOML ({exc}): fix it first") from None
    wanted = {k: v for k, v in before.items() if k != key}
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):  # drop the key's own top-level line(s), checking each removal
        if lines[i].lstrip().startswith(key) and lines[i].lstrip()[len(key) :].lstrip().startswith("="):
            trial = lines[:i] + lines[i + 1 :]
            try:
                after = tomllib.loads("".join(trial))
            except tomllib.TOMLDecodeError:
                after = None
            if after is not None and key not in after and after == wanted:
                lines = trial
                continue
        i += 1
    if value is not None:
        top = 0
        while top < len(lines) and (not lines[top].strip() or lines[top].lstrip().startswith("#")):
            top += 1
        if top == len(lines) and lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += "\n"  # a file of comments only, with no final newline
        lines.insert(top, f"{key} = {json.dumps(value)}\n")  # a JSON string of ASCII is a TOML basic string
        wanted[key] = value
    result = "".join(lines)
    try:
        readback = tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        raise SenetError(f"setting {key} would make it invalid TOML ({exc})") from None
    if readback != wanted:
        raise SenetError(f"{key} could not be set at its top level without changing the rest")
    return result


def write_private(path: Path, text: str, mode: int = 0o600) -> None:
    """Write `text` to `path` whole or not at all (a temporary file, fsynced, moved in place), readable
    by its owner only (plus what `mode` allows). OSError as the disk or the folder says."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
