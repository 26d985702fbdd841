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
from toolkit.aha.vlm import VLM, fit_sample, load_image
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, make_record
from toolkit.core.vlm import image_data_url, image_message

VERDICT_TYPE = "aha.verdict"


def make_verdict(sample: Sample, raw: str, source: str) -> dict[str, Any]:
    label, explanation = split_answer(raw)
    return make_record(VERDICT_TYPE, 1, **sample.meta(), success=None if label is None else label == YES,
                       label=label, explanation=explanation, raw=raw,
                       reference=sample.answer or None, model=source)


def error_verdict(sample: Sample, message: str, source: str) -> dict[str, Any]:
    """The record of a sample that could not be judged (its image is unreadable or not a grid the
    model can take): it keeps the sample's place in the output and says why."""
    return make_record(VERDICT_TYPE, 1, **sample.meta(), success=None, label=None, explanation="", raw="",
                       reference=sample.answer or None, model=source, error=message)


def detect_local(vlm: VLM, samples: Iterable[Sample], source: str, batch_size: int = 8,
                 max_new_tokens: int = 48, bad: BadLines | None = None) -> Iterator[dict[str, Any]]:
    """Verdicts in sample order, each batch's as soon as it is generated (a stream of samples is judged
    while it is still arriving). A missing or unreadable image, or a grid that cannot be brought to the
    model's geometry, becomes that sample's error record (counted in `bad` when given); the samples
    around it are judged as usual."""
    if batch_size < 1:
        raise InputError(f"--batch-size {batch_size}: must be at least 1")
    pending: list[tuple[Sample, Any, str | None]] = []  # (sample, image, error) in input order

    def flush():
        good = [(s, im) for s, im, err in pending if err is None]
        texts = iter(vlm.generate([im for _, (im, _q) in good], [q for _, (_im, q) in good],
                                  max_new_tokens=max_new_tokens) if good else [])
        return [make_verdict(s, next(texts), source) if err is None else error_verdict(s, err, source)
                for s, _, err in pending]

    for sample in samples:
        try:
            image, question = fit_sample(vlm, load_image(sample.image, where=sample.sample_id), sample)
            pending.append((sample, (image, question), None))
        except InputError as exc:
            if bad is not None:
                bad.add(str(exc))
            pending.append((sample, None, str(exc)))
        if sum(err is None for _, _, err in pending) == batch_size:
            yield from flush()
            pending = []
    if pending:
        yield from flush()


def vlm_messages(sample: Sample) -> list[dict[str, Any]]:
    return [image_message(sample.question, image_data_url(sample.image, where=sample.sample_id))]


def detect_llm(llm, samples: Iterable[Sample], max_new_tokens: int = 128,
               bad: BadLines | None = None) -> Iterator[dict[str, Any]]:
    """The in-context baseline: the same question and grid sent to a chat VLM (an unreadable image
    becomes that sample's error record, as in detect_local)."""
    for sample in samples:
        try:
            messages = vlm_messages(sample)
        except InputError as exc:
            if bad is not None:
                bad.add(str(exc))
            yield error_verdict(sample, str(exc), llm.name)
            continue
        completion = llm.complete(messages, n=1, temperature=0.0, max_tokens=max_new_tokens)
        yield make_verdict(sample, completion.text.strip(), llm.name)
