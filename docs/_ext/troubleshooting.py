"""Sphinx directives that list the messages a user can meet, read from the code, so the lists cannot drift.

- ``senet-reasons``: every reason the referee gives for refusing a move, with the rule behind it
  in plain words (`senet_pi.rules.reasons.Reason`, `senet_pi.rules.plain.PLAIN`).
- ``senet-catalogue FILE ...``: every sentence of the message catalogue (`senet_pi/locale/senet_pi.pot`)
  used in those source files or folders: what the referee, the page and the dashboard say.
- ``senet-raised FILE ...``: every error message those source files raise with its words written out
  (the line the command prints after ``senet-pi COMMAND:``).
- ``senet-config-keys``: each config.toml key and what a value must be, as the message for a wrong
  one says it (`senet_pi_web.CONFIG_TYPES`).

Placeholders stay as ``{name}``: the real message fills them in (a square, a path, a value).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: A reference to the project's history in a description ("the fleet, issue 25"): not for a user's page.
HISTORY = re.compile(r",? issue \d+")

# The messages are read by the page's manual module, which fills the same blocks for the manual
# the board serves: one reading for both.
from senet_pi_web.manual_blocks import catalogue_messages, raised_messages  # noqa: E402
from senet_pi_web.manual_blocks import source_files as _source_files  # noqa: E402


def _literal_item(text: str) -> nodes.list_item:
    """One bullet: the message as literal text, so it reads exactly as printed."""
    return nodes.list_item("", nodes.paragraph("", "", nodes.literal(text, text)))


def _bullets(messages: list[str]) -> nodes.bullet_list:
    listing = nodes.bullet_list()
    listing.extend(_literal_item(message) for message in messages)
    return listing


def _table(header: list[str], rows: list[list[nodes.Node]], widths: list[int]) -> nodes.table:
    """A docutils table of `rows` (each cell one node) under `header`."""
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    group.extend(nodes.colspec(colwidth=width) for width in widths)
    head = nodes.thead()
    group += head
    head += nodes.row("", *(nodes.entry("", nodes.paragraph(text=title)) for title in header))
    body = nodes.tbody()
    group += body
    for cells in rows:
        body += nodes.row("", *(nodes.entry("", cell) for cell in cells))
    return table


class SenetRaised(Directive):
    """``senet-raised FILE ...``: the error messages those files raise."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True  # a note for a code host, where the list does not show: not rendered here

    def run(self) -> list[nodes.Node]:
        try:
            messages = raised_messages(_source_files(self.arguments[0].split()))
        except (OSError, SyntaxError, ValueError) as exc:
            raise self.error(f"senet-raised: {exc}") from None
        if not messages:
            raise self.error(f"senet-raised: no messages in {self.arguments[0]}")
        return [_bullets(messages)]


class SenetCatalogue(Directive):
    """``senet-catalogue PREFIX ...``: the catalogue's sentences used under those paths."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True  # a note for a code host, where the list does not show: not rendered here

    def run(self) -> list[nodes.Node]:
        messages = catalogue_messages(self.arguments[0].split())
        if not messages:
            raise self.error(f"senet-catalogue: no catalogue entries from {self.arguments[0]}")
        return [_bullets(messages)]


class SenetReasons(Directive):
    """``senet-reasons``: each reason a move is refused, its ruling and that ruling in plain words."""

    has_content = True  # a note for a code host, where the list does not show: not rendered here

    def run(self) -> list[nodes.Node]:
        from senet_pi.rules.plain import PLAIN
        from senet_pi.rules.reasons import Reason

        rows: list[list[nodes.Node]] = []
        for reason in Reason:
            sentence = str(reason.value[1])
            ruling = reason.ruling
            if ruling == "{ruling}":  # decided by the square or rule set: the message names it
                ruling_cell = nodes.paragraph(text="named in the message")
                plain = "The rule named in brackets after the sentence."
            else:
                ruling_cell = nodes.paragraph("", "", nodes.literal(ruling, ruling))
                plain = str(PLAIN.get(ruling, ""))
            rows.append(
                [nodes.paragraph("", "", nodes.literal(sentence, sentence)), ruling_cell, nodes.paragraph(text=plain)]
            )
        return [_table(["the referee says", "rule", "the rule in plain words"], rows, [45, 10, 45])]


class SenetConfigKeys(Directive):
    """``senet-config-keys``: each config.toml key and the values it takes, in the words of its message."""

    has_content = True  # a note for a code host, where the list does not show: not rendered here

    def run(self) -> list[nodes.Node]:
        from senet_pi_web import CONFIG_TYPES

        rows: list[list[nodes.Node]] = [
            [nodes.paragraph("", "", nodes.literal(key, key)), nodes.paragraph(text=HISTORY.sub("", wanted))]
            for key, (_types, wanted) in CONFIG_TYPES.items()
        ]
        return [_table(["key", "must be"], rows, [30, 70])]


def setup(app: Any) -> dict[str, Any]:
    """Register the directives (Sphinx calls this for each name in conf.py's `extensions`)."""
    app.add_directive("senet-raised", SenetRaised)
    app.add_directive("senet-catalogue", SenetCatalogue)
    app.add_directive("senet-reasons", SenetReasons)
    app.add_directive("senet-config-keys", SenetConfigKeys)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
