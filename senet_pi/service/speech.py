"""The voice: the board says what the banner says when it matters, through Debian's espeak-ng.

Which verdicts are said (`worth_saying`): a throw, a bonus throw, an illegal move with its first
fix only, a question, the computer's move, a win. `Speaker` says one line at a time from a queue
that drops lines gone stale while another was spoken (a throw said after the next throw helps
nobody), at a set volume, in the board's language (espeak-ng's en, de and ar voices), and keeps
quiet in an exhibit's quiet hours. The words come from the caller (the front end names the
players as the page does), so this module knows nothing of the page.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import SpeechError
from ..verdicts import Bonus, Illegal, Prompt, Question, Thrown, Verdict, Win

#: espeak-ng's voice for each language the page speaks.
VOICES = {"en": "en", "de": "de", "ar": "ar"}
#: Seconds a line may wait behind another before it is dropped as stale.
STALE = 4.0
_QUIET = re.compile(r"([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)")


def worth_saying(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """The verdicts of a batch the voice says, as it says them: an illegal move with its first fix only."""
    out: list[Verdict] = []
    for verdict in verdicts:
        if isinstance(verdict, Illegal):
            out.append(replace(verdict, fix=verdict.fix[:1] if verdict.fix else None))
        elif isinstance(verdict, Thrown | Bonus | Question | Prompt | Win):
            out.append(verdict)
    return out


def check_quiet(value: object) -> str | None:
    """SPEAK_QUIET's check: "HH:MM-HH:MM", the hours the voice keeps quiet (over midnight too)."""
    ok = isinstance(value, str) and (value == "" or _QUIET.fullmatch(value) is not None)
    return None if ok else f'SPEAK_QUIET must be hours like "22:00-08:00" (or ""), not {value!r}'


def check_volume(value: object) -> str | None:
    """SPEAK_VOLUME's check: percent, 0-100."""
    ok = isinstance(value, int) and 0 <= value <= 100
    return None if ok else f"SPEAK_VOLUME must be a whole number of percent from 0 to 100, not {value!r}"


def quiet_at(hours: str, now: dt.time) -> bool:
    """Whether `now` falls in the quiet `hours` ("22:00-08:00"; "" for none)."""
    found = _QUIET.fullmatch(hours)
    if found is None:
        return False
    start = dt.time(int(found.group(1)), int(found.group(2)))
    end = dt.time(int(found.group(3)), int(found.group(4)))
    return start <= now < end if start <= end else now >= start or now < end


def espeak_command(text: str, language: str, volume: int, to: Path | None = None) -> list[str]:
    """The espeak-ng command that says `text` (or writes it to a wav file `to`)."""
    command = ["espeak-ng", "-v", VOICES.get(language, "en"), "-a", str(volume * 2)]  # amplitude 0-200
    if to is not None:
        command += ["-w", str(to)]
    return [*command, "--", text]


def speak(text: str, language: str = "en", volume: int = 80, to: Path | None = None) -> None:
    """Say `text` now (or write it to `to`, a wav file); SpeechError says what is wrong."""
    if shutil.which("espeak-ng") is None:
        raise SpeechError("espeak-ng is not installed: sudo apt install espeak-ng")
    done = subprocess.run(espeak_command(text, language, volume, to), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SpeechError(f"espeak-ng failed: {done.stderr.strip() or done.returncode}")


@dataclass
class Line:
    """A line waiting to be said, and when it was queued."""

    text: str
    queued: float


class Speaker:
    """Says lines one at a time in a thread of its own; never two at once; stale lines dropped."""

    def __init__(
        self,
        say: Callable[[str], None],
        quiet: str = "",
        stale: float = STALE,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], dt.time] = lambda: dt.datetime.now().time(),
    ) -> None:
        self._say = say
        self.quiet = quiet
        self.stale = stale
        self._clock = clock
        self._wall = wall
        self._lines: deque[Line] = deque()
        self._ready = threading.Condition()
        self._closed = False
        self.said: list[str] = []  # what was said, the newest last (the last 20)
        self.dropped = 0
        self.started: list[float] = []  # when each line began to be said, on `clock` (the benchmark reads it)
        self._thread = threading.Thread(target=self._run, name="senet-pi voice", daemon=True)
        self._thread.start()

    def add(self, text: str) -> None:
        """Queue `text` unless the quiet hours are on."""
        if not text or quiet_at(self.quiet, self._wall()):
            return
        with self._ready:
            self._lines.append(Line(text, self._clock()))
            self._ready.notify()

    def _next(self) -> Line | None:
        with self._ready:
            while not self._lines and not self._closed:
                self._ready.wait()
            if self._closed:
                return None
            line = self._lines.popleft()
            if self._clock() - line.queued > self.stale:
                self.dropped += 1
                return Line("", line.queued)
            return line

    def _run(self) -> None:
        while True:
            line = self._next()
            if line is None:
                return
            if not line.text:
                continue
            self.started = [*self.started[-19:], self._clock()]
            try:
                self._say(line.text)
            except SpeechError:
                self.dropped += 1
            self.said = [*self.said[-19:], line.text]

    def idle(self) -> bool:
        """Whether nothing waits to be said (the line being said may still be going)."""
        with self._ready:
            return not self._lines

    def close(self) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify()
        self._thread.join(timeout=2)


__all__ = [
    "STALE",
    "VOICES",
    "Speaker",
    "SpeechError",
    "check_quiet",
    "check_volume",
    "espeak_command",
    "quiet_at",
    "speak",
    "worth_saying",
]
