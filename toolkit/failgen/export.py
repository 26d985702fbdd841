"""Export aha.sample records as LLaVA conversation JSON for VLM fine-tuning."""

from __future__ import annotations

import json
import os
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import read_records

FORMATS = ("llava",)


def sample_image_path(sample: dict, jsonl_dir: Path) -> Path:
    """Resolve a sample's image: `dir`/image first, then relative to the JSONL file's directory."""
    first = Path(sample.get("dir", "")) / sample["image"]
    return first if first.exists() else jsonl_dir / sample["image"]


def llava_items(samples: list[dict], jsonl_dir: Path, target: Path) -> list[dict]:
    base = target.resolve().parent
    items = []
    for s in samples:
        image = sample_image_path(s, jsonl_dir).resolve()
        items.append({
            "id": s["sample_id"],
            "image": Path(os.path.relpath(image, base)).as_posix(),
            "conversations": [
                {"from": "human", "value": "<image>\n" + s["question"]},
                {"from": "gpt", "value": s["answer"]},
            ],
        })
    return items


def export(samples_jsonl: Path, fmt: str, target: Path, *, skip_bad: bool = False) -> int:
    """Write the samples of `samples_jsonl` to `target` in format `fmt`; returns the number written."""
    if fmt not in FORMATS:
        raise InputError(f"--export {fmt}: unknown format; known formats: {', '.join(FORMATS)}")
    samples = list(read_records(samples_jsonl, types=["aha.sample"], skip_bad=skip_bad,
                                required=["sample_id", "image", "question", "answer"]))
    items = llava_items(samples, samples_jsonl.parent, target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(items, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--export {target}: cannot write ({exc.strerror})") from None
    return len(items)
