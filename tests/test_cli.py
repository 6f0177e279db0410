"""The `senet-pi` command as a newcomer meets it in the first hour: wrong input is one line on
standard error and exit 1, a usage error is argparse's exit 2, and nothing is a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from senet_pi.cli.selftest import selftest
from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from tests.cli_helpers import assert_one_line, senet_pi

ROOT = Path(__file__).resolve().parents[1]


def test_a_missing_script_is_one_line_before_anything_starts(tmp_path):
    result = senet_pi("run", "--backend", "sim", "--script", "nosuch.txt", cwd=tmp_path)
    assert_one_line(result, 1, "senet-pi run: cannot read the script nosuch.txt")
    assert result.stdout == ""  # neither the board nor the page was started
    assert not (tmp_path / "state").exists()  # nor the journal


@pytest.mark.parametrize("command", ["run", "selftest"])
def test_the_gpio_backend_off_a_pi_names_the_cause_and_the_fix(tmp_path, command):
    if Path("/proc/device-tree/model").exists():
        pytest.skip("this machine may have GPIO pins")  # the test is about a machine without them
    result = senet_pi(command, "--backend", "gpio", cwd=tmp_path)
    err = assert_one_line(result, 1, f"senet-pi {command}:", "not a Raspberry Pi", "--backend sim")
    assert "pip install" not in err
    assert "Warning" not in err  # off a Pi no pin library helps


def test_selftest_on_the_simulated_board_checks_itself_without_a_terminal(tmp_path):
    result = senet_pi("selftest", cwd=tmp_path, stdin="", timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("Self test of the simulated board: it moves its own pieces")
    assert "all good" in result.stdout
    assert result.stderr == ""


def test_selftest_of_a_real_board_says_what_it_waits_for_and_takes_eof_as_no():
    backend = SimBackend(load_pinmap(), occupied=0)  # as a board with nobody at it

    def closed_stdin(question: str) -> str:
        raise EOFError

    said: list[str] = []
    try:
        report = selftest(backend, say=said.append, ask=closed_stdin, timeout=0.05)
    finally:
        backend.close()
    assert said[0].startswith("Self test of the sim board: waiting for a person at the board")
    assert not report.ok
    assert report.leds == {n: "did not light" for n in range(1, 5)}


def test_selftest_auto_on_a_real_board_is_one_line(tmp_path):
    from senet_pi.errors import SelfTestError

    backend = SimBackend(load_pinmap(), occupied=0)
    backend.sim = None  # type: ignore[assignment]  # what a real board lacks
    try:
        with pytest.raises(SelfTestError, match="--auto works only on the simulated board"):
            selftest(backend, say=lambda _: None, auto=True)
    finally:
        backend.close()


@pytest.mark.parametrize(
    ("args", "named"),
    [(["--bogus"], "--bogus"), (["--bogus", "rules"], "--bogus"), (["run", "--bogus"], "--bogus"), ([], "command")],
)
def test_a_usage_error_exits_2_and_names_what_is_wrong(tmp_path, args, named):
    result = senet_pi(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("senet-pi: error:")
    assert named in result.stderr


def test_the_commands_page_documents_the_exit_statuses_and_every_command():
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert "0 when the command did its work; 1 for bad input" in page
    assert "2 for a usage error" in page
    assert "exit status 70" in page
    assert "SENET_PI_DEBUG=1" in page
    for command in ("run", "selftest", "replay", "games", "export", "stats", "status", "set-pin", "fleet", "rules"):
        assert f"```{{senet-command}} {command}\n" in page, command


def test_help_describes_what_is_built(tmp_path):
    result = senet_pi("--help", cwd=tmp_path)
    assert result.returncode == 0
    assert "(soon)" not in result.stdout
    assert "2 a usage error" in result.stdout


def docs_demo() -> str:
    """The transcript the Commands page shows for the demo script, after its `...` line."""
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    after = page.split("$ senet-pi run --script examples/sim-demo.txt --page-port 0\n...\n", 1)[1]
    return after.split("```\n", 1)[0]


def test_the_docs_demo_prints_what_the_commands_page_shows_every_time(tmp_path):
    shown = docs_demo()
    assert shown.startswith("> new secret\n")
    assert "A moves 9 -> 13; B's piece 13 -> 9 (exchange)" in shown
    demo = str(ROOT / "examples" / "sim-demo.txt")
    for run in ("first", "second"):  # the second resumes the first's game from the default journal
        result = senet_pi("run", "--script", demo, "--page-port", "0", cwd=tmp_path)
        assert result.returncode == 0 and result.stderr == "", (run, result.stderr)
        assert shown in result.stdout, (run, result.stdout)
    assert (tmp_path / "state" / "senet-pi" / "journal.sqlite").exists()
