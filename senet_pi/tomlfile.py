"""Reading a TOML file a person wrote (the pin map, the instance config) with one clear error, and
writing a private file (the page's secret key) whole or not at all. Settings are written by
`senet_pi.configfile`."""

from __future__ import annotations

import contextlib
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
