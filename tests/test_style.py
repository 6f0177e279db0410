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


def test_the_stubs_name_only_what_the_libraries_have():
    """A stub in stubs/ (gpiozero has no types of its own) names only classes, functions and methods
    the installed library has, so mypy never checks our code against a device that is not there."""
    import importlib

    missing = []
    for stub in sorted((ROOT / "stubs").rglob("*.pyi")):
        parts = list(stub.relative_to(ROOT / "stubs").with_suffix("").parts)
        module = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        for node in ast.parse(stub.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and not hasattr(module, node.name):
                missing.append(f"{module.__name__}.{node.name}")
            if isinstance(node, ast.ClassDef) and hasattr(module, node.name):
                runtime = getattr(module, node.name)
                methods = [item.name for item in node.body if isinstance(item, ast.FunctionDef)]
                missing += [f"{module.__name__}.{node.name}.{name}" for name in methods if not hasattr(runtime, name)]
    assert not missing, f"the stubs name what the library does not have: {missing}"


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


#: Radon's grade D starts at this cyclomatic complexity: a function at or above it needs a reason.
GRADE_D = 21
#: The longest a module may run before it is split by job.
MAX_MODULE_LINES = 600
#: Functions at grade D or worse being simplified (or given their reason) by other engineers this
#: session, as "path::Qualified.name". The list shrinks to nothing as their work is merged.
NOT_YET_SIMPLE: set[str] = set()
#: Modules over the length limit being split by other engineers this session.
NOT_YET_SPLIT: set[str] = set()


def _python_files() -> list[Path]:
    return sorted(p for top in ("senet_pi", "web") for p in (ROOT / top).rglob("*.py"))


def _complex_functions(path: Path) -> list[tuple[str, int, str]]:
    """(qualified name, complexity, docstring) of each function in a file at grade D or worse."""
    from radon.complexity import cc_visit

    source = path.read_text(encoding="utf-8")
    docstrings: dict[int, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            docstrings[node.lineno] = ast.get_docstring(node) or ""
    found = []
    for block in cc_visit(source):  # functions and methods, and classes (which carry `methods`: skipped)
        if not hasattr(block, "methods") and block.complexity >= GRADE_D:
            name = f"{block.classname}.{block.name}" if block.classname else block.name
            found.append((name, block.complexity, docstrings.get(block.lineno, "")))
    return found


def test_complex_functions_say_why_they_stay():
    """A function at radon grade D or worse is simplified, or its docstring has a line starting
    "Complexity:" saying why it stays (one table of cases, say); the reader sees the reason."""
    unexplained = []
    for path in _python_files():
        relative = path.relative_to(ROOT).as_posix()
        for name, complexity, doc in _complex_functions(path):
            explained = any(line.strip().startswith("Complexity:") for line in doc.splitlines())
            if not explained and f"{relative}::{name}" not in NOT_YET_SIMPLE:
                unexplained.append(f"{relative}::{name} (complexity {complexity})")
    assert not unexplained, "simplify these or say why they stay (a 'Complexity:' line):\n" + "\n".join(unexplained)


def test_not_yet_simple_lists_only_functions_still_complex():
    """A function simplified leaves NOT_YET_SIMPLE too, so the list cannot hide a new one."""
    still = {
        f"{path.relative_to(ROOT).as_posix()}::{name}"
        for path in _python_files()
        for name, _, doc in _complex_functions(path)
        if not any(line.strip().startswith("Complexity:") for line in doc.splitlines())
    }
    assert not NOT_YET_SIMPLE - still, f"no longer complex, remove from NOT_YET_SIMPLE: {NOT_YET_SIMPLE - still}"


def test_no_module_is_over_600_lines():
    """A module past 600 lines does more than one job: split it by job (as gpiozero splits its devices)."""
    long = []
    for path in _python_files():
        relative = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES and relative not in NOT_YET_SPLIT:
            long.append(f"{relative}: {lines} lines")
    assert not long, "split these by job:\n" + "\n".join(long)


def test_not_yet_split_lists_only_long_modules():
    """A module split leaves NOT_YET_SPLIT too."""
    short = {
        name
        for name in NOT_YET_SPLIT
        if len((ROOT / name).read_text(encoding="utf-8").splitlines()) <= MAX_MODULE_LINES
    }
    assert not short, f"no longer over {MAX_MODULE_LINES} lines, remove from NOT_YET_SPLIT: {short}"


#: At most this many `type: ignore`s in senet_pi and web, each with its reason on the same line.
MAX_TYPE_IGNORES = 20
IGNORE = re.compile(r"#\s*type:\s*ignore(\[[^\]]*\])?(.*)$")


def test_every_type_ignore_says_why_and_there_are_few():
    """A `type: ignore` hides what mypy would say: each names its error codes and says why after
    them (`# type: ignore[code]  # why`), and there are few of them."""
    found, bare = 0, []
    for path in _python_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = IGNORE.search(line)
            if match is None:
                continue
            found += 1
            codes, rest = match.group(1), match.group(2).strip()
            if not codes or not rest.startswith("#") or len(rest.lstrip("# ")) < 10:
                bare.append(f"{path.relative_to(ROOT)}:{number}")
    assert not bare, "say why on the line (# type: ignore[code]  # why):\n" + "\n".join(bare)
    assert found <= MAX_TYPE_IGNORES, f"{found} type: ignores, at most {MAX_TYPE_IGNORES}"


def test_the_scripts_run_by_name_are_committed_executable():
    """A script the docs run by its name (`sudo scripts/gpio-sim`; no `.py`: no `python` before it) has
    git's executable bit, or a fresh clone says "Permission denied" (scripts/gpio-sim did, 2026-12-06)."""
    listed = subprocess.run(
        ["git", "ls-files", "-s", "scripts", "tests/gpiosim"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    modes = {line.split("\t")[1]: line.split()[0] for line in listed}
    by_name = [path for path in modes if "." not in Path(path).name]
    assert "scripts/gpio-sim" in by_name
    assert [p for p in by_name if modes[p] != "100755"] == []
