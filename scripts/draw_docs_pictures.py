"""Draw the documentation's diagrams (SVG) from the rules engine, so they cannot disagree with it.

Writes docs/images/board-<ruleset>.svg (the S-shaped path, the starting pieces, the special
squares) and docs/images/sticks-<ruleset>.svg (every throw of four sticks and what it counts).
Run `.venv/bin/python scripts/draw_docs_pictures.py`; `--check` only says whether they are current.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from senet_pi.rules import RULESETS, new_game  # noqa: E402
from senet_pi.rules.throws import Sticks  # noqa: E402

OUT = ROOT / "docs" / "images"
CELL = 64
MARGIN = 24
COLOURS = {"A": "#f4f1ea", "B": "#3f8f5a", "C": "#c0392b", "D": "#2c5aa0"}
INK = "#2b2118"
WOOD = "#e9c98f"
SPECIAL = "#c99a4f"


def square_xy(square: int) -> tuple[int, int]:
    """Top-left corner of `square` (1-30) on the drawing: rows run 1-10, 20-11, 21-30 (P1)."""
    row, index = divmod(square - 1, 10)
    column = 9 - index if row == 1 else index
    return MARGIN + column * CELL, MARGIN + row * CELL


def board_svg(ruleset: str, with_specials: bool = True) -> str:
    """The board of `ruleset` at its start: path arrows, square numbers, pieces, special squares
    (without them: the path and the pieces only, as every two-player rule set starts)."""
    cls = RULESETS[ruleset]
    game = new_game(ruleset)
    specials = cls.special_squares if with_specials else {}
    width, height = 2 * MARGIN + 10 * CELL, 2 * MARGIN + 3 * CELL + (150 if specials else 24)
    title = f"The {ruleset} board at the start: squares 1-30 along an S, special squares marked"
    if not specials:
        title = "The board at the start: squares 1-30 along an S, White on the odd squares, Green on the even"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f"<title>{title}</title>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
        '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="6" refY="4" orient="auto">'
        f'<path d="M0,0 L8,4 L0,8 z" fill="{INK}"/></marker></defs>',
    ]
    for square in range(1, 31):
        x, y = square_xy(square)
        fill = SPECIAL if square in specials else WOOD
        out.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="{INK}"/>')
        out.append(f'<text x="{x + 5}" y="{y + 15}" font-size="13" fill="{INK}">{square}</text>')
    # the path: along row 1, down, back along row 2, down, along row 3, off the end
    half = CELL // 2
    points = [square_xy(s) for s in (1, 10, 11, 20, 21, 30)]
    path = " ".join(f"{x + half},{y + half + 14}" for x, y in points)
    out.append(
        f'<polyline points="{path}" fill="none" stroke="{INK}" stroke-opacity="0.35" stroke-width="3" '
        'marker-end="url(#arrow)"/>'
    )
    x30, y30 = square_xy(30)
    out.append(f'<text x="{x30 + CELL - 26}" y="{y30 + CELL + 16}" font-size="12" fill="{INK}">off</text>')
    board = game.board()
    dots: dict[int, str] = {}  # modern: each piece's dots (M1), read from the position
    if ruleset == "modern":
        for player in board.values():
            pieces = game.position().get(player, {})
            if isinstance(pieces, dict):
                dots.update({int(sq): str(d) for d, sq in pieces.items()})
    for square, player in sorted(board.items()):
        x, y = square_xy(square)
        cx, cy = x + half, y + half + 4
        out.append(f'<circle cx="{cx}" cy="{cy}" r="17" fill="{COLOURS[player]}" stroke="{INK}" stroke-width="2"/>')
        label = player
        if square in dots:
            label = f"{player}{dots[square]}"
        text_fill = INK if player == "A" else "white"
        out.append(f'<text x="{cx}" y="{cy + 5}" font-size="14" text-anchor="middle" fill="{text_fill}">{label}</text>')
    # the key: each special square and what it means in this rule set
    y = MARGIN + 3 * CELL + 28
    if specials:
        out.append(
            f'<text x="{MARGIN}" y="{y}" font-size="14" font-weight="bold" fill="{INK}">'
            f"Special squares ({ruleset})</text>"
        )
    for i, (square, special) in enumerate(sorted(specials.items())):
        column, row = divmod(i, 4)
        tx, ty = MARGIN + column * (5 * CELL), y + 22 + row * 22
        out.append(f'<text x="{tx}" y="{ty}" font-size="13" fill="{INK}">{square}: {escape(str(special.text))}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def sticks_svg(ruleset: str) -> str:
    """Every way four sticks can fall, grouped by the value `ruleset` counts, with its odds and bonus."""
    cls = RULESETS[ruleset]
    kind = cls.throw_kinds["sticks"]
    assert isinstance(kind, Sticks)
    odds: dict[int, Fraction] = kind.odds()
    counted = kind.counted  # "dark" or "white": the side that counts
    row_h, width = 58, 560
    height = 40 + row_h * len(odds) + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f"<title>What four sticks count in {ruleset}: the {counted} sides up</title>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="12" y="24" font-size="14" font-weight="bold" fill="{INK}">'
        f"{ruleset}: count the {counted} sides</text>",
    ]
    for i, (value, chance) in enumerate(odds.items()):
        y = 40 + i * row_h
        up = 0 if value == kind.zero else value  # sticks showing the counted side
        for s in range(4):
            shows_counted = s < up
            dark = shows_counted if counted == "dark" else not shows_counted
            fill = "#5a3b1e" if dark else "#faf6ea"
            out.append(f'<rect x="{12 + s * 26}" y="{y}" width="16" height="46" rx="6" fill="{fill}" stroke="{INK}"/>')
        bonus = ", throw again" if value in cls.bonus_throws else ""
        sides = f"{up} {counted} side{'s' if up != 1 else ''} up" if up else f"no {counted} side up"
        out.append(f'<text x="130" y="{y + 20}" font-size="15" font-weight="bold" fill="{INK}">counts {value}</text>')
        out.append(
            f'<text x="130" y="{y + 40}" font-size="13" fill="{INK}">{sides}; '
            f"{chance.numerator * 16 // chance.denominator} in 16{bonus}</text>"
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def pictures() -> dict[Path, str]:
    """Every diagram this script draws, by file."""
    drawn = {OUT / "board-path.svg": board_svg("secret", with_specials=False)}
    drawn.update({OUT / f"board-{name}.svg": board_svg(name) for name in RULESETS})
    drawn.update({OUT / f"sticks-{name}.svg": sticks_svg(name) for name in ("secret", "houses")})
    return drawn


def main(argv: list[str] | None = None) -> int:
    """Write the diagrams, or with --check say which differ from what the rules engine draws."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the files are current")
    args = parser.parse_args(argv)
    stale = [path for path, text in pictures().items() if not path.exists() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run scripts/draw_docs_pictures.py", file=sys.stderr)
        return 1 if stale else 0
    for path, text in pictures().items():
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
