"""Recompute trace nodes from their parents: gold checks (`solve`) and the error-type analysis.

`node_op` applies a node's operation to whatever parent values it is given: the gold ones (every gold node must
recompute) or a model's own (a wrong node that is the right operation on wrong parents is `propagated`).
Zebra nodes cite clues; they are rechecked by propagating only the cited clues and assignments.
"""

from __future__ import annotations

from toolkit.core.records import make_record
from toolkit.ssm_limits import zebra
from toolkit.ssm_limits.tasks import solve


def _int(v) -> int | None:
    try:
        return int(str(v).strip())
    except (TypeError, ValueError):
        return None


def node_op(task: str, data: dict, node_id: str, parents: dict[str, str]) -> str | None:
    """The node's value computed from `parents` (id -> value); None where it cannot be computed."""
    if task == "compose":
        table = dict(map(tuple, data["lines"]))
        (pv,) = parents.values()
        return table.get(pv)
    if task == "iterate":
        (pv,) = parents.values()
        i = _int(pv)
        return str(data["f"][i]) if i is not None and 0 <= i < len(data["f"]) else None
    if task == "mult":
        j = int(node_id[1:])
        if node_id[0] == "p":
            return str(data["a"] * int(str(data["b"])[::-1][j]) * 10 ** j)
        vals = [_int(v) for v in parents.values()]
        return None if None in vals else str(sum(vals))
    if task == "dp":
        a, i = data["a"], int(node_id[1:])
        n = len(a)
        nxt = [_int(parents.get(f"d{j}", 0)) if j < n else 0 for j in (i + 1, i + 2)]
        if None in nxt:
            return None
        if node_id[0] == "d":
            return str(max(nxt[0], a[i] + nxt[1]))
        prev_taken = parents.get(f"c{i - 1}") == "1"
        return "1" if (not prev_taken and a[i] + nxt[1] > nxt[0]) else "0"
    return None


def node_ok(task: str, data: dict, node: dict, values: dict[str, str]) -> bool:
    """Does `node` recompute from the values (`values`: id -> value of earlier nodes)?"""
    if task == "zebra":
        earlier = {k[2:]: int(v) for k, v in values.items() if k.startswith("h:")}
        return zebra.node_recomputes(data, node, earlier)
    if not node["parents"]:
        if node["id"] == "x":
            return True
    got = node_op(task, data, node["id"], {p: values[p] for p in node["parents"]})
    return got == node["value"]


def check_problem(problem: dict) -> dict:
    """`ssm.check`: answer re-solved independently, every trace node recomputed from its parents."""
    task, data = problem["task"], problem["data"]
    solved = solve(task, data)
    values: dict[str, str] = {}
    bad_nodes = []
    for node in problem["trace"]:
        if any(p not in values and not p.startswith("clue") for p in node["parents"]) \
                or not node_ok(task, data, node, values):
            bad_nodes.append(node["id"])
        values[node["id"]] = node["value"]
    extra = {}
    if task == "zebra":
        extra["solutions"] = zebra.count_solutions(data)
    ok = solved == problem["answer"] and not bad_nodes and extra.get("solutions", 1) == 1
    return make_record("ssm.check", id=problem["id"], task=task, ok=ok, answer=problem["answer"], solved=solved,
                       bad_nodes=bad_nodes, **extra)
