"""A prose account of a state graph from an LLM; py:/replay: backends are stand-ins and labelled as such."""

from __future__ import annotations

from toolkit.core.errors import InputError
from toolkit.core.records import make_record, read_records

STANDIN_NOTE = "pipeline demo, not a model result"


def read_graph(path: str) -> dict:
    records = [r for r in read_records(path, types=["metacausal.graph"])]
    if not records:
        raise InputError(f"{path}: no metacausal.graph record")
    return records[-1]


def prompt(graph: dict) -> list[dict]:
    lines = []
    for s in graph["states"]:
        kind = ", ".join(f"{k} {v}" for k, v in s["type"].items())
        lines.append(f"- state {s['id']}: {kind}; {s['samples']} samples")
    probs = graph["probabilities"]
    for i, row in enumerate(probs):
        moves = [f"{j} ({p:.3f})" for j, p in enumerate(row) if j != i and p > 0]
        if moves:
            lines.append(f"- from state {i} the system switches to " + ", ".join(moves))
    text = ("Two variables x and y were observed over time. A mechanism x->y means x drives y (y->x the reverse; "
            "none means no dependence), with sign + or -. The system moves between these meta-causal states:\n"
            + "\n".join(lines) + "\nDescribe in a short paragraph what kinds of interaction the system shows and "
            "how it switches between them. Say only what the states and probabilities support.")
    return [{"role": "user", "content": text}]


def describe_graph(graph: dict, backend, max_tokens: int = 400) -> dict:
    completion = backend.complete(prompt(graph), n=1, temperature=0.0, max_tokens=max_tokens)
    name = getattr(backend, "name", "") or ""
    inner = getattr(getattr(backend, "inner", None), "name", "") or ""
    standin = any(str(n).startswith(("py:", "replay:")) or "Replay" in type(backend).__name__
                  for n in (name, inner))
    fields = {"text": completion.text, "states": len(graph["states"])}
    if standin:
        fields.update(backend="stand-in", note=STANDIN_NOTE)
    else:
        fields.update(backend=name or "llm")
    return make_record("metacausal.description", 1, **fields)
