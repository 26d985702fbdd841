"""Error types on the computation graph (per node and per answer) and shortcut detectors.

Per node, against the gold trace, with the model's own values, as Dziri et al. ("Faith and Fate", section 3)
define them and the paper's error analysis uses them. A node is *derived from a correct computation* when its
operation applied to the model's own parent values gives the model's value (a parent the model did not write
has no value, so nothing derived from it is a correct computation).
  correct      fully correct: the node and all its ancestors have correct values and correct computations
  local        the parents' values are correct, the computation is not (parents right, node wrong)
  propagated   the computation is correct, a parent's value is not (the right step on wrong parents)
  restored     the value is correct, the computation is not (a wrong parent, yet the right value)
Two cases the four categories leave out are counted under their own names, never folded into one of them:
  correct-step a correct computation on correct parents below an earlier error (not fully correct)
  unexplained  a wrong value on wrong parents that the node's operation does not produce from them
  missing      the model wrote no value for the node
Per answer: faithful-correct (answer right, every node fully correct), shortcut-correct (answer right, trace
broken), compounding-wrong (answer wrong; `first_local` = step of the first local error), parse (no answer
found); direct mode: correct / wrong / parse.
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


NODE_TYPES = ("correct", "local", "propagated", "restored", "correct-step", "unexplained", "missing")


def derived_correctly(task: str, data: dict, node: dict, own: dict[str, str]) -> bool:
    """Is the model's value of `node` its operation applied to the model's own parent values?"""
    parents = [p for p in node["parents"] if not p.startswith("clue")]
    if any(p not in own for p in parents):
        return False
    if task == "zebra":
        try:
            earlier = {p[2:]: int(own[p]) for p in parents}
            return zebra.node_recomputes(data, {**node, "value": int(own[node["id"]])}, earlier)
        except (TypeError, ValueError, KeyError):
            return False
    return node_op(task, data, node["id"], {p: own[p] for p in parents}) == own[node["id"]]


def node_types(problem: dict, mine: dict[str, str]) -> list[dict]:
    task, data = problem["task"], problem["data"]
    gold = {n["id"]: n["value"] for n in problem["trace"]}
    own = {**{k: v for k, v in gold.items() if k == "x"}, **mine}  # the input is given, never the model's
    fully = {"x": True}
    out = []
    for i, node in enumerate(trace_steps(problem), start=1):
        nid = node["id"]
        if nid not in own:
            fully[nid] = False
            out.append({"step": i, "id": nid, "type": "missing"})
            continue
        parents = [p for p in node["parents"] if not p.startswith("clue")]
        parents_right = all(own.get(p) == gold[p] for p in parents)
        value_right = own[nid] == node["value"]
        computed = derived_correctly(task, data, node, own)
        fully[nid] = value_right and computed and all(fully.get(p, False) for p in parents)
        if fully[nid]:
            kind = "correct"
        elif parents_right and not computed:
            kind = "local"
        elif computed and not parents_right:
            kind = "propagated"
        elif value_right and not computed:
            kind = "restored"
        elif computed:  # right parents, right step, an error further up
            kind = "correct-step"
        else:
            kind = "unexplained"
        out.append({"step": i, "id": nid, "type": kind})
    return out


def floor(problem: dict) -> float | None:
    """Expected accuracy of answering the most frequent value of the table (ties split evenly): the no-lookup
    baseline of compose and iterate; None for the other tasks."""
    from collections import Counter

    task, data = problem["task"], problem["data"]
    if task == "iterate":
        values = [str(v) for v in data["f"]]
    elif task == "compose":
        last = normalize(task, problem["answer"])[0]
        values = [b for _, b in data["lines"] if b[0] == last]
    else:
        return None
    counts = Counter(values)
    top = max(counts.values())
    modes = [v for v, c in counts.items() if c == top]
    return (1.0 / len(modes)) if normalize(task, problem["answer"]) in modes else 0.0


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
    counts = {t: sum(k["type"] == t for k in kinds) for t in NODE_TYPES}
    return make_record("ssm.score", id=problem["id"], task=task, size=problem["params"]["size"],
                       depth=problem["params"]["depth"], mode=mode, correct=correct, outcome=outcome,
                       first_local=first_local, nodes=counts,
                       node_types=[k["type"] for k in kinds], floor=floor(problem),
                       shortcuts=shortcuts(problem, answer), model=response.get("model"))
