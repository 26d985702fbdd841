"""Prepare and encode each distinct image of a batch once: when several prompts of a `generate` batch ask about
the same image (grounding one scene's schema nodes, a level at a time), the image processor and the vision
tower run on the distinct images only and their outputs are copied back to every prompt. The answers are those
of the plain batch; for a small model, resizing and encoding the images is most of a short generation.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any


def distinct_index(images: list) -> tuple[list[int], list[int]]:
    """(positions of each image's first appearance, index of each prompt's image among those); images are
    the same when they are the same object, as a loader cache hands them out."""
    first: dict[int, int] = {}
    keep: list[int] = []
    inverse: list[int] = []
    for pos, im in enumerate(images):
        if id(im) not in first:
            first[id(im)] = len(keep)
            keep.append(pos)
        inverse.append(first[id(im)])
    return keep, inverse


def vision_tower(model) -> Any:
    """The model's vision tower module (LLaVA-style `vision_tower`, under `.model` in newer layouts, or under a
    peft wrapper), or None when the model has none we know."""
    base = getattr(getattr(model, "base_model", None), "model", None)
    for owner in (model, getattr(model, "model", None), base, getattr(base, "model", None)):
        tower = getattr(owner, "vision_tower", None)
        if tower is not None:
            return tower
    return None


def _expand(value, index):
    import torch

    if isinstance(value, torch.Tensor):
        return value[index]
    if isinstance(value, tuple):
        return tuple(_expand(v, index) for v in value)
    return value


@contextmanager
def shared_image_encoding(model, images: list):
    """Within the block, a vision-tower call on this batch's pixel values runs on the distinct images only."""
    import torch

    keep, inverse = distinct_index(images)
    tower = vision_tower(model)
    if tower is None or len(keep) == len(images):
        yield
        return
    keep_t, inverse_t, full = torch.tensor(keep), torch.tensor(inverse), len(images)
    state = {"shrunk": False}

    def before(module, args, kwargs):
        pixels = args[0] if args else kwargs.get("pixel_values")
        state["shrunk"] = isinstance(pixels, torch.Tensor) and pixels.shape[0] == full
        if not state["shrunk"]:
            return None
        small = pixels[keep_t.to(pixels.device)]
        if args:
            return (small, *args[1:]), kwargs
        return args, {**kwargs, "pixel_values": small}

    def after(module, args, kwargs, output):
        if not state["shrunk"]:
            return None
        state["shrunk"] = False
        index = inverse_t.to(next(module.parameters()).device)
        if isinstance(output, torch.Tensor) or isinstance(output, tuple) and not hasattr(output, "keys"):
            return _expand(output, index)
        for key in list(output.keys()):
            output[key] = _expand(output[key], index)
        return output

    handles = [tower.register_forward_pre_hook(before, with_kwargs=True),
               tower.register_forward_hook(after, with_kwargs=True)]
    try:
        yield
    finally:
        for h in handles:
            h.remove()


class _OncePerImage:
    """Stands in for a processor's image processor for one batch: preprocesses the distinct images and
    repeats their rows; any call it does not recognise goes to the real one unchanged."""

    def __init__(self, inner, images: list):
        self._inner, self._images = inner, images
        self._keep, self._inverse = distinct_index(images)

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def __call__(self, images, *args, **kwargs):
        import torch

        if not isinstance(images, list) or len(images) != len(self._images):
            return self._inner(images, *args, **kwargs)
        out = self._inner([images[i] for i in self._keep], *args, **kwargs)
        pixels = out.get("pixel_values") if hasattr(out, "get") else None
        if not isinstance(pixels, torch.Tensor) or pixels.shape[0] != len(self._keep):
            return self._inner(images, *args, **kwargs)  # a layout with several rows per image: no sharing
        index = torch.tensor(self._inverse)
        for key in list(out.keys()):
            value = out[key]
            if isinstance(value, torch.Tensor) and value.shape[:1] == pixels.shape[:1]:
                out[key] = value[index]
            elif isinstance(value, list) and len(value) == len(self._keep):
                out[key] = [value[i] for i in self._inverse]
        return out


@contextmanager
def shared_preprocessing(processor, images: list):
    """Within the block, the processor's image processor prepares each distinct image of `images` once."""
    inner = getattr(processor, "image_processor", None)
    if inner is None or len(distinct_index(images)[0]) == len(images):
        yield
        return
    processor.image_processor = _OncePerImage(inner, images)
    try:
        yield
    finally:
        processor.image_processor = inner
