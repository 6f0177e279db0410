"""One build step pyproject.toml cannot say: the pin map goes into the package as data.

`hardware/pinmap.toml` stays the one file people edit; a built wheel (or a plain `pip install .`)
gets a copy at `senet_pi/hardware/pinmap.toml`, read with importlib.resources. An editable
install reads the checkout's file instead (see senet_pi/hardware/pinmap.py).
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PINMAP = Path("hardware") / "pinmap.toml"


class BuildPyWithPinmap(build_py):
    """`build_py`, plus the pin map copied into the built `senet_pi.hardware` package."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib) / "senet_pi" / "hardware" / PINMAP.name
            self.mkpath(str(target.parent))
            self.copy_file(str(PINMAP), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if not getattr(self, "editable_mode", False):
            outputs.append(str(Path(self.build_lib) / "senet_pi" / "hardware" / PINMAP.name))
        return outputs


setup(cmdclass={"build_py": BuildPyWithPinmap})
