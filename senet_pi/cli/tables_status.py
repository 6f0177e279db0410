"""`senet-pi status`'s `tables` line: the endgame tables the running service refused, or, with no
page to ask, the table files in the service's folder checked here as the board reads them."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .checks import UNIT, Check

#: A JSON object as read from the page: its fields are checked where they are used.
JSON = dict[str, Any]


def table_checks(state: JSON | str, folder: Callable[[], Path] | None = None) -> list[Check]:
    """The endgame tables the running service refused (a failed check): play goes on by search
    alone, so the board is not healthy until each is rebuilt; nothing when all are in use. With no
    page to ask, the files in the service's folder (`folder()`, else `tables_folder()`) are checked here."""
    if isinstance(state, str):
        return [table_files_check((folder or tables_folder)())]
    computer = state.get("computer")
    refused = computer.get("tables") if isinstance(computer, dict) else None
    if not isinstance(refused, list) or not refused:
        return []
    return [Check("tables", False, "; ".join(str(t) for t in refused))]


def table_files_check(folder: Path) -> Check:
    """The table files themselves, checked as the board reads them (header, rule set and throws,
    size, every block's checksum): a file that fails would not be used, so the board is not healthy."""
    from ..opponent.tables import check_folder  # numpy: only when no page answers

    try:
        found = check_folder(folder)
    except FileNotFoundError:
        found = []
    except OSError as exc:
        return Check("tables", None, f"cannot read {folder} ({exc.strerror or exc}): sudo senet-pi status checks it")
    if not found:
        return Check("tables", None, f"no endgame table in {folder}: the computer plays by search alone")
    bad = [f"{path.name} would not be used ({problem})" for path, problem in found if problem is not None]
    if bad:
        cure = "the service rebuilds it in the background when it first needs it (docs: troubleshooting)"
        return Check("tables", False, f"{'; '.join(bad)}: {cure}")
    names = ", ".join(path.name for path, _ in found)
    return Check("tables", True, f"{names} in {folder}: header and every block's checksum right")


def tables_folder(
    run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run, booted: bool | None = None
) -> Path:
    """Where the installed service reads its endgame tables: SENET_PI_TABLES or XDG_CACHE_HOME as its
    unit (or the unit's environment files) sets them, else its user's ~/.cache; where there is no
    such unit, this user's folder, as `senet-pi run` here would read it."""
    from ..opponent.tables import table_dir

    if booted is None:
        booted = Path("/run/systemd/system").is_dir() and shutil.which("systemctl") is not None
    if not booted:
        return table_dir()
    try:
        argv = ["systemctl", "show", "--property=LoadState,User,Environment,EnvironmentFiles", UNIT]
        result = run(argv, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return table_dir()
    props: dict[str, str] = {}
    for line in result.stdout.splitlines():
        key, _, value = line.partition("=")
        props[key] = f"{props[key]}\n{value}" if key in props else value  # EnvironmentFiles: a line each
    if props.get("LoadState") != "loaded":
        return table_dir()
    env = _unit_environment(props)
    if env.get("SENET_PI_TABLES"):
        return Path(env["SENET_PI_TABLES"]).expanduser()
    import pwd

    try:
        home = pwd.getpwnam(props.get("User") or "root").pw_dir
    except KeyError:
        return table_dir()
    return Path(env.get("XDG_CACHE_HOME") or f"{home}/.cache") / "senet-pi" / "tables"


def _unit_environment(props: dict[str, str]) -> dict[str, str]:
    """The unit's Environment= and, read here, its EnvironmentFile= lines (as systemd reads them)."""
    env: dict[str, str] = {}
    try:
        words = shlex.split(props.get("Environment", ""))
        for line in props.get("EnvironmentFiles", "").splitlines():
            name = line.split(" (", 1)[0].strip()
            if name:
                words += _env_file_words(Path(name))
    except ValueError:
        return env
    for word in words:
        key, sep, value = word.partition("=")
        if sep:
            env[key] = value
    return env


def _env_file_words(path: Path) -> list[str]:
    """KEY=VALUE words of an environment file (nothing where it cannot be read)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    return [w for line in lines if line.strip() and not line.lstrip().startswith("#") for w in shlex.split(line)[:1]]
