"""What the packaging and release tests build from: one list, so the two cannot drift."""

from __future__ import annotations

#: What a build needs from the checkout (the rest, .venv and .git above all, stays out).
SOURCES = [
    "pyproject.toml",
    "setup.py",
    "MANIFEST.in",
    "README.md",
    "senet_pi",
    "web",
    "firmware_bridge",
    "hardware",
    "docs",
]
