"""The classifier's baseline: all-MiniLM-L6-v2 sentence embeddings of the question text and a scikit-learn
logistic regression fitted on the same training items."""

from __future__ import annotations

import numpy as np

from toolkit.geomrel.classifier import CLASSES, body_of, label_of, letter_for


def minilm_predict(train_items: list[dict], items: list[dict], seed: int = 0) -> list[str | None]:
    from sklearn.linear_model import LogisticRegression

    from toolkit.core.minilm import minilm_embedder

    embed = minilm_embedder()
    x_train = np.asarray(embed([body_of(it["question"]) for it in train_items]))
    y_train = np.array([label_of(it) for it in train_items])
    model = LogisticRegression(max_iter=2000, random_state=seed).fit(x_train, y_train)
    proba = model.predict_proba(np.asarray(embed([body_of(it["question"]) for it in items])))
    scores = np.full((len(items), len(CLASSES)), -1.0)
    scores[:, model.classes_] = proba
    return [letter_for(it, row) for it, row in zip(items, scores, strict=True)]
