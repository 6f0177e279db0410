"""Sphinx configuration for senet-pi's documentation (Markdown pages through MyST).

Build: `.venv/bin/python -m sphinx -W -n -b html docs docs/_build/html` (see development.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))  # our extensions: pages rendered from the code

from senet_pi import __version__  # noqa: E402

project = "senet-pi"
author = "the senet-pi developers"
copyright = "2026, the senet-pi developers"
version = release = __version__

# Every module in docs/_ext is a Sphinx extension of ours (senet_docs: the pages made from the code's tables).
extensions = ["myst_parser", "sphinx.ext.autodoc", *sorted(p.stem for p in (ROOT / "docs" / "_ext").glob("*.py"))]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
source_suffix = {".md": "markdown"}
myst_heading_anchors = 4  # `[text](page.md#a-heading)` links to headings, checked by -W
myst_enable_extensions = ["colon_fence", "deflist"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
html_theme = "alabaster"  # ships with Sphinx: the docs build offline, like the page
html_static_path: list[str] = []
suppress_warnings: list[str] = []
# Type hints name the standard library and internals the Python API page does not document.
nitpick_ignore_regex = [
    ("py:class", r"(collections\.abc|pathlib|typing)\..*"),
    ("py:class", r"senet_pi\.(referee\.referee\.Referee|rules\.throws\.RandomSource|rules\.text\.Text)"),
    # the referee's typed inputs (`Event.input()` returns one): internals, not the public API
    ("py:class", r"senet_pi\.events\.[A-Z][A-Za-z]*"),
]
default_role = "code"  # `name` in a docstring is code, as in the Markdown pages
