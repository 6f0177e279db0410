"""The builder's pictures (hardware/header.svg, underside.svg, thrower.svg) are drawn from the pin map
by hardware/make_pictures.py, as the schematic is: they must be current, and a part added to the pin
map shows on the header without a change to the script."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pictures():
    spec = importlib.util.spec_from_file_location("make_pictures", ROOT / "hardware" / "make_pictures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_pictures_are_drawn_from_the_current_pin_map(pictures):
    for name, drawing in pictures.pictures().items():
        assert (ROOT / "hardware" / name).read_text(encoding="utf-8") == drawing, (
            f"run python hardware/make_pictures.py: {name}"
        )
    assert pictures.main(["--check"]) == 0


def test_every_gpio_of_the_pin_map_is_named_at_its_header_pin(pictures):
    from senet_pi.hardware.pinmap import load_pinmap

    header = pictures.header(ROOT / "hardware" / "pinmap.toml")
    pins = load_pinmap(ROOT / "hardware" / "pinmap.toml")
    for i, gpio in enumerate(pins.rows):
        assert f"row {i + 1}  GPIO{gpio}" in header or f"GPIO{gpio}  row {i + 1}" in header
    for i, gpio in enumerate(pins.columns):
        assert f"column {i + 1}  GPIO{gpio}" in header or f"GPIO{gpio}  column {i + 1}" in header
    assert f"button  GPIO{pins.button}" in header or f"GPIO{pins.button}  button" in header


def test_a_part_added_to_the_pin_map_shows_on_the_header(pictures, tmp_path):
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text((ROOT / "hardware" / "pinmap.toml").read_text(encoding="utf-8") + "\n[fan]\ncontrol = 7\n")
    header = pictures.header(pinmap)
    pin = pictures.HEADER_PIN[7]  # GPIO7 is header pin 26, on the right: the GPIO before the name
    assert pin == 26
    assert re.search(r">GPIO7  fan control<", header)


def test_the_strips_led_counts_are_not_taken_for_gpios(pictures):
    header = pictures.header(ROOT / "hardware" / "pinmap.toml")
    assert re.search(r">lights data  GPIO10<", header)  # GPIO10 is header pin 19, on the left
    assert "lights sticks" not in header
    assert "lights ring" not in header


def test_the_underside_puts_each_square_on_its_matrix_row_and_column(pictures):
    underside = pictures.underside(ROOT / "hardware" / "pinmap.toml")
    for square in range(1, 31):
        r, c = (square - 1) // 5 + 1, (square - 1) % 5 + 1
        assert re.search(rf">{square}</text>\n<text[^>]*>row {r}</text>\n<text[^>]*>col {c}</text>", underside), square
