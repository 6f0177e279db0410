"""Refresh the translation catalogues: extract every visitor-facing text from the sources and
update `senet_pi/locale/senet_pi.pot` and each language's `.po` (new keys come in untranslated,
keys no source uses any more are dropped). Run from the checkout:

    .venv/bin/python scripts/translations.py            # extract and update
    .venv/bin/python scripts/translations.py --check    # only report what is missing or unused

What counts as a text: the first argument of `Text(...)` and `N_(...)` in senet_pi/ (Python),
of `_(...)` in web/static/*.js and in web/templates/*.html (Jinja), and `Text(...)` in web/*.py.
tests/test_i18n.py uses the same `extract()`, so a key missing or unused fails the tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "senet_pi" / "locale"
DOMAIN = "senet_pi"
#: The extraction mapping: which files, read how, and the calls that mark a text.
SOURCES = {
    "senet_pi": [("**.py", "python")],
    "web": [("**.py", "python"), ("static/**.js", "javascript"), ("templates/**.html", "jinja2")],
}
KEYWORDS = {"Text": None, "N_": None, "_": None}


def extract() -> Catalog:
    """Every marked text in the sources, as Babel's template catalogue."""
    pot = LOCALE / f"{DOMAIN}.pot"
    kept = {}
    if pot.exists():  # keep the template's date, so a refresh that changes nothing changes no file
        with pot.open("rb") as f:
            kept["creation_date"] = read_po(f).creation_date
    template = Catalog(domain=DOMAIN, project="senet-pi", charset="utf-8", **kept)
    for folder, methods in SOURCES.items():
        for filename, lineno, message, comments, context in extract_from_dir(
            ROOT / folder, methods, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
        ):
            if isinstance(message, str) and message:
                where = (f"{folder}/{filename}", lineno)
                template.add(message, None, [where], auto_comments=comments, context=context)
    return template


def languages() -> list[str]:
    """The languages that have a catalogue (a folder under senet_pi/locale)."""
    return sorted(p.name for p in LOCALE.iterdir() if (p / "LC_MESSAGES").is_dir())


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def problems(template: Catalog, language: str) -> list[str]:
    """What is wrong with one language's catalogue: keys missing or untranslated, keys unused."""
    path = po_path(language)
    with path.open("rb") as f:
        po = read_po(f, locale=language, domain=DOMAIN)
    wanted = {m.id for m in template if m.id}
    have = {m.id: m for m in po if m.id}
    out = [f"{language}: missing {key!r}" for key in sorted(wanted - set(have))]
    out += [f"{language}: untranslated {key!r}" for key in sorted(wanted & set(have)) if not have[key].string]
    out += [f"{language}: fuzzy {key!r}" for key in sorted(wanted & set(have)) if have[key].fuzzy]
    out += [f"{language}: unused {key!r}" for key in sorted(set(have) - wanted)]
    return out


def update(template: Catalog) -> None:
    """Write the template and bring each language's catalogue in line with it."""
    with (LOCALE / f"{DOMAIN}.pot").open("wb") as f:
        write_po(f, template, width=120, sort_output=True, include_lineno=False)
    for language in languages():
        path = po_path(language)
        with path.open("rb") as f:
            po = read_po(f, locale=language, domain=DOMAIN)
        po.update(template, no_fuzzy_matching=True)
        with path.open("wb") as f:
            write_po(f, po, width=120, ignore_obsolete=True, sort_output=True, include_lineno=False)


def main(argv: list[str]) -> int:
    template = extract()
    if "--check" not in argv:
        update(template)
    found = [p for language in languages() for p in problems(template, language)]
    print("\n".join(found) if found else f"{len(template)} texts, every one translated in {', '.join(languages())}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
