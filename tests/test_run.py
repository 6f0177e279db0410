"""`senet-pi run` and `senet-pi selftest` on the simulated board, as a person would use them."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from senet_pi import __version__
from senet_pi.cli.run import Runner
from senet_pi.cli.selftest import selftest
from senet_pi.errors import CommandError
from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.backends import make_backend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.service.core import Service

ROOT = Path(__file__).resolve().parents[1]


def run_cli(tmp_path: Path, script: str, *extra: str) -> subprocess.CompletedProcess:
    path = tmp_path / "script.txt"
    path.write_text(script)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "senet_pi",
            "run",
            "--backend",
            "sim",
            "--journal",
            str(tmp_path / "j.sqlite"),
            "--script",
            str(path),
            "--page-port",
            "0",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    )


def test_run_plays_moves_on_the_simulated_board_from_a_script(tmp_path):
    result = run_cli(tmp_path, "throw 3\nlift 10\nplace 13\nwait 700\nstatus\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.splitlines()[0] == f"senet-pi {__version__} starting"  # first, before anything slow
    assert "B moves 10 -> 13" in out
    assert "A to throw" in out
    assert "13B" in out.split("> status")[1]  # the board drawn after the move


def test_the_readme_demo_script_plays_as_described(tmp_path):
    script = (ROOT / "examples" / "sim-demo.txt").read_text()
    out = run_cli(tmp_path, script).stdout
    assert "A moves 9 -> 13; B's piece 13 -> 9 (exchange)" in out
    assert ">> put B's piece that stood on 13 on 9 (exchange, P4)" in out
    assert out.rstrip().endswith("21. 22. 23. 24. 25. 26. 27. 28. 29. 30.")
    assert " 9B" in out.split("> status")[-1]
    assert "13A" in out.split("> status")[-1]


def test_run_resumes_the_game_in_its_journal(tmp_path):
    run_cli(tmp_path, "throw 3\nlift 10\nplace 13\nwait 700\n")
    result = run_cli(tmp_path, "status\n")
    assert "note: resumed game 1" in result.stdout
    assert "secret: A to throw" in result.stdout


def test_run_reports_a_wrong_move_and_bad_commands_without_stopping(tmp_path):
    result = run_cli(tmp_path, "throw 3\nlift 10\nplace 14\nwait 700\nfly 3\nplace 99\nthrow\n")
    assert result.returncode == 0
    assert "!! a throw of 3 takes the piece on 10 to 13, not 14 (P3) -> put B's piece on 14 back on 10" in result.stdout
    assert "error: unknown command 'fly'" in result.stdout
    assert "error: a square is a number from 1 to 30" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_run_says_so_when_the_page_port_is_taken(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli(tmp_path, "status\n", "--page-port", str(port))
    assert result.returncode == 1
    assert f"cannot serve the page on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr


def test_run_with_a_bad_pin_map_is_one_clear_line(tmp_path):
    bad = tmp_path / "pins.toml"
    bad.write_text("[matrix]\n")
    result = run_cli(tmp_path, "", "--pinmap", str(bad))
    assert result.returncode == 1
    assert result.stderr.strip().startswith("senet-pi run:")
    assert "[matrix] and a [thrower]" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_runner_refuses_hand_commands_without_a_simulated_board():
    class NoBoard:
        name = "gpio"

        def start(self, service):
            pass

        def close(self):
            pass

    runner = Runner(Service(None), NoBoard(), out=io.StringIO())  # type: ignore[arg-type]
    with pytest.raises(CommandError, match="simulated board"):
        runner.command("lift 3")


def test_selftest_on_a_good_simulated_board_finds_everything_working():
    backend = make_backend("sim")
    out: list[str] = []
    try:
        report = selftest(backend, say=out.append, auto=True)  # type: ignore[arg-type]
    finally:
        backend.close()
    assert report.ok, report.summary()
    assert "switches: 30 of 30 work" in out[-2]
    assert "stick LEDs: all 4 work" in out[-2]
    assert out[-1].startswith("This checked the simulated board")  # said plainly: no real board was checked


def test_selftest_reports_stuck_switches():
    backend = SimBackend(load_pinmap(), occupied=0)
    backend.sim.stick(12, "open")
    backend.sim.stick(7, "closed")
    try:
        report = selftest(backend, say=lambda _: None, auto=True)
    finally:
        backend.close()
    assert not report.ok
    assert report.switches[12].startswith("did not close")
    assert report.switches[7].startswith("stuck closed")
    assert sum(1 for v in report.switches.values() if v == "ok") == 28


def test_selftest_command_walks_the_simulated_board():
    result = subprocess.run(
        [sys.executable, "-m", "senet_pi", "selftest", "--backend", "sim", "--auto"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0
    assert "all good" in result.stdout


def test_quit_on_standard_input_stops_run_and_its_page(tmp_path):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "senet_pi",
            "run",
            "--backend",
            "sim",
            "--journal",
            str(tmp_path / "j.sqlite"),
            "--page-port",
            str(port),
        ],
        input="status\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    assert f"the page: http://127.0.0.1:{port}/" in result.stdout
    assert "serving the page until stopped" not in result.stdout
