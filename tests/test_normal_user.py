"""Every subcommand run by a user who may not read the exhibit's files or the journal (a technician
not yet in the right group): one line naming what it could not open and what to do (sudo, or the
group to join), exit status 1, never an internal error (70). The same class of error - a missing
permission, a read-only or full disk - is said the same way wherever a command meets it."""

from __future__ import annotations

import errno
import grp
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from senet_pi.cli import command as cli
from senet_pi.cli import machine

ROOT = Path(__file__).resolve().parents[1]
NOBODY = 65534
#: The subcommands that read nothing of the exhibit's (they must still work for anyone).
READS_NOTHING = {"rules"}


def subcommands() -> list[str]:
    """Every subcommand `senet-pi --help` lists, from the parser itself (a new one is tested too)."""
    parser = cli.build_parser()
    (sub,) = [action for action in parser._actions if action.dest == "command"]
    return sorted(sub.choices)  # type: ignore[arg-type]


def arguments(command: str, etc: Path, state: Path, readable: Path) -> tuple[list[str], Path | None]:
    """What to run, and the folder the line must name (None: the command reads nothing of the exhibit's)."""
    table = {
        "run": (["--script", str(readable / "demo.txt"), "--page-port", "0"], etc),
        "status": (["--page-port", "9"], state),
        "games": ([], state),
        "stats": ([], state),
        "export": (["last"], state),
        "journal": (["recover", str(state / "journal.sqlite")], state),
        "broker-files": ([str(etc / "broker")], etc),
        "selftest": (["--pinmap", str(etc / "pinmap.toml")], etc),
        "set-pin": (["--pin", "12345678"], etc),
        "fleet": (["--mqtt", "mqtt://127.0.0.1:9", "--port", "0"], etc),
        "replay": ([str(state / "game.txt")], state),
        "hint": ([str(state / "game.txt")], state),
        "solve": (["secret", "--pieces", "1", "--throws", "sticks", "--tables", str(state / "tables")], state),
        "tournament": (["--games", "2", "--tables", str(state / "tables")], state),
        "rules": ([], None),
        "docs": ([], None),
        "say": (["hello", "--to", str(readable / "hello.wav")], None),
        "config": (["get", "LANGUAGE"], etc),
        "backup": ([str(readable / "board.tar.gz")], etc),
        "restore": ([str(state / "board.tar.gz")], state),
    }
    assert command in table, f"`senet-pi {command}` is new: say here how it reads the exhibit's files"
    args, folder = table[command]
    return [command, *args], folder


def _runs_as(prefix: list[str]) -> bool:
    """Whether senet-pi and its dependencies load when run with `prefix` (another user may not
    read a checkout or a venv in root's home)."""
    check = [*prefix, sys.executable, "-c", "import senet_pi.cli.command, flask, gpiozero"]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(check, env=env, cwd="/", capture_output=True, timeout=60, check=False).returncode == 0


@pytest.fixture(scope="module")
def exhibit() -> Iterator[tuple[Path, Path, Path, list[str]]]:
    """An exhibit's config folder and journal folder that the user running the command may not
    enter, a folder it may read, and the command prefix that runs senet-pi as that user.

    As root (CI): the folders are root's, mode 700, and the command runs as nobody (setpriv).
    As anyone else: the folders are the user's own with mode 000, closed even to their owner."""
    base = Path(tempfile.mkdtemp(prefix="senet-normal-user-"))
    base.chmod(0o755)  # pytest's own tmp folders are closed to other users
    etc, state, readable = base / "etc", base / "state", base / "readable"
    for folder in (etc, state, readable):
        folder.mkdir()
    (etc / "config.toml").write_text('SECRET_KEY = "x"\n')
    shutil.copy(ROOT / "hardware" / "pinmap.toml", etc / "pinmap.toml")
    (state / "game.txt").write_text('{"variant": "secret"}\n')
    (state / "tables").mkdir()
    shutil.copy(ROOT / "examples" / "sim-demo.txt", readable / "demo.txt")
    readable.chmod(0o755)
    # a real journal, written by the exhibit's service
    env = {**os.environ, "SENET_PI_JOURNAL": str(state / "journal.sqlite"), "SENET_PI_INSTANCE": str(etc)}
    subprocess.run(
        [sys.executable, "-m", "senet_pi", "run", "--script", str(readable / "demo.txt"), "--page-port", "0"],
        env=env,
        capture_output=True,
        check=True,
        timeout=120,
    )
    if os.geteuid() == 0:
        prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        for folder in (etc, state):
            folder.chmod(0o700)
        if not _runs_as(prefix):
            # nobody may not read this checkout or venv (under /root, say): root without the
            # capabilities that pass over file modes meets the exhibit's folders as nobody would
            prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
            for folder in (etc, state):
                for path in (folder, *folder.rglob("*")):
                    os.chown(path, NOBODY, NOBODY)
    else:
        for folder in (etc, state):
            folder.chmod(0o000)
        prefix = []
    try:
        yield etc, state, readable, prefix
    finally:
        for folder in (etc, state):
            folder.chmod(0o700)
        shutil.rmtree(base)


@pytest.mark.parametrize("command", subcommands())
def test_each_subcommand_says_what_it_could_not_open_and_what_to_do(exhibit, command):
    etc, state, readable, prefix = exhibit
    argv, folder = arguments(command, etc, state, readable)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(readable),  # a home it may read and not write, as nobody's
        "SENET_PI_JOURNAL": str(state / "journal.sqlite"),
        "SENET_PI_INSTANCE": str(etc),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": str(ROOT),  # the checkout as it is now, whatever the venv holds
    }
    result = subprocess.run(
        [*prefix, sys.executable, "-m", "senet_pi", *argv],
        env=env,
        cwd=readable,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    if folder is None:
        assert result.returncode == 0, result.stderr
        return
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1, result.stderr
    assert len(lines) == 1, result.stderr
    (line,) = lines
    assert line.startswith(f"senet-pi {command}: ")
    assert str(folder) in line  # what it could not open
    assert "run it with sudo" in line  # and what to do


def test_a_folder_a_group_may_read_names_the_group_to_join(tmp_path, monkeypatch):
    """The exhibit's journal folder is senet:senet, mode 750: a technician may join the group."""
    folder = tmp_path / "state"
    folder.mkdir()
    if os.geteuid() == 0:  # a group of the system's other than root's
        group = next(g for g in grp.getgrall() if g.gr_gid not in (0, NOBODY))
        os.chown(folder, 0, group.gr_gid)
    folder.chmod(0o750)
    name = grp.getgrgid(folder.stat().st_gid).gr_name
    monkeypatch.setattr(machine, "_blocker", lambda path: folder)  # as if this user could not enter it
    advice = machine.permission_advice(folder / "journal.sqlite")
    assert f"{folder} belongs to" in advice
    assert "mode 750" in advice
    assert f"run it with sudo, or join the group {name} (sudo adduser $USER {name}, then log in again)" in advice


def test_a_folder_nobody_else_may_read_says_sudo_only(tmp_path, monkeypatch):
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    monkeypatch.setattr(machine, "_blocker", lambda path: folder)
    advice = machine.permission_advice(folder / "journal.sqlite")
    assert advice.endswith(": run it with sudo")
    assert "join" not in advice


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (OSError(errno.EROFS, "Read-only file system", "/media/j/journal.sqlite"), "the file system is read-only"),
        (OSError(errno.ENOSPC, "No space left on device", "/media/j/journal.sqlite"), "the disk is full"),
        (OSError(errno.ENOSPC, "No space left on device"), "the disk is full"),  # a write names no file
        (OSError(errno.EDQUOT, "Disk quota exceeded"), "the disk is full"),
        (OSError(errno.EIO, "Input/output error", "/media/j/journal.sqlite"), "input/output error"),
    ],
    ids=["read-only", "full", "full, no file named", "quota", "I/O"],
)
@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "inside a senet-pi error"])
def test_the_machines_errors_are_one_line_and_exit_1_in_any_command(monkeypatch, capsys, error, said, wrapped):
    """Whatever command meets it, raw or already put into words by senet-pi."""
    from senet_pi.errors import SenetError

    def fails(args):
        if not wrapped:
            raise error
        try:
            raise error
        except OSError as exc:
            raise SenetError(f"cannot write the journal: {exc.strerror}") from None

    monkeypatch.setattr(cli, "cmd_games", fails)
    assert cli.main(["games"]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("senet-pi games: ")
    assert said in line.lower()
    if error.filename and not wrapped:
        assert error.filename in line


def test_sqlites_own_error_on_a_read_only_disk_is_the_machines(monkeypatch, capsys, tmp_path):
    """SQLite says "attempt to write a readonly database" with no file name: the journal is named,
    and the mount says why."""
    readonly = sqlite3.OperationalError("attempt to write a readonly database")
    readonly.sqlite_errorname = "SQLITE_READONLY"  # type: ignore[attr-defined]

    def fails(args):
        raise readonly

    monkeypatch.setattr(cli, "cmd_games", fails)
    monkeypatch.setattr(machine, "_read_only", lambda path: True)  # as if mounted read-only
    journal = tmp_path / "journal.sqlite"
    assert cli.main(["games", "--journal", str(journal)]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"senet-pi games: cannot open {journal}: attempt to write a readonly database")
    assert "the file system is read-only" in line


def test_sqlites_readonly_on_a_writable_disk_is_a_missing_permission(monkeypatch, capsys, tmp_path):
    """A journal this user may not write, on a disk that is writable: the file's owner and mode."""
    readonly = sqlite3.OperationalError("attempt to write a readonly database")
    readonly.sqlite_errorname = "SQLITE_READONLY"  # type: ignore[attr-defined]

    def fails(args):
        raise readonly

    journal = tmp_path / "journal.sqlite"
    journal.write_bytes(b"")
    journal.chmod(0o444)
    monkeypatch.setattr(cli, "cmd_games", fails)
    monkeypatch.setattr(machine, "_read_only", lambda path: False)
    assert cli.main(["games", "--journal", str(journal)]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "run it with sudo" in line
    assert "read-only" not in line.split("(", 1)[1]


def test_a_bug_of_ours_is_still_an_internal_error(monkeypatch, capsys):
    """Only the machine's errors are said as the machine's: a bug (no file, no disk) stays exit 70."""

    def fails(args):
        raise OSError(errno.EBADF, "Bad file descriptor")

    monkeypatch.setattr(cli, "cmd_games", fails)
    assert cli.main(["games"]) == 70
    assert "internal error" in capsys.readouterr().err
