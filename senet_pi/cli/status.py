"""`senet-pi status`: the exhibit's health on one screen, for a technician at the Pi.

The service (systemd), the switches and the link (from the running page's /api/state, else the
journal's last verdicts), the journal (size, writable, damaged, on a RAM overlay?), the free disk
where it lives, and the last game. Strictly read-only: the journal is opened with SQLite's
`mode=ro` (plus `immutable` when no service has it open) and a short busy timeout, so a running
service is never blocked nor its journal changed.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

from ..service.journal import losses
from ..service.journal.aside import pending
from ..service.journal.check import found_damage, small
from ..service.journal.schema import SCHEMA_VERSION, file_schema, written_by
from .checks import UNIT, Check, Run, systemd_runs, unit_properties
from .screen_status import screen_checks
from .tables_status import table_checks

#: A JSON object as read from the page or the journal: its fields are checked where they are used.
JSON = dict[str, Any]

ENV_FILE = Path("/etc/senet-pi/senet-pi.env")  # the exhibit's arguments for `senet-pi run` (install.sh)
DEFAULT_PAGE_PORT = 8080
LOW_DISK = 100 * 1024 * 1024  # bytes free under which the journal's disk is a problem
ON_NEXT_START = "the service sets it aside and keeps what is intact on its next start"
RECENT_VERDICTS = 200  # the journal's last verdicts searched for switch trouble when no page answers


def page_port(env_file: Path = ENV_FILE) -> int:
    """The port the installed service serves its page on: `--page-port` in the env file's
    SENET_PI_ARGS, where a technician may have changed it; else the default, 8080."""
    try:
        lines = env_file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return DEFAULT_PAGE_PORT
    port = DEFAULT_PAGE_PORT
    for line in lines:
        name, _, value = line.strip().partition("=")
        if name.strip() != "SENET_PI_ARGS":
            continue
        value = value.strip()
        try:
            words = shlex.split(shlex.split(value)[0] if value[:1] in "\"'" and value else value)
        except (ValueError, IndexError):
            continue  # a line systemd would not read either: the default stands
        for i, word in enumerate(words):
            given = word.partition("=")[2] if word.startswith("--page-port=") else None
            if word == "--page-port" and i + 1 < len(words):
                given = words[i + 1]
            if given is not None and given.isdigit():
                port = int(given)
    return port


def service_check(run: Run = subprocess.run, booted: bool | None = None) -> Check:
    """Whether senet-pi.service is active, or that there is no systemd to ask (`booted`: whether
    systemd runs this machine; found out as sd_booted(3) does when not given)."""
    if not (systemd_runs() if booted is None else booted):
        return Check(
            "service", None, "not under systemd (no systemctl here): only the page and the journal are checked"
        )
    props = unit_properties(UNIT, run)
    if isinstance(props, str):
        return Check("service", False, props)
    if props.get("LoadState") == "not-found":
        return Check("service", None, f"{UNIT} is not installed here (exhibit/install.sh installs it)")
    state = f"{props.get('ActiveState', 'unknown')} ({props.get('SubState', '?')})"
    if props.get("ActiveState") == "active":
        return Check("service", True, f"{UNIT} {state}")
    if props.get("Result") == "start-limit-hit":
        return Check(
            "service",
            False,
            f"{UNIT} failed to start 5 times in 10 minutes and systemd stopped trying: journalctl -u senet-pi -n 50 "
            "says why; once fixed: systemctl reset-failed senet-pi && systemctl start senet-pi",
        )
    return Check("service", False, f"{UNIT} {state}: journalctl -u senet-pi -n 50 says why")


def page_state(url: str, timeout: float = 5.0) -> JSON | str:
    """The running page's /api/state (with `screens` from /api/screens: the live pages this
    machine's own screen has open), or why it could not be had. A page that takes longer than
    `timeout` is one that has just started (its first answer on a small Pi) as often as a hung one."""
    import ssl
    import urllib.request  # here: `run` imports this module for in_ram, and a board at rest needs no HTTP client

    # This Pi's own page: never a proxy; over HTTPS (TLS_CERT) its certificate is its own, not checked here.
    unchecked = urllib.request.HTTPSHandler(context=ssl._create_unverified_context())
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), unchecked)
    try:
        with opener.open(url.rstrip("/") + "/api/state", timeout=timeout) as answer:
            data = json.loads(answer.read())
    except (OSError, ValueError) as exc:
        if url.startswith("http://"):
            secure = page_state("https://" + url[len("http://") :], timeout)
            if isinstance(secure, dict):
                return secure
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            return (
                f"no page answers at {url} (timed out after {timeout:g} s: a board that has just started"
                " may take a minute to answer; run this again)"
            )
        return f"no page answers at {url} ({reason})"
    if not isinstance(data, dict):
        return f"{url}/api/state is not a JSON object"
    data["screens"] = _screens(opener, url, timeout)
    return data


def _screens(opener: Any, url: str, timeout: float) -> int | None:
    """The live pages this machine's screen has open (/api/screens), or None if the page does not say."""
    try:
        with opener.open(url.rstrip("/") + "/api/screens", timeout=timeout) as answer:
            count = json.loads(answer.read()).get("screens")
    except (OSError, ValueError, AttributeError):
        return None  # a senet-pi from before the count (or a page too busy to answer twice)
    return count if isinstance(count, int) else None


def switch_and_link_checks(state: JSON | str, recent: list[JSON]) -> list[Check]:
    """Stuck or faulty switches and the serial link, from the page's state (or the journal's verdicts)."""
    if isinstance(state, str):
        sensor = sorted({v["square"] for v in recent if v.get("v") == "sensor" and "square" in v})
        text = "no page to ask; the journal's last verdicts " + (
            f"show switches reporting twice: {', '.join(map(str, sensor))}" if sensor else "show no switch trouble"
        )
        return [Check("switches", False if sensor else None, text), Check("link", None, "no page to ask")]
    backend = state.get("backend") or {}
    faults = [*map(str, state.get("switch_faults") or []), *map(str, backend.get("faults") or [])]
    switches = (
        Check("switches", False, "faulty: " + "; ".join(faults))
        if faults
        else Check("switches", True, f"no stuck or faulty switch ({len(backend.get('switches') or [])} closed)")
    )
    name = backend.get("backend", "none")
    if name != "serial":
        link = Check("link", None, f"{name} board: no serial link")
    elif backend.get("connected"):
        link = Check(
            "link",
            True,
            f"bridge on {backend.get('port')}, firmware {backend.get('firmware')}, "
            f"{backend.get('reconnects', 0)} reconnects, {backend.get('dropped', 0)} dropped, "
            f"{backend.get('unsent', 0)} commands not sent",
        )
    else:
        link = Check("link", False, f"bridge not connected: {backend.get('problem') or 'no answer'}")
    return [switches, link]


def broker_checks(state: JSON | str) -> list[Check]:
    """The fleet's broker, from the page's state: connected or why not; nothing when the
    board is not on a broker (or no page answers)."""
    link = state.get("mqtt") if isinstance(state, dict) else None
    if not isinstance(link, dict):
        return []
    where = f"board {link.get('board')} on {link.get('broker')}"
    if link.get("connected"):
        return [Check("broker", True, f"{where}, connected")]
    held = f"; {link.get('held', 0)} verdicts waiting, {link.get('dropped', 0)} dropped"
    return [Check("broker", False, f"{where}: not connected ({link.get('problem') or 'no answer'}){held}")]


#: The journal's own partition, when the machine has one (exhibit/journal-partition mounts it).
JOURNAL_PARTITION = Path("/dev/disk/by-label/senet-journal")


def _mount_of(path: Path) -> tuple[str, str]:
    """The mount point and file system type holding `path`, from /proc/mounts (('', '') if unknown)."""
    best = ("", "")
    try:
        lines = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return best
    target = str(path.resolve())
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best[0]):
            best = (point, fields[2])
    return best


def in_ram(path: Path) -> str | None:
    """The file system type ('tmpfs', 'overlay') when `path` is kept in RAM and lost at power off, else None."""
    fstype = _mount_of(path)[1]
    return fstype if fstype in ("overlay", "tmpfs", "ramfs") else None


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def _megabytes(n: float) -> str:
    if n >= 1e9:
        return f"{n / 1e9:.1f} GB"
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def _lost_writes(db: sqlite3.Connection, mark_path: Path) -> str | None:
    """The check the journal makes on start (see Journal._lost_writes), read-only: fewer writes in
    the file than its `-mark` counted means a `-wal` damaged or lost (a power cut, a pulled card)."""
    try:
        mark = json.loads(mark_path.read_text(encoding="utf-8"))
        rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
    except (OSError, ValueError, sqlite3.Error):
        return None  # no mark, or no meta table (an older journal): nothing to compare
    if not isinstance(mark, dict) or not isinstance(mark.get("writes"), int) or rows.get("id") != mark.get("id"):
        return None
    writes = rows.get("writes", 0)
    if isinstance(writes, int) and writes < mark["writes"]:
        return f"it holds {writes} of the {mark['writes']} writes made"
    return None


def _newer(path: Path) -> list[str]:
    """A journal a newer release wrote, which the service refuses to start with (see `Journal`)."""
    from .. import __version__

    version = file_schema(path)
    if version <= SCHEMA_VERSION:
        return []
    return [
        f"written by senet-pi {written_by(path) or f'schema {version}'}, newer than this {__version__}: the service "
        f"refuses it; update senet-pi, or restore {path.name}.schema-{SCHEMA_VERSION} in its place"
    ]


def journal_checks(path: Path) -> tuple[list[Check], list[JSON]]:
    """The journal, the disk it is on and its last game; and that game's last verdicts."""
    point, fstype = _mount_of(path.parent)
    disk = _disk_check(path, point, fstype)
    out = _set_aside(path)
    if not path.exists() and out:
        return [Check("journal", False, f"{path}: none yet; " + "; ".join(out)), disk, NO_GAME], []
    if not path.exists():
        return [Check("journal", None, f"no journal yet at {path} (no game played with it)"), disk, NO_GAME], []
    problems: list[str] = []
    remarks: list[str] = []  # losses whose damaged file was looked at and removed: said, not a problem
    writable = os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    if in_ram(path.parent):
        problems.append(f"on {fstype}, in RAM: lost at power off (see the README: read-only root)")
    problems += _newer(path)
    if JOURNAL_PARTITION.exists() and point != str(path.parent.resolve()):
        problems.append(
            f"the partition labelled senet-journal is not mounted on {path.parent} (see Troubleshooting: the journal's "
            "partition; journalctl -u senet-pi-journal -b says why)"
        )
    try:
        # With a -wal (a service has it open, or was killed): mode=ro, reading the -wal too, as a WAL
        # reader that never blocks the writer. Without one (closed cleanly, nobody writing): immutable,
        # so not even an empty -wal or -shm is left beside the file.
        quiet = "" if Path(f"{path}-wal").exists() else "&immutable=1"
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro{quiet}", uri=True, timeout=1.0)
    except sqlite3.Error as exc:
        return [Check("journal", False, f"{path}: cannot open it read-only: {exc}"), disk], []
    game: tuple[Any, ...] | None = None
    found: Check | None = None
    recent: list[JSON] = []
    try:
        problems += _with_progress(db, out)
        _damage(db, path, problems, remarks)
        found = _resume_note(db)
        game = db.execute(
            "SELECT g.id, variant, players, started, ended, winner, "
            "(SELECT COUNT(*) FROM events e WHERE e.game = g.id) FROM games g ORDER BY g.id DESC LIMIT 1"
        ).fetchone()
        if game is not None:
            recent = _recent_verdicts(db, game[0])
    except sqlite3.Error as exc:
        problems.append(f"cannot be read: {exc}")
    finally:
        db.close()
    text = f"{path}, {_megabytes(_size(path))}, {'writable' if writable else 'NOT writable by this user'}"
    said = "; ".join(problems + remarks)
    checks = [Check("journal", not problems, text + ("; " + said if said else ", not damaged"))]
    checks += [found] if found is not None else []
    checks += [disk, _last_game(game)]
    return checks, recent


#: The last game's line when the journal holds none.
NO_GAME = Check("last game", None, "none")


def _disk_check(path: Path, point: str | None, fstype: str | None) -> Check:
    """The free space of the disk the journal is on (unknown while its folder does not exist)."""
    if not path.parent.exists():
        return Check("disk", None, f"{path.parent} does not exist yet")
    usage = shutil.disk_usage(path.parent)
    low = usage.free < LOW_DISK
    return Check(
        "disk",
        not low,
        f"{_megabytes(usage.free)} free of {_megabytes(usage.total)} on {point or '?'} ({fstype or '?'})"
        + (" - too little for the journal" if low else ""),
    )


def _damage(db: sqlite3.Connection, path: Path, problems: list[str], remarks: list[str]) -> None:
    """SQLite's own check (of a big journal: what the service's check in the background or `senet-pi
    journal check` found), writes lost since the last mark, and damaged journals recovered from."""
    check = db.execute("PRAGMA quick_check").fetchone()[0] if small(path) else "ok"
    if not small(path):
        remarks.append("too big to check whole here: `senet-pi journal check` does")
    found = found_damage(path)
    if found:
        problems.append(f"damaged ({found}); {ON_NEXT_START}")
    elif check != "ok":
        first = [line for line in check.splitlines() if not line.startswith("***")][:1]
        problems.append(f"damaged ({''.join(first)}); {ON_NEXT_START}")
    lost = _lost_writes(db, Path(f"{path}-mark"))
    if lost:
        problems.append(f"lost writes: {lost}; {ON_NEXT_START}")
    for loss in losses(db):  # a damaged journal this one was recovered from: never "healthy" while kept
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(loss["when"]))
        aside = path.with_name(str(loss.get("aside")))
        kept = f"kept as {aside.name}: remove it once looked at" if aside.exists() else "since removed"
        text = f"recovered from damage at {when}: lost {loss['lost']} writes or inputs ({kept})"
        (problems if aside.exists() else remarks).append(text)


def _set_aside(path: Path) -> list[str]:
    """Each journal set aside as damaged whose games are not back yet: history out of service."""
    lines = []
    for entry in pending(path):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(entry.get("when") or 0)))
        lines.append(
            f"history out of service: {entry['aside']} set aside at {when} ({entry.get('why')}), its games not "
            f"recovered yet (the service goes on with it while it runs; `senet-pi journal dismiss` gives it up)"
        )
    return lines


def _with_progress(db: sqlite3.Connection, lines: list[str]) -> list[str]:
    """The set-aside lines, each with how many of its games a recovery has copied back so far."""
    out = []
    for line in lines:
        name = line.split(": ", 1)[1].split(" ", 1)[0]
        row = db.execute("SELECT value FROM meta WHERE key = ?", (f"recovering:{name}",)).fetchone()
        try:
            games = int(json.loads(row[0])["games"]) if row else 0
        except (TypeError, ValueError, KeyError):
            games = 0
        out.append(f"{line}; {games} of its games copied back so far" if row else line)
    return out


def _resume_note(db: sqlite3.Connection) -> Check | None:
    """What the service found when it resumed (a game cut short, a changed record), if anything."""
    try:
        notes = db.execute("SELECT value FROM meta WHERE key LIKE 'note:%' ORDER BY rowid DESC").fetchall()
    except sqlite3.Error:
        return None  # an older journal, without a meta table
    if not notes:
        return None
    more = f" ({len(notes) - 1} earlier in the journal's meta table)" if len(notes) > 1 else ""
    return Check("resume", None, f"{notes[0][0]}{more}")


def _recent_verdicts(db: sqlite3.Connection, game: int) -> list[JSON]:
    """The last verdicts of a game, newest first, as the journal wrote them (unreadable ones skipped)."""
    recent: list[JSON] = []
    rows = db.execute(
        "SELECT verdict FROM verdicts WHERE game = ? ORDER BY seq DESC LIMIT ?", (game, RECENT_VERDICTS)
    ).fetchall()
    for (text,) in rows:
        try:
            verdict = json.loads(text)
        except ValueError:
            continue
        if isinstance(verdict, dict):
            recent.append(verdict)
    return recent


def _last_game(game: tuple[Any, ...] | None) -> Check:
    """The last game's line: its rule set, inputs, start and how it stands."""
    if game is None:
        return Check("last game", None, "no game in the journal yet")
    gid, variant, players, started, ended, winner, events = game
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(started))
    if ended is None:
        how = "in progress"
    elif winner:
        how = f"won by {winner} at {time.strftime('%H:%M', time.localtime(ended))}"
    else:
        how = f"abandoned at {time.strftime('%H:%M', time.localtime(ended))}"
    return Check("last game", None, f"#{gid} {variant} ({players} players), {events} inputs, started {when}, {how}")


def report(journal: Path, url: str) -> tuple[list[Check], bool]:
    """Every check, and whether all is well (no check failed)."""
    service = service_check()
    state = page_state(url)
    page = (
        Check("page", True, f"{url} answers ({(state.get('backend') or {}).get('backend', '?')} board)")
        if isinstance(state, dict)
        else Check("page", False if service.ok else None, state)
    )
    stored, recent = journal_checks(journal)
    checks = [service, page, *screen_checks(state), *switch_and_link_checks(state, recent), *broker_checks(state)]
    checks += table_checks(state)
    checks += stored
    return checks, all(c.ok is not False for c in checks)


def render(checks: list[Check], healthy: bool) -> str:
    """The one screen: a line per check, then the verdict."""
    failed = [c.name for c in checks if c.ok is False]
    last = "healthy" if healthy else f"NOT healthy: {', '.join(failed)}"
    return "\n".join([*(c.line() for c in checks), last])
