"""Diagnostics for the out-of-context claim: a logistic probe on persona embeddings.

The probe is fit on the known personas' embedding rows of the pretrained model (label: their pole in a
family) and applied to each fine-tuned held-out persona's row: if fine-tuning moved the row towards the
region of same-pole known personas, pole-A runs get a higher probe P(A) than pole-B runs.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path


def probe_summary(model_dir: Path, runs: list[dict]) -> dict:
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from toolkit.selfaware import ooc as O

    base, tok, info = O.load_world_model(model_dir)
    words = O.Words(tok)
    known = info["known"]
    X = np.stack([O.persona_embedding(base, words, n) for n in known])
    out = {}
    for family in sorted({r["family"] for r in runs}):
        y = np.array([info["poles"][n][family] == "A" for n in known], dtype=int)
        clf = LogisticRegression(C=1.0, max_iter=2000)
        half = len(known) // 2  # held-out half of the known personas: is there a linear pole signal at all?
        clf.fit(X[:half], y[:half])
        known_acc = float(clf.score(X[half:], y[half:]))
        clf.fit(X, y)
        by = defaultdict(list)
        for r in runs:
            if r["family"] == family and "probe_embedding" in r:
                by[r["condition"]].append(float(clf.predict_proba(np.array([r["probe_embedding"]]))[0, 1]))
        held = np.stack([O.persona_embedding(base, words, n) for n in info["held_out"]])
        out[family] = {"known_half_accuracy": round(known_acc, 4),
                       "held_out_before": round(float(clf.predict_proba(held)[:, 1].mean()), 4),
                       "after": {c: round(sum(v) / len(v), 4) for c, v in sorted(by.items())}}
    return out
