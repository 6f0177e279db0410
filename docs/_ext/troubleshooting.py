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

import ast
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

#: Exceptions that are programming mistakes or internal signals, never a message for a user.
NOT_FOR_USERS = {"AssertionError", "NotImplementedError", "IndexError", "ImportError", "_Down", "DeviceClosed"}


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


def _source_files(arguments: list[str]) -> list[Path]:
    """The Python files named (a file, or every file under a folder), relative to the repository."""
    files: list[Path] = []
    for name in arguments:
        path = ROOT / name
        if not path.exists():
            raise ValueError(f"{name} does not exist in the repository")
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def _placeholder(expr: ast.expr) -> str:
    """A short name for an f-string's value: `{path}` for `path`, `exc.strerror`, or `str(path)`."""
    match expr:
        case ast.Name(id=name):
            return name
        case ast.Attribute(attr=attr):
            return attr
        case ast.Call(args=[first, *_]):
            return _placeholder(first)
        case ast.Subscript(slice=ast.Constant(value=str(key))):
            return key
        case ast.BoolOp(values=[first, *_]):
            return _placeholder(first)
    return "value"


def _message(node: ast.expr) -> str | None:
    """The words of a message written in the code (a string or f-string), placeholders as `{name}`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                parts.append("{" + _placeholder(value.value) + "}")
        return "".join(parts)
    return None


def raised_messages(files: list[Path]) -> list[str]:
    """Every message `raise SomeError("...")` carries in `files`, once each, in the order of the code."""
    seen: dict[str, None] = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
                continue
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            text = _message(node.exc.args[0])
            if text and name not in NOT_FOR_USERS:
                seen.setdefault(text, None)
    return list(seen)


def catalogue_messages(prefixes: list[str]) -> list[str]:
    """The catalogue's English sentences used in any source file under `prefixes`, sorted."""
    from babel.messages.pofile import read_po

    with (ROOT / "senet_pi" / "locale" / "senet_pi.pot").open("rb") as pot:
        catalogue = read_po(pot)
    found = set()
    for message in catalogue:
        if not message.id:
            continue
        if any(location.startswith(tuple(prefixes)) for location, _line in message.locations):
            found.add(message.id if isinstance(message.id, str) else message.id[0])
    return sorted(found, key=str.lower)


class SenetRaised(Directive):
    """``senet-raised FILE ...``: the error messages those files raise."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = False

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
    has_content = False

    def run(self) -> list[nodes.Node]:
        messages = catalogue_messages(self.arguments[0].split())
        if not messages:
            raise self.error(f"senet-catalogue: no catalogue entries from {self.arguments[0]}")
        return [_bullets(messages)]


class SenetReasons(Directive):
    """``senet-reasons``: each reason a move is refused, its ruling and that ruling in plain words."""

    has_content = False

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

    has_content = False

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
