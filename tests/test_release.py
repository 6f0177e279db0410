"""A release as `python -m build` makes it: an sdist and a wheel that `twine check` passes, a wheel
that carries the pin map, the message catalogues, the page's templates and static files, the
manual's pages and pictures, and no tests, and that installs into a fresh venv where
`senet-pi selftest` passes away from any checkout and `senet-pi docs` names the wheel's own manual."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

import senet_pi
from tests.build_helpers import SOURCES

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> tuple[Path, Path]:
    """The sdist and the wheel, built by `python -m build` from a copy of the checkout as it is now."""
    tmp = tmp_path_factory.mktemp("release")
    source = tmp / "source"
    source.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "_build")
            shutil.copytree(path, source / name, ignore=ignore)
        else:
            shutil.copy2(path, source / name)
    out = tmp / "dist"
    result = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (sdist,) = out.glob("senet_pi-*.tar.gz")
    (wheel,) = out.glob("senet_pi-*.whl")
    return sdist, wheel


def test_the_release_is_named_for_the_packages_version(release):
    sdist, wheel = release
    assert re.fullmatch(r"\d+\.\d+\.\d+", senet_pi.__version__)
    assert sdist.name == f"senet_pi-{senet_pi.__version__}.tar.gz"
    assert wheel.name == f"senet_pi-{senet_pi.__version__}-py3-none-any.whl"


def test_twine_check_passes(release):
    result = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, release)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2


def test_the_wheel_carries_the_data_and_no_tests(release):
    _, wheel = release
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert "senet_pi/hardware/pinmap.toml" in names
    catalogues = {n for n in names if n.startswith("senet_pi/locale/")}
    assert "senet_pi/locale/senet_pi.pot" in catalogues
    for po in (ROOT / "senet_pi" / "locale").glob("*/LC_MESSAGES/*.po"):
        assert f"senet_pi/locale/{po.relative_to(ROOT / 'senet_pi' / 'locale').as_posix()}" in catalogues
    for folder in ("templates", "static"):
        for file in (ROOT / "web" / folder).iterdir():
            assert f"senet_pi_web/{folder}/{file.name}" in names, f"web/{folder}/{file.name} is not in the wheel"
    manual = {n.removeprefix("senet_pi_web/manual/") for n in names if n.startswith("senet_pi_web/manual/")}
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts}
    assert pages <= manual, f"pages missing from the wheel's manual: {sorted(pages - manual)}"
    pictures = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs" / "images").iterdir()}
    assert pictures | {"hardware/bom.md", "hardware/pinmap.toml", "hardware/schematic.svg"} <= manual
    assert not [n for n in manual if n.endswith(".py") or "_build/" in n]  # pages and pictures only
    assert not [n for n in names if n.startswith(("tests/", "test/")) or "/tests/" in n or "conftest" in n]
    assert not [n for n in names if n.startswith(("web/", "docs/", "benchmarks/", "scripts/", "exhibit/"))]


def test_the_sdist_builds_the_wheel_again(release):
    """An sdist holds what a wheel is built from: the pin map's one source file above all."""
    sdist, _ = release
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    assert {
        "pyproject.toml",
        "setup.py",
        "hardware/pinmap.toml",
        "senet_pi/cli/command.py",
        "web/templates/index.html",
    } <= names


def test_the_wheel_installs_into_a_fresh_venv_and_passes_its_selftest(release, tmp_path):
    """The wheel alone, with no index: its dependencies are the ones this test's venv has (made
    visible to the fresh venv), so pip must find every one the wheel asks for, and none is fetched."""
    _, wheel = release
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    fresh = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    here = sysconfig.get_paths()["purelib"]
    (Path(fresh) / "dependencies-of-the-test-venv.pth").write_text(here + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "SENET_PI"))}
    env.update(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"), PIP_CONFIG_FILE=os.devnull)
    install = subprocess.run(
        [python, "-m", "pip", "install", "--no-index", "--quiet", "--disable-pip-version-check", str(wheel)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    senet = env_dir / "bin" / "senet-pi"
    where = subprocess.run(
        [python, "-c", "import senet_pi; print(senet_pi.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert where.stdout.strip().startswith(fresh), "the fresh venv must run the installed wheel, not the checkout"
    version = subprocess.run([senet, "--version"], capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    assert version.stdout.strip() == f"senet-pi {senet_pi.__version__}"
    selftest = subprocess.run(
        [senet, "selftest"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False
    )
    assert selftest.returncode == 0, selftest.stdout + selftest.stderr
    assert selftest.stdout.splitlines()[0].startswith("Self test of the simulated board")
    assert "all good" in selftest.stdout
    docs = subprocess.run([senet, "docs"], capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    folder = Path(docs.stdout.split(": ", 1)[1].split(" (")[0])
    assert folder.is_relative_to(fresh) and (folder / "index.md").is_file(), docs.stdout  # the wheel's own copy
