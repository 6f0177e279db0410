"""Bar charts as SVG, drawn on the server for the staff page: no script, no CDN, no style attribute.

A few dozen lines are enough for bars with a title, axes, gridlines and labels, so this is ours
rather than a plotting library (matplotlib would be 40 MB on a Pi for three bar charts, and its
SVG carries inline styles the page's CSP refuses). Colours are presentation attributes, which the
CSP allows; text, axes and gridlines are `currentColor`, so the charts follow the page's light or
dark theme. Each chart is an `img` for screen readers, with a `<title>` and a `<desc>` that says
its numbers in words, and each bar has its own `<title>` (a tooltip on hover).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 64, 12, 38, 58  # margins: the y labels, the title, the date labels
INK = "currentColor"  # the page's text colour, so the charts follow its theme


@dataclass(frozen=True)
class Series:
    """One kind of bar: its name (the legend), a value per label, and its colour."""

    name: str
    values: Sequence[float | None]
    colour: str


def nice_top(value: float, whole: bool = False) -> tuple[float, float]:
    """A round top for the y axis at or above `value`, and the step of its gridlines; `whole` for
    counts, whose gridlines fall on whole numbers (no "1.5 games")."""
    if value <= 0:
        return (1.0, 1.0) if whole else (1.0, 0.25)
    magnitude = 10 ** math.floor(math.log10(value))
    for step in (0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0):
        if whole and (step * magnitude < 1 or step * magnitude != int(step * magnitude)):
            continue
        top = math.ceil(value / (step * magnitude)) * step * magnitude
        if top / (step * magnitude) <= 5:
            return top, step * magnitude
    return value, value  # not reached: a step of 10 * magnitude always fits in 5


def _number(value: float) -> str:
    return f"{value:.0f}" if value == int(value) else f"{value:.2f}".rstrip("0").rstrip(".")


def bar_chart(
    chart_id: str,
    title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    unit: str,
    whole: bool = False,
    none: str = "none",
    empty: str = "no games yet",
) -> Markup:
    """Stacked bars, one group per label (a day), each series a segment; None counts as 0 but is
    said as `none` in the bar's tooltip. `unit` names the y axis; `whole` for counts; `none` and
    `empty` (the chart with no bars) in the page's language."""
    totals = [sum(s.values[i] or 0 for s in series) for i in range(len(labels))]
    top, step = nice_top(max(totals, default=0), whole)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / max(len(labels), 1)
    bar_w = max(slot * 0.7, 1.0)

    def y_of(v: float) -> float:
        return TOP + plot_h - v / top * plot_h

    summary = "; ".join(
        f"{label}: " + ", ".join(f"{_number(s.values[i] or 0)} {s.name}" for s in series)
        for i, label in enumerate(labels)
    )
    out = [
        f'<svg id="{chart_id}" class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" role="img" '
        f'aria-labelledby="{chart_id}-title {chart_id}-desc" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{chart_id}-title">{escape(title)}</title>',
        f'<desc id="{chart_id}-desc">{escape(summary or empty)}</desc>',
        f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="19" font-weight="bold" '
        f'fill="{INK}">{escape(title)}</text>',
    ]
    tick = 0.0
    while tick <= top + step / 1000:  # gridlines and y labels
        y = y_of(tick)
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="{INK}" opacity=".2"/>')
        out.append(
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="14" fill="{INK}">{_number(tick)}</text>'
        )
        tick += step
    out.append(
        f'<text transform="translate(14 {TOP + plot_h / 2}) rotate(-90)" text-anchor="middle" font-size="14" '
        f'fill="{INK}">{escape(unit)}</text>'
    )
    every = max(1, math.ceil(len(labels) / 10))  # at most about 10 date labels, so they stay legible
    for i, label in enumerate(labels):
        x = LEFT + i * slot + (slot - bar_w) / 2
        base = 0.0
        out.append(f'<g class="bar" data-label="{escape(label)}">')
        for s in series:
            value = s.values[i]
            height = (value or 0) / top * plot_h
            said = none if value is None else _number(value)
            out.append(
                f'<rect x="{x:.1f}" y="{y_of(base + (value or 0)):.1f}" width="{bar_w:.1f}" height="{height:.1f}" '
                f'fill="{s.colour}"><title>{escape(label)}: {said} {escape(s.name)}</title></rect>'
            )
            base += value or 0
        out.append("</g>")
        if i % every == 0:
            lx = LEFT + i * slot + slot / 2
            out.append(
                f'<text x="{lx:.1f}" y="{TOP + plot_h + 17}" text-anchor="middle" font-size="13" '
                f'fill="{INK}">{escape(label[5:] if len(label) == 10 else label)}</text>'
            )
    out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{TOP + plot_h}" y2="{TOP + plot_h}" stroke="{INK}"/>')
    out.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_h}" stroke="{INK}"/>')
    if len(series) > 1:  # the legend, under the date labels
        x = LEFT
        for s in series:
            out.append(f'<rect x="{x}" y="{HEIGHT - 18}" width="14" height="14" fill="{s.colour}"/>')
            out.append(f'<text x="{x + 18}" y="{HEIGHT - 6}" font-size="14" fill="{INK}">{escape(s.name)}</text>')
            x += 30 + 9 * len(s.name)
    out.append("</svg>")
    return Markup("\n".join(out))
