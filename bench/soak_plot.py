"""The soak curves as a small SVG, written by hand (no plotting dependency): one panel per
measure, operations on the x axis, each panel scaled from zero to its own maximum, the warm-up
boundary dashed."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

WIDTH, PANEL_HEIGHT, MARGIN = 640, 130, 48
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")


def _panel(top: int, title: str, xs: Sequence[int], ys: Sequence[float], colour: str, warm_up: int) -> str:
    inner_w, inner_h = WIDTH - 2 * MARGIN, PANEL_HEIGHT - 40
    x_max = max(max(xs, default=1), 1)
    y_max = max(max(ys, default=1.0), 1e-9) * 1.1

    def at(x: float, y: float) -> str:
        return f"{MARGIN + x / x_max * inner_w:.1f},{top + 20 + inner_h - y / y_max * inner_h:.1f}"

    points = " ".join(at(x, y) for x, y in zip(xs, ys, strict=True))
    warm_x = MARGIN + min(warm_up, x_max) / x_max * inner_w
    last = f"{ys[-1]:.1f}" if ys else "-"
    return "\n".join(
        [
            f'<text x="{MARGIN}" y="{top + 14}" font-size="12">{escape(title)} (end: {last}, '
            f"max: {max(ys, default=0):.1f})</text>",
            f'<rect x="{MARGIN}" y="{top + 20}" width="{inner_w}" height="{inner_h}" '
            'fill="none" stroke="#bbb"/>',
            f'<line x1="{warm_x:.1f}" y1="{top + 20}" x2="{warm_x:.1f}" y2="{top + 20 + inner_h}" '
            'stroke="#999" stroke-dasharray="4 3"/>',
            _label(MARGIN - 4, top + 26, f"{y_max / 1.1:.0f}", "end"),
            _label(MARGIN - 4, top + 20 + inner_h, "0", "end"),
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="1.8"/>',
        ]
    )


def _label(x: int, y: int, text: str, anchor: str) -> str:
    return f'<text x="{x}" y="{y}" font-size="10" text-anchor="{anchor}">{escape(text)}</text>'


def svg(series: dict[str, tuple[Sequence[int], Sequence[float]]], warm_up: int, caption: str) -> str:
    """One panel per entry of ``series`` (title → (operations, values)), stacked."""
    height = PANEL_HEIGHT * len(series) + 40
    panels = [
        _panel(index * PANEL_HEIGHT, title, xs, ys, COLOURS[index % len(COLOURS)], warm_up)
        for index, (title, (xs, ys)) in enumerate(series.items())
    ]
    last_x = max((max(xs, default=0) for xs, _ in series.values()), default=0)
    footer = height - 14
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'font-family="sans-serif">',
            '<rect width="100%" height="100%" fill="white"/>',
            *panels,
            _label(MARGIN, footer, "0", "start"),
            _label(WIDTH - MARGIN, footer, f"{last_x} operations", "end"),
            _label(WIDTH // 2, footer, caption, "middle"),
            "</svg>",
            "",
        ]
    )
