"""Held-out evaluation of a small model: fresh test-split tables, greedy decoding, scored like an LLM."""

from __future__ import annotations

import json
from pathlib import Path

from toolkit.ssm_limits.curves import curve_rows
from toolkit.ssm_limits.errors import score_item
from toolkit.ssm_limits.models import META, MODEL_TASKS, evaluate, load
from toolkit.ssm_limits.tasks import generate


def eval_model(model_dir: Path, task: str, sizes: list[int], depths: list[int], mode: str, n: int,
               seed: int) -> list[dict]:
    from toolkit.core.errors import InputError

    if task not in MODEL_TASKS:
        raise InputError(f"--task {task}: small models are evaluated on {' or '.join(MODEL_TASKS)}")
    problems = [p for s in sizes for k in depths for p in generate(task, s, k, n, "test", seed)]
    model, tok = load(model_dir, task)
    meta_path = Path(model_dir) / META
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    outs = {o["id"]: o for o in evaluate(model, tok, problems, mode, x_last=bool(meta.get("x_last")))}
    scores = []
    for p in problems:
        o = outs[p["id"]]
        response = {"mode": mode, "answer": o["answer"], "steps": [[i, v] for i, v in enumerate(o["steps"], 1)]}
        scores.append(score_item(p, response))
    extra = {"model": str(model_dir), "arch": meta.get("arch", type(model).__name__), "params": meta.get("params"),
             "seed": seed}
    return curve_rows(scores, extra)
