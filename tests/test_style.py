"""The code stays `ruff` and `mypy` clean (the project's lint and type settings are in pyproject.toml)."""

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    result = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing():
    """mypy, strict on the rules and the referee: the files and flags are pyproject.toml's [tool.mypy]."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_examples_replay_cleanly():
    from senet_pi.service.replay import read_replay_file, run_replay

    for path in sorted((ROOT / "examples").glob("*.json")):
        verdicts = list(run_replay(read_replay_file(path)))
        assert verdicts, path
        if path.name.startswith("physical-"):  # whole games played by hand through switch events only
            kinds = [v["v"] for v in verdicts]
            assert "win" in kinds and "illegal" not in kinds and "prompt" in kinds, path


# ------------------------------------------------------------------ the tests read well

TESTS = ROOT / "tests"


def _test_modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if p.name != "conftest.py")


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    """Every module an `import` or `from ... import` names, with its line (imports in functions too)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
    return found


def test_no_test_module_imports_another_or_the_conftest():
    """Shared fixtures live in tests/conftest.py and shared helpers in tests/*_helpers.py: a test
    module imported by another would run its tests' module code twice and hide which file owns what,
    and a fixture imported by name needs a `noqa` for every test that takes it."""
    wrong = []
    for path in _test_modules():
        for line, module in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            last = module.rsplit(".", 1)[-1]
            if last.startswith("test_") or last == "conftest":
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_every_assert_of_several_conditions_says_which_one_failed():
    """`assert a and b` fails saying only that one of them is false: each condition gets its own
    assert (pytest then shows the values of the one that failed), or the assert a message."""
    found = []
    for path in [*_test_modules(), TESTS / "conftest.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            joined = isinstance(node, ast.Assert) and isinstance(node.test, ast.BoolOp)
            if joined and isinstance(node.test.op, ast.And) and node.msg is None:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, "assert a and b without a message (split it, one assert per condition):\n" + "\n".join(found)


def test_tests_are_named_after_what_they_check_not_a_list_item():
    """A test's name says the behaviour it checks; `test_item3_...` or `test_4_...` name an item
    of some list the reader does not have (history is in docs/changelog.md)."""
    item = re.compile(r"item\d|issue\d|^test_\d+_")
    found = []
    for path in _test_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and item.search(node.name):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not found, "\n".join(found)


#: A reference to the project's history: an issue by number, or a work session.
HISTORY = re.compile(r"\bissues? ?#?\d+|\bsessions? \d+", re.IGNORECASE)


def test_the_source_names_no_issue_numbers():
    """Comments, docstrings, messages and names say what the code does and why, never which issue or
    session brought it (a reader has neither): that history is in docs/changelog.md."""
    found = []
    for tree in ("senet_pi", "web", "tests", "scripts", "benchmarks"):
        for path in sorted((ROOT / tree).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".mo", ".png", ".sqlite"):
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # not text
            for number, line in enumerate(text.splitlines(), 1):
                if HISTORY.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "history belongs in docs/changelog.md:\n" + "\n".join(found)


def test_every_test_that_drives_chromium_is_marked_browser():
    """`-m "not browser"` must leave out every test that starts chromium: a module that imports
    Playwright, or has a test taking the `browser` fixture, carries the marker."""
    unmarked = []
    for path in sorted(TESTS.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        drives = any(module.startswith("playwright") for _, module in _imported(tree)) or any(
            isinstance(node, ast.FunctionDef) and node.name.startswith("test_") and "browser" in _arguments(node)
            for node in ast.walk(tree)
        )
        if drives and "pytest.mark.browser" not in text:
            unmarked.append(str(path.relative_to(ROOT)))
    assert not unmarked, "drives chromium but is not marked browser: " + ", ".join(unmarked)


def _arguments(function: ast.FunctionDef) -> set[str]:
    return {a.arg for a in function.args.args}
