"""Top-k selection that gives the same answer on every machine.

Which of several equal scores a top-k routine keeps at the k-th place is not specified: numpy's
argpartition picks differently on CPUs with and without AVX-512, and bm25s selects with jax.lax.top_k
when jax happens to be installed. A retriever's choice feeds prompts, whose hashes key recorded LLM
replays, so a tie broken by the machine makes a recording miss elsewhere. Here scores are rounded
(float noise between BLAS kernels must not split a tie) and equal ones are ordered by index.
"""

from __future__ import annotations

DECIMALS = 5


def top_k(scores, k: int, *, decimals: int = DECIMALS) -> list[int]:
    """Indices of the k highest scores, best first; scores equal after rounding to `decimals` go by index."""
    import numpy as np

    key = np.round(np.asarray(scores, dtype=np.float64), decimals)
    n = len(key)
    k = min(int(k), n)
    if k <= 0:
        return []
    # the k-th largest value is the same whichever routine finds it; every index reaching it is a candidate
    kth = np.partition(key, n - k)[n - k]
    cand = np.flatnonzero(key >= kth)
    cand = cand[np.lexsort((cand, -key[cand]))]
    return [int(i) for i in cand[:k]]
