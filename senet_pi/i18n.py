"""The visitor-facing texts in other languages: Babel catalogues read at run time, no build step.

Sentences are `Text` (English strings that keep their template); `translate()` says a verdict or
snapshot again in a language. Catalogues: `senet_pi/locale/<lang>/LC_MESSAGES/senet_pi.po`,
refreshed by `scripts/translations` (see README, "Translations").
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from .rules.text import N_, Text, form, joined

__all__ = [
    "DEFAULT",
    "LANGUAGES",
    "N_",
    "Text",
    "catalogue",
    "direction",
    "form",
    "gettext",
    "joined",
    "name",
    "translate",
]

#: The languages the texts exist in; English is the source.
LANGUAGES = ("en", "de", "ar")
DEFAULT = "en"
DOMAIN = "senet_pi"

#: Each language's own name and the languages written right to left, as Babel's locale data says
#: (tests/test_at_rest.py checks they agree for every language in LANGUAGES). Written out because
#: asking Babel loads its locale data for each language, about 8.5 MiB kept for as long as the
#: board runs: more than the rest of the page's first view. Babel answers for any other language.
OWN_NAMES = {"en": "English", "de": "Deutsch", "ar": "العربية"}
RIGHT_TO_LEFT = frozenset({"ar"})


def check(language: str) -> str:
    """`language` if it is one of LANGUAGES, else ValueError naming those there are."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}: use one of {', '.join(LANGUAGES)}")
    return language


@cache
def catalogue(language: str) -> dict[str, str]:
    """msgid -> translation for `language` (only translated, non-fuzzy entries); empty for English
    or a language without a catalogue."""
    if language == DEFAULT or language not in LANGUAGES:
        return {}
    from babel.messages.pofile import read_po  # here, not at import: an English board never reads one

    po = resources.files("senet_pi") / "locale" / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    try:
        with po.open("rb") as f:
            catalog = read_po(f, locale=language, domain=DOMAIN)
    except FileNotFoundError:
        return {}
    return {
        str(m.id): str(m.string)
        for m in catalog
        if m.id and isinstance(m.id, str) and m.string and not m.fuzzy and isinstance(m.string, str)
    }


def gettext(msgid: str, language: str, /, **params: object) -> str:
    """One message in `language` with its params filled in; English where there is no translation."""
    return _say(msgid, catalogue(language).get(msgid), {k: translate(v, language) for k, v in params.items()})


def translate(value: object, language: str) -> object:
    """`value` (a verdict, a snapshot: dicts, lists, strings) with every `Text` in it said in
    `language`. Plain strings stay as they are; English, or an unknown language, returns `value`."""
    if language == DEFAULT or language not in LANGUAGES:
        return value
    return _walk(value, language)


def _walk(value: object, language: str) -> object:
    if isinstance(value, Text):
        params = {k: _walk(v, language) for k, v in value.params.items()}
        return _say(value.msgid, catalogue(language).get(value.msgid), params)
    if isinstance(value, dict):
        return {k: _walk(v, language) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(v, language) for v in value]
    return value


def _say(msgid: str, template: str | None, params: dict[str, object]) -> str:
    """The template (else the msgid) filled in; a translation whose placeholders do not match the
    msgid's falls back to English rather than crash a verdict."""
    for candidate in (template, msgid):
        if candidate is None:
            continue
        try:
            return candidate.format(**params) if params else candidate
        except (KeyError, IndexError, ValueError, AttributeError):
            continue
    return msgid


@cache
def name(language: str) -> str:
    """The language's own name, for the switch: "English", "Deutsch", "العربية"."""
    if language in OWN_NAMES:
        return OWN_NAMES[language]
    from babel import Locale  # a language not written out above: Babel's locale data, read now

    return str(Locale.parse(language).display_name)


@cache
def direction(language: str) -> str:
    """ "rtl" or "ltr", for `<html dir>`."""
    if language in OWN_NAMES:
        return "rtl" if language in RIGHT_TO_LEFT else "ltr"
    from babel import Locale

    return "rtl" if Locale.parse(language).text_direction == "rtl" else "ltr"
