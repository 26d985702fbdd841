"""Error types on the computation graph (per node and per answer) and shortcut detectors.

Per node, against the gold trace, using the model's own values:
  correct     parents right, node right
  local       parents right, node wrong (or wrong and not the right operation on its wrong parents)
  propagated  a parent wrong and the node is the right operation applied to the model's own parents
  restored    a parent wrong, node right
  missing     the model wrote no value for it
Per answer: faithful-correct (answer and every node right), shortcut-correct (answer right, trace broken),
compounding-wrong (answer wrong; `first_local` = step of the first local error), parse (no answer found);
direct mode: correct / wrong / parse.
"""

from __future__ import annotations

from toolkit.core.records import make_record
from toolkit.ssm_limits import zebra
from toolkit.ssm_limits.parse import normalize
from toolkit.ssm_limits.prompts import steps as trace_steps
from toolkit.ssm_limits.traces import node_op


def model_values(problem: dict, steps: list) -> dict[str, str]:
    """Map the model's steps onto trace node ids (by position; zebra by the value named)."""
    nodes = trace_steps(problem)
    out = {}
    if problem["task"] == "zebra":
        known = {n["id"] for n in nodes}
        for key, value in steps:
            if key in known and key not in out:
                out[key] = str(value)
        return out
    for key, value in steps:
        if isinstance(key, int) and 1 <= key <= len(nodes) and nodes[key - 1]["id"] not in out:
            out[nodes[key - 1]["id"]] = str(value)
    return out


def node_types(problem: dict, mine: dict[str, str]) -> list[dict]:
    task, data = problem["task"], problem["data"]
    gold = {n["id"]: n["value"] for n in problem["trace"]}
    own = {**{k: v for k, v in gold.items() if k == "x"}, **mine}  # the input is given, never the model's
    out = []
    for i, node in enumerate(trace_steps(problem), start=1):
        nid = node["id"]
        if nid not in own:
            out.append({"step": i, "id": nid, "type": "missing"})
            continue
        parents = [p for p in node["parents"] if not p.startswith("clue")]
        parents_right = all(own.get(p) == gold[p] for p in parents)
        right = own[nid] == node["value"]
        if right:
            kind = "correct" if parents_right else "restored"
        elif parents_right:
            kind = "local"
        elif task == "zebra" or any(p not in own for p in parents):
            kind = "propagated"
        else:
            kind = "propagated" if node_op(task, data, nid, {p: own[p] for p in parents}) == own[nid] else "local"
        out.append({"step": i, "id": nid, "type": kind})
    return out


def shortcuts(problem: dict, answer: str | None) -> list[str]:
    """Named shortcut signatures the answer matches (only for answers that are not the gold one)."""
    task, data, gold = problem["task"], problem["data"], problem["answer"]
    if answer is None or answer == normalize(task, gold):
        return []
    found = []
    if task in ("compose", "iterate"):
        chain = [n["value"] for n in problem["trace"]]
        found += [f"skip-hop:{len(chain) - 1 - j}" for j in range(len(chain) - 1) if chain[j] == answer][:1]
        prev = chain[-2]
        if task == "iterate":
            i = int(prev)
            near = [data["f"][j] for j in (i - 1, i + 1) if 0 <= j < len(data["f"])]
            near = [str(v) for v in near]
        else:
            lines = data["lines"]
            idx = next(j for j, (a, _) in enumerate(lines) if a == prev)
            near = [lines[j][1] for j in (idx - 1, idx + 1) if 0 <= j < len(lines)]
        if answer in near:
            found.append("wrong-binding")
    elif task == "mult":
        if len(answer) == len(gold) and len(gold) >= 3 and answer[0] == gold[0] and answer[-1] == gold[-1]:
            found.append("edge-digits")
    elif task == "dp":
        taken, prev = [], False
        for x in data["a"]:
            take = x > 0 and not prev
            taken.append("1" if take else "0")
            prev = take
        if answer == " ".join(taken):
            found.append("greedy-positives")
    elif task == "zebra":
        houses = {}
        for part in answer.split(";"):
            head, _, values = part.partition(":")
            digits = "".join(c for c in head if c.isdigit())
            for v in values.split():
                if digits:
                    houses[v] = int(digits)
        found += [f"violated:{c}" for c in zebra.violated_clues(data, houses)][:3]
    return found


def score_item(problem: dict, response: dict) -> dict:
    task, mode = problem["task"], response.get("mode", "cot")
    answer = response.get("answer")
    correct = answer is not None and answer == normalize(task, problem["answer"])
    kinds = node_types(problem, model_values(problem, response.get("steps", []))) if mode == "cot" else []
    first_local = next((k["step"] for k in kinds if k["type"] == "local"), None)
    if answer is None:
        outcome = "parse"
    elif mode != "cot":
        outcome = "correct" if correct else "wrong"
    elif correct:
        outcome = "faithful-correct" if all(k["type"] == "correct" for k in kinds) else "shortcut-correct"
    else:
        outcome = "compounding-wrong"
    counts = {t: sum(k["type"] == t for k in kinds) for t in ("correct", "local", "propagated", "restored", "missing")}
    return make_record("ssm.score", id=problem["id"], task=task, size=problem["params"]["size"],
                       depth=problem["params"]["depth"], mode=mode, correct=correct, outcome=outcome,
                       first_local=first_local, nodes=counts, node_types=[k["type"] for k in kinds],
                       shortcuts=shortcuts(problem, answer), model=response.get("model"))
