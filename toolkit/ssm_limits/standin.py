"""`py:toolkit.ssm_limits.standin:noisy` — a deterministic noisy solver for pipeline demos.

It reads the problem from the prompt text only (never a gold answer), recomputes the computation graph from
its own values, and corrupts each step with probability 0.05 (seeded by the prompt), so errors propagate the
way compounding errors do: accuracy ~ 0.95^K. Its records carry the stand-in flag: a pipeline demo, not a
model result.
"""

from __future__ import annotations

import hashlib
import random
import re

from toolkit.ssm_limits import zebra
from toolkit.ssm_limits.prompts import COT_TAIL, step_text
from toolkit.ssm_limits.tasks import trace
from toolkit.ssm_limits.traces import node_op

ERROR = 0.05


def data_from_prompt(text: str) -> tuple[str, dict] | None:
    """(task, inputs) read back from a prompt's wording; None when it is none of the five tasks."""
    if m := re.search(r"start at (\S+) and follow the maps (\d+) time", text):
        lines = [list(x) for x in re.findall(r"^(\w+) -> (\w+)$", text, re.MULTILINE)]
        return "compose", {"k": int(m.group(2)), "lines": lines, "x": m.group(1)}
    if m := re.search(r"start at x = (\d+) and apply f (\d+) time", text):
        f = [int(v) for _, v in sorted((int(i), v) for i, v in re.findall(r"^f\((\d+)\) = (\d+)$", text, re.M))]
        return "iterate", {"n": len(f), "k": int(m.group(2)), "f": f, "x": int(m.group(1))}
    if m := re.search(r"Multiply (\d+) by (\d+)\.", text):
        return "mult", {"a": int(m.group(1)), "b": int(m.group(2))}
    if m := re.search(r"^Sequence: (.+)$", text, re.MULTILINE):
        return "dp", {"a": [int(x) for x in m.group(1).split()]}
    if m := re.search(r"There are (\d+) houses", text):
        attrs = re.findall(r"(\w+): [a-z]+(?:, [a-z]+)*", text.split("\n")[0])
        clues = []
        for cid, sentence in re.findall(r"^(clue\d+)\. (.+)$", text, re.MULTILINE):
            for kind, pattern in zebra.CLUE_TEXT.items():
                rx = "^" + re.escape(pattern).replace(r"\{0\}", r"(\w+)").replace(r"\{1\}", r"(\w+)") + "$"
                if hit := re.match(rx, sentence):
                    a, b = hit.groups()
                    clues.append({"id": cid, "kind": kind, "args": [a, int(b) if b.isdigit() else b]})
                    break
        return "zebra", {"n": int(m.group(1)), "attrs": attrs, "clues": clues}
    return None


def _corrupt(rng: random.Random, task: str, value: str, data: dict) -> str:
    if task == "compose":
        pool = sorted({b for _, b in data["lines"] if b[0] == value[0]} - {value})
        return rng.choice(pool) if pool else value
    if task == "iterate":
        return str(rng.choice([v for v in range(len(data["f"])) if str(v) != value] or [0]))
    if task == "zebra":
        return str(rng.choice([h for h in range(1, data["n"] + 1) if str(h) != value]))
    if value in ("0", "1") and task == "dp":
        return "1" if value == "0" else "0"
    return str(int(value) + rng.choice([-1, 1]) * (1 if task == "dp" else 10 ** rng.randrange(len(value))))


def noisy_solve(text: str) -> str:
    parsed = data_from_prompt(text)
    if parsed is None:
        return "I cannot read this problem."
    task, data = parsed
    rng = random.Random(int(hashlib.sha256(text.encode()).hexdigest()[:16], 16))
    nodes = trace(task, data)  # the graph's shape (ids, parents), computed from the prompt's inputs
    own: dict[str, str] = {}
    out_nodes = []
    for node in nodes:
        if node["id"] == "x":
            own["x"] = node["value"]
            continue
        parents = {p: own[p] for p in node["parents"] if p in own}
        value = node["value"] if task == "zebra" else node_op(task, data, node["id"], parents)
        if value is None:
            value = node["value"] if task == "mult" else "0"
        if rng.random() < ERROR:
            value = _corrupt(rng, task, value, data)
        own[node["id"]] = value
        out_nodes.append({**node, "value": value})
    if task == "dp":
        answer = " ".join(n["value"] for n in out_nodes if n["id"].startswith("c"))
    elif task == "zebra":
        answer = zebra.grid_answer(data, out_nodes)
    else:
        answer = out_nodes[-1]["value"]
    if COT_TAIL not in text:
        return f"Answer: {answer}"
    lines = [f"step {i}: {step_text(task, n)}" for i, n in enumerate(out_nodes, start=1)]
    return "\n".join(lines + [f"Answer: {answer}"])


def noisy(messages, n=1, temperature=0.0, max_tokens=None, stop=None):
    return [noisy_solve(messages[-1]["content"])] * n
