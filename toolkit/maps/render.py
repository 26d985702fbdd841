"""Schematic images of grid circuits with schemdraw on matplotlib's Agg backend (no LaTeX).

Grid point (r, c) sits at (c, -r) * UNIT; the axes span the grid plus a margin of MARGIN units, so a
reader can recover the grid from the image alone. `noisy` adds point jitter, a small rotation, blur
and JPEG compression.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

from toolkit.maps.circuit import OPEN, WIRE

UNIT = 3.0
MARGIN = 1.2
SIZE = 256
UNIT_TEXT = {"R": "Ω", "V": "V", "I": "A", "C": "F", "L": "H", "G": "S", "H": "Ω", "E": "", "F": ""}


def label_text(edge: dict) -> str:
    """The text printed beside an element: its name, and its value (or gain x control meter) when shown."""
    kind, name = edge["kind"], edge["name"]
    shown = edge.get("shown", True)
    if kind in "EGFH":
        gain = edge["value"] if shown else name.lower()
        return f"{name}\n{gain}·{edge['ctrl']}"
    if not shown:
        return name
    return f"{name}\n{edge['value']}{UNIT_TEXT[kind]}"


def _element(kind: str):
    import schemdraw.elements as elm

    return {
        "R": elm.Resistor, "V": elm.SourceV, "I": elm.SourceI, "C": elm.Capacitor, "L": elm.Inductor2,
        "E": elm.SourceControlledV, "H": elm.SourceControlledV, "G": elm.SourceControlledI,
        "F": elm.SourceControlledI,
    }[kind]()


def draw(circuit: dict, *, style: str = "clean", seed: int = 0):
    """A PIL image (SIZE x SIZE, RGB) of the circuit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import schemdraw
    import schemdraw.elements as elm
    from PIL import Image, ImageFilter

    rng = random.Random(seed)
    jitter = 0.12 if style == "noisy" else 0.0
    rows, cols = circuit["rows"], circuit["cols"]
    pos = {(r, c): (c * UNIT + rng.uniform(-jitter, jitter), -r * UNIT + rng.uniform(-jitter, jitter))
           for r in range(rows) for c in range(cols)}
    fig = plt.figure(figsize=(SIZE / 100, SIZE / 100), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    span = max(rows, cols) - 1
    font = 9 if span <= 2 else 7 if span <= 3 else 5
    with schemdraw.Drawing(canvas=ax, show=False, fontsize=font, lw=1.2) as d:
        for e in circuit["edges"]:
            a, b = pos[tuple(e["a"])], pos[tuple(e["b"])]
            meter = e.get("meter") or ""
            end = b
            if meter.startswith("I"):
                end = (a[0] + 0.62 * (b[0] - a[0]), a[1] + 0.62 * (b[1] - a[1]))
                d.add(elm.MeterA().endpoints(end, b).label(meter, loc="bot", fontsize=font))
            if e["kind"] == OPEN:
                if meter.startswith("U"):
                    d.add(elm.Gap().endpoints(a, end).label(("+", meter, "−"), fontsize=font))
                continue
            if e["kind"] == WIRE:
                d.add(elm.Line().endpoints(a, end))
                continue
            start, stop = (end, a) if e.get("flip") else (a, end)
            part = _element(e["kind"]).endpoints(start, stop)
            vertical = abs(a[0] - b[0]) < abs(a[1] - b[1])
            part.label(label_text(e), loc="top", fontsize=font, rotate=False, ofst=0.15 if vertical else None)
            if meter.startswith("U"):
                plus, minus = ("+", "−") if not e.get("flip") else ("+", "−")
                marks = (plus, meter, minus) if not e.get("flip") else (minus, meter, plus)
                part.label(marks, loc="bot", fontsize=font, rotate=False)
            d.add(part)
        g = pos[tuple(circuit["ground"])]
        d.add(elm.Ground().at(g))
        d.draw(show=False)
    _frame(ax, rows, cols)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, facecolor="white")
    plt.close(fig)
    buf.seek(0)
    image = Image.open(buf).convert("RGB")
    if image.size != (SIZE, SIZE):
        image = image.resize((SIZE, SIZE))
    if style == "noisy":
        image = image.rotate(rng.uniform(-2, 2), fillcolor=(255, 255, 255), resample=Image.BILINEAR)
        image = image.filter(ImageFilter.GaussianBlur(rng.uniform(0.2, 0.7)))
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=rng.randint(50, 85))
        out.seek(0)
        image = Image.open(out).convert("RGB")
    return image


def _frame(ax, rows: int, cols: int) -> None:
    """Square axes over the grid: the larger side sets the scale, the grid sits at the top-left."""
    span = (max(rows, cols) - 1) * UNIT
    ax.set_xlim(-MARGIN * UNIT / 2, span + MARGIN * UNIT / 2)
    ax.set_ylim(-span - MARGIN * UNIT / 2, MARGIN * UNIT / 2)
    ax.set_aspect("auto")


def point_pixels(rows: int, cols: int) -> dict[tuple[int, int], tuple[float, float]]:
    """Pixel (x, y) of each grid point in a clean render, the inverse of `_frame`."""
    span = (max(rows, cols) - 1) * UNIT
    width = span + MARGIN * UNIT
    scale = SIZE / width
    return {(r, c): ((c * UNIT + MARGIN * UNIT / 2) * scale, (r * UNIT + MARGIN * UNIT / 2) * scale)
            for r in range(rows) for c in range(cols)}


def save(circuit: dict, path: Path, *, style: str = "clean", seed: int = 0) -> None:
    image = draw(circuit, style=style, seed=seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="JPEG" if path.suffix.lower() in (".jpg", ".jpeg") else "PNG")
