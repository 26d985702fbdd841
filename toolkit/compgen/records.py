"""Records written by `reason compgen` (one module so every command speaks the same schema)."""

from __future__ import annotations

import numpy as np

from toolkit.compgen.tasks import Task
from toolkit.core.records import make_record


def combination(row: np.ndarray) -> list[int]:
    return [int(v) for v in row]


def task_record(task: Task) -> dict:
    return make_record("compgen.task", task=task.name, params=task.params, sizes=list(task.sizes),
                       n_train=int(task.train.sum()), n_test=int((~task.train).sum()),
                       test_combinations=[combination(r) for r in task.x[~task.train]])


def prediction_records(task: Task, pred: np.ndarray, source: str, theory: np.ndarray | None = None,
                       **extra) -> list[dict]:
    """One `compgen.prediction` per held-out combination (with the theory's value when given)."""
    out = []
    for i in np.flatnonzero(~task.train):
        rec = make_record("compgen.prediction", task=task.name, source=source, combination=combination(task.x[i]),
                          target=float(task.y[i]), prediction=float(pred[i]), error=float(pred[i] - task.y[i]),
                          **extra)
        if theory is not None:
            rec["theory"] = float(theory[i])
        out.append(rec)
    return out


def summary_record(kind: str, task: Task, **fields) -> dict:
    return make_record(f"compgen.{kind}", task=task.name, params=task.params, **fields)
