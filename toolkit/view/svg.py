"""Small inline SVG line charts (no plotting library, no external files)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")


@dataclass
class Series:
    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]  # None leaves a gap


def _step(lo: float, hi: float, count: int = 5) -> float:
    raw = (hi - lo) / count
    step = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        if raw <= step * mult:
            return step * mult
    return step * 10


def _ticks(lo: float, hi: float, step: float) -> list[float]:
    first = math.ceil(lo / step - 1e-9) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def _fmt(v: float, step: float | None = None) -> str:
    """Enough decimals to tell ticks `step` apart; 3 significant digits for data values."""
    if step is not None and abs(v) < 1e6:
        decimals = max(0, -math.floor(math.log10(step) + 1e-9))
        return f"{v:.{decimals}f}"
    return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.2e}"


def _widen(lo: float, hi: float) -> tuple[float, float]:
    """A flat series still gets a readable axis: 5% of its value either side (or ±1 around 0)."""
    if hi > lo:
        return lo, hi
    pad = abs(lo) * 0.05 or 1.0
    return lo - pad, hi + pad


def line_chart(series: Sequence[Series], *, title: str, x_label: str, y_label: str, log_x: bool = False,
               width: int = 560, height: int = 280) -> Markup:
    """A chart with axes, ticks, one polyline plus markers per series, and a legend on the right."""
    pts = [(x, y) for s in series for x, y in zip(s.xs, s.ys, strict=False) if y is not None]
    if not pts:
        return Markup(f'<p class="muted">{escape(title)}: no data</p>')
    is_log = log_x and all(x > 0 for x, _ in pts)
    fx = math.log10 if is_log else float
    xs = [fx(x) for x, _ in pts]
    ys = [y for _, y in pts]
    x0, x1 = _widen(min(xs), max(xs))
    y0, y1 = _widen(min(ys), max(ys))
    ystep = _step(y0, y1)
    left, right, top, bottom = 56, 150, 28, 44
    pw, ph = width - left - right, height - top - bottom

    def px(v: float) -> float:
        return left + (fx(v) - x0) / (x1 - x0) * pw

    def py(v: float) -> float:
        return top + (1 - (v - y0) / (y1 - y0)) * ph

    out = [f'<svg class="chart" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
           f'<text x="{left}" y="16" class="ct">{escape(title)}</text>',
           f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" class="frame"/>']
    for t in _ticks(y0, y1, ystep):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{py(t):.1f}" y2="{py(t):.1f}" class="grid"/>'
                   f'<text x="{left - 4}" y="{py(t) + 4:.1f}" class="tick" text-anchor="end">{_fmt(t, ystep)}</text>')
    distinct = sorted({x for s in series for x in s.xs})
    xticks = distinct if len(distinct) <= 12 else [10 ** t if is_log else t for t in _ticks(x0, x1, _step(x0, x1))]
    for t in xticks:
        out.append(f'<text x="{px(t):.1f}" y="{top + ph + 16}" class="tick" text-anchor="middle">{_fmt(t)}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 6}" class="axis" text-anchor="middle">'
               f'{escape(x_label)}</text>')
    out.append(f'<text x="14" y="{top + ph / 2}" class="axis" text-anchor="middle" '
               f'transform="rotate(-90 14 {top + ph / 2})">{escape(y_label)}</text>')
    for i, s in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        runs: list[list[str]] = [[]]
        for x, y in zip(s.xs, s.ys, strict=False):
            if y is None:
                runs.append([])
                continue
            runs[-1].append(f"{px(x):.1f},{py(y):.1f}")
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{color}">'
                       f'<title>{escape(s.label)}: {_fmt(x)}, {_fmt(y)}</title></circle>')
        for run in runs:
            if len(run) > 1:
                out.append(f'<polyline points="{" ".join(run)}" fill="none" stroke="{color}" stroke-width="1.6"/>')
        ly = top + 12 + 16 * i
        out.append(f'<rect x="{left + pw + 10}" y="{ly - 8}" width="10" height="10" fill="{color}"/>'
                   f'<text x="{left + pw + 24}" y="{ly + 1}" class="legend">{escape(s.label[:20])}</text>')
    out.append("</svg>")
    return Markup("".join(out))
