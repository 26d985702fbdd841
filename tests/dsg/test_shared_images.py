"""A batch that asks several questions about one image runs the vision tower once per distinct image, with the
answers of the plain batch (CLIP tower of the test model and the Swin tower of the shipped model)."""

from pathlib import Path

import pytest

from toolkit.core.shared_images import distinct_index, vision_tower

ROOT = Path(__file__).resolve().parents[2]


def test_distinct_index_keeps_first_appearance():
    a, b, c = object(), object(), object()
    assert distinct_index([a, b, a, c, b]) == ([0, 1, 3], [0, 1, 0, 2, 1])


@pytest.mark.parametrize("which", ["test-clip", "shipped-swin"])
def test_batched_answers_equal_with_one_encoding_per_image(which, tiny_dsg_vlm, split):
    from toolkit.core.records import read_records
    from toolkit.core.vlm import load_image, load_vlm

    vlm = load_vlm(tiny_dsg_vlm if which == "test-clip" else ROOT / "assets/dsg/model", device="cpu")
    prims = list(read_records(split / "primitives.jsonl"))[:40]
    cache: dict = {}
    images = [cache.setdefault(p["image"], load_image(split / p["image"])) for p in prims]
    questions = [p["question"] for p in prims]
    seen: list[int] = []
    prepared: list[int] = []

    class Spy:  # counts the images the real image processor prepares
        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def __call__(self, ims, *args, **kwargs):
            prepared.append(len(ims))
            return self.inner(ims, *args, **kwargs)

    vlm.processor.image_processor = Spy(vlm.processor.image_processor)
    # a forward hook sees the pixels the tower actually ran on
    handle = vision_tower(vlm.model).register_forward_hook(
        lambda m, args, kwargs, out: seen.append((args[0] if args else kwargs["pixel_values"]).shape[0]),
        with_kwargs=True)
    try:
        batched = vlm.generate(images, questions, max_new_tokens=4)
        assert seen == [len(cache)] and prepared == [len(cache)] and len(cache) < len(images)
        one_by_one = [vlm.generate([im], [q], max_new_tokens=4)[0] for im, q in zip(images, questions, strict=True)]
    finally:
        handle.remove()
    assert batched == one_by_one
