"""The AHA detector's view of a local VLM (loading and generation live in toolkit.core.vlm):
FailGen grids are brought to the model's trained geometry and their blank future columns dropped."""

from __future__ import annotations

from pathlib import Path

from toolkit.core import vlm as core_vlm
from toolkit.core.vlm import attach_adapter, check_vlm_dir, load_image, quiet_transformers


class VLM(core_vlm.VLM):
    def prepare(self, image):
        """What the model sees of a FailGen grid: the keyframes up to the current one (the blank future
        columns dropped), so a 4-sub-task task's grid looks like a 2-sub-task one's at the same step;
        a model whose geometry keeps all keyframes sees the white future cells."""
        from toolkit.failgen.grid import trim_future

        geometry = getattr(getattr(self, "normalize", None), "geometry", None)
        if geometry is not None and geometry.keyframes == "all":
            return image
        return trim_future(image)


def fit_sample(vlm: VLM, image, sample) -> tuple:
    """(image, question) of a sample brought to the model's format: grid size and row order, and the
    question reworded for that row order."""
    norm = vlm.normalize
    if norm is None:
        return image, sample.question
    return (norm(image, sample.sample_id, rows=sample.rows),
            norm.question(sample.question, sample.subtask, sample.rows, sample.future))


def load_vlm(path: str | Path, adapter: str | Path | None = None, *, device: str = "auto",
             load_in_4bit: bool = False, trainable: bool = False, warn_geometry: bool = True) -> VLM:
    """Load model + processor from a local directory; attach a peft adapter when given. The grid
    geometry comes from the adapter's directory when it records one, else from the model's."""
    vlm = core_vlm.load_vlm(path, adapter, device=device, load_in_4bit=load_in_4bit, trainable=trainable, cls=VLM)
    vlm.normalize = model_normalizer(([Path(adapter)] if adapter else []) + [Path(path)], warn=warn_geometry)
    return vlm


def model_normalizer(dirs: list[Path], warn: bool = True):
    """The GridNormalizer of the first directory with a geometry file; without one, grids go in as they
    are (a one-line warning: an older or foreign model)."""
    from toolkit.aha.geometry import GEOMETRY_FILE, GridNormalizer, read_geometry
    from toolkit.core import console

    for d in dirs:
        geometry = read_geometry(d)
        if geometry is not None:
            return GridNormalizer(geometry)
    if warn:
        console.warn(f"{dirs[-1]}: no {GEOMETRY_FILE} (an older or foreign model): grids go in at their own size")
    return None


__all__ = ["VLM", "fit_sample", "attach_adapter", "check_vlm_dir", "load_image", "load_vlm", "model_normalizer",
           "quiet_transformers"]
