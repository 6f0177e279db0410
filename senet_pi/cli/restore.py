"""`senet-pi restore FILE`: a backup (`senet_pi.cli.backup`) put back onto this install.

Every member is read and checked against the manifest (size, SHA-256, nothing more and nothing
outside it) before anything is written. Each file goes where this install keeps it: the instance
folder's files into this machine's instance folder, the journal to this machine's journal, files
the config named at their own paths. A file replaced keeps its owner and mode (the install's idea of
them is right for this machine); a new one gets the backup's mode and, where this machine has them,
its user and group.
"""

from __future__ import annotations

import argparse
import contextlib
import grp
import hashlib
import json
import os
import pwd
import stat
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BackupError
from .backup import FORMAT, JOURNAL_SIDES, NAMED_FILES, VERSION, games_in

if TYPE_CHECKING:
    import tarfile


def read_archive(path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The manifest and every member's bytes, checked; BackupError naming what is wrong."""
    import tarfile  # here, not at import: the parser of every command (`run` too) imports this module

    try:
        with tarfile.open(path, mode="r:gz") as tar:
            found = {info.name: info for info in tar.getmembers()}
            manifest = _manifest(path, tar, found)
            data = {entry["name"]: _checked(path, tar, found, entry) for entry in manifest["files"]}
    except FileNotFoundError:
        raise BackupError(f"there is no backup {path}") from None
    except (tarfile.TarError, EOFError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise BackupError(f"cannot read the backup {path}: {exc.strerror or exc}") from None
        raise BackupError(f"{path} is not a senet-pi backup (not a whole tar.gz archive: {exc})") from None
    strays = set(found) - set(data) - {"manifest.json"}
    if strays:
        raise BackupError(f"{path} holds files its manifest does not list ({sorted(strays)[0]}): not restored")
    return manifest, data


def _manifest(path: Path, tar: tarfile.TarFile, found: dict[str, tarfile.TarInfo]) -> dict[str, Any]:
    info = found.get("manifest.json")
    reader = tar.extractfile(info) if info is not None and info.isfile() else None
    if reader is None:
        raise BackupError(f"{path} is not a senet-pi backup (it has no manifest.json)")
    try:
        manifest = json.loads(reader.read().decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise BackupError(f"{path} is not a senet-pi backup (its manifest.json is not JSON)") from None
    if (
        not isinstance(manifest, dict)
        or manifest.get("format") != FORMAT
        or not isinstance(manifest.get("files"), list)
    ):
        raise BackupError(f"{path} is not a senet-pi backup (its manifest is another program's)")
    if manifest.get("version") != VERSION:
        raise BackupError(f"{path} is a backup of version {manifest.get('version')}: this senet-pi reads {VERSION}")
    for entry in manifest["files"]:
        ok = isinstance(entry, dict) and entry.get("role") in ("instance", "file", "journal")
        if not ok or not all(isinstance(entry.get(k), str) for k in ("name", "path", "sha256", "user", "group")):
            raise BackupError(f"{path} has a damaged manifest (an entry without its name, path or checksum)")
    return manifest


def _checked(path: Path, tar: tarfile.TarFile, found: dict[str, tarfile.TarInfo], entry: dict[str, Any]) -> bytes:
    info = found.get(entry["name"])
    reader = tar.extractfile(info) if info is not None and info.isfile() else None
    if reader is None:
        raise BackupError(f"{path} is missing {entry['name']}, which its manifest lists: not restored")
    data = reader.read()
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise BackupError(f"{entry['name']} in {path} is damaged (its checksum differs): nothing restored")
    return data


def _owner(entry: dict[str, Any]) -> tuple[int, int]:
    """The backup's user and group as this machine numbers them; this process's where it has no such name."""
    try:
        uid = pwd.getpwnam(entry["user"]).pw_uid
    except KeyError:
        uid = os.geteuid()
    try:
        gid = grp.getgrnam(entry["group"]).gr_gid
    except KeyError:
        gid = os.getegid()
    return uid, gid


def put(target: Path, data: bytes, entry: dict[str, Any]) -> None:
    """Write `data` over `target` whole or not at all, with the replaced file's owner and mode, else
    the backup's (a temporary file in the same folder, fsynced, renamed in)."""
    try:
        old = target.stat()
        mode, owner = stat.S_IMODE(old.st_mode), (old.st_uid, old.st_gid)
    except FileNotFoundError:
        mode, owner = int(entry.get("mode", 0o600)) & 0o7777, _owner(entry)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if os.geteuid() == 0 or owner[0] == os.geteuid():
                with contextlib.suppress(PermissionError):  # a group this user is not in: the user's own
                    os.fchown(f.fileno(), *owner)
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def set_aside(journal: Path) -> Path | None:
    """Move a journal about to be replaced, with its side files, to `<name>.before-restore-<time>`."""
    if not journal.exists():
        return None
    aside = journal.with_name(f"{journal.name}.before-restore-{time.strftime('%Y%m%d-%H%M%S')}")
    journal.rename(aside)
    for suffix in JOURNAL_SIDES:
        side = journal.with_name(journal.name + suffix)
        if side.exists():
            side.rename(aside.with_name(aside.name + suffix))
    return aside


def _targets(
    manifest: dict[str, Any], data: dict[str, bytes], instance: Path, journal: Path
) -> list[tuple[dict[str, Any], Path]]:
    """Where each member goes on this install."""
    places = []
    for entry in manifest["files"]:
        name = Path(entry["name"]).name
        if entry["role"] == "instance":
            places.append((entry, instance / name))
        elif entry["role"] == "journal":
            places.append((entry, journal))
        else:
            places.append((entry, Path(entry["path"])))
    named = _named_by_config(manifest, data)
    for entry, _ in places:
        if entry["role"] == "file" and entry["path"] not in named:
            raise BackupError(
                f"the backup would write {entry['path']}, which its config.toml does not name: nothing restored"
            )
    return places


def _named_by_config(manifest: dict[str, Any], data: dict[str, bytes]) -> set[str]:
    """The paths the backup's own config.toml names (TLS_CERT, TLS_KEY, MQTT_CA_FILE): the only places
    outside the instance folder and the journal a restore writes."""
    import tomllib

    for entry in manifest["files"]:
        if entry["role"] == "instance" and Path(entry["name"]).name == "config.toml":
            try:
                config = tomllib.loads(data[entry["name"]].decode("utf-8"))
            except (UnicodeDecodeError, tomllib.TOMLDecodeError):
                return set()
            return {str(Path(v).absolute()) for k in NAMED_FILES if isinstance(v := config.get(k), str) and v}
    return set()


def _check_journal(journal: Path, force: bool) -> None:
    """Refuse to replace a journal holding games, unless forced."""
    if not journal.exists():
        return
    games = games_in(journal)
    if (games or journal.stat().st_size) and not force:
        held = f"holds {games} game{'' if games == 1 else 's'}" if games else "is not empty"
        raise BackupError(
            f"the journal {journal} {held}: nothing restored. Restore onto a fresh install, or give --force to "
            "replace it (it is kept beside as journal.sqlite.before-restore-...)"
        )


def cmd_restore(args: argparse.Namespace) -> int:
    from ..service.journal import default_path
    from ..service.runlock import RunLock
    from ..settings import instance_folder

    manifest, data = read_archive(Path(args.file))
    journal = args.journal or default_path()
    places = _targets(manifest, data, instance_folder(), journal)
    has_journal = any(entry["role"] == "journal" for entry, _ in places)
    lock = RunLock(journal)
    if has_journal:
        if not journal.parent.is_dir():
            raise BackupError(f"the journal's folder {journal.parent} does not exist: install senet-pi first")
        lock.acquire()  # a running board is refused here, naming it; and none starts while this writes
    try:
        if has_journal:
            _check_journal(journal, args.force)
        aside = set_aside(journal) if has_journal else None
        for entry, place in places:
            put(place, data[entry["name"]], entry)
    finally:
        lock.release()
    print(
        f"restored {len(places)} file{'' if len(places) == 1 else 's'} from {args.file} (made {manifest.get('made')})"
    )
    for _, place in places:
        print(f"  {place}")
    if aside is not None:
        print(f"the journal it replaced is kept as {aside}")
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `backup` and `restore` to the `senet-pi` parser."""
    from .backup import cmd_backup
    from .machine import JOURNAL_HELP

    backup = sub.add_parser(
        "backup",
        help="copy the config, the secret key, the fleet's credentials and the journal into one archive",
        description="Write one tar.gz archive of everything this board keeps: the instance folder (config.toml, "
        "secret_key, the service's env files), the files config.toml names (TLS_CERT, TLS_KEY, MQTT_CA_FILE) and the "
        "journal, copied with SQLite's online backup, so the board may keep running. The archive holds secrets: "
        "it is readable by its owner only.",
    )
    backup.add_argument(
        "file",
        type=Path,
        metavar="FILE",
        help="the archive to write, e.g. senet-pi-backup.tar.gz; a folder: a dated archive in it "
        "(senet-pi-HOST-YYYYMMDD-HHMMSS.tar.gz)",
    )
    backup.add_argument(
        "--keep", type=int, metavar="N", help="with a folder: keep only this host's N newest dated archives in it"
    )
    backup.add_argument("--journal", type=Path, metavar="PATH", help=JOURNAL_HELP)
    backup.set_defaults(func=cmd_backup)
    restore = sub.add_parser(
        "restore",
        help="put a backup back onto this install (the board stopped)",
        description="Check every file of a backup, then put each where this install keeps it: the instance folder, "
        "the journal, the files the config names. A file replaced keeps its owner and mode. A journal that holds "
        "games is not replaced unless --force (then it is kept beside, as journal.sqlite.before-restore-...).",
    )
    restore.add_argument("file", type=Path, metavar="FILE", help="the archive `senet-pi backup` wrote")
    restore.add_argument("--journal", type=Path, metavar="PATH", help=JOURNAL_HELP)
    restore.add_argument("--force", action="store_true", help="replace a journal that holds games (kept beside)")
    restore.set_defaults(func=cmd_restore)
