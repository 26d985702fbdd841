"""Reading a theory file written by `distill` (or a plain JSONL list of {"text": ...} facts)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import read_records


@dataclass
class Theory:
    path: str
    strategy: str
    facts: list[dict]  # the chosen facts: {"fact_id", "text", ...}
    all_facts: dict[str, dict] = field(default_factory=dict)
    proofsets: list[dict] = field(default_factory=list)
    selections: dict[str, dict] = field(default_factory=dict)
    summary: dict = field(default_factory=dict)

    @property
    def texts(self) -> list[str]:
        return [f["text"] for f in self.facts]


def load_theory(path: str | Path, strategy: str | None = None) -> Theory:
    all_facts, proofsets, selections, summary, theory = {}, [], {}, {}, None
    plain = []
    for i, rec in enumerate(read_records(path), start=1):
        kind = rec.get("type")
        if kind == "microtheory.fact":
            all_facts[rec["fact_id"]] = rec
        elif kind == "microtheory.proofset":
            proofsets.append(rec)
        elif kind == "microtheory.selection":
            selections[rec["strategy"]] = rec
        elif kind == "microtheory.summary":
            summary = rec
        elif kind == "microtheory.theory":
            theory = rec
        elif kind is None and isinstance(rec.get("text"), str):
            plain.append({"fact_id": str(rec.get("id", f"line{i}")), "text": rec["text"]})
        elif kind is None:
            raise InputError(f"{path}:{i}: missing field 'text' (expected a theory file from 'distill')")
    if theory is None and not plain:
        raise InputError(f"{path}: no microtheory.theory record and no facts; is this a theory file from 'distill'?")
    if theory is None:
        return Theory(str(path), "given", plain)
    if strategy is None or strategy == theory["strategy"]:
        return Theory(str(path), theory["strategy"], theory["facts"], all_facts, proofsets, selections, summary)
    if strategy not in selections:
        have = ", ".join(sorted(selections)) or "none"
        raise InputError(f"{path}: no selection for strategy '{strategy}' (have: {have})")
    facts = [{"fact_id": f, "text": all_facts[f]["text"]} for f in selections[strategy]["facts"]]
    return Theory(str(path), strategy, facts, all_facts, proofsets, selections, summary)
