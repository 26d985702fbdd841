"""`reason aha eval`: score verdicts against reference answers, overall / per task / per mode."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.aha.detect import VERDICT_TYPE
from toolkit.aha.metrics import Embedder, binary_score, binary_strict_score, cosine_scores, fuzzy_score, rouge_l_score
from toolkit.aha.samples import load_samples
from toolkit.aha.scenes import read_scenes, scene_of
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, read_records
from toolkit.core.stats import cluster_bootstrap_ci

METRICS = ("binary", "binary_strict", "rouge_l", "cosine", "fuzzy")


@dataclass
class Row:
    sample_id: str
    task: str
    mode: str
    question: str
    pred: str
    ref: str
    scene: tuple[str, int] | None = None  # the FailGen (task, seed) the grid shows
    model: str = ""  # the verdict's model ('path' or 'path+adapter')


def join_rows(pred_path: str | Path, gold_path: str | Path | None = None, *, skip_bad: bool = False,
              bad: BadLines | None = None) -> list[Row]:
    """Verdicts joined with their references (from --gold samples, else the verdicts' 'reference').

    The verdicts are read to their end before the gold file is opened: in `reason failgen --out fg |
    reason aha detect - | reason aha eval --pred - --gold fg/samples.jsonl` the gold file is complete
    only once the stream has ended."""
    verdicts = list(read_records(pred_path, types={VERDICT_TYPE}, required=("sample_id", "raw"), skip_bad=skip_bad,
                                 bad=bad))
    gold = None
    if gold_path is not None:
        gold = {s.sample_id: s for s in load_samples(gold_path, need_images=False)}
    rows: list[Row] = []
    seen: set[str] = set()
    name = "<stdin>" if str(pred_path) == "-" else str(pred_path)
    for n, rec in enumerate(verdicts, start=1):
        sid = str(rec["sample_id"])
        if sid in seen:
            raise InputError(f"{name}: verdict {n}: duplicate sample_id '{sid}'")
        seen.add(sid)
        if gold is not None:
            if sid not in gold:
                raise InputError(f"{name}: verdict {n}: sample_id '{sid}' is not in {gold_path}")
            s = gold[sid]
            task = s.task or str(rec.get("task", ""))
            rows.append(Row(sid, task, s.mode or str(rec.get("mode", "")), s.question, str(rec["raw"]), s.answer,
                            scene_of(task, s.seed, s.episode_id), str(rec.get("model") or "")))
        else:
            if not rec.get("reference"):
                raise InputError(f"{name}: verdict {n}: field 'reference' missing (pass --gold SAMPLES)")
            task = str(rec.get("task", ""))
            scene = scene_of(task, None, str(rec.get("episode_id", "")))
            rows.append(Row(sid, task, str(rec.get("mode", "")), str(rec.get("subtask", "")),
                            str(rec["raw"]), str(rec["reference"]), scene, str(rec.get("model") or "")))
    if gold is not None:
        missing = [sid for sid in gold if sid not in seen]
        if missing:
            raise InputError(f"{gold_path}: {len(missing)} sample(s) have no verdict in {name} "
                             f"(first: '{missing[0]}')")
    if not rows:
        raise InputError(f"{name}: no aha.verdict records")
    return rows


def training_overlap(rows: list[Row]) -> dict[str, Any] | None:
    """How many rows show a scene their verdicts' model was trained or validated on (None when no
    verdict names a local model directory that records its training scenes)."""
    seen: dict[str, set | None] = {}
    hits: list[Row] = []
    known = False
    for r in rows:
        if r.model not in seen:
            dirs = [Path(d) for d in reversed(r.model.split("+")) if d]
            seen[r.model] = next((x for x in (read_scenes(d) for d in dirs if d.is_dir()) if x is not None), None)
        scenes = seen[r.model]
        if scenes is None:
            continue
        known = True
        if r.scene is not None and r.scene in scenes:
            hits.append(r)
    if not known:
        return None
    found = sorted({r.scene for r in hits if r.scene is not None})
    return {"samples": len(hits), "of": len(rows), "scenes": len(found), "first": [list(x) for x in found[:4]]}


def score_rows(rows: list[Row], embed: Embedder | None = None, judge=None) -> list[dict[str, float | None]]:
    scores = [{"binary": binary_score(r.pred, r.ref), "binary_strict": binary_strict_score(r.pred, r.ref),
               "rouge_l": rouge_l_score(r.pred, r.ref),
               "cosine": None, "fuzzy": None} for r in rows]
    if embed is not None:
        for s, c in zip(scores, cosine_scores([r.pred for r in rows], [r.ref for r in rows], embed), strict=True):
            s["cosine"] = c
    if judge is not None:
        for s, r in zip(scores, rows, strict=True):
            s["fuzzy"] = fuzzy_score(judge, r.question, r.pred, r.ref)
    return scores


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def aggregate(rows: list[Row], scores: list[dict[str, float | None]], *, seed: int = 0) -> dict[str, Any]:
    """{'overall': {...}, 'by_task': {task: {...}}, 'by_mode': {mode: {...}}}; each with n, metric means and
    `binary_ci95`, `binary_strict_ci95`: 95% intervals resampling whole scenes (the samples of one FailGen
    scene share its layout, so they are not independent draws; a sample of no known scene is its own)."""
    def summarize(idx: list[int]) -> dict[str, Any]:
        out: dict[str, Any] = {"n": len(idx), "scenes": len({_cluster(rows[i], i) for i in idx})}
        for m in METRICS:
            out[m] = _mean([scores[i][m] for i in idx])
        for m in ("binary", "binary_strict"):
            lo, hi = cluster_bootstrap_ci([scores[i][m] for i in idx], [_cluster(rows[i], i) for i in idx], seed=seed)
            out[f"{m}_ci95"] = [round(lo, 4), round(hi, 4)]
        return out

    groups: dict[str, dict[str, list[int]]] = {"by_task": defaultdict(list), "by_mode": defaultdict(list)}
    for i, r in enumerate(rows):
        groups["by_task"][r.task or "-"].append(i)
        groups["by_mode"][r.mode or "-"].append(i)
    return {"overall": summarize(list(range(len(rows)))),
            **{g: {k: summarize(v) for k, v in sorted(d.items())} for g, d in groups.items()}}


def _cluster(row: Row, i: int):
    return row.scene if row.scene is not None else ("sample", i)


def show_tables(result: dict[str, Any]) -> None:
    from rich.table import Table

    from toolkit.core import console

    def fmt(v):
        return "-" if v is None else f"{v:.3f}"

    for title, group in (("overall", {"all": result["overall"]}), ("per task", result["by_task"]),
                         ("per mode", result["by_mode"])):
        table = Table(title=f"AHA eval {title}")
        for col in ("group", "n", "scenes", "binary", "95% CI (scenes)", "strict", "ROUGE-L", "cosine", "fuzzy"):
            table.add_column(col, justify="left" if col == "group" else "right")
        for name, s in group.items():
            lo, hi = s["binary_ci95"]
            table.add_row(name, str(s["n"]), str(s["scenes"]), fmt(s["binary"]), f"[{lo:.3f}, {hi:.3f}]",
                          *(fmt(s[m]) for m in METRICS[1:]))
        console.console.print(table)
