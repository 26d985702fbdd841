import random

import numpy as np
import pytest

from toolkit.microtheory.optimize import STRATEGIES, Instance, _coverage_counts, brute_force, coverage, select


def _reference_counts(inst, selected):
    """Pure-Python reference of the numba coverage kernel."""
    full, part = set(), set()
    for q, fs in inst.proofs:
        inside = len(fs & set(selected))
        if inside:
            part.add(q)
        if inside == len(fs):
            full.add(q)
    return len(full), len(part)


def _random_instance(rng):
    nf, nq = rng.randint(4, 10), rng.randint(2, 8)
    proofs = [(q, frozenset(rng.sample(range(nf), rng.randint(1, 3)))) for q in range(nq)
              for _ in range(rng.randint(1, 2))]
    return Instance(nf, nq, proofs)


def test_numba_kernel_matches_python_reference():
    rng = random.Random(1)
    for _ in range(30):
        inst = _random_instance(rng)
        sel = rng.sample(range(inst.n_facts), rng.randint(0, inst.n_facts))
        mask = np.zeros(inst.n_facts, dtype=np.bool_)
        mask[sel] = True
        got = _coverage_counts(inst.ptr, inst.flat, inst.pq, inst.n_questions, mask)
        assert tuple(int(x) for x in got) == _reference_counts(inst, sel)


def test_strategies_meet_budget_and_exact_ones_match_brute_force():
    rng = random.Random(0)
    for _ in range(25):
        inst = _random_instance(rng)
        k = rng.randint(1, inst.n_facts)
        best_full, best_part = brute_force(inst, k, "full"), brute_force(inst, k, "partial")
        sels = {s: select(inst, k, s) for s in STRATEGIES}
        assert all(len(s.facts) <= k for s in sels.values())
        assert sels["ilp-full"].full == best_full
        assert sels["ilp-partial"].partial == best_part
        assert sels["greedy"].full <= best_full and sels["frequency"].full <= best_full
        for s in sels.values():
            assert (s.full, s.partial) == _reference_counts(inst, s.facts)


def test_hand_instance_where_frequency_is_not_optimal():
    # fact 0 is used by three questions but each of their proofs needs a private fact too;
    # questions 3 and 4 have one-fact proofs.
    proofs = [(0, frozenset({0, 1})), (1, frozenset({0, 2})), (2, frozenset({0, 3})), (3, frozenset({4})),
              (4, frozenset({5}))]
    inst = Instance(6, 5, proofs)
    assert list(inst.freq) == [3, 1, 1, 1, 1, 1]
    assert select(inst, 2, "frequency").full == 1
    assert select(inst, 2, "ilp-full").facts == [4, 5]
    assert select(inst, 2, "ilp-full").full == 2 == brute_force(inst, 2)
    assert select(inst, 1, "ilp-partial").facts == [0]  # touches three questions
    assert select(inst, 3, "greedy").full == 2
    assert coverage(inst, [0, 1])["mean_fraction"] == pytest.approx((1 + 0.5 + 0.5) / 5)
