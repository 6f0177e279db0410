"""The documentation: Sphinx builds it with warnings as errors (every internal link and anchor
checked), and every code example and transcript in docs/ and the README runs, by fence language:

- ``console``: lines starting ``$ `` are commands, run with the venv's ``senet-pi`` and python in a
  temporary HOME, instance folder and journal; the lines after each are its output, exact, where a
  line ``...`` stands for any number of lines;
- ``pycon``: a doctest;
- ``toml``: parsed; a config.toml's keys (capitals) must be settings with good values, a file of
  lower-case tables must be a pin map;
- ``json``: parsed (a JSON object, or one a line); a replay file is judged by ``senet-pi replay``;
- ``sh`` / ``bash``: steps for another machine: ``bash -n``, and every ``senet-pi SUBCOMMAND`` in
  them must be a real subcommand with real options;
- ``python``: compiled;
- ``yaml``: Home Assistant configuration: parsed;
- ``text``: pictures and screens, not run.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from senet_pi import environment, settings
from senet_pi.cli.command import build_parser
from senet_pi.hardware.pinmap import pinmap_from

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BIN = Path(sys.executable).parent
PAGES = [*sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts), ROOT / "README.md"]
LANGUAGES = {"console", "pycon", "toml", "json", "sh", "bash", "python", "yaml", "text"}


@dataclass(frozen=True)
class Fence:
    """A fenced block of a page: its language, its text and where it starts."""

    page: Path
    line: int
    language: str
    text: str

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}:{self.language}"


def fences(page: Path) -> list[Fence]:
    """Every fenced block of a Markdown page, indented ones (in a list) too; MyST directives
    (```{name}) are included, their language starting with `{`."""
    found, lines = [], page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opened = re.match(r"^( *)(`{3,}|~{3,})\s*([^\s`]*)", lines[i])
        if not opened:
            i += 1
            continue
        indent, fence, language, start = len(opened.group(1)), opened.group(2), opened.group(3), i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            line = lines[i]
            body.append(line[indent:] if line.startswith(" " * indent) else line.lstrip())
            i += 1
        found.append(Fence(page, start + 1, language, "\n".join(body) + "\n"))
        i += 1
    return found


def test_fences_are_found_in_lists_and_by_language(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Text\n\n- a step:\n\n  ```sh\n  senet-pi rules\n  ```\n\n```{toctree}\nx\n```\n")
    assert [(f.language, f.text) for f in fences(page)] == [("sh", "senet-pi rules\n"), ("{toctree}", "x\n")]


ALL = [f for page in PAGES for f in fences(page)]
RUN = [f for f in ALL if not f.language.startswith("{") and f.language != "text"]


def _subcommands() -> dict:
    import argparse

    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


# -- the build ---------------------------------------------------------------------------------


def sphinx(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """Sphinx's own build, as CI runs it: warnings are errors, every reference checked (-n)."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-n", "--keep-going", "-q", "-b", "html", str(source), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    started = time.monotonic()
    result = sphinx(DOCS, out)
    return result, out, time.monotonic() - started


def test_the_docs_build_with_no_warning(built):
    result, out, _ = built
    assert result.returncode == 0 and "WARNING" not in result.stderr, result.stderr
    assert (out / "index.html").exists()
    assert (out / "configuration.html").exists()


def test_the_configuration_page_lists_every_setting_and_variable(built):
    _, out, _ = built
    page = (out / "configuration.html").read_text(encoding="utf-8")
    for setting in settings.SETTINGS:
        assert f">{setting.name}<" in page, setting.name
    for variable in environment.ENVIRONMENT:
        assert f">{variable.name}<" in page, variable.name


def test_the_commands_page_has_every_subcommand_and_option(built):
    _, out, _ = built
    page = (out / "commands.html").read_text(encoding="utf-8")
    source = (DOCS / "commands.md").read_text(encoding="utf-8")
    for name, parser in _subcommands().items():
        assert f"```{{senet-command}} {name}\n" in source, name
        for action in parser._actions:
            for option in set(action.option_strings) - {"-h", "--help"}:
                assert f'<span class="pre">{option}' in page, (name, option)


def test_the_python_api_page_documents_the_scripting_modules(built):
    _, out, _ = built
    page = (out / "reference" / "python-api.html").read_text(encoding="utf-8")
    for name in (
        "senet_pi.rules.new_game",
        "senet_pi.rules.Game.play",
        "senet_pi.rules.Move",
        "senet_pi.service.replay",
    ):
        assert name in page, name


MINIATURE = {
    "conf.py": 'extensions = ["myst_parser"]\nmyst_heading_anchors = 4\nexclude_patterns = ["_build"]\n',
    "index.md": "# Home\n\n```{toctree}\nother\n```\n\n## A heading\n\nSee [it](other.md#a-section).\n",
    "other.md": "# Other\n\n## A section\n\nBack [home](index.md#a-heading).\n",
}


@pytest.mark.parametrize(
    ("page", "broken", "said"),
    [
        ("index.md", "[it](other.md#a-section)", "other.md#no-such-section"),
        ("other.md", "[home](index.md#a-heading)", "nowhere.md"),
        ("other.md", "[home](index.md#a-heading)", "#not-here"),
    ],
)
def test_a_broken_link_or_anchor_fails_the_build(tmp_path, page, broken, said):
    """The same options as the real build: a dead page or anchor is a warning, so an error."""
    for name, text in MINIATURE.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert sphinx(tmp_path, tmp_path / "_build").returncode == 0  # the good tree builds
    target = tmp_path / page
    target.write_text(target.read_text().replace(broken, f"[broken]({said})"), encoding="utf-8")
    result = sphinx(tmp_path, tmp_path / "_build2")
    assert result.returncode != 0 and "WARNING" in result.stderr, result.stderr


# -- the README, the front door ------------------------------------------------------------------


def test_the_readme_is_a_front_door():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) <= 10 * 1024
    assert "scripts/test" in readme
    assert ".venv/bin/senet-pi run" in readme
    assert "![" in readme


def _slug(heading: str) -> str:
    """MyST's anchor for a heading (myst_heading_anchors)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_readme_link_stays_in_the_repository_and_lands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert links
    for link in links:
        assert not link.startswith(("http:", "https:", "//")), link
        path, _, anchor = link.partition("#")
        target = (ROOT / path).resolve()
        assert target.is_relative_to(ROOT) and target.exists(), link
        if anchor:
            headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), re.M)
            assert anchor in {_slug(h) for h in headings}, link


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_link_leaves_the_repository(page):
    text = page.read_text(encoding="utf-8")
    for link in re.findall(r"\]\(([^)\s]+)\)", text):
        if link.startswith(("http:", "https:", "mailto:", "//")):
            assert not page.is_relative_to(DOCS / "reference"), link  # the reference says it in its own words
            continue
        path = link.partition("#")[0]
        if path:
            assert (page.parent / path).resolve().is_relative_to(ROOT), link
    assert "shared/spec" not in text


@pytest.mark.parametrize("page", [p for p in PAGES if p.name != "changelog.md"], ids=lambda p: p.name)
def test_no_issue_numbers_outside_the_changelog(page):
    assert not re.search(r"\bissues? \d+", page.read_text(encoding="utf-8"), re.I)


# -- every example runs ------------------------------------------------------------------------


def test_every_fence_says_what_it_is():
    unknown = [f.id for f in ALL if not f.language.startswith("{") and f.language not in LANGUAGES]
    assert not unknown, f"a fence's language must be one of {sorted(LANGUAGES)} (text: not run): {unknown}"


def _environment(home: Path) -> dict[str, str]:
    return {
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "SENET_PI_INSTANCE": str(home / "instance"),
        "SENET_PI_JOURNAL": str(home / "journal.sqlite"),
        "SENET_PI_TABLES": str(home / "tables"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }


def _sandbox(tmp_path: Path) -> Path:
    """A folder to run in, with the checkout's examples/, docs/ (its example scripts) and hardware/ at hand."""
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "instance").mkdir()
    for name in ("examples", "docs", "hardware"):
        (work / name).symlink_to(ROOT / name)
    return work


def transcript(text: str) -> list[tuple[str, list[str]]]:
    """A console block as (command, the lines it prints)."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line.rstrip())
        elif line.strip():
            raise AssertionError(f"output before any command: {line!r}")
    return steps


def matches(expected: list[str], got: list[str]) -> bool:
    """Whether `got` is `expected`, a line `...` standing for any number of lines."""
    if not expected:
        return not got
    if expected[0] == "...":
        return any(matches(expected[1:], got[i:]) for i in range(len(got) + 1))
    return bool(got) and got[0] == expected[0] and matches(expected[1:], got[1:])


def test_the_transcript_matcher():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["...", "a"], ["a"])
    assert not matches(["a", "b"], ["a", "c"])
    assert not matches(["a"], ["a", "b"])


def run_console(fence: Fence, tmp_path: Path) -> None:
    work, env = _sandbox(tmp_path), _environment(tmp_path)
    steps = transcript(fence.text)
    assert steps, "a console block with no `$ ` command"
    for command, expected in steps:
        result = subprocess.run(
            ["bash", "-c", command],
            cwd=work,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )
        got = [line.rstrip() for line in result.stdout.rstrip("\n").splitlines()]
        while expected and not expected[-1]:
            expected = expected[:-1]
        assert matches(expected, got), (
            f"{fence.id}: $ {command}\n--- shown:\n" + "\n".join(expected) + "\n--- printed:\n" + "\n".join(got)
        )


def run_pycon(fence: Fence, tmp_path: Path) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(fence.text, {"__name__": "docs"}, fence.id, str(fence.page), fence.line)
    assert test.examples, f"{fence.id}: a pycon block with no `>>> `"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    cwd = os.getcwd()
    try:
        os.chdir(_sandbox(tmp_path))
        runner.run(test, out=lambda text: pytest.fail(text, pytrace=False))
    finally:
        os.chdir(cwd)
    assert runner.failures == 0


def run_toml(fence: Fence, tmp_path: Path) -> None:
    data = tomllib.loads(fence.text)
    assert data, f"{fence.id}: an empty TOML block"
    if all(key.isupper() for key in data):
        unknown = set(data) - set(settings.BY_NAME)
        assert not unknown, f"{fence.id}: not settings: {sorted(unknown)}"
        assert not settings.problems(data), settings.problems(data)
    else:
        pinmap_from(data, fence.id)  # a pin map: one clear error if it is not one


def run_json(fence: Fence, tmp_path: Path) -> None:
    try:
        documents = [json.loads(fence.text)]
    except json.JSONDecodeError:
        documents = [json.loads(line) for line in fence.text.splitlines() if line.strip()]  # JSON lines
    for document in documents:
        if isinstance(document, dict) and "variant" in document and "events" in document:
            result = subprocess.run(
                [str(BIN / "senet-pi"), "replay", "-"],
                input=json.dumps(document),
                capture_output=True,
                text=True,
                env=_environment(tmp_path),
                timeout=120,
            )
            assert result.returncode == 0, f"{fence.id}: {result.stderr}"
            verdicts = [json.loads(line)["v"] for line in result.stdout.splitlines()]
            if any("move" in event for event in document["events"]):
                assert "move" in verdicts, f"{fence.id}: no move of the example is accepted: {verdicts}"


SHELL_STOP = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1", ")"}


def senet_pi_calls(text: str) -> list[list[str]]:
    """The arguments of every `senet-pi ...` (or `python -m senet_pi ...`) in shell steps."""
    calls = []
    joined = text.replace("\\\n", " ")
    for line in joined.splitlines():
        line = line.split(" #", 1)[0]
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        for i, word in enumerate(words):
            named = word == "senet-pi" or word.endswith("bin/senet-pi")  # not a folder named senet-pi
            if not (named or (word == "senet_pi" and i >= 1 and words[i - 1] == "-m")):
                continue
            after = words[i + 1 :]
            args = []
            for arg in after:
                if arg in SHELL_STOP or arg.startswith((">", "|", "2>")):
                    break
                args.append(arg)
            calls.append(args)
    return calls


def run_shell(fence: Fence, tmp_path: Path) -> None:
    checked = subprocess.run(["bash", "-n"], input=fence.text, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, f"{fence.id}: {checked.stderr}"
    commands = _subcommands()
    for args in senet_pi_calls(fence.text):
        if not args or args[0] in ("--help", "-h", "--version"):
            continue
        assert args[0] in commands, f"{fence.id}: senet-pi has no subcommand {args[0]!r}"
        parser, name, rest = commands[args[0]], args[0], args[1:]
        inner = _inner_subcommands(parser)
        if inner and rest and rest[0] in inner:  # `journal recover ...`: the options are the inner one's
            parser, name, rest = inner[rest[0]], f"{name} {rest[0]}", rest[1:]
        options = {o for action in parser._actions for o in action.option_strings}
        for arg in rest:
            if arg.startswith("-") and arg != "-":
                assert arg.split("=", 1)[0] in options, f"{fence.id}: senet-pi {name} has no option {arg}"


def _inner_subcommands(parser) -> dict:
    """A subcommand's own subcommands (`journal recover`), by name."""
    import argparse

    subs = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    return {choice: sub for action in subs for choice, sub in action.choices.items()}


def run_python(fence: Fence, tmp_path: Path) -> None:
    compile(fence.text, fence.id, "exec")


def run_yaml(fence: Fence, tmp_path: Path) -> None:
    """Home Assistant's configuration: it must at least be YAML (PyYAML comes with myst-parser)."""
    import yaml

    assert isinstance(yaml.safe_load(fence.text), dict | list), f"{fence.id}: not a YAML mapping or list"


RUNNERS = {
    "console": run_console,
    "pycon": run_pycon,
    "toml": run_toml,
    "json": run_json,
    "sh": run_shell,
    "bash": run_shell,
    "python": run_python,
    "yaml": run_yaml,
}


@pytest.mark.parametrize("fence", [f for f in RUN if f.language in RUNNERS], ids=lambda f: f.id)
def test_every_example_runs_as_shown(fence, tmp_path):
    RUNNERS[fence.language](fence, tmp_path)


def test_the_shell_checker_finds_calls_and_refuses_a_wrong_option(tmp_path):
    text = "sudo .venv/bin/senet-pi run --backend gpio \\\n  --page-port 8080 | tee log\npython -m senet_pi rules\n"
    assert senet_pi_calls(text) == [["run", "--backend", "gpio", "--page-port", "8080"], ["rules"]]
    assert senet_pi_calls("senet-pi broker-files /etc/mosquitto/senet-pi \\\n  --board b1\n") == [
        ["broker-files", "/etc/mosquitto/senet-pi", "--board", "b1"]
    ]
    with pytest.raises(AssertionError, match="no option --bogus"):
        run_shell(Fence(DOCS / "index.md", 1, "sh", "senet-pi run --bogus\n"), tmp_path)
    run_shell(Fence(DOCS / "index.md", 1, "sh", "senet-pi journal recover -o new.sqlite old.sqlite\n"), tmp_path)
    with pytest.raises(AssertionError, match="senet-pi journal recover has no option --bogus"):
        run_shell(Fence(DOCS / "index.md", 1, "sh", "senet-pi journal recover --bogus x\n"), tmp_path)
    with pytest.raises(AssertionError, match="no subcommand 'play'"):
        run_shell(Fence(DOCS / "index.md", 1, "sh", "senet-pi play\n"), tmp_path)


# -- the reference says what the code does ---------------------------------------------------------


@pytest.mark.parametrize(("variant", "exhibit"), [("secret", False), ("cards", True)])
def test_the_json_api_page_lists_every_state_key(variant, exhibit):
    from senet_pi.hardware.backends import make_backend
    from senet_pi.service.core import Service
    from senet_pi_web import create_app

    documented = set(re.findall(r"^\| `([a-z_]+)` \|", (DOCS / "reference" / "json-api.md").read_text(), re.M))
    backend = make_backend("sim", None)
    try:
        app = create_app(
            {"SECRET_KEY": "t", "EXHIBIT": exhibit}, service=Service(None, variant=variant), backend=backend
        )
        state = app.test_client().get("/api/state").get_json()
    finally:
        backend.close()
    assert state and set(state) <= documented, set(state) - documented


def test_the_verdicts_page_lists_every_kind():
    from senet_pi.verdicts import KINDS

    page = (DOCS / "reference" / "verdicts.md").read_text()
    rows = [line.split("|")[1] for line in page.splitlines() if line.startswith("| `")]
    documented = set(re.findall(r"`([a-z_]+)`", "".join(rows)))
    assert set(KINDS) <= documented, set(KINDS) - documented
