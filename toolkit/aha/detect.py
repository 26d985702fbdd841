"""Judging sub-task grids: a local VLM (generate) or an OpenAI-compatible VLM server.

Each judged sample becomes an `aha.verdict` record carrying the sample's ids, the
verdict (success yes/no), the explanation, the raw text and the reference answer when
the sample had one (so `reason aha eval` can score verdicts on their own).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from toolkit.aha.prompt import YES, split_answer
from toolkit.aha.samples import Sample
from toolkit.aha.vlm import VLM, load_image
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, make_record
from toolkit.core.vlm import image_data_url, image_message

VERDICT_TYPE = "aha.verdict"


def make_verdict(sample: Sample, raw: str, source: str) -> dict[str, Any]:
    label, explanation = split_answer(raw)
    return make_record(VERDICT_TYPE, 1, **sample.meta(), success=None if label is None else label == YES,
                       label=label, explanation=explanation, raw=raw,
                       reference=sample.answer or None, model=source)


def detect_local(vlm: VLM, samples: Iterable[Sample], source: str, batch_size: int = 8,
                 max_new_tokens: int = 48, bad: BadLines | None = None) -> Iterator[dict[str, Any]]:
    """Verdicts in sample order. A missing or unreadable image, or a grid that cannot be brought to the
    model's geometry, is an input error naming the sample; with `bad` it is counted there and skipped."""
    chunk: list[Sample] = []
    images: list[Any] = []

    def flush():
        texts = vlm.generate(images, [s.question for s in chunk], max_new_tokens=max_new_tokens)
        return [make_verdict(s, t, source) for s, t in zip(chunk, texts, strict=True)]

    for sample in samples:
        try:
            image = vlm.fit(load_image(sample.image, where=sample.sample_id), where=sample.sample_id)
        except InputError as exc:
            if bad is None:
                raise
            bad.add(str(exc))
            continue
        chunk.append(sample)
        images.append(image)
        if len(chunk) == batch_size:
            yield from flush()
            chunk, images = [], []
    if chunk:
        yield from flush()


def vlm_messages(sample: Sample) -> list[dict[str, Any]]:
    return [image_message(sample.question, image_data_url(sample.image, where=sample.sample_id))]


def detect_llm(llm, samples: Iterable[Sample], max_new_tokens: int = 128) -> Iterator[dict[str, Any]]:
    """The in-context baseline: the same question and grid sent to a chat VLM."""
    for sample in samples:
        completion = llm.complete(vlm_messages(sample), n=1, temperature=0.0, max_tokens=max_new_tokens)
        yield make_verdict(sample, completion.text.strip(), llm.name)
