"""Draw hardware/schematic.svg from hardware/pinmap.toml, so the drawing never disagrees with the code.

Run from the project folder: `python hardware/make_schematic.py` (the tests check it is current).
"""

from __future__ import annotations

import sys
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from senet_pi.hardware.pinmap import StripPins, load_pinmap  # noqa: E402

CELL_W, CELL_H = 120, 78
LEFT, TOP = 190, 90


def text(x: float, y: float, s: str, size: int = 13, anchor: str = "start", weight: str = "normal") -> str:
    return f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}">{escape(s)}</text>'


def line(x1: float, y1: float, x2: float, y2: float, width: float = 2, colour: str = "#222") -> str:
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" stroke-width="{width}"/>'


def switch_and_diode(x: float, y: float, square: int) -> list[str]:
    """A reed switch from the row line (above) and a diode down to the column line (at x)."""
    out = [
        line(x - 40, y, x - 40, y + 14),  # from the row line
        f'<rect x="{x - 52}" y="{y + 14}" width="24" height="16" rx="7" fill="#eef6ff" stroke="#2a6fb0"/>',
        line(x - 49, y + 22, x - 31, y + 20, 1.5, "#2a6fb0"),  # the reeds
        line(x - 40, y + 30, x - 40, y + 40),
        f'<polygon points="{x - 47},{y + 40} {x - 33},{y + 40} {x - 40},{y + 51}" fill="#222"/>',  # diode
        line(x - 48, y + 52, x - 32, y + 52),
        line(x - 40, y + 52, x - 40, y + 60),
        line(x - 40, y + 60, x, y + 60),  # to the column line
        f'<circle cx="{x}" cy="{y + 60}" r="3" fill="#222"/>',
        text(x - 24, y + 26, str(square), 14, weight="bold"),
    ]
    return out


def strip_block(lights: StripPins, x: float, y: float) -> list[str]:
    """The LED strip under the squares: SPI0 MOSI through a 74AHCT125 buffer, its own 5 V supply."""
    count = 30 + lights.sticks + lights.ring
    rows = [
        (f"GPIO{lights.data} (SPI0 MOSI) -- 74AHCT125 1A (pin 2)", 13, "normal"),
        ("74AHCT125: VCC (pin 14) to the strip's 5 V,", 13, "normal"),
        ("1OE (pin 1) and GND (pin 7) to GND", 13, "normal"),
        ("1Y (pin 3) --[330 R]-- strip DIN", 13, "normal"),
        (f"strip: {count} x WS2812B/SK6812, squares 1-30 in the S order,", 13, "normal"),
        (f"then {lights.sticks} under the sticks, {lights.ring} round the button", 13, "normal"),
        ("own 5 V 2 A supply, 1000 uF across it; GND to the Pi's GND,", 13, "normal"),
        # the worst case: every LED at full white (60 mA) scaled to the cap, plus 1 mA each dark
        (
            f"5 V not to the Pi's; brightness capped at 25 % ({count * (60 * 0.25 + 1) / 1000:.2f} A worst case)",
            13,
            "normal",
        ),
    ]
    out = [text(x, y, "Lights under the squares (optional)", 15, weight="bold")]
    out += [text(x, y + 24 + 18 * n, words, size, weight=weight) for n, (words, size, weight) in enumerate(rows)]
    return out


def draw() -> str:
    pins = load_pinmap(HERE / "pinmap.toml")
    width = LEFT + CELL_W * len(pins.columns) + (520 if pins.lights is not None else 380)
    height = TOP + CELL_H * len(pins.rows) + 120 + (170 if pins.lights is not None else 0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        text(20, 30, "senet-pi: 30 reed switches in a 6 x 5 diode matrix, and the stick thrower", 18, weight="bold"),
        text(20, 52, "Drawn from hardware/pinmap.toml by hardware/make_schematic.py. GPIO numbers are BCM.", 12),
        text(20, 70, "Rows are driven high one at a time; columns use the Pi's internal pull-down.", 12),
    ]
    grid_bottom = TOP + CELL_H * len(pins.rows)
    for c, gpio in enumerate(pins.columns):
        x = LEFT + CELL_W * (c + 1) - 20
        parts.append(line(x, TOP - 10, x, grid_bottom + 10, 2.5, "#b03a2a"))
        parts.append(text(x, grid_bottom + 30, f"COL {c + 1}", 13, "middle", "bold"))
        parts.append(text(x, grid_bottom + 47, f"GPIO{gpio} (in)", 12, "middle"))
    for r, gpio in enumerate(pins.rows):
        y = TOP + CELL_H * r
        parts.append(line(LEFT - 20, y, LEFT + CELL_W * len(pins.columns), y, 2.5, "#2a8a3a"))
        parts.append(text(20, y + 5, f"ROW {r + 1}  GPIO{gpio} (out)", 13, weight="bold"))
        for c in range(len(pins.columns)):
            parts += switch_and_diode(LEFT + CELL_W * (c + 1) - 20, y, pins.square_at(r, c))
    tx = LEFT + CELL_W * len(pins.columns) + 60
    parts.append(text(tx, TOP, "Stick thrower", 15, weight="bold"))
    parts.append(text(tx, TOP + 28, f"GPIO{pins.button} --[ push button ]-- GND", 13))
    parts.append(text(tx, TOP + 46, "(internal pull-up; pressed = low)", 11))
    for n, gpio in enumerate(pins.leds):
        y = TOP + 80 + 26 * n
        parts.append(text(tx, y, f"GPIO{gpio} --[330 R]--|>|-- GND   stick {n + 1}", 13))
    y = TOP + 80 + 26 * 4 + 14
    if pins.buzzer is not None:
        parts.append(text(tx, y, f"GPIO{pins.buzzer} --[1 k]-- NPN base;", 13))
        parts.append(text(tx, y + 18, "buzzer from 5 V to collector,", 13))
        parts.append(text(tx, y + 36, "emitter to GND (optional)", 13))
    parts.append(text(tx, y + 80, "Each square: its reed switch and a", 13, weight="bold"))
    parts.append(text(tx, y + 98, "1N4148 in series, the diode as drawn", 13))
    parts.append(text(tx, y + 116, "(which way: Building the board).", 13))
    parts.append(text(tx, y + 134, "Square = 5 x (row - 1) + column.", 13))
    if pins.lights is not None:
        parts += strip_block(pins.lights, tx, y + 180)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    (HERE / "schematic.svg").write_text(draw(), encoding="utf-8")
    print(f"wrote {HERE / 'schematic.svg'}")
