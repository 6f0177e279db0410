"""A simulated day at the museum: the real `senet-pi run` on the simulated board in
exhibit mode, driven line by line on its standard input and read on its standard output, through a
game played to its win, idle spells that reset, an abandoned game, a knocked board put right with
the page's setup fixes, and three power cuts (kill -9) mid-game that each resume from the journal.
At the end it still plays, and the statistics count the finished game and the abandoned one.

The idle time is 0.05 minutes (3 s); every wait is for a line the service prints or a state the
page reports, with a deadline only as a safety net."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from senet_pi.rules import find_ruleset
from senet_pi.service.journal import Journal
from senet_pi.service.stats import day_stats

ROOT = Path(__file__).resolve().parents[1]
IDLE_MINUTES = 0.05
DEADLINE = 20.0  # seconds: a safety net for each awaited line, never a pace


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Exhibit:
    """One run of `senet-pi run` (until the power is cut): commands in, lines out."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "senet_pi", "run", "--backend", "sim", "--ruleset", "houses"),
                *("--journal", str(folder / "journal.sqlite"), "--page-port", str(self.port)),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "SENET_PI_INSTANCE": str(folder / "instance")},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.said: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.expect(r"^the page: http://")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def expect(self, pattern: str) -> str:
        """The next line matching `pattern` (the lines before it are kept in `said`)."""
        end = time.monotonic() + DEADLINE
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line like {pattern!r}; it said:\n" + "\n".join(self.said[-30:])) from None
            self.said.append(line)
            if re.search(pattern, line):
                return line

    def do(self, *commands: str) -> list[str]:
        """Type `commands`, then `status`; the lines printed until the board of that status."""
        assert self.proc.stdin is not None
        start = len(self.said)
        self.proc.stdin.write("\n".join([*commands, "status"]) + "\n")
        self.proc.stdin.flush()
        self.expect(r"^houses: [AB] to ")
        for _ in range(3):  # the board's three rows
            self.expect(r"^ ?\d")
        return self.said[start:]

    def state(self) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/state", timeout=5) as answer:
            return json.load(answer)

    def set_up(self) -> list[str]:
        """Put the board right as the page says, one fix at a time; the fixes followed, in order."""
        followed: list[str] = []
        while (setup := self.state()["setup"]) is not None:
            followed.append(setup["text"])
            assert len(followed) <= 30, followed
            self.do(("lift " if setup["action"] == "remove" else "place ") + str(setup["square"]))
            end = time.monotonic() + DEADLINE
            while self.state()["setup"] == setup:  # the scanner's report of the hand reaches the service
                assert time.monotonic() < end, f"the fix {setup} was not seen"
                time.sleep(0.02)
        return followed

    def power_cut(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.close()

    def quit(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        return self.close()

    def close(self) -> int:
        """Wait for the process to end (killed if it must), and close its pipes."""
        try:
            status = self.proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            status = self.proc.wait()
        self.reader.join(timeout=DEADLINE)
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except BrokenPipeError:
                pass
        return status


@pytest.mark.slow
def test_a_simulated_day_of_visitors(tmp_path: Path) -> None:
    (tmp_path / "instance").mkdir()
    (tmp_path / "instance" / "config.toml").write_text(f"EXHIBIT = true\nIDLE_MINUTES = {IDLE_MINUTES}\n")
    # The morning's first visitors find a game near its end (examples/houses-short-game.json).
    example = json.loads((ROOT / "examples" / "houses-short-game.json").read_text())
    game = find_ruleset("houses")(2, {}, example["position"])
    with Journal(tmp_path / "journal.sqlite") as journal:
        journal.start_game("houses", 2, game.options, example["position"])
    runs: list[Exhibit] = []

    def power_cut(day: Exhibit, game: int) -> Exhibit:
        """kill -9, then the service starts again (as systemd would) and resumes `game`."""
        day.power_cut()
        again = Exhibit(tmp_path)
        runs.append(again)
        assert any(line.startswith(f"note: resumed game {game} (houses)") for line in again.said), again.said
        return again

    try:
        # Game 1: played to its end, with a power cut in the middle.
        day = Exhibit(tmp_path)
        runs.append(day)
        said = day.do("throw 3", "lift 28", "wait 600", "throw 5", "lift 26", "wait 600")
        assert "A moves 28 -> off" in said
        assert "B moves 26 -> off" in said
        day = power_cut(day, 1)
        assert any(re.fullmatch(r"note: resumed game 1 \(houses\) after \d+ inputs and 2 moves", x) for x in day.said)
        said = day.do("throw 2", "slide 20 22", "wait 600", "throw 4", "slide 24 26", "wait 600")
        said += day.do("throw 5", "lift 26", "wait 600")
        assert "*** A wins ***" in said
        # An idle spell: the won game is saved, a new one waits, untouched, its board not set up.
        day.expect(r"^zz nobody played for 0.05 minutes: game 1 is saved and a new game begins$")
        day.expect(r"^new game: variant=houses")
        assert day.state()["touched"] is False
        assert day.state()["game"] == 2
        fixes = day.set_up()
        assert fixes[0].startswith("take the piece off square")
        assert fixes[-1].startswith("put a piece on square")
        # A knocked board: a piece shifted from 3 to 15, put right with the page's fixes, one at a time.
        day.do("slide 3 15")
        assert day.set_up() == ["take the piece off square 15", "put a piece on square 3"]
        # Game 2: begun, a power cut, then abandoned.
        said = day.do("throw 1", "slide 10 11", "wait 600")
        assert "B moves 10 -> 11" in said
        day = power_cut(day, 2)
        day.expect(r"^zz nobody played for 0.05 minutes: game 2 is saved")
        day.expect(r"^new game: variant=houses")
        assert day.set_up() == ["take the piece off square 11", "put a piece on square 10"]
        # Game 3: begun, a power cut, resumed, and still playing at closing time.
        said = day.do("throw 1", "slide 10 11", "wait 600")
        assert "B moves 10 -> 11" in said
        day = power_cut(day, 3)
        assert day.state()["squares"]["11"]["owner"] == "B"
        assert day.state()["setup"] is None
        said = day.do("throw 2", "slide 11 13", "wait 600")
        assert "B moves 11 -> 13" in said
        assert day.state()["game"] == 3
        assert day.quit() == 0
    finally:
        for run in runs:
            if run.proc.poll() is None:
                run.proc.kill()
            run.close()
    (today,) = day_stats(tmp_path / "journal.sqlite")
    assert (today.started, today.finished, today.abandoned, today.open) == (3, 1, 1, 1)
    stats = subprocess.run(
        [sys.executable, "-m", "senet_pi", "stats", "--csv", "--journal", str(tmp_path / "journal.sqlite")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stats.returncode == 0 and ",3,1,1,1," in stats.stdout.splitlines()[1], stats.stdout
