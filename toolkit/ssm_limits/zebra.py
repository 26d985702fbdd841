"""Einstein (zebra) puzzles: N houses, M attributes, clues until the answer is unique.

Clues are drawn true of a hidden random solution and added until the propagation solver below fixes every
value (which proves uniqueness, since it only removes impossible houses); python-constraint then confirms
there is exactly one solution, and clues are dropped greedily while the puzzle stays solved by propagation.
The trace is the propagation solver's forced assignments in order, each citing the clue ids and earlier
assignments it used.
"""

from __future__ import annotations

import random

ATTRS = {
    "color": ["red", "green", "blue", "yellow", "white"],
    "pet": ["dog", "cat", "bird", "fish", "horse"],
    "drink": ["tea", "coffee", "milk", "water", "juice"],
    "nation": ["english", "spanish", "japanese", "italian", "norwegian"],
    "sport": ["chess", "tennis", "golf", "soccer", "rugby"],
}
KINDS = {"at": 1, "not_at": 2, "same": 3, "next": 2, "left": 2}  # sampling weights


def _groups(data: dict) -> list[list[str]]:
    return [ATTRS[a][: data["n"]] for a in data["attrs"]]


def _true_clues(rng: random.Random, sol: dict[str, int], groups: list[list[str]], n: int) -> list[dict]:
    values = [v for g in groups for v in g]
    attr_of = {v: i for i, g in enumerate(groups) for v in g}
    pool = []
    for v in values:
        pool.append(("at", [v, sol[v]]))
        pool += [("not_at", [v, h]) for h in range(1, n + 1) if h != sol[v]]
        for w in values:
            if attr_of[v] == attr_of[w]:
                continue
            if sol[v] == sol[w] and v < w:
                pool.append(("same", [v, w]))
            if abs(sol[v] - sol[w]) == 1 and v < w:
                pool.append(("next", [v, w]))
            if sol[v] < sol[w]:
                pool.append(("left", [v, w]))
    rng.shuffle(pool)
    pool.sort(key=lambda c: -rng.random() * KINDS[c[0]])  # weighted shuffle
    return [{"kind": k, "args": a} for k, a in pool]


def zebra_data(rng: random.Random, n: int, m: int, split_ok=lambda sol: True) -> dict:
    """A puzzle whose hidden solution passes `split_ok` (splits are decided on the solution grid, before
    the costly clue search)."""
    attrs = list(ATTRS)[:m]
    data = {"n": n, "attrs": attrs, "clues": []}
    groups = _groups(data)
    while True:
        sol = {}
        for g in groups:
            for h, v in enumerate(rng.sample(g, n), start=1):
                sol[v] = h
        if split_ok(sol):
            break
    clues = []
    every = max(1, n * m // 5)  # check in batches: the greedy drop below removes the surplus anyway
    for clue in _true_clues(rng, sol, groups, n):
        clues.append(clue)
        if len(clues) % every == 0 and _solved({**data, "clues": _numbered(clues)}):
            break
    kept = list(clues)
    for clue in list(reversed(clues)):
        trial = [c for c in kept if c is not clue]
        if _solved({**data, "clues": _numbered(trial)}):
            kept = trial
    order = rng.sample(kept, len(kept))
    return {**data, "clues": _numbered(order)}


def _numbered(clues: list[dict]) -> list[dict]:
    return [{"id": f"clue{i}", "kind": c["kind"], "args": c["args"]} for i, c in enumerate(clues, start=1)]


def _solved(data: dict) -> bool:
    domains, _ = propagate(data)
    return domains is not None and all(len(d) == 1 for d in domains.values())


def propagate(data: dict, clue_ids: set[str] | None = None, facts: dict[str, int] | None = None):
    """Arc-consistency propagation with reasons. Returns (domains or None on contradiction, nodes).

    Nodes: one per value whose house became forced, {id "h:VALUE", value "house", parents [reasons]}.
    With `clue_ids`/`facts`, only those clues and given assignments are used (to recheck a trace node)."""
    n, groups = data["n"], _groups(data)
    clues = [c for c in data["clues"] if clue_ids is None or c["id"] in clue_ids]
    dom = {v: set(range(1, n + 1)) for g in groups for v in g}
    why: dict[str, set[str]] = {v: set() for v in dom}
    nodes: list[dict] = []
    done: set[str] = set()
    for v, h in (facts or {}).items():
        dom[v] = {h}
        why[v] = {f"h:{v}"}
        done.add(v)

    def shrink(v, keep, reasons):
        new = dom[v] & keep
        if new != dom[v]:
            dom[v] = new
            why[v] |= reasons
            return True
        return False

    changed = True
    while changed:
        changed = False
        for c in clues:
            k, a = c["kind"], c["args"]
            cid = {c["id"]}
            if k == "at":
                changed |= shrink(a[0], {a[1]}, cid)
            elif k == "not_at":
                changed |= shrink(a[0], dom[a[0]] - {a[1]}, cid)
            else:
                v, w = a
                rel = {"same": lambda x, y: x == y, "next": lambda x, y: abs(x - y) == 1,
                       "left": lambda x, y: x < y}[k]
                changed |= shrink(v, {x for x in dom[v] if any(rel(x, y) for y in dom[w])}, cid | _cite(w, why, done))
                changed |= shrink(w, {y for y in dom[w] if any(rel(x, y) for x in dom[v])}, cid | _cite(v, why, done))
        for g in groups:
            for v in g:
                if len(dom[v]) == 1 and v in done:
                    for w in g:
                        if w != v:
                            changed |= shrink(w, dom[w] - dom[v], {f"h:{v}"})
            for h in range(1, n + 1):
                holders = [v for v in g if h in dom[v]]
                if len(holders) == 1 and len(dom[holders[0]]) > 1:
                    others = set().union(*(_cite(w, why, done) for w in g if w != holders[0]))
                    changed |= shrink(holders[0], {h}, others)
        if any(not d for d in dom.values()):
            return None, nodes
        for g in groups:
            for v in g:
                if len(dom[v]) == 1 and v not in done:
                    done.add(v)
                    nodes.append({"id": f"h:{v}", "value": str(next(iter(dom[v]))), "parents": sorted(why[v])})
                    changed = True
    return dom, nodes


def _cite(v: str, why: dict[str, set[str]], done: set[str]) -> set[str]:
    return {f"h:{v}"} if v in done else set(why[v])


def zebra_trace(data: dict) -> list[dict]:
    return propagate(data)[1]


def node_recomputes(data: dict, node: dict, earlier: dict[str, int]) -> bool:
    """The node's house follows from its cited clues and cited earlier assignments alone."""
    clue_ids = {p for p in node["parents"] if p.startswith("clue")}
    facts = {p[2:]: earlier[p[2:]] for p in node["parents"] if p.startswith("h:")}
    dom, _ = propagate(data, clue_ids, facts)
    return dom is not None and dom[node["id"][2:]] == {int(node["value"])}


def _csp(data: dict):
    """The puzzle as a python-constraint Problem (values are variables, houses 1..N their domain)."""
    import constraint

    n, groups = data["n"], _groups(data)
    p = constraint.Problem()
    for g in groups:
        p.addVariables(g, list(range(1, n + 1)))
        p.addConstraint(constraint.AllDifferentConstraint(), g)
    rels = {"same": lambda x, y: x == y, "next": lambda x, y: abs(x - y) == 1, "left": lambda x, y: x < y}
    for c in data["clues"]:
        k, a = c["kind"], c["args"]
        if k == "at":
            p.addConstraint(constraint.InSetConstraint([a[1]]), [a[0]])
        elif k == "not_at":
            p.addConstraint(constraint.NotInSetConstraint([a[1]]), [a[0]])
        else:
            p.addConstraint(constraint.FunctionConstraint(rels[k]), a)
    return p


def count_solutions(data: dict, limit: int = 2) -> int:
    """Solutions of the clue set by python-constraint (stops at `limit`)."""
    count = 0
    for _ in _csp(data).getSolutionIter():
        count += 1
        if count >= limit:
            break
    return count


def constraint_solution(data: dict) -> dict[str, int]:
    return _csp(data).getSolution()


def grid(data: dict, houses: dict[str, int]) -> str:
    """'house 1: red dog; house 2: ...' with attributes in the puzzle's order."""
    rows = []
    for h in range(1, data["n"] + 1):
        rows.append(f"house {h}: " + " ".join(v for g in _groups(data) for v in g if houses.get(v) == h))
    return "; ".join(rows)


def grid_answer(data: dict, nodes: list[dict]) -> str:
    return grid(data, {nd["id"][2:]: int(nd["value"]) for nd in nodes})


def zebra_solve(data: dict) -> str:
    return grid(data, constraint_solution(data))


CLUE_TEXT = {
    "at": "The {0} is in house {1}.",
    "not_at": "The {0} is not in house {1}.",
    "same": "The {0} and the {1} are in the same house.",
    "next": "The {0} and the {1} are in neighbouring houses.",
    "left": "The {0} is somewhere to the left of the {1}.",
}


def clue_text(clue: dict) -> str:
    return CLUE_TEXT[clue["kind"]].format(*clue["args"])


def violated_clues(data: dict, houses: dict[str, int]) -> list[str]:
    """Ids of clues a (possibly partial) assignment breaks: the zebra shortcut detector."""
    rels = {"same": lambda x, y: x == y, "next": lambda x, y: abs(x - y) == 1, "left": lambda x, y: x < y}
    bad = []
    for c in data["clues"]:
        k, a = c["kind"], c["args"]
        if k in ("at", "not_at"):
            if a[0] in houses and (houses[a[0]] == a[1]) != (k == "at"):
                bad.append(c["id"])
        elif a[0] in houses and a[1] in houses and not rels[k](houses[a[0]], houses[a[1]]):
            bad.append(c["id"])
    return bad
