"""The manual, served by the board itself (`/manual/`): the Markdown pages of docs/ as HTML, with
no internet and no Sphinx, for whoever stands by the table with a phone or a laptop.

The pages are the same files Sphinx builds the website from. A wheel carries them as package data
(`senet_pi_web/manual/docs`, `.../hardware`: setup.py copies them in); a checkout serves its own
docs/ and hardware/. The URL keeps the files' layout (`/manual/docs/installing.md`), so the pages'
own relative links (`commands.md#run`, `../hardware/schematic.svg`) work unchanged. The blocks
Sphinx fills from the code are filled here by `manual_blocks`; raw HTML in the Markdown is not
rendered (escaped), so a page can carry nothing the Content-Security-Policy would have to allow.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, redirect, render_template, send_from_directory, url_for
from flask.typing import ResponseReturnValue
from markupsafe import Markup, escape

from .operator import csrf_token

bp = Blueprint("manual", __name__, url_prefix="/manual")

#: Files served as they are beside the pages: the pictures and the hardware's own files.
PLAIN_FILES = {".png": "image/png", ".svg": "image/svg+xml", ".toml": "text/plain"}
ADMONITIONS = ("note", "tip", "warning", "important")
_DIRECTIVE = re.compile(r"^\{([a-z-]+)\}\s*(.*)$")


def manual_root() -> Path:
    """The folder holding `docs/` and `hardware/`: the copy a wheel carries, else the checkout."""
    packaged = Path(__file__).resolve().parent / "manual"
    return packaged if (packaged / "docs" / "index.md").is_file() else Path(__file__).resolve().parents[1]


def _include(path: Path, body: str, literal: bool, options: dict[str, str]) -> str:
    """An included file as Markdown: a literal one as a code block, a Markdown one as it is."""
    if not path.is_file():
        return body
    text = path.read_text(encoding="utf-8")
    if literal:
        return f"```{options.get('language', 'text')}\n{text.rstrip()}\n```"
    offset = int(options.get("heading-offset", "0"))
    return re.sub(r"^(#+) ", lambda m: "#" * min(6, len(m.group(1)) + offset) + " ", text, flags=re.MULTILINE)


def _toctree(body: list[str]) -> str:
    pages = [line.strip() for line in body if line.strip() and not line.startswith(":")]
    return "\n".join(f"- [{page}]({page}.md)" for page in pages)


#: Fillers the front end serving the page adds when it starts it: the command line's options, from its
#: own parser (senet_pi.cli.docs), which the page may not import (it sits above it). Name -> filler.
ADDED_FILLERS: dict[str, Callable[[str], str]] = {}


def block(info: str, content: str, page: Path) -> str | None:
    """What a directive's block (```{name} argument) says on the board, as Markdown; None for a
    plain code block. A generated block no filler knows shows its own note for a code host."""
    from .manual_blocks import FILLERS, python_api

    found = _DIRECTIVE.match(info.strip())
    if not found:
        return None
    name, argument = found.groups()
    lines = content.splitlines()
    options = dict(re.findall(r"^:([a-z-]+):\s*(.*)$", content, flags=re.MULTILINE))
    body = "\n".join(line for line in lines if not re.match(r"^:[a-z-]+:", line)).strip()
    filler = ADDED_FILLERS.get(name) or FILLERS.get(name)
    if filler is not None:
        return filler(argument)
    if name in ("senet-include", "senet-literalinclude"):
        return _include((page.parent / argument).resolve(), body, name.endswith("literalinclude"), options)
    if name == "toctree":
        return "" if "hidden" in options or ":hidden:" in content else _toctree(lines)
    if name == "eval-rst":
        return python_api(content)
    return body


def slug(title: str) -> str:
    """A heading's anchor as the built site makes it (`The secret_key file` -> `the-secret-key-file`)."""
    words = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace("_", "-")
    return re.sub(r"-+", "-", "-".join(words.split()))


@cache
def _renderer() -> Any:
    """markdown-it as MyST reads the pages: tables, definition lists, `:::` fences, heading anchors
    to level 4 (the same slugs, so `page.md#a-heading` lands), raw HTML escaped."""
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from mdit_py_plugins.anchors import anchors_plugin
    from mdit_py_plugins.colon_fence import colon_fence_plugin
    from mdit_py_plugins.deflist import deflist_plugin

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.use(anchors_plugin, max_level=4, slug_func=slug).use(deflist_plugin).use(colon_fence_plugin)
    assert isinstance(md.renderer, RendererHTML)  # narrows the type: the default renderer, with its rules
    default_fence = md.renderer.rules["fence"]

    def fence(_renderer: Any, tokens: Any, idx: int, options: Any, env: dict[str, Any]) -> str:
        token = tokens[idx]
        said = block(token.info, token.content, env["page"])
        if said is None:
            return str(default_fence(tokens, idx, options, env))
        html = str(md.render(said, env))
        name = token.info.strip()[1:].split("}")[0]
        return f'<div class="admonition">{html}</div>' if name in ADMONITIONS else html

    md.add_render_rule("fence", fence)
    md.add_render_rule("colon_fence", fence)
    return md


def render_page(path: Path) -> tuple[str, Markup]:
    """A page of the manual as (title, HTML): rendered once per version of the file, since filling
    Troubleshooting's lists reads the code (about a second on a development machine)."""
    return _rendered(str(path), path.stat().st_mtime_ns, tuple(sorted(ADDED_FILLERS)))


@lru_cache(maxsize=64)
def _rendered(name: str, _mtime_ns: int, _added: tuple[str, ...]) -> tuple[str, Markup]:
    path = Path(name)
    text = path.read_text(encoding="utf-8")
    title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), path.stem)
    return title, Markup(_renderer().render(text, {"page": path}))


@bp.get("/")
def index() -> ResponseReturnValue:
    return redirect(url_for("manual.page", path="docs/index.md"))


@bp.get("/<path:path>")
def page(path: str) -> ResponseReturnValue:
    """A page (`.md`, as HTML) or a picture or hardware file beside the pages; 404 for anything else."""
    root = manual_root()
    parts = Path(path).parts
    if not parts or parts[0] not in ("docs", "hardware") or ".." in parts or "_build" in parts:
        abort(404)
    target = root.joinpath(*parts)
    if not target.is_file():
        abort(404)
    if target.suffix == ".md":
        title, html = render_page(target)
        return render_template("manual.html", title=title, body=html, csrf=csrf_token(), source=escape(path))
    if target.suffix not in PLAIN_FILES:
        abort(404)
    return send_from_directory(root, path, mimetype=PLAIN_FILES[target.suffix])
