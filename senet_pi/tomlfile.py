"""Reading a TOML file a person wrote (the pin map, the instance config) with one clear error."""

from __future__ import annotations

import tomllib
from pathlib import Path

from .errors import SenetError


def read_toml(path: Path, what: str, error: type[SenetError], missing_ok: bool = False) -> dict:
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
