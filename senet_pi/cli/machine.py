"""The machine's errors, said: a folder this user may not read, a read-only or full disk, in one line
with what to do (sudo, the group to join, room to make), for any command's error that lies there."""

from __future__ import annotations

import argparse
import errno
import grp
import os
import pwd
import sqlite3
import stat
from pathlib import Path

#: The --journal option's help, for every command that takes one.
JOURNAL_HELP = "the journal file (default: $SENET_PI_JOURNAL, else ~/.local/state/senet-pi/journal.sqlite)"
#: SQLite's names for errors of the folder or the disk (not of senet-pi, nor of the file's contents).
_SQLITE_MACHINE = ("SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_READONLY", "SQLITE_FULL", "SQLITE_IOERR", "SQLITE_AUTH")
#: Errors of the machine even when no file is named: a missing permission, a read-only or full disk.
_MACHINE_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EIO}


def machine_cause(exc: BaseException) -> OSError | sqlite3.Error | None:
    """The error of the machine behind `exc` (itself, or what it was raised from or while handling):
    an OSError that names a file or says the disk or a permission is at fault, or a SQLite error of
    the folder or disk. None for anything else (a bug of ours)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and (current.filename is not None or current.errno in _MACHINE_ERRNOS):
            return current
        if isinstance(current, sqlite3.Error) and str(getattr(current, "sqlite_errorname", "")).startswith(
            _SQLITE_MACHINE
        ):
            return current
        current = current.__cause__ or current.__context__
    return None


def owner_names(st: os.stat_result) -> tuple[str, str]:
    """The user and group names of a file (their numbers when the system has no name for them)."""
    try:
        user = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        user = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return user, group


def _blocker(path: Path) -> Path | None:
    """The first folder on the way to `path`, or `path` itself, that this user may not enter, read
    or (for a folder a missing file would be made in) write; None when nothing is in the way."""
    path = Path(os.path.abspath(path))
    for folder in reversed(path.parents):
        if not os.access(folder, os.X_OK):
            return folder if folder.exists() else None
    if path.exists():
        wanted = os.R_OK | (os.X_OK if path.is_dir() else 0)
        return None if os.access(path, wanted) else path
    return None if os.access(path.parent, os.W_OK) else path.parent


def _read_only(path: Path) -> bool:
    """Whether the file system `path` (or the nearest folder of it that exists) is mounted read-only."""
    for candidate in (path, *path.parents):
        try:
            return bool(os.statvfs(candidate).f_flag & os.ST_RDONLY)
        except OSError:
            continue
    return False


def permission_advice(path: Path) -> str:
    """What a user who may not read `path` can do: sudo, or join the group that may."""
    blocker = _blocker(path) or path
    try:
        st = blocker.stat()
    except OSError:
        return "run it with sudo"
    user, group = owner_names(st)
    where = f"{blocker} belongs to {user}:{group}, mode {stat.S_IMODE(st.st_mode):o}"
    if st.st_gid != 0 and st.st_mode & stat.S_IRWXG:
        return f"{where}: run it with sudo, or join the group {group} (sudo adduser $USER {group}, then log in again)"
    return f"{where}: run it with sudo"


def machine_advice(cause: OSError | sqlite3.Error, path: Path | None) -> str:
    """What to do about a machine error on `path`: a missing permission, a read-only or full disk."""
    if isinstance(cause, OSError):
        code = cause.errno
    else:  # SQLite names the kind of error, not the file: the journal's folder and mode say why
        name = str(getattr(cause, "sqlite_errorname", ""))
        code = errno.ENOSPC if name == "SQLITE_FULL" else None
        if name.startswith("SQLITE_READONLY"):
            code = errno.EROFS if path is not None and _read_only(path) else errno.EACCES
        elif path is not None and _blocker(path) is not None:
            code = errno.EACCES
    if code in (errno.EACCES, errno.EPERM) and path is not None:
        return permission_advice(path)
    if code == errno.EROFS:
        return "the file system is read-only: mount it read-write, or choose a file on one that is (see --help)"
    if code in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full: make room (df -h shows where), then try again"
    return ""


def machine_error(exc: OSError | sqlite3.Error, journal: Path | None) -> str:
    """One line for an error of the machine no senet-pi code put into words: what it could not
    open, why, and what to do."""
    if isinstance(exc, OSError):
        path = Path(os.fsdecode(exc.filename)) if exc.filename is not None else None
        why = (exc.strerror or str(exc)).lower()
    else:
        path = journal
        why = str(exc)
    what = f"cannot open {path}" if path is not None else "cannot go on"
    advice = machine_advice(exc, path)
    return f"{what}: {why}" + (f" ({advice})" if advice else "")


def journal_given(args: argparse.Namespace) -> Path | None:
    """The journal this command uses, for naming it in an error of the machine."""
    from ..service.journal import default_path

    given = getattr(args, "journal", None)
    return Path(given) if given is not None else default_path()


def said_error(exc: Exception, args: argparse.Namespace) -> str:
    """A SenetError's line, with what to do when a missing permission or a read-only or full disk
    lies behind it and the line does not say so yet."""
    text = str(exc)
    cause = machine_cause(exc)
    if cause is None or cause is exc:
        return text
    if isinstance(cause, OSError):
        path = Path(os.fsdecode(cause.filename)) if cause.filename is not None else None
    else:
        path = journal_given(args)
    advice = machine_advice(cause, path)
    return f"{text} ({advice})" if advice and "sudo" not in text else text
