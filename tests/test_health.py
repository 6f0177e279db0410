"""`senet-pi status`: one screen of health, exit 1 when something is wrong, and strictly
read-only on the journal of a running service."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from senet_pi.cli.command import main
from senet_pi.cli.screen_status import screen_checks
from senet_pi.cli.status import journal_checks, page_port, service_check, switch_and_link_checks
from senet_pi.service.journal import Journal
from tests.cli_helpers import start_board

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def a_finished_game(path: Path, winner: str | None) -> None:
    with Journal(path) as journal:
        game = journal.start_game("houses", 2, {})
        journal.record_event(game, 1, 0, "throw", 3)
        journal.end_game(game, winner)
        journal.flush()


def status(capsys, *args: str) -> tuple[int, str]:
    code = main(["status", "--page-port", str(free_port()), *args])  # a port nobody serves
    return code, capsys.readouterr().out


def lines_of(out: str) -> dict[str, str]:
    return {line[:10].strip(): line[10:] for line in out.splitlines()[:-1]}


def test_a_sound_journal_with_no_page_running_is_healthy_and_says_what_it_could_not_ask(tmp_path, capsys) -> None:
    path = tmp_path / "j.sqlite"
    a_finished_game(path, "A")
    code, out = status(capsys, "--journal", str(path))
    rows = lines_of(out)
    assert code == 0
    assert out.splitlines()[-1] == "healthy"
    assert rows["journal"].startswith("ok")
    assert "not damaged" in rows["journal"]
    assert "writable" in rows["journal"]
    assert f"{path}, {round(path.stat().st_size / 1000)} kB, writable" in rows["journal"]
    assert rows["last game"].startswith("--")
    assert "#1 houses (2 players), 1 inputs" in rows["last game"]
    assert "won by A" in rows["last game"]
    assert "no page answers" in rows["page"]
    assert rows["disk"].startswith("ok")
    assert "free of" in rows["disk"]


def test_an_abandoned_game_is_said_so(tmp_path) -> None:
    path = tmp_path / "j.sqlite"
    a_finished_game(path, None)
    checks, _ = journal_checks(path)
    assert "abandoned at" in checks[-1].text


def test_a_damaged_journal_fails_and_is_left_exactly_as_it_was(tmp_path, capsys) -> None:
    path = tmp_path / "j.sqlite"
    a_finished_game(path, "B")
    data = bytearray(path.read_bytes())
    for page in range(4096, len(data), 4096):  # scribble over every page but the header's
        data[page + 8 : page + 4000] = b"\xff" * 3992
    path.write_bytes(bytes(data))
    before = sorted(p.name for p in tmp_path.iterdir()), hashlib.sha256(path.read_bytes()).hexdigest()
    code, out = status(capsys, "--journal", str(path))
    assert code == 1
    assert out.splitlines()[-1].startswith("NOT healthy: journal")
    assert lines_of(out)["journal"].startswith("FAIL")
    assert (sorted(p.name for p in tmp_path.iterdir()), hashlib.sha256(path.read_bytes()).hexdigest()) == before


def test_a_journal_that_lost_writes_its_mark_counted_fails(tmp_path, capsys) -> None:
    """A -wal lost in a power cut: the main file holds fewer writes than the -mark beside it says."""
    path = tmp_path / "j.sqlite"
    a_finished_game(path, "B")
    mark = tmp_path / "j.sqlite-mark"
    data = json.loads(mark.read_text())
    data["writes"] += 5
    mark.write_text(json.dumps(data))
    code, out = status(capsys, "--journal", str(path))
    assert code == 1
    assert "lost writes" in lines_of(out)["journal"]


def test_a_file_that_is_not_a_journal_is_one_clear_line_not_a_traceback(tmp_path, capsys) -> None:
    path = tmp_path / "j.sqlite"
    path.write_text("not a database at all, just some text that is long enough to be looked at " * 20)
    code, out = status(capsys, "--journal", str(path))
    assert code == 1
    assert "Traceback" not in out
    assert lines_of(out)["journal"].startswith("FAIL")


def test_a_journal_in_ram_fails_it_would_be_lost_at_power_off() -> None:
    shm = Path("/dev/shm")
    assert shm.is_dir()
    with tempfile.TemporaryDirectory(dir=shm) as folder:
        path = Path(folder) / "j.sqlite"
        a_finished_game(path, "A")
        checks, _ = journal_checks(path)
    journal = next(c for c in checks if c.name == "journal")
    assert journal.ok is False
    assert "in RAM" in journal.text


def test_a_journal_partition_that_is_not_mounted_on_the_journals_folder_fails(tmp_path, monkeypatch) -> None:
    """A partition labelled senet-journal, and the journal beside it on the root (made after the
    games began, or refused as two journals): said, with where to look."""
    from senet_pi.cli import status as status_module

    path = tmp_path / "j.sqlite"
    a_finished_game(path, "A")
    label = tmp_path / "by-label" / "senet-journal"
    monkeypatch.setattr(status_module, "JOURNAL_PARTITION", label)
    checks, _ = journal_checks(path)
    assert next(c for c in checks if c.name == "journal").ok is True  # no such partition: nothing said
    label.parent.mkdir()
    label.write_text("")
    checks, _ = journal_checks(path)
    journal = next(c for c in checks if c.name == "journal")
    assert journal.ok is False
    assert f"the partition labelled senet-journal is not mounted on {tmp_path}" in journal.text
    assert "journalctl -u senet-pi-journal -b" in journal.text


def test_no_journal_yet_is_information_not_a_failure(tmp_path) -> None:
    checks, recent = journal_checks(tmp_path / "none" / "j.sqlite")
    assert [c.ok for c in checks] == [None, None, None]
    assert recent == []


def test_the_service_under_systemd_inactive_is_a_failure_and_not_installed_is_information() -> None:
    def systemctl(stdout: str):
        def run(argv, **_):
            assert argv == ["systemctl", "show", "--property=LoadState,ActiveState,SubState,Result", "senet-pi.service"]
            return subprocess.CompletedProcess(argv, 0, stdout=stdout, stderr="")

        return run

    failed = service_check(systemctl("LoadState=loaded\nActiveState=failed\nSubState=failed\n"), booted=True)
    assert failed.ok is False
    assert "failed" in failed.text
    assert "journalctl -u senet-pi" in failed.text
    active = service_check(systemctl("LoadState=loaded\nActiveState=active\nSubState=running\n"), booted=True)
    assert active.ok is True
    assert "active (running)" in active.text
    missing = service_check(systemctl("LoadState=not-found\nActiveState=inactive\nSubState=dead\n"), booted=True)
    assert missing.ok is None
    assert "not installed" in missing.text
    assert service_check(systemctl(""), booted=False).ok is None
    gave_up = "LoadState=loaded\nActiveState=failed\nSubState=failed\nResult=start-limit-hit\n"
    stopped = service_check(systemctl(gave_up), booted=True)
    assert stopped.ok is False
    assert "systemd stopped trying" in stopped.text
    assert "reset-failed" in stopped.text


def systemctl_for(unit: str, stdout: str):
    """A stand-in for `systemctl show` of one unit."""

    def run(argv, **_):
        assert argv == ["systemctl", "show", "--property=LoadState,ActiveState,SubState,Result", unit]
        return subprocess.CompletedProcess(argv, 0, stdout=stdout, stderr="")

    return run


def test_the_kiosk_s_screen_is_checked_for_a_live_page_where_the_kiosk_is_installed() -> None:
    """A Chromium that runs but lost its stream (or shows an error page) looks alive to systemd:
    the page's count of live streams from this machine says whether the screen follows the game."""
    kiosk = "senet-pi-kiosk.service"
    running = systemctl_for(kiosk, "LoadState=loaded\nActiveState=active\nSubState=running\n")
    assert screen_checks({"screens": 0}, running, booted=False) == []  # no systemd: nothing to say
    absent = systemctl_for(kiosk, "LoadState=not-found\nActiveState=inactive\nSubState=dead\n")
    assert screen_checks({"screens": 0}, absent, booted=True) == []  # no kiosk: no screen line
    [live] = screen_checks({"screens": 1}, running, booted=True)
    assert (live.name, live.ok) == ("screen", True)
    [lost] = screen_checks({"screens": 0}, running, booted=True)
    assert lost.ok is False
    assert "not live" in lost.text
    assert "sudo systemctl restart senet-pi-kiosk" in lost.text
    [unsaid] = screen_checks({"screens": None}, running, booted=True)
    assert unsaid.ok is None  # a page from before the count
    [no_page] = screen_checks("no page answers at http://127.0.0.1:8080", running, booted=True)
    assert no_page.ok is None  # the page's own line fails already
    stopped = systemctl_for(kiosk, "LoadState=loaded\nActiveState=failed\nSubState=failed\n")
    [down] = screen_checks({"screens": 0}, stopped, booted=True)
    assert down.ok is False
    assert "failed (failed)" in down.text
    assert "journalctl -u senet-pi-kiosk" in down.text

    def silent(argv, **_):
        raise subprocess.TimeoutExpired(argv, 5)

    [unasked] = screen_checks({"screens": 1}, silent, booted=True)
    assert unasked.ok is None
    assert "systemctl did not answer" in unasked.text


def test_switch_faults_and_a_lost_bridge_fail() -> None:
    state = {
        "switch_faults": [17],
        "backend": {"backend": "serial", "connected": False, "problem": "no bridge on /dev/ttyACM0", "faults": []},
    }
    switches, link = switch_and_link_checks(state, [])
    assert switches.ok is False
    assert "17" in switches.text
    assert link.ok is False
    assert "no bridge on /dev/ttyACM0" in link.text
    good = {"switch_faults": [], "backend": {"backend": "serial", "connected": True, "port": "/dev/ttyACM0"}}
    assert [c.ok for c in switch_and_link_checks(good, [])] == [True, True]
    from_journal = switch_and_link_checks("no page", [{"v": "sensor", "square": 9, "reason": "..."}])
    assert from_journal[0].ok is False
    assert "9" in from_journal[0].text


def test_status_beside_a_running_service_reads_its_page_and_journal_and_blocks_nothing(tmp_path) -> None:
    journal, port = tmp_path / "j.sqlite", free_port()
    env = {**os.environ, "SENET_PI_INSTANCE": str(tmp_path / "instance"), "PYTHONPATH": str(ROOT)}
    env.pop("NOTIFY_SOCKET", None)
    service = start_board(journal, port, env, stderr=subprocess.DEVNULL)
    try:
        assert service.stdin is not None
        assert service.stdout is not None
        argv = [sys.executable, "-m", "senet_pi", "status", "--journal", str(journal), "--page-port", str(port)]
        result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
        rows = lines_of(result.stdout)
        assert result.returncode == 0, result.stdout
        assert rows["page"].startswith("ok")
        assert "(sim board)" in rows["page"]
        assert rows["switches"].startswith("ok")
        assert rows["link"] == "--    sim board: no serial link"
        assert "secret (2 players)" in rows["last game"]
        assert "in progress" in rows["last game"]
        # The service goes on journaling after the check: nothing was locked.
        service.stdin.write("throw 2\nwait 100\n")
        service.stdin.flush()
        while "B throws 2" not in (line := service.stdout.readline()):
            assert line, "senet-pi run stopped after the status check"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10) as answer:
            assert answer.status == 200
        end = time.monotonic() + 10
        while "throw" not in [e.kind for e in Journal(journal).events(1)][-1:]:
            assert time.monotonic() < end, "the throw after the status check was not journaled"
            time.sleep(0.05)
    finally:
        service.kill()
        service.wait(timeout=10)
        for pipe in (service.stdin, service.stdout):
            if pipe:
                pipe.close()


@pytest.mark.parametrize(
    ("text", "port"),
    [
        ('SENET_PI_ARGS="--host 0.0.0.0"\n', 8080),
        ('# a comment\nSENET_PI_ARGS="--host 0.0.0.0 --page-port 8000"\n', 8000),
        ("SENET_PI_ARGS='--page-port=9090 --backend serial'\n", 9090),
        ("SENET_PI_ARGS=--host 0.0.0.0 --page-port 8001\n", 8001),  # unquoted: systemd takes the whole line
        ('SENET_PI_ARGS="--page-port"\n', 8080),  # no value: run would refuse it; status keeps the default
        ('SENET_PI_ARGS="--page-port \n', 8080),  # an unclosed quote
    ],
)
def test_status_finds_the_page_port_the_installed_service_was_given(tmp_path, text, port) -> None:
    env = tmp_path / "senet-pi.env"
    env.write_text(text, encoding="utf-8")
    assert page_port(env) == port


def test_status_without_the_exhibit_env_file_checks_port_8080(tmp_path) -> None:
    assert page_port(tmp_path / "none.env") == 8080
    (tmp_path / "bad.env").write_bytes(b"\xff\xfe")
    assert page_port(tmp_path / "bad.env") == 8080


def test_a_page_too_slow_to_answer_is_said_as_possibly_just_started() -> None:
    """Right after an install the first answer can be slow (seen on an emulated Pi): the line says to run it again."""
    from senet_pi.cli.status import page_state

    with socket.socket() as listener:  # accepts, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
        said = page_state(url, timeout=0.2)
    assert isinstance(said, str)
    assert said.startswith(f"no page answers at {url} (timed out after 0.2 s")
    assert "may take a minute to answer; run this again" in said
