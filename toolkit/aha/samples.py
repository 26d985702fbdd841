"""Reading `aha.sample` records (or LLaVA conversation JSON) and splitting them by episode."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.aha.prompt import make_question, rows_in_question, split_answer
from toolkit.core.errors import InputError
from toolkit.core.paths import record_file_candidates
from toolkit.core.records import BadLines, read_records
from toolkit.failgen.grid import LEGACY_ROWS, OFFICIAL_ROWS, parse_rows

SAMPLE_TYPE = "aha.sample"
REQUIRED = ("sample_id", "image", "question", "answer")


@dataclass
class Sample:
    sample_id: str
    image: Path
    question: str
    answer: str
    episode_id: str = ""
    task: str = ""
    mode: str = ""
    subtask: str = ""
    subtask_index: int = -1
    label: str = ""
    explanation: str = ""
    seed: int | None = None  # the FailGen scene's seed, when the record carries it
    rows: tuple[str, ...] = OFFICIAL_ROWS  # the grid's view rows, top to bottom
    future: str = "white"  # the grid's future cells: white or trimmed off
    relabelled: bool = False  # made by hindsight relabelling (hindsight.py), not read from a file

    @classmethod
    def from_record(cls, rec: dict[str, Any], base: Path, where: str, need_image: bool = True,
                    missing_ok: bool = False) -> Sample:
        for field in REQUIRED:
            if field not in rec:
                raise InputError(f"{where}: missing field '{field}'")
        for field in ("question", "answer"):
            if not isinstance(rec[field], str):
                raise InputError(f"{where}: field '{field}': expected a string, got {type(rec[field]).__name__}")
        label, explanation = split_answer(rec["answer"])
        sample_id = str(rec["sample_id"])
        return cls(
            sample_id=sample_id,
            image=resolve_image(rec, base, where, missing_ok) if need_image else Path(str(rec["image"])),
            question=str(rec["question"]),
            answer=str(rec["answer"]),
            episode_id=str(rec.get("episode_id") or sample_id.rsplit("/", 1)[0]),
            task=str(rec.get("task", "")),
            mode=str(rec.get("mode", "")),
            subtask=str(rec.get("subtask", "")),
            subtask_index=int(rec.get("subtask_index", -1)),
            label=str(rec.get("label") or label or ""),
            explanation=str(rec.get("explanation", explanation)),
            seed=_int_or_none(rec.get("seed")),
            rows=grid_rows_of(rec, where),
            future="trim" if rec.get("future") == "trim" else "white",
        )

    def meta(self) -> dict[str, Any]:
        """The fields a verdict carries over from its sample."""
        return {"sample_id": self.sample_id, "episode_id": self.episode_id, "task": self.task,
                "mode": self.mode, "subtask_index": self.subtask_index, "subtask": self.subtask}


def grid_rows_of(rec: dict[str, Any], where: str) -> tuple[str, ...]:
    """The grid's row order: the record's `grid_rows`, else the order its question names (the official
    wording), else the earlier FailGen order (front, overhead, wrist) that records without the field have."""
    if rec.get("grid_rows") is not None:
        return parse_rows(rec["grid_rows"], where=f"{where}: field 'grid_rows'")
    return rows_in_question(str(rec.get("question", ""))) or LEGACY_ROWS


def _int_or_none(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


def resolve_image(rec: dict[str, Any], base: Path, where: str, missing_ok: bool = False) -> Path:
    """`dir`/image when it exists, else the image relative to the file that was read (with missing_ok, that
    path even when it does not exist: the reader of the image reports it)."""
    candidates = record_file_candidates(rec["image"], rec.get("dir"), base)
    for cand in candidates:
        if cand.is_file():
            return cand
    if missing_ok:
        return candidates[-1]
    raise InputError(f"{where}: field 'image': no such file {candidates[-1]}")


def load_samples(path: str | Path, *, skip_bad: bool = False, bad: BadLines | None = None,
                 need_images: bool = True) -> list[Sample]:
    """Samples from an aha.sample JSONL file ('-' = stdin) or a LLaVA conversation JSON list.

    need_images=False reads the labels alone (scoring verdicts), without looking for the image files."""
    return list(iter_samples(path, skip_bad=skip_bad, bad=bad, need_images=need_images))


def iter_samples(path: str | Path, *, skip_bad: bool = False, bad: BadLines | None = None,
                 need_images: bool = True, missing_images_ok: bool = False) -> Iterator[Sample]:
    """load_samples, one sample at a time: a JSONL stream is read line by line as it arrives, so a
    consumer can act on the first samples while the producer is still writing. With missing_images_ok a
    sample whose image is not found is still yielded (loading its image then fails, naming it)."""
    bad = bad if bad is not None else BadLines()
    p = Path(path)
    base = Path.cwd() if str(path) == "-" else p.resolve().parent
    if str(path) != "-" and p.suffix == ".json":
        yield from _load_llava(p, base, skip_bad, bad, need_images)
        return
    name = "<stdin>" if str(path) == "-" else str(p)
    found = 0
    lineno = 0
    for rec in read_records(path, skip_bad=skip_bad, bad=bad):
        lineno += 1
        if rec.get("type") != SAMPLE_TYPE:
            continue  # failgen streams episodes and samples interleaved
        where = f"{name}: record {rec.get('sample_id', lineno)}"
        try:
            sample = Sample.from_record(rec, base, where, need_images, missing_images_ok)
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))
            continue
        found += 1
        yield sample
    if not found and not bad.count:
        raise InputError(f"{name}: no aha.sample records found")


def _load_llava(p: Path, base: Path, skip_bad: bool, bad: BadLines, need_images: bool) -> list[Sample]:
    try:
        items = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{p}: not LLaVA conversation JSON ({exc})") from None
    if not isinstance(items, list):
        raise InputError(f"{p}: expected a JSON list of LLaVA conversations")
    out = []
    for i, item in enumerate(items):
        where = f"{p}: item {i}"
        try:
            conv = item["conversations"]
            human = next(c["value"] for c in conv if c["from"] == "human")
            gpt = next(c["value"] for c in conv if c["from"] == "gpt")
            rec = {"sample_id": item["id"], "image": item["image"],
                   "question": human.replace("<image>", "").strip(), "answer": gpt}
            out.append(Sample.from_record(rec, base, where, need_images))
        except (KeyError, TypeError, StopIteration):
            msg = f"{where}: expected id, image and human/gpt conversations"
            if not skip_bad:
                raise InputError(msg) from None
            bad.add(msg)
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))
    return out


def sample_from_image(image: Path, subtask: str, rows: tuple[str, ...] = OFFICIAL_ROWS) -> Sample:
    if not Path(image).is_file():
        raise InputError(f"--image {image}: no such file")
    return Sample(sample_id=f"{Path(image).name}", image=Path(image), question=make_question(subtask, rows),
                  answer="", subtask=subtask, rows=tuple(rows))


def split_by_episode(samples: list[Sample], val_frac: float, seed: int,
                     holdout_tasks: set[str] | None = None) -> tuple[list[Sample], list[Sample], list[Sample]]:
    """(train, validation, held_out): whole scenes go to one side, so validation shows scenes the model
    never trained on (every failure mode of a FailGen (task, seed) replays the same scene; an episode
    without a known scene is its own group); held-out tasks leave both."""
    from toolkit.aha.scenes import scene_of

    def group(s: Sample) -> str:
        scene = scene_of(s.task, s.seed, s.episode_id)
        return f"{scene[0]}-s{scene[1]}" if scene else s.episode_id

    holdout_tasks = holdout_tasks or set()
    held = [s for s in samples if s.task in holdout_tasks]
    rest = [s for s in samples if s.task not in holdout_tasks]
    groups = sorted({group(s) for s in rest})
    random.Random(seed).shuffle(groups)
    n_val = int(round(len(groups) * val_frac))
    if val_frac > 0 and n_val == 0 and len(groups) > 1:
        n_val = 1
    val_groups = set(groups[:n_val])
    train = [s for s in rest if group(s) not in val_groups]
    val = [s for s in rest if group(s) in val_groups]
    return train, val, held
