"""Bootstrap intervals shared by the systems that compare two methods on the same questions."""

from __future__ import annotations


def bootstrap_ci(values: list[float], *, samples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean."""
    import numpy as np

    if not values:
        return (0.0, 0.0)
    v = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = v[rng.integers(0, len(v), size=(samples, len(v)))].mean(1)
    return (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)))


def cluster_bootstrap_ci(values: list[float], clusters: list, *, samples: int = 2000,
                         seed: int = 0) -> tuple[float, float]:
    """95% percentile interval of the mean when the items come in clusters (the samples of one scene):
    whole clusters are resampled, so items that share a cluster are not counted as independent."""
    import numpy as np

    if not values:
        return (0.0, 0.0)
    groups: dict = {}
    for v, c in zip(values, clusters, strict=True):
        groups.setdefault(c, []).append(float(v))
    sums = np.array([sum(g) for g in groups.values()])
    sizes = np.array([len(g) for g in groups.values()], dtype=float)
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(sums), size=(samples, len(sums)))
    means = sums[pick].sum(1) / sizes[pick].sum(1)
    return (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)))


def paired_bootstrap(a: list[float], b: list[float], *, samples: int = 2000, seed: int = 0) -> dict:
    """Mean of a - b over the same questions with its 95% bootstrap interval."""
    import numpy as np

    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    lo, hi = bootstrap_ci(d.tolist(), samples=samples, seed=seed)
    return {"diff": float(d.mean()) if len(d) else 0.0, "ci95": [lo, hi], "excludes_zero": lo > 0 or hi < 0}
