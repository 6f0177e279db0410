"""The voice at `senet-pi run` (`SPEAK = true`) and `senet-pi say`: the service's verdicts that
matter, in the words the page and the fleet use (players by name, in the board's language),
said one at a time by espeak-ng (`service/speech.py`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import cast

from ..errors import SenetError, SpeechError
from ..fleet.published import verdict_words
from ..i18n import DEFAULT, LANGUAGES
from ..service.core import Service
from ..service.speech import Speaker, speak, worth_saying
from ..verdicts import Verdict


class Voice:
    """Says a service's verdicts that matter; `close` stops it (a line being said ends first)."""

    def __init__(self, service: Service, speaker: Speaker, words: Callable[[Verdict], str | None]) -> None:
        self.speaker = speaker
        self._words = words
        self._unsubscribe = service.subscribe(self._heard)

    def _heard(self, verdicts: list[Verdict]) -> None:
        for verdict in worth_saying(verdicts):
            self.speaker.add(self._words(verdict) or "")

    def close(self) -> None:
        self._unsubscribe()
        self.speaker.close()


def start_voice(service: Service, config: Mapping[str, object], language: str = DEFAULT) -> Voice | None:
    """The voice when config.toml says `SPEAK = true`, else None."""
    if config.get("SPEAK") is not True:
        return None
    volume = cast(int, config.get("SPEAK_VOLUME", 80))
    speaker = Speaker(lambda text: speak(text, language, volume), quiet=str(config.get("SPEAK_QUIET") or ""))
    return Voice(service, speaker, verdict_words(language))


def cmd_say(args: argparse.Namespace) -> int:
    """`senet-pi say TEXT [--to FILE.wav]`: staff try the speaker (or write what it would say)."""
    if args.volume is not None and not 0 <= args.volume <= 100:
        raise SenetError("--volume is a whole number of percent from 0 to 100")
    try:
        speak(args.text, args.language or DEFAULT, 80 if args.volume is None else args.volume, args.to)
    except SpeechError as exc:
        raise SenetError(str(exc)) from None
    return 0


def add_say(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `say` subcommand."""
    say = sub.add_parser(
        "say",
        help="say TEXT through the speaker (espeak-ng), to try it",
        description="Say TEXT as the board's voice would (SPEAK = true), or write it to a wav file.",
    )
    say.add_argument("text", metavar="TEXT", help="what to say")
    say.add_argument("--to", type=Path, metavar="FILE.wav", help="write the speech to this wav file instead")
    say.add_argument("--language", choices=LANGUAGES, help="the voice's language (default: en)")
    say.add_argument("--volume", type=int, metavar="PERCENT", help="0-100 (default 80)")
    say.set_defaults(func=cmd_say)
