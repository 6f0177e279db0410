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

from tests.build_helpers import SOURCES

ROOT = Path(__file__).resolve().parents[1]
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
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "_build"))
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
    # the translations, read at run time from the installed package
    assert {f"senet_pi/locale/{lang}/LC_MESSAGES/senet_pi.po" for lang in ("de", "ar")} <= names
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
    assert Path(path).is_relative_to(env_dir)
    assert path.endswith("site-packages/senet_pi/hardware/pinmap.toml")
    assert square == "30"
    assert web == "None"


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
    """Generic depends on nothing specific: random play uses what a `Game` offers, its card hooks
    included, and imports no rule set."""
    known = modules()
    rule_sets = {"senet_pi.rules.cards", "senet_pi.rules.secret", "senet_pi.rules.houses", "senet_pi.rules.modern"}
    assert rule_sets <= known.keys()
    assert not imports("senet_pi.rules.random_play", known["senet_pi.rules.random_play"], known) & rule_sets


# ---------------------------------------------------------------------- layering

#: Standard modules that mean I/O, a clock or threads: the rules and the referee use none of them
#: (randomness is injected; `secrets` only draws a card game's seed when none is given).
IO_MODULES = {"os", "io", "sys", "time", "socket", "sqlite3", "threading", "subprocess", "pathlib", "serial"}


def stdlib_imports(path: Path) -> set[str]:
    """The top-level names of the non-relative modules a file imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


#: senet-pi's layers, lowest first: a module may import its own layer and those below, never one above.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("the rules", ("senet_pi.errors", "senet_pi.rules")),
    ("the referee", ("senet_pi.referee", "senet_pi.events", "senet_pi.verdicts")),
    ("the opponent", ("senet_pi.opponent",)),
    (
        "the service",
        (
            "senet_pi.service",
            "senet_pi.settings",
            "senet_pi.i18n",
            "senet_pi.tomlfile",
            "senet_pi.configfile",
            "senet_pi.environment",
        ),
    ),
    ("the hardware", ("senet_pi.hardware",)),
    ("the fleet", ("senet_pi.fleet",)),
    ("the front ends", ("senet_pi.cli", "senet_pi.server", "senet_pi_web", "senet_pi.__main__")),
]
#: The package's root module holds only `__version__`: every layer may read it.
EVERY_LAYER = {"senet_pi"}


def layer_of(module: str) -> int | None:
    """The index in LAYERS of the layer a module belongs to."""
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    return None


def test_every_module_is_in_a_layer():
    """A new module is placed in a layer on purpose, not by accident."""
    strays = [name for name in modules() if name.startswith("senet_pi") and name not in EVERY_LAYER]
    strays = [name for name in strays if layer_of(name) is None and not name.startswith("senet_pi_web")]
    assert not strays, f"modules in no layer: {strays}"


def test_the_layers_point_one_way():
    """rules -> referee -> opponent -> service -> hardware -> fleet -> front ends: nothing imports a
    layer above its own, and the rules and the referee do no I/O."""
    known = modules()
    upward = []
    for name, path in known.items():
        mine = layer_of(name)
        if mine is None:
            continue
        for used in imports(name, path, known) - EVERY_LAYER:
            theirs = layer_of(used)
            if theirs is not None and theirs > mine:
                upward.append(f"{LAYERS[mine][0]}: {name} imports {used} ({LAYERS[theirs][0]})")
        if mine <= 1:
            assert not stdlib_imports(path) & IO_MODULES, f"{name} does I/O"
    assert not upward, "\n".join(sorted(upward))


def test_every_package_says_its_job_and_what_it_may_import():
    """Each layer's package opens with its job and what it may import, as a reader needs first."""
    for folder in sorted(p.parent for p in (ROOT / "senet_pi").glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""
        assert doc, f"{folder.relative_to(ROOT)}/__init__.py has no docstring"
        assert "may import" in doc, f"{folder.relative_to(ROOT)}/__init__.py does not say what it may import"


#: The modules above the service: they ask the service, never its referee or game.
ABOVE_THE_SERVICE = ("web", "senet_pi/hardware", "senet_pi/cli", "senet_pi/server", "senet_pi/fleet")


def test_nothing_above_the_service_reaches_into_its_referee_or_game():
    """The service is a facade; one snapshot under its lock, operations for the rest."""
    offenders = []
    for top in ABOVE_THE_SERVICE:
        paths = [ROOT / top] if top.endswith(".py") else sorted((ROOT / top).rglob("*.py"))
        for path in paths:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                reaching = isinstance(node, ast.Attribute) and node.attr in ("referee", "game")
                if reaching and "service" in ast.unparse(node):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
    assert not offenders, "\n".join(offenders)


def test_no_caller_asks_which_rule_set_it_holds():
    """The rule set owns its knowledge (`Game` hooks with defaults), so outside the rules
    nothing tests a game's type, probes it with hasattr, or compares its name to a rule set's."""
    names = {"secret", "houses", "cards", "modern"}
    offenders = []
    for path in sorted([*(ROOT / "senet_pi").rglob("*.py"), *(ROOT / "web").rglob("*.py")]):
        if "rules" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            probe = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args
            if probe and node.func.id in ("hasattr", "getattr", "isinstance") and _is_a_game(node.args[0]):
                offenders.append(f"{where}: {ast.unparse(node)}")
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(isinstance(s, ast.Constant) and s.value in names for s in sides):
                    offenders.append(f"{where}: {ast.unparse(node)}")
    assert not offenders, "\n".join(offenders)


def _is_a_game(node: ast.expr) -> bool:
    """Whether an expression names a game (`game`, `self.game`...), not something of it."""
    return ast.unparse(node).split(".")[-1] == "game"


#: Exception classes that never reach a user, each caught where it is raised: a journal page's
#: unreadable cell (read as damage), the search's node budget (the best move so far is played), a
#: journal recovery asked to stop (its work is kept and a later start goes on).
INTERNAL_EXCEPTIONS = {"BadCell", "OutOfNodes", "Stopped"}


def test_every_error_a_user_can_meet_lives_in_errors_py():
    """One place to find what senet-pi may say went wrong: every exception class of the package and
    the page is in senet_pi/errors.py, but private ones and the few that never leave their module."""
    elsewhere = []
    for path in sorted([*(ROOT / "senet_pi").rglob("*.py"), *(ROOT / "web").rglob("*.py")]):
        if path == ROOT / "senet_pi" / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_") or node.name in INTERNAL_EXCEPTIONS:
                continue
            bases = {ast.unparse(b) for b in node.bases}
            if any(b.endswith(("Error", "Exception")) or b == "SenetError" for b in bases):
                elsewhere.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert not elsewhere, "\n".join(elsewhere)


def test_a_wheel_is_never_built_without_the_manual(tmp_path, monkeypatch):
    """setup.py refuses a tree without docs/ (a copy of only the package folders, as the card's
    builder once made): its wheel would serve /manual/ as 404 on the board."""
    import importlib.util

    import setuptools

    monkeypatch.setattr(setuptools, "setup", lambda **_kwargs: None)
    spec = importlib.util.spec_from_file_location("senet_pi_setup", ROOT / "setup.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.chdir(ROOT)
    assert Path("docs/index.md") in module.manual_files()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match="docs/ is missing from this tree"):
        module.manual_files()
