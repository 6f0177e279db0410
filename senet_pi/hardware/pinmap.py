"""The pin map: which GPIO does what, read from `hardware/pinmap.toml` (the single source of truth)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from firmware_bridge.codec import square_at

from ..errors import PinMapError
from ..tomlfile import read_toml

ROWS, COLUMNS = 6, 5
#: BCM GPIOs a 40-pin header offers; 0 and 1 are kept for the HAT EEPROM.
HEADER_GPIOS = range(2, 28)


def default_pinmap_path() -> Path:
    """`$SENET_PI_PINMAP`, else the copy of `hardware/pinmap.toml` an installed package carries
    (package data, found with importlib.resources), else the file of a source checkout (an
    editable install): the same file either way."""
    if os.environ.get("SENET_PI_PINMAP"):
        return Path(os.environ["SENET_PI_PINMAP"])
    packaged = resources.files("senet_pi") / "hardware" / "pinmap.toml"
    if isinstance(packaged, Path) and packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "hardware" / "pinmap.toml"


#: SPI0's MOSI: the one GPIO the strip's data can come from (the SPI block drives it).
SPI0_MOSI = 10


@dataclass(frozen=True)
class StripPins:
    """The LED strip under the squares: its data GPIO (SPI0 MOSI) and the LEDs after square 30's."""

    data: int = SPI0_MOSI
    sticks: int = 4
    ring: int = 0


@dataclass(frozen=True)
class PinMap:
    """GPIO numbers of the switch matrix and the thrower."""

    rows: tuple[int, ...]
    columns: tuple[int, ...]
    button: int
    leds: tuple[int, ...]
    buzzer: int | None = None
    lights: StripPins | None = None

    def square_at(self, row: int, column: int) -> int:
        """The board square wired at (row, column) of the matrix: rows hold five squares each."""
        return square_at(row, column)

    def all_pins(self) -> list[int]:
        optional = [p for p in (self.buzzer, self.lights.data if self.lights else None) if p is not None]
        return [*self.rows, *self.columns, self.button, *self.leds, *optional]


def load_pinmap(path: str | Path | None = None) -> PinMap:
    """Read and check a pin map; PinMapError names the problem."""
    path = Path(path) if path is not None else default_pinmap_path()
    data = read_toml(path, "the pin map", PinMapError)
    return pinmap_from(data, str(path))


def pinmap_from(data: dict[str, object], where: str = "pin map") -> PinMap:
    """Build a PinMap from parsed TOML, checking counts, ranges and that no GPIO is used twice."""
    matrix, thrower = data.get("matrix"), data.get("thrower")
    if not isinstance(matrix, dict) or not isinstance(thrower, dict):
        raise PinMapError(f"{where}: it needs a [matrix] and a [thrower] section")
    rows = _gpios(matrix, "rows", ROWS, where)
    columns = _gpios(matrix, "columns", COLUMNS, where)
    leds = _gpios(thrower, "leds", 4, where)
    button = _gpio(thrower.get("button"), "thrower.button", where)
    buzzer = None if thrower.get("buzzer") is None else _gpio(thrower["buzzer"], "thrower.buzzer", where)
    pinmap = PinMap(rows, columns, button, leds, buzzer, _strip(data.get("lights"), where))
    seen: set[int] = set()
    for pin in pinmap.all_pins():
        if pin in seen:
            raise PinMapError(f"{where}: GPIO {pin} is used twice")
        seen.add(pin)
    return pinmap


def _strip(section: object, where: str) -> StripPins | None:
    """The optional [lights] section: data on SPI0 MOSI, 0-4 stick LEDs, 0-24 LEDs round the button."""
    if section is None:
        return None
    if not isinstance(section, dict):
        raise PinMapError(f"{where}: [lights] must be a section with data, sticks and ring")
    data = _gpio(section.get("data", SPI0_MOSI), "lights.data", where)
    if data != SPI0_MOSI:
        raise PinMapError(f"{where}: lights.data must be GPIO {SPI0_MOSI}, SPI0's MOSI (the strip is driven over SPI)")
    counts = []
    for key, most in (("sticks", 4), ("ring", 24)):
        value = section.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
            raise PinMapError(f"{where}: lights.{key} must be a whole number of LEDs from 0 to {most}")
        counts.append(value)
    return StripPins(data, counts[0], counts[1])


def _gpios(section: dict[str, object], key: str, count: int, where: str) -> tuple[int, ...]:
    values = section.get(key)
    if not isinstance(values, list) or len(values) != count:
        raise PinMapError(f"{where}: {key} must list {count} GPIO numbers")
    return tuple(_gpio(v, key, where) for v in values)


def _gpio(value: object, key: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in HEADER_GPIOS:
        raise PinMapError(f"{where}: {key}: {value!r} is not a GPIO of the 40-pin header (2-27)")
    return value
