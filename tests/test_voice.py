"""The voice: which verdicts are said and in what words, one line at a time, stale lines dropped,
quiet hours kept, and espeak-ng (Debian's) writing a wav in each of the page's languages."""

from __future__ import annotations

import datetime as dt
import threading
import wave

import pytest

from senet_pi.cli.command import main
from senet_pi.cli.voice import Voice, start_voice
from senet_pi.service import Service
from senet_pi.service.speech import Speaker, espeak_command, quiet_at, speak, worth_saying
from senet_pi.verdicts import Fix, Illegal, Settled, Thrown


@pytest.mark.parametrize("language", ["en", "de", "ar"])
def test_espeak_ng_writes_a_wav_in_each_language(language, tmp_path):
    out = tmp_path / "said.wav"
    speak({"en": "Green throws three", "de": "Grün wirft drei", "ar": "الأخضر يرمي ثلاثة"}[language], language, 80, out)
    with wave.open(str(out)) as said:
        assert said.getnchannels() == 1
        assert said.getnframes() / said.getframerate() > 0.3, "at least a word's worth of sound"


def test_say_writes_what_the_speaker_would_say(tmp_path, capsys):
    out = tmp_path / "try.wav"
    assert main(["say", "the speaker works", "--to", str(out)]) == 0
    assert out.stat().st_size > 1000
    assert main(["say", "too loud", "--volume", "101"]) == 1
    assert "--volume is a whole number of percent from 0 to 100" in capsys.readouterr().err


def test_the_volume_and_the_voice_reach_espeak_ng():
    command = espeak_command("hallo", "de", 50)
    assert command[:5] == ["espeak-ng", "-v", "de", "-a", "100"]
    assert command[-2:] == ["--", "hallo"]  # a text starting with "-" is never an option


def test_an_illegal_move_is_said_with_its_first_fix_only_and_fixes_settled_boards_are_not_said():
    illegal = Illegal("a throw of 3 takes 10 to 13", "P2", [10], [14], ["put it back on 10", "then 13"])
    said = worth_saying([Thrown("B", 3), illegal, Fix("put it back on 10", 14, 10), Settled()])
    assert said == [Thrown("B", 3), Illegal("a throw of 3 takes 10 to 13", "P2", [10], [14], ["put it back on 10"])]


class Mouth:
    """A speaker's `say` that records what it said, how many spoke at once, and can be held."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.speaking = 0
        self.most = 0
        self.hold = threading.Event()
        self.hold.set()
        self.started = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, text: str) -> None:
        with self.lock:
            self.speaking += 1
            self.most = max(self.most, self.speaking)
        self.started.set()
        self.hold.wait(5)
        with self.lock:
            self.speaking -= 1
            self.said.append(text)


def test_lines_are_said_one_at_a_time_and_those_gone_stale_are_dropped():
    now = [0.0]
    mouth = Mouth()
    mouth.hold.clear()
    speaker = Speaker(mouth, clock=lambda: now[0], stale=4.0)
    speaker.add("Green throws 3")
    assert mouth.started.wait(5)
    speaker.add("Green throws again")  # queued while the first is said...
    now[0] = 10.0  # ... and stale by the time it could be said
    speaker.add("White wins")
    mouth.hold.set()
    for _ in range(500):
        if mouth.said == ["Green throws 3", "White wins"]:
            break
        threading.Event().wait(0.01)
    speaker.close()
    assert mouth.said == ["Green throws 3", "White wins"]
    assert mouth.most == 1, "never two at once"
    assert speaker.dropped == 1


def test_quiet_hours_keep_the_voice_quiet_even_over_midnight():
    assert quiet_at("22:00-08:00", dt.time(23, 30))
    assert quiet_at("22:00-08:00", dt.time(7, 59))
    assert not quiet_at("22:00-08:00", dt.time(12, 0))
    assert quiet_at("12:00-13:00", dt.time(12, 30))
    assert not quiet_at("", dt.time(12, 30))
    mouth = Mouth()
    speaker = Speaker(mouth, quiet="22:00-08:00", wall=lambda: dt.time(23, 0))
    speaker.add("Green throws 3")
    speaker.close()
    assert mouth.said == []


def test_the_board_says_a_throw_and_a_win_in_its_language_with_the_players_by_name():
    service = Service(None, variant="secret")
    mouth = Mouth()
    voice = start_voice(service, {"SPEAK": True, "SPEAK_VOLUME": 10}, "de")
    assert isinstance(voice, Voice)
    voice.speaker.close()
    voice.speaker = Speaker(mouth)  # the same voice, heard by the test instead of the speaker
    service.handle("throw", 3)
    service.handle("lift", 10)  # no verdict worth saying
    for _ in range(500):
        if mouth.said:
            break
        threading.Event().wait(0.01)
    voice.close()
    assert mouth.said == ["Grün wirft 3"]
    assert start_voice(service, {}, "de") is None, "quiet unless SPEAK = true"
