"""Draw the builder's pictures from hardware/pinmap.toml, as make_schematic.py draws the schematic,
so they never disagree with the code:

- `header.svg`: the Pi's 40-pin header, every pin the pin map uses named at its place;
- `underside.svg`: the board seen from below, each square with its matrix row and column, and
  how the row and column wires run;
- `thrower.svg`: the stick thrower's circuit: the button, an LED and its resistor per stick, the
  buzzer's transistor.

Every GPIO of every table in the pin map is drawn on the header, named by its table and key, so a
part added to the pin map shows without a change here. Run from the project folder:
`python hardware/make_pictures.py` (`--check`: exit 1 naming a picture that is not current; the
tests run it).
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from senet_pi.hardware.pinmap import load_pinmap, square_at  # noqa: E402

#: The 40-pin header: BCM GPIO number -> header pin (the same on every Pi with 40 pins).
HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19, 9: 21,
    25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35, 16: 36, 26: 37,
    20: 38, 21: 40,
}  # fmt: skip
POWER = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V", **dict.fromkeys((6, 9, 14, 20, 25, 30, 34, 39), "GND")}
ROW, COLUMN, PART, INK, WOOD = "#2a8a3a", "#b03a2a", "#2a6fb0", "#222", "#e9c98f"
#: The names of the pin map's own keys on the pictures; any other key is named "table key".
NAMES = {("matrix", "rows"): "row", ("matrix", "columns"): "column", ("thrower", "leds"): "stick LED"}


def text(x: float, y: float, s: str, size: int = 13, anchor: str = "start", weight: str = "normal") -> str:
    return f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}">{escape(s)}</text>'


def line(x1: float, y1: float, x2: float, y2: float, width: float = 2, colour: str = INK) -> str:
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" stroke-width="{width}"/>'


def svg(width: int, height: int, title: str, note: str, parts: list[str]) -> str:
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        text(20, 30, title, 18, weight="bold"),
        text(20, 50, note, 12),
    ]
    return "\n".join([*head, *parts, "</svg>"]) + "\n"


#: The pin map's whole numbers that count LEDs rather than name a GPIO (the strip's stick and ring LEDs).
COUNTS = {("lights", "sticks"), ("lights", "ring")}


def uses(pinmap: Path) -> dict[int, tuple[str, str]]:
    """Every GPIO the pin map names -> (its name on the pictures, its colour), read from the file
    itself: every whole number, or list of them, in every table, but the counts of LEDs."""
    data = tomllib.loads(pinmap.read_text(encoding="utf-8"))
    found: dict[int, tuple[str, str]] = {}
    for table, keys in data.items():
        for key, value in keys.items() if isinstance(keys, dict) else []:
            if (table, key) in COUNTS:
                continue
            values = value if isinstance(value, list) else [value]
            colour = ROW if key == "rows" else COLUMN if key == "columns" else PART
            name = NAMES.get((table, key), key if table == "thrower" else f"{table} {key}")
            for i, gpio in enumerate(v for v in values if isinstance(v, int) and not isinstance(v, bool)):
                found[gpio] = (f"{name} {i + 1}" if len(values) > 1 else name, colour)
    return found


def header(pinmap: Path) -> str:
    """The header as it stands on the Pi, pin 1 at the top left (the square pad), USB ports below."""
    gpio_of = {pin: gpio for gpio, pin in HEADER_PIN.items()}
    used = uses(pinmap)
    parts = []
    for pin in range(1, 41):
        odd = pin % 2
        x, y = (330 if odd else 370), 80 + 26 * ((pin - 1) // 2)
        gpio = gpio_of.get(pin)
        name, colour = used.get(gpio, ("", INK)) if gpio is not None else (POWER[pin], INK)
        fill = colour if gpio in used else "#000" if POWER.get(pin) == "GND" else "#c62828" if pin in POWER else "#fff"
        shape = "rect" if pin == 1 else "circle"
        if shape == "rect":
            parts.append(f'<rect x="{x - 8}" y="{y - 8}" width="16" height="16" fill="{fill}" stroke="{INK}"/>')
        else:
            parts.append(f'<circle cx="{x}" cy="{y}" r="8" fill="{fill}" stroke="{INK}"/>')
        parts.append(text(x + (-14 if odd else 14), y + 4, str(pin), 11, "end" if odd else "start"))
        label = f"GPIO{gpio}" if gpio is not None else ""
        said = f"{name}  {label}".strip() if odd else f"{label}  {name}".strip()
        weight = "bold" if name else "normal"
        parts.append(text(x + (-40 if odd else 40), y + 4, said, 13, "end" if odd else "start", weight))
    parts.append(f'<rect x="310" y="62" width="80" height="{26 * 20 + 10}" fill="none" stroke="{INK}" rx="6"/>')
    parts.append(text(350, 80 + 26 * 20 + 14, "(the USB ports are this way)", 12, "middle"))
    legend = [("matrix row", ROW), ("matrix column", COLUMN), ("thrower and other parts", PART)]
    legend += [("ground (GND)", "#000"), ("power (3V3, 5V): never to a GPIO", "#c62828")]
    for i, (what, colour) in enumerate(legend):
        parts.append(f'<circle cx="40" cy="{640 + 20 * i}" r="7" fill="{colour}" stroke="{INK}"/>')
        parts.append(text(54, 644 + 20 * i, what, 12))
    note = "Seen from above, pin 1 (square pad) at the top left. Drawn from hardware/pinmap.toml by make_pictures.py."
    return svg(720, 750, "The Raspberry Pi's 40-pin header: the board's pins", note, parts)


def _cell(square: int) -> tuple[int, int]:
    """Where a square is seen from below: the board turned over left to right (square 1 top right)."""
    row, col = divmod(square - 1, 10)
    x_from_above = 9 - col if row == 1 else col
    return 60 + (9 - x_from_above) * 78, 130 + row * 160


def _column_wire(c: int, cells: list[tuple[int, int]]) -> list[str]:
    """Column `c`'s wire: along each board row through its squares there, down the left edge."""
    dashed = f'stroke="{COLUMN}" stroke-width="2" stroke-dasharray="6 3" fill="none"'
    edge, out, ys = 46 - 7 * c, [], []
    for y in sorted({y for _x, y in cells}):
        xs = [x for x, cy in cells if cy == y]
        wire_y = y - 42 + 7 * c  # in the gap above the board row, a lane per column
        ys.append(wire_y)
        out.append(f'<polyline points="{edge},{wire_y} {max(xs) + 35},{wire_y}" {dashed}/>')
        for x in xs:  # down to the square's diode
            out.append(line(x + 35, wire_y, x + 35, y, 2, COLUMN))
            out.append(f'<circle cx="{x + 35}" cy="{y}" r="3" fill="{COLUMN}"/>')
    out.append(f'<polyline points="{edge},{ys[0]} {edge},{ys[-1]}" {dashed}/>')
    return out


def underside(pinmap: Path) -> str:
    """The board from below: each square with its matrix row and column; a row wire along each half
    of a board row, a column wire down through its six squares."""
    pins = load_pinmap(pinmap)
    parts = []
    for square in range(1, 31):
        x, y = _cell(square)
        r, c = (square - 1) // 5, (square - 1) % 5
        parts.append(f'<rect x="{x}" y="{y}" width="70" height="70" fill="{WOOD}" stroke="{INK}"/>')
        parts.append(text(x + 35, y + 24, str(square), 16, "middle", "bold"))
        parts.append(text(x + 35, y + 44, f"row {r + 1}", 11, "middle"))
        parts.append(text(x + 35, y + 58, f"col {c + 1}", 11, "middle"))
    for r, gpio in enumerate(pins.rows):  # a row wire runs under its five squares, just below them
        xs = sorted(_cell(square_at(r, c))[0] for c in range(len(pins.columns)))
        y = _cell(square_at(r, 0))[1] + 78
        parts.append(line(xs[0] + 5, y, xs[-1] + 65, y, 3, ROW))
        parts.append(text(xs[0] + 5, y + 14, f"row {r + 1}: GPIO{gpio}", 11, weight="bold"))
    for c, gpio in enumerate(pins.columns):  # a column wire: one branch along each board row, joined at the edge
        parts += _column_wire(c, [_cell(square_at(r, c)) for r in range(len(pins.rows))])
        parts.append(text(900, 620 + 16 * c, f"column {c + 1}: GPIO{gpio}", 12))
    parts.append(line(880, 600, 880, 710, 1))
    said = [
        "Solid green: a row wire, along half a board row under five squares.",
        "Dashed red: a column wire, one branch along each board row, the branches joined at the edge.",
        "At each square the reed switch joins its row wire to its diode, and the diode its column",
        "wire (which way the diode goes: Building the board). Insulate where wires cross.",
        "All 11 wires gather at one edge, to the ribbon cable and the Pi's header.",
    ]
    parts += [text(60, 620 + 18 * i, sentence, 12) for i, sentence in enumerate(said)]
    note = "Seen from below (turned over left to right: square 1 is at the top right). Drawn from hardware/pinmap.toml."
    return svg(1100, 730, "The board's underside: squares, matrix rows and columns, wires", note, parts)


def _button(x: int) -> list[str]:
    """A push button from the GPIO to ground (the Pi's own pull-up holds the line high)."""
    return [
        line(x, 120, x, 270),
        line(x - 18, 270, x + 14, 256),
        line(x - 18, 300, x + 18, 300),
        line(x, 300, x, 520),
        text(x + 22, 285, "push", 11),
        text(x - 8, 340, "pull-up in the Pi", 11, "middle"),
    ]


def _led(x: int) -> list[str]:
    """330 ohm, then the LED: long leg (anode) to the resistor, short leg to ground."""
    return [
        line(x, 120, x, 170),
        f'<rect x="{x - 9}" y="170" width="18" height="60" fill="white" stroke="{INK}"/>',
        text(x + 14, 205, "330 R", 11),
        line(x, 230, x, 300),
        f'<polygon points="{x - 12},300 {x + 12},300 {x},322" fill="{COLUMN}" stroke="{INK}"/>',
        line(x - 12, 323, x + 12, 323, 3),
        text(x + 16, 305, "long leg", 10),
        text(x + 16, 335, "short", 10),
        line(x, 323, x, 520),
    ]


def _buzzer(x: int) -> list[str]:
    """1 kohm to an NPN's base; the buzzer from 5 V to the collector; the emitter to ground."""
    return [
        line(x, 120, x, 160),
        f'<rect x="{x - 9}" y="160" width="18" height="50" fill="white" stroke="{INK}"/>',
        text(x - 14, 190, "1 k", 11, "end"),
        line(x, 210, x, 300),
        line(x, 300, x + 20, 300),
        f'<circle cx="{x + 32}" cy="300" r="18" fill="none" stroke="{INK}"/>',
        line(x + 20, 288, x + 20, 312, 3),
        line(x + 20, 294, x + 40, 280),
        line(x + 20, 306, x + 40, 320),
        text(x + 56, 304, "NPN (BC337)", 11),
        line(x + 40, 280, x + 40, 250),
        f'<rect x="{x + 28}" y="210" width="24" height="40" fill="white" stroke="{INK}"/>',
        text(x + 56, 234, "buzzer", 11),
        line(x + 40, 210, x + 40, 150),
        text(x + 40, 144, "5V", 12, "middle"),
        line(x + 40, 320, x + 40, 520),
    ]


def thrower(pinmap: Path) -> str:
    """The stick thrower's circuit, one branch per part from its GPIO to ground."""
    pins = load_pinmap(pinmap)
    parts = [line(80, 520, 860, 520, 3), text(870, 525, "GND", 14, weight="bold")]
    branches = [("button", pins.button, _button)] + [(f"stick LED {i + 1}", g, _led) for i, g in enumerate(pins.leds)]
    branches += [("buzzer (optional)", pins.buzzer, _buzzer)] if pins.buzzer is not None else []
    for i, (name, gpio, draw) in enumerate(branches):
        x = 110 + i * 125
        parts += [text(x, 90, f"GPIO{gpio}", 14, "middle", "bold"), text(x, 108, name, 12, "middle")]
        parts += [f'<circle cx="{x}" cy="120" r="4" fill="{INK}"/>', *draw(x)]
    note = "Each branch from its GPIO to ground. Drawn from hardware/pinmap.toml by make_pictures.py."
    return svg(960, 560, "The stick thrower: the button, the stick LEDs and the buzzer", note, parts)


def pictures(pinmap: Path = HERE / "pinmap.toml") -> dict[str, str]:
    """Each picture's file name -> its SVG."""
    return {"header.svg": header(pinmap), "underside.svg": underside(pinmap), "thrower.svg": thrower(pinmap)}


def main(argv: list[str]) -> int:
    stale = []
    for name, drawing in pictures().items():
        path = HERE / name
        if "--check" in argv:
            if not path.is_file() or path.read_text(encoding="utf-8") != drawing:
                stale.append(name)
        else:
            path.write_text(drawing, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"not current (run python hardware/make_pictures.py): {', '.join(stale)}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
