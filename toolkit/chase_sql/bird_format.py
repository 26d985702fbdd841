"""The official BIRD predictions file: {"<index>": "<SQL>\\t----- bird -----\\t<db_id>", ...}."""

from __future__ import annotations

from typing import Any

from toolkit.chase_sql.data import Dataset

SEPARATOR = "\t----- bird -----\t"


def bird_predictions(predictions: list[dict[str, Any]], ds: Dataset) -> dict[str, str]:
    """Keyed by the question's position in the split file, as BIRD's evaluation script reads it."""
    position = {e.qid: i for i, e in enumerate(ds.examples)}
    by_qid = {str(p["qid"]): p for p in predictions}
    out = {}
    for qid, i in sorted(position.items(), key=lambda kv: kv[1]):
        pred = by_qid.get(qid)
        sql = " ".join((pred or {}).get("sql", "").split()) if pred else ""
        out[str(i)] = f"{sql}{SEPARATOR}{ds.examples[i].db_id}"
    return out
