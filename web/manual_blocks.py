"""What the manual's generated blocks say, as Markdown: the blocks Sphinx fills from the code
(```{senet-settings}, ```{senet-command} run, the messages Troubleshooting lists...), filled the
same way for the manual the board serves (`manual`), which has no Sphinx.

The messages read from the code live here, and the Sphinx extension in docs/_ext reads them from
here too, so the built manual and the board's say the same. A block no filler knows is shown as
its own note (the sentence each generated block carries for a code host): the module map. The
commands' options come from the command line's parser, a module above the page: `senet-pi run`
hands them in when it starts the page (senet_pi.cli.docs.add_to_manual, into manual.ADDED_FILLERS).
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from pathlib import Path

import senet_pi

#: Exceptions that are programming mistakes or internal signals, never a message for a user.
NOT_FOR_USERS = frozenset(
    {"AssertionError", "NotImplementedError", "IndexError", "ImportError", "_Down", "DeviceClosed"}
)
#: A reference to the project's history in a description (", issue" and its number): not for a user's page.
HISTORY = re.compile(r",? issue \d+")


def _package_path(name: str) -> Path:
    """A path of the checkout's layout (`senet_pi/cli/run.py`, `web/errors.py`) where it is installed:
    the page's folder `web/` installs as the package `senet_pi_web`."""
    first, _, rest = name.partition("/")
    if first == "web":
        return Path(__file__).resolve().parent / rest
    return Path(senet_pi.__file__).resolve().parent / rest if first == "senet_pi" else Path(name)


def source_files(names: list[str]) -> list[Path]:
    """The Python files named (a file, or every file under a folder), in the checkout's layout."""
    files: list[Path] = []
    for name in names:
        path = _package_path(name)
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

    with (Path(senet_pi.__file__).resolve().parent / "locale" / "senet_pi.pot").open("rb") as pot:
        catalogue = read_po(pot)
    found = set()
    for message in catalogue:
        if not message.id:
            continue
        if any(location.startswith(tuple(prefixes)) for location, _line in message.locations):
            found.add(message.id if isinstance(message.id, str) else message.id[0])
    return sorted(found, key=str.lower)


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _bullets(messages: list[str]) -> str:
    return "\n".join("- `" + m.replace("`", "'") + "`" for m in messages)


def _settings(_argument: str) -> str:
    from senet_pi.settings import SETTINGS

    rows = [[f"`{s.name}`", s.type_name, f"`{s.shown_default}`", s.meaning] for s in SETTINGS]
    return _table(["key", "type", "default", "meaning"], rows)


def _environment(_argument: str) -> str:
    from senet_pi.environment import ENVIRONMENT

    return _table(
        ["variable", "default", "meaning", "read by"],
        [[f"`{v.name}`", v.default, v.meaning, v.used_by] for v in ENVIRONMENT],
    )


def _config_keys(_argument: str) -> str:
    from senet_pi.settings import SETTINGS

    return _table(["key", "must be"], [[f"`{s.name}`", HISTORY.sub("", s.wanted)] for s in SETTINGS])


def _reasons(_argument: str) -> str:
    from senet_pi.rules.plain import PLAIN
    from senet_pi.rules.reasons import Reason

    rows = [[f"`{r.value[1]}`", f"`{r.ruling}`", str(PLAIN.get(r.ruling, ""))] for r in Reason]
    return _table(["the referee says", "rule", "the rule in plain words"], rows)


def _raised(argument: str) -> str:
    return _bullets(raised_messages(source_files(argument.split())))


def _catalogue(argument: str) -> str:
    return _bullets(catalogue_messages(argument.split()))


_AUTO = re.compile(r"^\.\. auto(?:module|class):: (\S+)(?:\n\s+:members:(.*))?", re.MULTILINE)


def python_api(rst: str) -> str:
    """An `eval-rst` block of autodoc directives as Markdown: each object named, with its docstring."""
    import importlib

    out = []
    for target, members in _AUTO.findall(rst):
        module_name, _, attr = target.rpartition(".") if target.count(".") > 1 else (target, "", "")
        try:
            obj = importlib.import_module(target)
        except ImportError:
            obj = getattr(importlib.import_module(module_name), attr)
        out.append(f"**`{target}`**: {inspect.getdoc(obj) or ''}")
        for name in [m.strip() for m in members.split(",") if m.strip()]:
            doc = inspect.getdoc(getattr(obj, name, None)) or ""
            out.append(f"- `{name}`: {doc.splitlines()[0] if doc else ''}")
    return "\n\n".join(out)


#: Each generated block the board's manual fills, by directive: its argument -> Markdown.
FILLERS: dict[str, Callable[[str], str]] = {
    "senet-settings": _settings,
    "senet-environment": _environment,
    "senet-config-keys": _config_keys,
    "senet-reasons": _reasons,
    "senet-raised": _raised,
    "senet-catalogue": _catalogue,
}
