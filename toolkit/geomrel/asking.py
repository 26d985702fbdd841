"""Asking a backend about many items: few-shot examples, worker threads, an appendable output for --resume."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.llm.failures import FailureTally
from toolkit.core.records import RecordWriter, drop_partial_last_line, make_record, read_records
from toolkit.geomrel.prompts import PROMPTS, ask_item, shot_trace

HIDDEN = ("answer", "relation", "canonical", "witnesses", "construction")  # what a model must not see


def pick_shots(k: int, shots_from: Path | None, seed: int) -> list[tuple[dict, str]]:
    """k (item, trace) examples: from a file, or basic items generated with another seed; traces come from the
    text-only solver, never from the examples' answers."""
    if k == 0:
        return []
    from toolkit.geomrel.verify import derive_from_text

    if shots_from is not None:
        from toolkit.geomrel.items import check_item

        pool = [check_item(r, f"{shots_from}:{i}") for i, r in enumerate(read_records(shots_from), start=1)]
    else:
        from toolkit.geomrel.generate import generate

        pool = generate(k * 2, seed + 1, "basic", ["line", "angle", "shape"])
    shots = []
    for item in pool:
        found = derive_from_text(item["question"], 32, seed)
        trace = shot_trace(item, found["derived"], found["domain"])
        if trace:
            shots.append(({k_: v for k_, v in item.items() if k_ not in HIDDEN}, trace))
        if len(shots) == k:
            return shots
    raise InputError(f"--shots {k}: only {len(shots)} usable examples in {shots_from or 'the generated pool'}")


def finished(out: Path | None, resume: bool) -> set:
    """Ids already answered in `out` (failed requests are asked again); the file is rewritten without them."""
    if not (resume and out is not None and out.exists()):
        return set()
    drop_partial_last_line(out)
    kept = [r for r in read_records(out, skip_bad=True) if r.get("type") == "geomrel.pred" and not r.get("error")]
    with RecordWriter(out) as writer:
        writer.write_all(kept)
    return {r["id"] for r in kept}


def ask_all(backend, items: list[dict], *, prompt: str, parser: str, shots: int, shots_from: Path | None,
            workers: int, resume: bool, seed: int, out: Path | None) -> tuple[bool, FailureTally]:
    """Write one geomrel.pred per item (in item order); returns whether the backend is a stand-in, and the
    tally of failed requests (an unreachable backend is not tallied: it ends the run)."""
    if prompt not in PROMPTS:
        raise InputError(f"--prompt {prompt}: expected one of {', '.join(PROMPTS)}")
    if parser not in ("robust", "anchor"):
        raise InputError(f"--parser {parser}: expected robust or anchor")
    examples = pick_shots(shots, shots_from, seed)
    done = finished(out, resume)
    stand_in = getattr(backend, "stand_in", False) or backend.name.startswith(("py:", "replay:"))
    todo = [{k: v for k, v in it.items() if k not in HIDDEN} for it in items if it["id"] not in done]

    def one(item: dict) -> dict:
        return ask_item(backend, item, prompt, parser, shots=examples)

    tally = FailureTally("geomrel ask")
    with RecordWriter(out, append=bool(done)) as writer, ThreadPoolExecutor(max_workers=workers) as pool:
        for pred in pool.map(one, todo):
            writer.write(make_record("geomrel.pred", **pred, backend="stand-in" if stand_in else backend.name))
            tally.add(pred.get("error"))
    return stand_in, tally
