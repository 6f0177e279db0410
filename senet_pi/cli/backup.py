"""`senet-pi backup FILE` and `senet-pi restore FILE`: everything a board keeps, in one archive.

A backup is a tar.gz holding `manifest.json` (what each member is, where it came from, its mode,
owner, size and SHA-256), the instance folder's files (config.toml, the page's secret_key, the
service's env files, certificates kept there), the files config.toml names elsewhere (TLS_CERT,
TLS_KEY, MQTT_CA_FILE: the fleet's and the page's credentials) and the journal, copied with SQLite's
online backup, so it is taken while the board runs and is a consistent copy of one moment.

A restore puts each file back where this install keeps it (the instance folder and the journal of
this machine, the named files at their own paths), keeping the owner and mode of a file it
replaces; it refuses a journal holding games unless forced (then the old one is kept beside it),
and a board that is running.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import socket
import sqlite3
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..errors import BackupError
from .machine import owner_names

if TYPE_CHECKING:
    import tarfile

FORMAT = "senet-pi backup"
VERSION = 1
NAMED_FILES = ("TLS_CERT", "TLS_KEY", "MQTT_CA_FILE")  #: settings that name a file the board needs
MAX_FILE = 16 * 1024 * 1024  #: an instance file bigger than this is not a board's (a stray download)
JOURNAL_SIDES = ("-wal", "-shm", "-mark", "-held")  #: what belongs to a journal file and goes with it


@dataclass(frozen=True)
class Member:
    """One file of a backup: where it goes in the archive, where it came from, and its bytes."""

    name: str  #: its path inside the archive
    role: str  #: "instance" (the instance folder's), "file" (named by the config), "journal"
    path: str  #: where it was on the machine backed up
    data: bytes
    mode: int
    user: str
    group: str

    def entry(self) -> dict[str, object]:
        """Its line of the manifest."""
        return {
            "name": self.name,
            "role": self.role,
            "path": self.path,
            "mode": self.mode,
            "user": self.user,
            "group": self.group,
            "size": len(self.data),
            "sha256": hashlib.sha256(self.data).hexdigest(),
        }


def _member(name: str, role: str, path: Path, data: bytes | None = None) -> Member:
    """A member from a file on this machine (its bytes read now unless given)."""
    st = path.stat()
    user, group = owner_names(st)
    body = path.read_bytes() if data is None else data
    return Member(name, role, str(path.absolute()), body, stat.S_IMODE(st.st_mode), user, group)


def _instance_members(folder: Path) -> list[Member]:
    """The instance folder's own files (not its temporary ones, nor anything big)."""
    if not folder.is_dir():
        return []
    members = []
    for path in sorted(folder.iterdir()):
        if (
            path.is_file()
            and not path.is_symlink()
            and not path.name.startswith(".")
            and path.stat().st_size <= MAX_FILE
        ):
            members.append(_member(f"instance/{path.name}", "instance", path))
    return members


def _named_members(folder: Path, settings: dict[str, object]) -> list[Member]:
    """The files config.toml names outside the instance folder (certificates, keys, CA bundles)."""
    members = []
    for key in NAMED_FILES:
        value = settings.get(key)
        if not isinstance(value, str) or not value:
            continue
        path = Path(value)
        if path.parent.resolve() == folder.resolve() or not path.is_file():
            continue  # in the instance folder already, or not there: run says so at start
        members.append(_member(f"files/{key}/{path.name}", "file", path))
    return members


def journal_copy(journal: Path) -> bytes:
    """The journal as one consistent file, through SQLite's online backup (the board may be writing
    it), marked closed, in rollback mode so it needs no -wal beside it."""
    if not journal.is_file():
        raise BackupError(f"there is no journal at {journal}")
    with tempfile.TemporaryDirectory(prefix="senet-pi-backup-") as scratch:
        copy = Path(scratch) / "journal.sqlite"
        try:
            source = sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro", uri=True)
            try:
                target = sqlite3.connect(copy)
                try:
                    source.backup(target)
                    target.execute("UPDATE meta SET value = 0 WHERE key = 'open'")  # no writer holds the copy
                    target.commit()
                    target.execute("PRAGMA journal_mode=DELETE")
                finally:
                    target.close()
            finally:
                source.close()
        except sqlite3.Error as exc:
            raise BackupError(f"cannot copy the journal {journal}: {exc}") from None
        return copy.read_bytes()


def collect(instance: Path, journal: Path) -> list[Member]:
    """Every member of a backup of this board: the instance folder, the files its config names, the
    journal (when there is one)."""
    from ..errors import ConfigError
    from ..tomlfile import read_toml

    members = _instance_members(instance)
    try:
        settings = read_toml(instance / "config.toml", "the config", ConfigError, missing_ok=True)
    except ConfigError:
        settings = {}  # copied as it is; the files it names cannot be known
    members += _named_members(instance, settings)
    if journal.is_file():
        members.append(_member("journal/journal.sqlite", "journal", journal, journal_copy(journal)))
    return members


def write_archive(target: Path, members: list[Member]) -> None:
    """The archive, written whole beside `target` and renamed in, readable by its owner only (it
    holds the PIN's hash, the signing key and the broker's password)."""
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "senet_pi": __version__,
        "made": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": socket.gethostname(),
        "files": [m.entry() for m in members],
    }
    folder = target.absolute().parent
    import tarfile  # here, not at import: the parser of every command (`run` too) imports this module

    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            _add(tar, "manifest.json", json.dumps(manifest, indent=1).encode())
            for member in members:
                _add(tar, member.name, member.data)
        with open(tmp, "rb+") as again:
            os.fsync(again.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    from tarfile import TarInfo

    info = TarInfo(name)
    info.size = len(data)
    info.mode = 0o600
    info.mtime = int(time.time())
    tar.addfile(info, io.BytesIO(data))


def games_in(path: Path) -> int:
    """How many games a journal file holds (0 for one that is empty or not a journal)."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def cmd_backup(args: argparse.Namespace) -> int:
    from ..service.journal import default_path
    from ..settings import instance_folder

    target = Path(args.file)
    folder = target if args.keep is not None or str(args.file).endswith("/") else target.absolute().parent
    if not folder.exists():  # a stick not plugged in or not mounted: say that, not a traceback or --keep's rule
        raise BackupError(
            f"there is no folder {folder}: plug in and mount the stick or share it is on (or make the folder),"
            " then run this again: nothing backed up"
        )
    if args.keep is not None and (args.keep < 1 or not target.is_dir()):
        raise BackupError("--keep N needs a folder as FILE and N of 1 or more: nothing backed up")
    if target.is_dir():  # a dated archive inside, as the daily timer makes them
        target = target / f"senet-pi-{socket.gethostname()}-{time.strftime('%Y%m%d-%H%M%S')}.tar.gz"
    journal = args.journal or default_path()
    instance = instance_folder()
    members = collect(instance, journal)
    if not members:
        raise BackupError(f"nothing to back up: no instance folder {instance} and no journal {journal}")
    write_archive(target, members)
    games = games_in(journal) if journal.is_file() else 0
    said = f"the journal ({games} game{'' if games == 1 else 's'})" if journal.is_file() else "no journal"
    files = len([m for m in members if m.role != "journal"])
    print(f"backed up {files} file{'' if files == 1 else 's'} and {said} into {target}")
    if args.keep is not None:
        for old in prune(target.parent, args.keep):
            print(f"removed the older backup {old}")
    return 0


def prune(folder: Path, keep: int) -> list[Path]:
    """Remove all but the `keep` newest dated archives of this host in `folder` (none of anything else)."""
    mine = sorted(folder.glob(f"senet-pi-{socket.gethostname()}-????????-??????.tar.gz"))
    old = mine[:-keep]
    for path in old:
        path.unlink()
    return old
