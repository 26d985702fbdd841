"""Choosing K facts from the condensed store: the optimization strategies, coverage and brute force.

An instance is the condensed store as a table of proofs: each proof is (question, set of facts).
A question is *fully covered* by a fact set S when one of its proofs lies inside S, *partially
covered* when one of its proofs shares a fact with S. Strategies (all return at most K facts):

* `frequency`   -- the K facts used by the most training questions (the reuse ranking);
* `greedy`      -- greedy full-proof coverage: repeatedly add the missing facts of the proof that
                  completes the most new questions per added fact while the budget allows; any
                  budget left is filled by frequency;
* `ilp-full`    -- exact: maximize the number of fully covered questions (scipy.optimize.milp,
                  HiGHS), |S| <= K;
* `ilp-partial` -- exact: maximize the number of partially covered questions (max coverage).

Both ILPs add a tie-breaker epsilon * sum(frequency of chosen facts), with epsilon small enough
that it can never trade a covered question, so among optimal sets the more reused facts win and
spare budget is spent on reused facts. Exactness is checked against brute force in the tests.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

STRATEGIES = ("ilp-full", "ilp-partial", "greedy", "frequency")


@dataclass
class Instance:
    n_facts: int
    n_questions: int
    proofs: list[tuple[int, frozenset[int]]]

    def __post_init__(self) -> None:
        self.proofs = [(int(q), frozenset(int(f) for f in fs)) for q, fs in self.proofs if fs]
        freq = np.zeros(self.n_facts, dtype=np.int64)
        for f in range(self.n_facts):
            freq[f] = len({q for q, fs in self.proofs if f in fs})
        self.freq = freq
        self.ptr = np.zeros(len(self.proofs) + 1, dtype=np.int64)
        flat = []
        for i, (_q, fs) in enumerate(self.proofs):
            flat.extend(sorted(fs))
            self.ptr[i + 1] = len(flat)
        self.flat = np.asarray(flat, dtype=np.int64)
        self.pq = np.asarray([q for q, _ in self.proofs], dtype=np.int64)


@njit(cache=True)
def _coverage_counts(ptr, flat, pq, n_questions, selected):
    full = np.zeros(n_questions, dtype=np.bool_)
    part = np.zeros(n_questions, dtype=np.bool_)
    for p in range(ptr.shape[0] - 1):
        inside = 0
        for k in range(ptr[p], ptr[p + 1]):
            if selected[flat[k]]:
                inside += 1
        if inside > 0:
            part[pq[p]] = True
            if inside == ptr[p + 1] - ptr[p]:
                full[pq[p]] = True
    return full.sum(), part.sum()


def coverage(inst: Instance, selected) -> dict:
    """Full and partial coverage counts of a fact set, plus the best proof fraction averaged over questions."""
    mask = np.zeros(inst.n_facts, dtype=np.bool_)
    for f in selected:
        mask[int(f)] = True
    full, part = _coverage_counts(inst.ptr, inst.flat, inst.pq, inst.n_questions, mask)
    best = np.zeros(inst.n_questions)
    for q, fs in inst.proofs:
        best[q] = max(best[q], sum(mask[f] for f in fs) / len(fs))
    return {"full": int(full), "partial": int(part), "mean_fraction": float(best.mean()) if inst.n_questions else 0.0}


@dataclass
class Selection:
    strategy: str
    budget: int
    facts: list[int]
    full: int
    partial: int
    mean_fraction: float
    exact: bool
    seconds: float


def select(inst: Instance, budget: int, strategy: str) -> Selection:
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {', '.join(STRATEGIES)}")
    start = time.perf_counter()
    if strategy == "frequency":
        facts = frequency(inst, budget)
    elif strategy == "greedy":
        facts = greedy_full(inst, budget)
    else:
        facts = ilp(inst, budget, full=(strategy == "ilp-full"))
    cov = coverage(inst, facts)
    return Selection(strategy, budget, sorted(facts), cov["full"], cov["partial"], cov["mean_fraction"],
                     exact=strategy.startswith("ilp"), seconds=round(time.perf_counter() - start, 4))


def frequency(inst: Instance, budget: int) -> list[int]:
    order = sorted(range(inst.n_facts), key=lambda f: (-inst.freq[f], f))
    return [f for f in order[:budget] if inst.freq[f] > 0] or order[:budget]


def _full_count(inst: Instance, facts) -> int:
    mask = np.zeros(inst.n_facts, dtype=np.bool_)
    for f in facts:
        mask[f] = True
    return int(_coverage_counts(inst.ptr, inst.flat, inst.pq, inst.n_questions, mask)[0])


def greedy_full(inst: Instance, budget: int) -> list[int]:
    chosen: set[int] = set()
    covered = 0
    while True:
        best, best_key = None, None
        for _q, fs in inst.proofs:
            missing = fs - chosen
            if not missing or len(chosen) + len(missing) > budget:
                continue
            gain = _full_count(inst, chosen | missing) - covered
            if gain <= 0:
                continue
            key = (gain / len(missing), gain, -len(missing), -min(missing))
            if best_key is None or key > best_key:
                best, best_key = missing, key
        if best is None:
            break
        chosen |= best
        covered = _full_count(inst, chosen)
    for f in frequency(inst, inst.n_facts):
        if len(chosen) >= budget:
            break
        chosen.add(f)
    return sorted(chosen)


def ilp(inst: Instance, budget: int, full: bool = True) -> list[int]:
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import lil_matrix

    nf, nq = inst.n_facts, inst.n_questions
    if nf == 0 or budget <= 0:
        return []
    questions = sorted({q for q, _ in inst.proofs})
    qpos = {q: i for i, q in enumerate(questions)}
    npf = len(inst.proofs) if full else 0
    nvar = nf + npf + len(questions)
    zoff = nf + npf
    eps = 1.0 / (1.0 + float(inst.freq.sum()))
    c = np.zeros(nvar)
    c[:nf] = -eps * inst.freq
    c[zoff:] = -1.0
    rows = []
    if full:
        for p, (_q, fs) in enumerate(inst.proofs):
            for f in fs:
                rows.append(({nf + p: 1.0, f: -1.0}, -np.inf, 0.0))  # y_p <= x_f
        by_q: dict[int, list[int]] = {}
        for p, (q, _fs) in enumerate(inst.proofs):
            by_q.setdefault(q, []).append(p)
        for q, ps in by_q.items():
            row = {zoff + qpos[q]: 1.0}
            for p in ps:
                row[nf + p] = -1.0
            rows.append((row, -np.inf, 0.0))  # z_q <= sum_p y_p
    else:
        facts_of: dict[int, set[int]] = {}
        for q, fs in inst.proofs:
            facts_of.setdefault(q, set()).update(fs)
        for q, fs in facts_of.items():
            row = {zoff + qpos[q]: 1.0}
            for f in fs:
                row[f] = -1.0
            rows.append((row, -np.inf, 0.0))  # z_q <= sum_{f in q} x_f
    rows.append(({f: 1.0 for f in range(nf)}, -np.inf, float(budget)))  # |S| <= K
    a = lil_matrix((len(rows), nvar))
    lb, ub = np.empty(len(rows)), np.empty(len(rows))
    for i, (row, lo, hi) in enumerate(rows):
        for j, v in row.items():
            a[i, j] = v
        lb[i], ub[i] = lo, hi
    res = milp(c, constraints=LinearConstraint(a.tocsr(), lb, ub), integrality=np.ones(nvar),
               bounds=Bounds(0, 1), options={"disp": False})
    if res.x is None:
        raise RuntimeError(f"milp failed: {res.message}")
    _ = nq
    return sorted(int(f) for f in range(nf) if res.x[f] > 0.5)


def brute_force(inst: Instance, budget: int, objective: str = "full") -> int:
    """The best coverage reachable with at most `budget` facts, by enumeration (small instances only)."""
    k = min(budget, inst.n_facts)
    best = 0
    for combo in itertools.combinations(range(inst.n_facts), k):
        mask = np.zeros(inst.n_facts, dtype=np.bool_)
        mask[list(combo)] = True
        full, part = _coverage_counts(inst.ptr, inst.flat, inst.pq, inst.n_questions, mask)
        best = max(best, int(full if objective == "full" else part))
    return best
