"""datasketch (public API only) as the reference for the value index's own MinHash and LSH banding.

datasketch 2.x defaults to another permutation scheme; "legacy" (the only one in 1.x) is the one the index uses.
"""

from __future__ import annotations

import inspect

import numpy as np
from datasketch import LeanMinHash, MinHash, MinHashLSH

from toolkit.chase_sql.values import shingles

_SCHEME = {"scheme": "legacy"} if "scheme" in inspect.signature(MinHash).parameters else {}


def reference_minhash(value: str, num_perm: int = 64, ngram: int = 3) -> MinHash:
    m = MinHash(num_perm=num_perm, seed=1, **_SCHEME)
    m.update_batch(shingles(value, ngram))
    return m


def reference_signatures(values, num_perm: int = 64, ngram: int = 3) -> np.ndarray:
    return np.array([reference_minhash(v, num_perm, ngram).hashvalues for v in values], dtype=np.uint64)


def reference_params(threshold: float, num_perm: int) -> tuple[int, int]:
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    return lsh.b, lsh.r


def reference_lsh(index) -> MinHashLSH:
    """The index's signatures inserted into a datasketch MinHashLSH with the same (b, r)."""
    lsh = MinHashLSH(num_perm=index.num_perm, params=index.params())
    with lsh.insertion_session() as session:
        for i, row in enumerate(index.hashes):
            session.insert(i, LeanMinHash(seed=1, hashvalues=row, **_SCHEME), check_duplication=False)
    return lsh
