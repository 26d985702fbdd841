"""Fitting the exemplar PPM on folders written by `reason maps generate`."""

from __future__ import annotations

import time
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import read_records
from toolkit.maps.ppm import ExemplarPPM, load_gray


def load_items(dirs: list[Path], limit: int | None = None) -> list[tuple]:
    items = []
    for folder in dirs:
        path = folder / "circuits.jsonl"
        if not path.is_file():
            raise InputError(f"{path}: no such file (expected a folder written by `reason maps generate`)")
        for lineno, rec in enumerate(read_records(path, types=["maps.circuit"]), start=1):
            if limit and len(items) >= limit:
                break
            try:
                items.append((load_gray(folder / rec["image"]), rec))
            except (ValueError, FileNotFoundError) as exc:
                raise InputError(f"{path}:{lineno}: field 'image': {exc}") from None
    if not items:
        raise InputError("no training circuits found")
    return items


def fit(dirs: list[Path], out: Path, limit: int | None = None) -> dict:
    start = time.time()
    items = load_items(dirs, limit)
    model = ExemplarPPM.fit(items)
    meta = {"circuits": len(items), "edges": int(len(model.a["shapes"])), "data": [str(d) for d in dirs],
            "seconds": round(time.time() - start, 1)}
    model.save(out, meta)
    return meta
