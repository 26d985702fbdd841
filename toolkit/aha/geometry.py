"""The input geometry a detector was trained on, and bringing any FailGen grid to it.

A model directory's `geometry.json` records the grid the model learned from: the layout
(rows = camera views, columns = keyframes), the view names, the view tile size in px and
which keyframes it is shown (those up to the current one, or all with the future ones white).
A grid rendered at another camera size is redrawn at the trained tile size before the
processor sees it, so a model trained on 64-px views judges 128- or 256-px renders of the
same scene alike; a grid whose rows come in another order (the official front, wrist,
overhead vs the earlier front, overhead, wrist) has its rows moved to the model's order, and
a question in FailGen's wording is reworded for the model's order.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.failgen.grid import OFFICIAL_ROWS

GEOMETRY_FILE = "geometry.json"
LAYOUT = "failgen-grid"
KEYFRAMES = ("up-to-current", "all")


@dataclass(frozen=True)
class Geometry:
    view_size: int
    views: tuple[str, ...] = OFFICIAL_ROWS
    keyframes: str = "up-to-current"  # future (blank) columns are dropped before the model sees the grid; or "all"
    layout: str = LAYOUT

    def to_json(self) -> dict:
        return {**asdict(self), "views": list(self.views)}


def read_geometry(model_dir: str | Path) -> Geometry | None:
    """The model's recorded geometry, or None when the directory has no geometry file."""
    path = Path(model_dir) / GEOMETRY_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        geo = Geometry(view_size=int(data["view_size"]), views=tuple(data["views"]),
                       keyframes=str(data["keyframes"]), layout=str(data["layout"]))
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{path}: corrupted geometry file ({type(exc).__name__}: {exc})") from None
    if geo.layout != LAYOUT:
        raise InputError(f"{path}: field 'layout': unknown grid layout '{geo.layout}' (known: {LAYOUT})")
    if sorted(geo.views) != sorted(OFFICIAL_ROWS):
        raise InputError(f"{path}: field 'views': {list(geo.views)} is not an order of the FailGen grid's views "
                         f"{list(OFFICIAL_ROWS)}")
    if geo.keyframes not in KEYFRAMES:
        raise InputError(f"{path}: field 'keyframes': '{geo.keyframes}' is not one of {', '.join(KEYFRAMES)}")
    return geo


def write_geometry(model_dir: str | Path, geo: Geometry) -> None:
    path = Path(model_dir) / GEOMETRY_FILE
    path.write_text(json.dumps(geo.to_json(), indent=1) + "\n", encoding="utf-8")


def geometry_of_images(paths: list[Path], rows: tuple[str, ...] = OFFICIAL_ROWS) -> Geometry | None:
    """The geometry of training grids with view rows `rows`: their most common view size (None when
    none is a FailGen grid)."""
    from PIL import Image

    from toolkit.failgen.grid import grid_layout

    sizes: Counter[int] = Counter()
    for p in paths:
        try:
            with Image.open(p) as im:
                layout = grid_layout(*im.size)
        except OSError:
            continue
        if layout is not None:
            sizes[layout[0]] += 1
    if not sizes:
        return None
    return Geometry(view_size=sizes.most_common(1)[0][0], views=tuple(rows))


def common_rows(samples) -> tuple[str, ...]:
    """The most common row order of samples' grids (the official order when there are none)."""
    counts = Counter(tuple(s.rows) for s in samples)
    return counts.most_common(1)[0][0] if counts else OFFICIAL_ROWS


class GridNormalizer:
    """Brings a FailGen grid to a model's geometry; reports a mapped mismatch once on stderr."""

    def __init__(self, geometry: Geometry | None):
        self.geometry = geometry
        self._reported: set[int] = set()

    def __call__(self, image, where: str = "", report: bool = True, rows: tuple[str, ...] = OFFICIAL_ROWS):
        """`image` (a grid with view rows `rows`, top to bottom) at the model's geometry."""
        if self.geometry is None:
            return image
        from toolkit.failgen.grid import grid_layout, regrid, reorder_rows

        layout = grid_layout(*image.size)
        if layout is None:
            prefix = f"{where}: " if where else ""
            raise InputError(f"{prefix}a {image.size[0]}x{image.size[1]} image is not a FailGen grid "
                             f"({len(self.geometry.views)} rows of square views, 2-px gaps); the model expects "
                             f"{self.geometry.view_size}-px views")
        size = layout[0]
        if report and size != self.geometry.view_size and size not in self._reported:
            self._reported.add(size)
            console.info(f"grids of {size}-px views are redrawn at the model's trained "
                         f"{self.geometry.view_size}-px views (each view resized on its own)")
        return regrid(reorder_rows(image, tuple(rows), self.geometry.views), self.geometry.view_size)

    def question(self, text: str, subtask: str, rows: tuple[str, ...] = OFFICIAL_ROWS, future: str = "white") -> str:
        """A question in FailGen's wording for a grid of `rows` reworded for the model's row order (the
        model learned one wording); any other question goes in as it is."""
        from toolkit.aha.prompt import make_question

        if self.geometry is None or not subtask or text != make_question(subtask, rows, future):
            return text
        return make_question(subtask, self.geometry.views, future)
