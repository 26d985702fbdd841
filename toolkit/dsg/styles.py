"""Drawing styles. The held-out split shares the 8 mark class names and the scene layouts with the train
split but draws them with disjoint palettes, fills, line materials and backgrounds."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.core.errors import InputError

MARKS = ("circle", "cross", "square", "triangle", "diamond", "star", "plus", "ring")


@dataclass(frozen=True)
class Style:
    name: str
    palettes: tuple[tuple[int, int, int], ...]  # ink colours of marks, objects and walls
    backgrounds: tuple[tuple[int, int, int], ...]
    fills: tuple[str, ...]  # how a mark's inside is drawn: solid, outline, striped, hollow
    materials: tuple[str, ...]  # how lines (walls, grid) are drawn: solid, dashed, branch, dotted, zigzag


STYLES = {
    "train": Style(
        name="train",
        palettes=((20, 20, 20), (180, 30, 30), (30, 60, 170), (20, 120, 40), (120, 60, 20)),
        backgrounds=((255, 255, 255), (245, 240, 225), (230, 235, 245)),
        fills=("solid", "outline"),
        materials=("solid", "dashed", "branch"),
    ),
    "heldout": Style(
        name="heldout",
        palettes=((130, 0, 130), (0, 130, 130), (200, 110, 0), (90, 90, 90)),
        backgrounds=((255, 250, 200), (215, 245, 215), (250, 220, 230)),
        fills=("striped", "hollow"),
        materials=("dotted", "zigzag"),
    ),
}


def get_style(name: str) -> Style:
    if name not in STYLES:
        raise InputError(f"--styles {name!r}: unknown style (expected one of {', '.join(STYLES)})")
    return STYLES[name]
