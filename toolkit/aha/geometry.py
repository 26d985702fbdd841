"""The input geometry a detector was trained on, and bringing any FailGen grid to it.

A model directory's `geometry.json` records the grid the model learned from: the layout
(rows = camera views, columns = keyframes), the view names, the view tile size in px and
which keyframes it is shown (those up to the current one). A grid rendered at another
camera size is redrawn at the trained tile size before the processor sees it, so a model
trained on 64-px views judges 128- or 256-px renders of the same scene alike.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from toolkit.core import console
from toolkit.core.errors import InputError

GEOMETRY_FILE = "geometry.json"
LAYOUT = "failgen-grid"


@dataclass(frozen=True)
class Geometry:
    view_size: int
    views: tuple[str, ...] = ("front", "overhead", "wrist")
    keyframes: str = "up-to-current"  # future (blank) columns are dropped before the model sees the grid
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
    from toolkit.failgen.grid import ROWS

    if geo.views != ROWS:
        raise InputError(f"{path}: field 'views': {list(geo.views)} is not the FailGen grid's rows {list(ROWS)}")
    return geo


def write_geometry(model_dir: str | Path, geo: Geometry) -> None:
    path = Path(model_dir) / GEOMETRY_FILE
    path.write_text(json.dumps(geo.to_json(), indent=1) + "\n", encoding="utf-8")


def geometry_of_images(paths: list[Path]) -> Geometry | None:
    """The geometry of training grids: their most common view size (None when none is a FailGen grid)."""
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
    return Geometry(view_size=sizes.most_common(1)[0][0])


class GridNormalizer:
    """Brings a FailGen grid to a model's geometry; reports a mapped mismatch once on stderr."""

    def __init__(self, geometry: Geometry | None):
        self.geometry = geometry
        self._reported: set[int] = set()

    def __call__(self, image, where: str = "", report: bool = True):
        if self.geometry is None:
            return image
        from toolkit.failgen.grid import grid_layout, regrid

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
        return regrid(image, self.geometry.view_size)
