"""What `pip install` makes of senet-pi: a wheel that carries the pin map as package data and the
page as `senet_pi_web` (never a top-level `web`), and a non-editable install that finds its pin
map with no path given; and no module of senet-pi imports its way into a circle."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: What a build needs from the checkout (the rest, .venv and .git above all, stays out).
SOURCES = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "senet_pi", "web", "firmware_bridge", "hardware"]
#: Checkout folder -> installed package name.
PACKAGE_ROOTS = {"senet_pi": "senet_pi", "web": "senet_pi_web", "firmware_bridge": "firmware_bridge"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built by pip from a copy of the checkout as it is now."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    source.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(path, source / name)
    out = tmp / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("senet_pi-*.whl")
    return built


def test_the_wheel_ships_the_pin_map(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert archive.read("senet_pi/hardware/pinmap.toml") == (ROOT / "hardware" / "pinmap.toml").read_bytes()
    assert not any(name.startswith("web/") for name in names), "the page installs as senet_pi_web, never as web"
    assert {"senet_pi_web/templates/index.html", "senet_pi_web/static/app.js"} <= names
    for folder, package in PACKAGE_ROOTS.items():  # pyproject's package list misses no folder
        for module in (ROOT / folder).rglob("*.py"):
            installed = f"{package}/{module.relative_to(ROOT / folder).as_posix()}"
            assert installed in names, f"{module.relative_to(ROOT)} is not in the wheel (pyproject.toml packages)"


def test_a_non_editable_install_finds_its_pin_map(wheel, tmp_path):
    """Installed from the wheel into a fresh venv, away from any checkout: load_pinmap() with no
    path reads the packaged copy (no `<prefix>/share` to miss under `pip install --user`)."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    check = (
        "import importlib.util, senet_pi\n"
        "from senet_pi.hardware.pinmap import default_pinmap_path, load_pinmap\n"
        "print(default_pinmap_path())\n"
        "print(load_pinmap().square_at(5, 4))\n"
        "print(importlib.util.find_spec('web'))\n"
    )
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SENET_PI_PINMAP")}
    result = subprocess.run(
        [python, "-c", check], capture_output=True, text=True, cwd=tmp_path, env=environ, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    path, square, web = result.stdout.splitlines()
    assert Path(path).is_relative_to(env_dir) and path.endswith("site-packages/senet_pi/hardware/pinmap.toml")
    assert square == "30" and web == "None"


# ---------------------------------------------------------------------- the import graph


def modules() -> dict[str, Path]:
    """Every module of senet-pi's packages by its installed name."""
    found = {}
    for folder, package in PACKAGE_ROOTS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that `name` imports when it runs: at module level or in a function
    (a deferred import still closes a circle), but not under `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *([node.module] if node.module else [])])
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    found.add(f"{base}.{alias.name}")
                elif base in known:
                    found.add(base)
    found.discard(name)
    return found


def test_no_import_cycles():
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert graph["senet_pi.hardware.backends"] >= {"senet_pi.hardware.backend", "senet_pi.hardware.serial_link"}
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            circle = [*trail[trail.index(name) :], name]
            raise AssertionError("import circle: " + " -> ".join(circle))
        if name in done:
            return
        for other in sorted(graph[name]):
            visit(other, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_random_play_imports_no_rule_set():
    """Generic depends on nothing specific: random play uses what a game offers, the card game's
    included (random_play.CardPlay), and imports no rule set."""
    known = modules()
    rule_sets = {"senet_pi.rules.cards", "senet_pi.rules.secret", "senet_pi.rules.houses", "senet_pi.rules.modern"}
    assert rule_sets <= known.keys()
    assert not imports("senet_pi.rules.random_play", known["senet_pi.rules.random_play"], known) & rule_sets
