"""Sphinx directives that render pages from the code's own tables, so the docs cannot drift.

- ``senet-settings``: every config.toml key of `senet_pi.settings.SETTINGS` (key, type, default, meaning).
- ``senet-environment``: every environment variable of `senet_pi.environment.ENVIRONMENT`.
- ``senet-commands``: every subcommand of `senet_pi.cli.command.build_parser()` with what it does.
- ``senet-command NAME``: one subcommand's usage, description and every option.
- ``senet-modules``: every package and module of senet_pi and the page, layer by layer, with the
  first sentence of its docstring (the module map of Development).
- ``senet-include FILE`` and ``senet-literalinclude FILE``: MyST's ``include`` and Sphinx's
  ``literalinclude``, with a note for a code host as their content.

Every directive here and in troubleshooting.py takes content: a sentence saying what the code
fills in and where to read it, which a code host (or the Markdown on a Pi) shows in place of the
block, and which is not rendered here (tests/test_docs.py checks that no block is left empty).
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst.directives.misc import Include
from sphinx.application import Sphinx
from sphinx.directives.code import LiteralInclude
from sphinx.util.docutils import SphinxDirective

_CODE = re.compile(r"`([^`]+)`")


def _inline(text: str) -> list[nodes.Node]:
    """`text` with its backquoted parts as code, the rest as plain text."""
    parts: list[nodes.Node] = []
    for i, piece in enumerate(_CODE.split(text)):
        if piece:
            parts.append(nodes.literal(piece, piece) if i % 2 else nodes.Text(piece))
    return parts


def _cell(content: str | list[nodes.Node]) -> nodes.entry:
    para = nodes.paragraph()
    para.extend(_inline(content) if isinstance(content, str) else content)
    entry = nodes.entry()
    entry += para
    return entry


def _table(headers: list[str], rows: list[list[str | list[nodes.Node]]], widths: list[int]) -> nodes.table:
    table = nodes.table()
    group = nodes.tgroup(cols=len(headers))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    row = nodes.row()
    for header in headers:
        row += _cell(header)
    head += row
    body = nodes.tbody()
    group += body
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            row += _cell(cell)
        body += row
    return table


def _code(text: str) -> list[nodes.Node]:
    return [nodes.literal(text, text)]


class SettingsTable(SphinxDirective):
    """Every config.toml key: key, type, default, meaning (and the values it takes)."""

    has_content = True  # the note for a code host: not rendered

    def run(self) -> list[nodes.Node]:
        from senet_pi.settings import SETTINGS

        rows: list[list[str | list[nodes.Node]]] = [
            [_code(s.name), s.type_name, s.shown_default, f"{s.meaning} Takes {s.wanted}."] for s in SETTINGS
        ]
        return [_table(["key", "type", "default", "meaning"], rows, [22, 10, 18, 50])]


class EnvironmentTable(SphinxDirective):
    """Every environment variable read: name, default, meaning, who reads it."""

    has_content = True  # the note for a code host: not rendered

    def run(self) -> list[nodes.Node]:
        from senet_pi.environment import ENVIRONMENT

        rows: list[list[str | list[nodes.Node]]] = [
            [_code(v.name), v.default, v.meaning, v.used_by] for v in ENVIRONMENT
        ]
        return [_table(["variable", "default", "meaning", "read by"], rows, [22, 22, 44, 12])]


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    from senet_pi.cli.command import build_parser

    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise RuntimeError("senet-pi's parser has no subcommands")


def _summaries() -> dict[str, str]:
    from senet_pi.cli.command import build_parser

    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {choice.dest: choice.help or "" for choice in action._choices_actions}
    return {}


class CommandsTable(SphinxDirective):
    """Every subcommand with its one-line help."""

    has_content = True  # the note for a code host: not rendered

    def run(self) -> list[nodes.Node]:
        summaries = _summaries()
        rows: list[list[str | list[nodes.Node]]] = [
            [_code(f"senet-pi {name}"), summaries.get(name, "")] for name in _subcommands()
        ]
        return [_table(["command", "what it does"], rows, [25, 75])]


def _option_help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    formatter = parser._get_formatter()
    text = formatter._expand_help(action) if action.help else ""
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        text = f"{text} (one of {', '.join(map(str, action.choices))})".strip()
    return text


class CommandOptions(SphinxDirective):
    """One subcommand: its usage line, its description and a table of every argument and option."""

    has_content = True  # the note for a code host: not rendered
    required_arguments = 1
    final_argument_whitespace = True  # `journal recover`: a subcommand's own subcommand

    def run(self) -> list[nodes.Node]:
        name, *deeper = self.arguments[0].split()
        commands = _subcommands()
        if name not in commands:
            raise self.error(f"senet-pi has no subcommand {name!r} (it has {', '.join(commands)})")
        parser = commands[name]
        for word in deeper:
            subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            inner = {choice: sub for a in subs for choice, sub in a.choices.items()}
            if word not in inner:
                raise self.error(f"senet-pi {name} has no subcommand {word!r}")
            parser = inner[word]
        usage = " ".join(parser.format_usage().split())
        usage = usage.removeprefix("usage: ")
        result: list[nodes.Node] = [nodes.literal_block(usage, usage, language="text")]
        summary = _summaries().get(name, "")
        description = parser.description or (summary[:1].upper() + summary[1:] + "." if summary else "")
        if description:
            para = nodes.paragraph()
            para.extend(_inline(description))
            result.append(para)
        rows: list[list[str | list[nodes.Node]]] = []
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if action.option_strings:
                metavar = "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"
                shown = ", ".join(f"{option}{metavar}" for option in action.option_strings)
            else:
                shown = str(action.metavar or action.dest)
                if action.nargs in ("?", "*"):
                    shown = f"[{shown}]" if action.nargs == "?" else f"[{shown} ...]"
            rows.append([_code(shown), _option_help(parser, action)])
        if rows:
            result.append(_table(["argument or option", "meaning"], rows, [30, 70]))
        return result


#: The packages in layer order, lowest first (tests/test_packaging.py's LAYERS), then the shared
#: modules at the top of senet_pi/ and the page.
_PACKAGES = ["rules", "referee", "opponent", "service", "hardware", "fleet", "cli", "server"]
_ROOT = Path(__file__).resolve().parents[2]


def _first_sentence(path: Path) -> str:
    """The first sentence of a module's docstring, on one line."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    text = " ".join(doc.split("\n\n")[0].split())
    match = re.match(r"(.+?\.)(\s|$)", text)
    return match.group(1).rstrip(".") if match else text


def _module_lines(folder: Path, prefix: str, indent: str) -> list[str]:
    lines = []
    for path in sorted(folder.glob("*.py")):
        if path.name == "__init__.py":
            continue
        lines.append(f"{indent}{prefix}{path.name:<16} {_first_sentence(path)}")
    for sub in sorted(p for p in folder.iterdir() if (p / "__init__.py").is_file()):
        lines.append(f"{indent}{prefix}{sub.name + '/':<16} {_first_sentence(sub / '__init__.py')}")
        lines += _module_lines(sub, "", indent + "  ")
    return lines


class ModuleMap(SphinxDirective):
    """Every package and module with what it is for, read from the docstrings: the map never drifts."""

    has_content = True  # the note for a code host: not rendered

    def run(self) -> list[nodes.Node]:
        lines = ["senet_pi/          " + _first_sentence(_ROOT / "senet_pi" / "__init__.py")]
        for name in _PACKAGES:
            folder = _ROOT / "senet_pi" / name
            lines.append(f"  {name + '/':<16} {_first_sentence(folder / '__init__.py')}")
            lines += _module_lines(folder, "", "    ")
        lines.append("  (shared by the layers)")
        for path in sorted((_ROOT / "senet_pi").glob("*.py")):
            if path.name not in ("__init__.py", "__main__.py"):
                lines.append(f"  {path.name:<16} {_first_sentence(path)}")
        lines.append("web/               " + _first_sentence(_ROOT / "web" / "__init__.py"))
        lines += _module_lines(_ROOT / "web", "", "  ")
        text = "\n".join(lines)
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


class IncludeWithNote(Include):
    """MyST's `include` (it reads the file as Markdown), with a note for a code host as content."""

    has_content = True


class LiteralIncludeWithNote(LiteralInclude):
    """Sphinx's `literalinclude`, with a note for a code host as content."""

    has_content = True


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("senet-settings", SettingsTable)
    app.add_directive("senet-environment", EnvironmentTable)
    app.add_directive("senet-commands", CommandsTable)
    app.add_directive("senet-command", CommandOptions)
    app.add_directive("senet-modules", ModuleMap)
    app.add_directive("senet-include", IncludeWithNote)
    app.add_directive("senet-literalinclude", LiteralIncludeWithNote)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
