"""Task generators with exact solvers and gold computation-graph traces.

Every problem is a plain dict (`ssm.problem` record): its inputs under `data`, the gold `answer`, and the
trace as nodes {id, value, parents} in the order a chain of thought emits them (input-free nodes included).
`solve(task, data)` recomputes the answer from the inputs alone, by an independent route where one exists
(brute force for dp, the constraint solver for zebra, Python ints for mult).

Splits are hash-disjoint: a problem's split is a bucket of the hash of its task and inputs, so a table seen
in training can never appear in test, whatever seeds were used.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
from collections.abc import Callable

from toolkit.core.errors import InputError

SPLITS = {"train": range(0, 6), "dev": range(6, 8), "test": range(8, 10)}
POOL = 64  # symbols per set for compose and iterate
SET_LETTERS = string.ascii_lowercase[:9]  # compose: a..i, so up to 8 maps
MAX_DP = 20
MAX_MULT = 12

TASKS = {
    "compose": "K maps over disjoint symbol sets of size n (K=2: g(f(x)), f a bijection, g random); "
               "--size n <= 64, --depth K (default 2, <= 8), --query-first puts the query before the lines",
    "iterate": "pointer chasing: a random table f:[n]->[n], answer f^K(x); --size n <= 64, --depth K",
    "mult": "multiply an m-digit by a k-digit number; --size m, --depth k (each <= 12)",
    "dp": "max-sum non-adjacent selection of integers in [-5,5], ties prefer skip; --size L (<= 20)",
    "zebra": "Einstein puzzle with N houses and M attributes; --size N, --depth M (each 2..5)",
}


def content_hash(task: str, data: dict) -> str:
    canon = json.dumps({"task": task, "data": data}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode()).hexdigest()


def split_of(task: str, data: dict) -> str:
    """The split a problem belongs to. Zebra hashes its solution grid: no test grid appears in train."""
    if task == "zebra":
        return _zebra_split(data["n"], data["attrs"], _zebra().constraint_solution(data))
    return _bucket_split(content_hash(task, data))


def _bucket_split(digest: str) -> str:
    bucket = int(digest[:8], 16) % 10
    return next(name for name, r in SPLITS.items() if bucket in r)


def _zebra_split(n: int, attrs: list[str], solution: dict[str, int]) -> str:
    return _bucket_split(content_hash("zebra", {"n": n, "attrs": attrs, "solution": sorted(solution.items())}))


def check_params(task: str, size: int, depth: int | None) -> int:
    """Validate the knobs; returns the depth to use (task default where none given)."""
    if task not in TASKS:
        raise InputError(f"--task {task}: unknown task; expected one of {', '.join(TASKS)}")
    default = {"compose": 2, "iterate": 1, "mult": 1, "dp": 1, "zebra": 2}[task]
    depth = default if depth is None else depth
    if size < 1 or depth < 1:
        raise InputError(f"--size {size} --depth {depth}: both must be >= 1")
    if task in ("compose", "iterate") and size > POOL:
        raise InputError(f"--size {size}: above the symbol pool ({POOL}) of task {task}")
    if task == "compose" and depth > len(SET_LETTERS) - 1:
        raise InputError(f"--depth {depth}: compose chains at most {len(SET_LETTERS) - 1} maps")
    if task == "mult" and (size > MAX_MULT or depth > MAX_MULT):
        raise InputError(f"--size {size} --depth {depth}: mult takes at most {MAX_MULT} digits per factor")
    if task == "dp" and (size > MAX_DP or size < 2):
        raise InputError(f"--size {size}: dp lengths are 2..{MAX_DP}")
    if task == "zebra" and not (2 <= size <= 5 and 2 <= depth <= 5):
        raise InputError(f"--size {size} --depth {depth}: zebra N and M must be 2..5")
    return depth


# ---- compose ---------------------------------------------------------------------------------------------

def compose_data(rng: random.Random, n: int, k: int, query_first: bool = False) -> dict:
    sets = [[f"{SET_LETTERS[j]}{i}" for i in range(n)] for j in range(k + 1)]
    maps = []
    for j in range(k):
        if j == 0 and k >= 2:  # f a bijection, later maps random functions: g o f is a uniform random function
            image = rng.sample(sets[1], n)
        else:
            image = [rng.choice(sets[j + 1]) for _ in range(n)]
        maps.append(dict(zip(sets[j], image, strict=False)))
    lines = [[a, b] for m in maps for a, b in m.items()]
    rng.shuffle(lines)
    return {"n": n, "k": k, "lines": lines, "x": rng.choice(sets[0]), "query_first": query_first}


def compose_trace(data: dict) -> list[dict]:
    table = dict(map(tuple, data["lines"]))
    nodes = [{"id": "x", "value": data["x"], "parents": []}]
    for i in range(1, data["k"] + 1):
        nodes.append({"id": f"s{i}", "value": table[nodes[-1]["value"]], "parents": [nodes[-1]["id"]]})
    return nodes


def compose_solve(data: dict) -> str:
    # independent route: apply the maps by set letter, not by walking the trace
    by_set = {}
    for a, b in data["lines"]:
        by_set.setdefault(a[0], {})[a] = b
    v = data["x"]
    for j in range(data["k"]):
        v = by_set[SET_LETTERS[j]][v]
    return v


# ---- iterate ---------------------------------------------------------------------------------------------

def iterate_data(rng: random.Random, n: int, k: int) -> dict:
    return {"n": n, "k": k, "f": [rng.randrange(n) for _ in range(n)], "x": rng.randrange(n)}


def iterate_trace(data: dict) -> list[dict]:
    nodes = [{"id": "x", "value": str(data["x"]), "parents": []}]
    for i in range(1, data["k"] + 1):
        nodes.append({"id": f"s{i}", "value": str(data["f"][int(nodes[-1]["value"])]), "parents": [nodes[-1]["id"]]})
    return nodes


def iterate_solve(data: dict) -> str:
    v = data["x"]
    for _ in range(data["k"]):
        v = data["f"][v]
    return str(v)


# ---- mult ------------------------------------------------------------------------------------------------

def mult_data(rng: random.Random, m: int, k: int) -> dict:
    def number(d):
        return rng.randint(10 ** (d - 1), 10 ** d - 1) if d > 1 else rng.randint(1, 9)
    return {"a": number(m), "b": number(k)}


def mult_trace(data: dict) -> list[dict]:
    """Partial product a * digit_j * 10^j per multiplier digit (right to left), then running sums."""
    a, digits = data["a"], str(data["b"])[::-1]
    nodes = [{"id": f"p{j}", "value": str(a * int(d) * 10 ** j), "parents": []} for j, d in enumerate(digits)]
    prev = "p0"
    for j in range(1, len(digits)):
        total = int(next(n["value"] for n in nodes if n["id"] == prev)) + int(nodes[j]["value"])
        nodes.append({"id": f"r{j}", "value": str(total), "parents": [prev, f"p{j}"]})
        prev = f"r{j}"
    return nodes


def mult_solve(data: dict) -> str:
    return str(data["a"] * data["b"])


# ---- dp --------------------------------------------------------------------------------------------------

def dp_data(rng: random.Random, length: int, _k: int) -> dict:
    return {"a": [rng.randint(-5, 5) for _ in range(length)]}


def dp_trace(data: dict) -> list[dict]:
    """dp[i] = max(dp[i+1], a[i] + dp[i+2]) right to left, then the selection left to right (ties: skip)."""
    a = data["a"]
    n = len(a)
    dp = [0] * (n + 2)
    nodes = []
    for i in range(n - 1, -1, -1):
        dp[i] = max(dp[i + 1], a[i] + dp[i + 2])
        nodes.append({"id": f"d{i}", "value": str(dp[i]), "parents": [f"d{j}" for j in (i + 1, i + 2) if j < n]})
    prev_taken = False
    for i in range(n):
        take = not prev_taken and a[i] + dp[i + 2] > dp[i + 1]
        parents = [f"d{j}" for j in (i + 1, i + 2) if j < n] + ([f"c{i - 1}"] if i else [])
        nodes.append({"id": f"c{i}", "value": "1" if take else "0", "parents": parents})
        prev_taken = take
    return nodes


def dp_solve(data: dict) -> str:
    """Brute force over every non-adjacent selection: max sum, then the lexicographically smallest vector
    (a 0 before a 1 at the first difference, which is what 'ties prefer skip' left to right means)."""
    a = data["a"]
    n = len(a)
    best = None
    for mask in range(1 << n):
        if mask & (mask >> 1):
            continue
        sel = [(mask >> i) & 1 for i in range(n)]
        key = (sum(x for x, s in zip(a, sel, strict=False) if s), [-s for s in sel])
        if best is None or key > best[0]:
            best = (key, sel)
    return " ".join(map(str, best[1]))


def dp_solve_fast(data: dict) -> str:
    return " ".join(n["value"] for n in dp_trace(data) if n["id"].startswith("c"))


# ---- registry --------------------------------------------------------------------------------------------

def _zebra():
    from toolkit.ssm_limits import zebra

    return zebra


MAKERS: dict[str, Callable] = {
    "compose": lambda rng, s, k, qf, split: compose_data(rng, s, k, qf),
    "iterate": lambda rng, s, k, qf, split: iterate_data(rng, s, k),
    "mult": lambda rng, s, k, qf, split: mult_data(rng, s, k),
    "dp": lambda rng, s, k, qf, split: dp_data(rng, s, k),
    "zebra": lambda rng, s, k, qf, split: _zebra().zebra_data(
        rng, s, k, lambda sol: _zebra_split(s, list(_zebra().ATTRS)[:k], sol) == split),
}


def trace(task: str, data: dict) -> list[dict]:
    if task == "zebra":
        return _zebra().zebra_trace(data)
    return {"compose": compose_trace, "iterate": iterate_trace, "mult": mult_trace, "dp": dp_trace}[task](data)


def solve(task: str, data: dict) -> str:
    """The answer recomputed from the inputs alone."""
    if task == "zebra":
        return _zebra().zebra_solve(data)
    if task == "dp" and len(data["a"]) > 14:  # brute force is 2^L; beyond 14 the DP itself is the reference
        return dp_solve_fast(data)
    return {"compose": compose_solve, "iterate": iterate_solve, "mult": mult_solve, "dp": dp_solve}[task](data)


def answer_of(task: str, data: dict, nodes: list[dict]) -> str:
    if task == "dp":
        return " ".join(n["value"] for n in nodes if n["id"].startswith("c"))
    if task == "zebra":
        return _zebra().grid_answer(data, nodes)
    return nodes[-1]["value"]


def sample_data(rng: random.Random, task: str, size: int, depth: int, split: str, query_first: bool = False,
                tries: int = 10_000) -> dict:
    """Inputs of one problem whose hash bucket falls in `split`."""
    if split not in SPLITS:
        raise InputError(f"--split {split}: expected one of {', '.join(SPLITS)}")
    for _ in range(tries):
        data = MAKERS[task](rng, size, depth, query_first, split)
        if split_of(task, data) == split:
            return data
    raise InputError(f"task {task} size {size} depth {depth}: no problem of split {split} found")


def generate(task: str, size: int, depth: int | None, n: int, split: str, seed: int,
             query_first: bool = False) -> list[dict]:
    """`n` distinct problems of one task, size and depth, all in `split`, deterministic in `seed`."""
    from toolkit.ssm_limits.prompts import render

    depth = check_params(task, size, depth)
    rng = random.Random(f"ssm-limits:{seed}:{task}:{size}:{depth}:{split}:{int(query_first)}")
    out, seen = [], set()
    space_guard = 0
    while len(out) < n:
        data = sample_data(rng, task, size, depth, split, query_first)
        h = content_hash(task, data)
        if h in seen:
            space_guard += 1
            if space_guard > 50 * n:
                raise InputError(f"task {task} size {size} depth {depth}: fewer than {n} distinct {split} problems")
            continue
        seen.add(h)
        nodes = trace(task, data)
        problem = {"id": f"{task}-{size}-{depth}-{h[:12]}", "task": task, "split": split,
                   "params": {"size": size, "depth": depth, "query_first": query_first}, "data": data,
                   "answer": answer_of(task, data, nodes), "trace": nodes}
        problem.update(render(problem))
        out.append(problem)
    return out
