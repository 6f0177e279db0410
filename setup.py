"""The build steps pyproject.toml cannot say: files kept elsewhere in the checkout go into the package.

- `hardware/pinmap.toml` stays the one file people edit; a built wheel (or a plain `pip install .`)
  gets a copy at `senet_pi/hardware/pinmap.toml`, read with importlib.resources.
- The manual: the Markdown pages of `docs/` (with their pictures) and the hardware's files they
  show, copied as they are to `senet_pi_web/manual/docs` and `.../hardware`, which the board serves
  at /manual/ (web/manual.py). No Sphinx at build time: the pages are rendered when asked for.

An editable install reads the checkout's files instead.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PINMAP = Path("hardware") / "pinmap.toml"
#: The manual's files: the pages and pictures of docs/ and the hardware's files they link to.
MANUAL = ("docs/**/*.md", "docs/images/*", "hardware/*.md", "hardware/*.svg", "hardware/*.toml")


def manual_files() -> list[Path]:
    """The manual's files in the checkout (never a built site under docs/_build). A tree without
    docs/ is refused: its wheel would serve no manual (the card's first image had none, /manual/ 404)."""
    if not Path("docs/index.md").is_file():
        raise SystemExit(
            "senet-pi's build: docs/ is missing from this tree, and the board serves its manual from it:"
            " build from the whole checkout or its sdist"
        )
    found = {p for pattern in MANUAL for p in Path().glob(pattern) if p.is_file() and "_build" not in p.parts}
    return sorted(found)


class BuildPyWithPinmap(build_py):
    """`build_py`, plus the pin map copied into `senet_pi.hardware` and the manual into `senet_pi_web`."""

    def _copies(self) -> list[tuple[Path, Path]]:
        built = Path(self.build_lib)
        manual = [(path, built / "senet_pi_web" / "manual" / path) for path in manual_files()]
        return [(PINMAP, built / "senet_pi" / "hardware" / PINMAP.name), *manual]

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            for source, target in self._copies():
                self.mkpath(str(target.parent))
                self.copy_file(str(source), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if not getattr(self, "editable_mode", False):
            outputs.extend(str(target) for _source, target in self._copies())
        return outputs


setup(cmdclass={"build_py": BuildPyWithPinmap})
