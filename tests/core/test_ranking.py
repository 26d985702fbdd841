"""Top-k selection: equal scores at the k-th place are kept by index, the same answer on every machine."""

from __future__ import annotations

import random

from toolkit.core.ranking import top_k


def _reference(scores: list[float], k: int) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-round(scores[i], 5), i))[:k]


def test_ties_at_the_kth_place_go_by_index():
    # numpy's argpartition keeps 9, 10, 11 of twelve equal scores on an AVX-512 CPU; the rule keeps the first three
    assert top_k([1.0] * 12, 3) == [0, 1, 2]
    assert top_k([0.5, 2.0, 1.0, 2.0, 1.0, 1.0], 3) == [1, 3, 2]
    assert top_k([3.0, 1.0], 5) == [0, 1] and top_k([3.0], 0) == []


def test_float_noise_below_the_rounding_is_a_tie():
    # the same dot product from two BLAS kernels may differ in the last bits; that must not reorder documents
    assert top_k([1.0 + 1e-9, 1.0, 1.0 + 2e-9], 2) == [0, 1]
    assert top_k([1.0, 1.0 + 1e-3], 1) == [1]


def test_matches_a_sort_of_all_scores_on_many_ties():
    rng = random.Random(0)
    for _ in range(300):
        n = rng.randint(1, 40)
        scores = [float(rng.randint(0, 4)) + rng.choice([0.0, 1e-8]) for _ in range(n)]
        k = rng.randint(0, n + 2)
        assert top_k(scores, k) == _reference(scores, k), (scores, k)
