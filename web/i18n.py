"""The page's language: chosen per request (`?lang=`, then the `senet-lang` cookie, then the
config's LANGUAGE), shown through Jinja's `_()` and a catalogue embedded for app.js, and applied
to every JSON answer (the snapshot, verdicts, /api/rulings) by translating its `Text`s."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from flask import Flask, Response, current_app, g, has_request_context, request
from flask.json.provider import DefaultJSONProvider
from markupsafe import Markup

from senet_pi import i18n

COOKIE = "senet-lang"


def language() -> str:
    """This request's language: `?lang=`, else the cookie, else the config's LANGUAGE (else English)."""
    for asked in (request.args.get("lang"), request.cookies.get(COOKIE)):
        if asked in i18n.LANGUAGES:
            return asked
    return str(current_app.config.get("LANGUAGE") or i18n.DEFAULT)


class TranslatingJSON(DefaultJSONProvider):
    """Flask's JSON, with every `Text` said in the request's language (outside a request: English)."""

    def dumps(self, obj: object, **kwargs: object) -> str:
        if has_request_context():
            obj = i18n.translate(obj, language())
        return super().dumps(obj, **kwargs)


def _remember(response: Response) -> Response:
    """`?lang=` sets the cookie, so the language stays for the live stream and the next page."""
    asked = request.args.get("lang")
    if asked in i18n.LANGUAGES and request.cookies.get(COOKIE) != asked:
        response.set_cookie(COOKIE, asked, max_age=365 * 24 * 3600, samesite="Strict")
    return response


def _template_globals() -> dict[str, object]:
    lang = g.get("language") or language()

    def gettext(msgid: str, /, **params: object) -> str:
        return i18n.gettext(msgid, lang, **params)

    return {
        "_": gettext,
        "lang": lang,
        "dir": i18n.direction(lang),
        "languages": [(code, i18n.name(code)) for code in i18n.LANGUAGES],
        "texts": _texts(lang),
    }


@cache
def script_keys() -> frozenset[str]:
    """The texts the page's scripts say themselves: every `_("...")` in static/*.js (Babel's own
    extractor, as scripts/translations.py uses). Everything else reaches the page already said."""
    from babel.messages.extract import extract

    keys: set[str] = set()
    for script in (resources.files(__package__) / "static").iterdir():
        if script.name.endswith(".js"):
            with script.open("rb") as f:
                for _line, message, _comments, _context in extract("javascript", f, keywords={"_": None}):
                    if isinstance(message, str):
                        keys.add(message)
    return frozenset(keys)


@cache
def _texts(lang: str) -> Markup:
    """The catalogue for app.js: JSON with "</" escaped, for <script type="application/json">
    (made once per language, not at every page load). Only the scripts' own texts: the whole
    catalogue (the referee's sentences, the rules) made a German page 51 kB and an Arabic one 74 kB,
    all parsed before the board is drawn, which held back the first draw on a slow CPU. English has
    no catalogue: its page says "{}" without running Babel's extractor (1 MiB a board keeps for good)."""
    catalogue = i18n.catalogue(lang)
    if not catalogue:
        return Markup("{}")
    wanted = script_keys()
    texts = {key: said for key, said in catalogue.items() if key in wanted}
    return Markup(json.dumps(texts, ensure_ascii=False).replace("</", "<\\/"))


def init_app(app: Flask) -> None:
    app.json = TranslatingJSON(app)
    app.after_request(_remember)
    app.context_processor(_template_globals)
