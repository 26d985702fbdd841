"""EM and F1 with SQuAD normalisation; Acc = some normalised gold alias is contained in the prediction."""

from __future__ import annotations

import re
import string
from collections import Counter

_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction: str, answers: list[str]) -> float:
    p = normalize(prediction)
    return float(any(p == normalize(a) for a in answers))


def f1(prediction: str, answers: list[str]) -> float:
    best = 0.0
    p = normalize(prediction).split()
    for a in answers:
        g = normalize(a).split()
        common = sum((Counter(p) & Counter(g)).values())
        if common:
            prec, rec = common / len(p), common / len(g)
            best = max(best, 2 * prec * rec / (prec + rec))
    return best


def accuracy(prediction: str, answers: list[str]) -> float:
    p = f" {normalize(prediction)} "
    return float(any(normalize(a) and f" {normalize(a)} " in p for a in answers))


def scores(prediction: str, answers: list[str]) -> dict[str, float]:
    return {"em": exact_match(prediction, answers), "f1": f1(prediction, answers), "acc": accuracy(prediction, answers)}


def bootstrap_ci(values: list[float], *, samples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean."""
    import numpy as np

    if not values:
        return (0.0, 0.0)
    v = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = v[rng.integers(0, len(v), size=(samples, len(v)))].mean(1)
    return (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)))


def paired_bootstrap(a: list[float], b: list[float], *, samples: int = 2000, seed: int = 0) -> dict:
    """Mean of a - b over the same questions with its 95% bootstrap interval."""
    import numpy as np

    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    lo, hi = bootstrap_ci(d.tolist(), samples=samples, seed=seed)
    return {"diff": float(d.mean()) if len(d) else 0.0, "ci95": [lo, hi], "excludes_zero": lo > 0 or hi < 0}
