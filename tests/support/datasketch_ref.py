"""datasketch (public API only) as the reference for the value index's own MinHash and LSH banding.

The index draws its permutations like datasketch 2.x's default scheme ("affine32"), so plain MinHash(seed=1)
is the reference; datasketch 1.x has no such scheme (its signatures differ; its LSH parameters do not).
"""

from __future__ import annotations

import numpy as np
from datasketch import LeanMinHash, MinHash, MinHashLSH

from toolkit.chase_sql.values import shingles


def reference_minhash(value: str, num_perm: int = 64, ngram: int = 3) -> MinHash:
    m = MinHash(num_perm=num_perm, seed=1)
    m.update_batch(shingles(value, ngram))
    return m


def reference_signatures(values, num_perm: int = 64, ngram: int = 3) -> np.ndarray:
    return np.array([reference_minhash(v, num_perm, ngram).hashvalues for v in values], dtype=np.uint32)


def reference_params(threshold: float, num_perm: int) -> tuple[int, int]:
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    return lsh.b, lsh.r


def reference_lsh(index) -> MinHashLSH:
    """The index's signatures inserted into a datasketch MinHashLSH with the same (b, r)."""
    lsh = MinHashLSH(num_perm=index.num_perm, params=index.params())
    with lsh.insertion_session() as session:
        for i, row in enumerate(index.hashes):
            session.insert(i, LeanMinHash(seed=1, hashvalues=row, scheme="affine32"), check_duplication=False)
    return lsh
