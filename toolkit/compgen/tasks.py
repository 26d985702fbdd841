"""The compositional task families of Lippl & Stachenfeld (ICLR 2025, arXiv 2405.16391).

An input is a tuple of C categorical components; `sizes[c]` values each. A task is the
full grid of combinations with a target per combination and a training mask. Splits follow
the paper's public code (sflippl/compositional-generalization, tasks/*.py):

* symbolic addition: y = sum_c values[c][x_c]. Splits: "comps" (train on combinations where at
  least one component takes one of the first `train_values` values), "dispersed" (each value of
  the first component is paired with `instances` values of the second along a shuffled cyclic
  band), or "biased" (the comps split plus a single diagonal of held-out combinations put into
  training, which the kernel partly memorizes).
* context dependence: components (context, feature_1, ..., feature_F); the context selects which
  feature determines the +-1 response. Variants 1-3 leave out the combinations where feature_1 is
  in {0,1,2} / {0,1} / {0} and feature_2 in {3,4,5} / {3,4} / {3} (features conflict there).
* transitive equivalence: inputs are pairs of items from equivalence classes; y = +1 if both lie
  in the same class, else -1. Training pairs contain at least one of the first `train_items` items
  of a class; test pairs contain only the remaining items, so the answer needs transitivity.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from toolkit.core.errors import InputError


@dataclass
class Task:
    name: str
    x: np.ndarray  # (N, C) int64 component values
    y: np.ndarray  # (N,) float64 target
    train: np.ndarray  # (N,) bool
    sizes: tuple[int, ...]
    params: dict = field(default_factory=dict)
    # Per-input extra columns used by diagnostics (e.g. the irrelevant feature's response).
    extra: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def components(self) -> int:
        return len(self.sizes)

    def check(self) -> Task:
        if self.x.ndim != 2 or self.x.shape[1] != len(self.sizes):
            raise InputError(f"task {self.name}: inputs have shape {self.x.shape}, expected (N, {len(self.sizes)})")
        if self.y.shape != (len(self.x),) or self.train.shape != (len(self.x),):
            raise InputError(f"task {self.name}: targets/mask do not match {len(self.x)} inputs")
        if not self.train.any():
            raise InputError(f"task {self.name}: the split leaves no training combination")
        return self


def grid(sizes: tuple[int, ...]) -> np.ndarray:
    return np.array(list(itertools.product(*[range(n) for n in sizes])), dtype=np.int64)


def addition(values: list[list[float]] | None = None, split: str = "comps", train_values: int = 2,
             instances: int = 3, seed: int = 0) -> Task:
    values = values or [list(range(-4, 5)), list(range(-4, 5))]
    sizes = tuple(len(v) for v in values)
    x = grid(sizes)
    y = np.array([sum(values[c][v] for c, v in enumerate(row)) for row in x], dtype=float)
    if split in ("comps", "biased"):
        train = (x < train_values).any(axis=1)
        if split == "biased":
            # A few held-out combinations leak into training: memorized, not composed.
            diag = (x[:, 0] == x[:, 1]) & ~train if len(sizes) == 2 else np.zeros(len(x), bool)
            train = train | diag
    elif split == "dispersed":
        if len(sizes) != 2 or sizes[0] != sizes[1]:
            raise InputError("addition --split dispersed needs two components with equally many values")
        n = sizes[0]
        if not 1 <= instances <= n:
            raise InputError(f"--instances {instances}: must be between 1 and {n}")
        band = np.array([[int((j - i) % n <= instances - 1) for j in range(n)] for i in range(n)])
        np.random.default_rng(seed).shuffle(band)
        train = band[x[:, 0], x[:, 1]] == 1
    else:
        raise InputError(f"addition: unknown split '{split}' (known: comps, dispersed, biased)")
    params = {"values": values, "split": split, "train_values": train_values, "instances": instances, "seed": seed}
    return Task("addition", x, y, train, sizes, params).check()


CD_LEFTOUT = {1: ([0, 1, 2], [3, 4, 5]), 2: ([0, 1], [3, 4]), 3: ([0], [3])}


def context_dependence(variant: int = 1, contexts: int = 2, features: tuple[int, ...] = (6, 6)) -> Task:
    if variant not in CD_LEFTOUT:
        raise InputError(f"context dependence: unknown variant {variant} (known: 1, 2, 3)")
    if contexts > len(features):
        raise InputError("context dependence: needs at least as many features as contexts")
    sizes = (contexts, *features)
    x = grid(sizes)
    # Feature f's response: -1 for its lower half of values, +1 for the upper half.
    response = np.stack([np.where(x[:, 1 + f] < features[f] // 2, -1.0, 1.0) for f in range(len(features))], 1)
    y = response[np.arange(len(x)), x[:, 0]]
    low, high = CD_LEFTOUT[variant]
    left_out = np.isin(x[:, 1], low) & np.isin(x[:, 2], high)
    other = response[np.arange(len(x)), (x[:, 0] + 1) % len(features)]
    params = {"variant": variant, "contexts": contexts, "features": list(features)}
    return Task("context-dependence", x, y, ~left_out, sizes, params, {"irrelevant_response": other}).check()


def transitive_equivalence(classes: tuple[int, ...] = (4, 4, 4), train_items: int = 2) -> Task:
    if any(train_items >= n for n in classes):
        raise InputError(f"--train-items {train_items}: each class needs more items than that")
    items = sum(classes)
    cls = np.repeat(np.arange(len(classes)), classes)
    first = np.concatenate([np.arange(n) < train_items for n in classes])
    x = grid((items, items))
    y = np.where(cls[x[:, 0]] == cls[x[:, 1]], 1.0, -1.0)
    train = first[x[:, 0]] | first[x[:, 1]]
    params = {"classes": list(classes), "train_items": train_items}
    return Task("transitive-equivalence", x, y, train, (items, items), params,
                {"same_class": (y > 0).astype(float)}).check()


TASKS = {
    "addition": "symbolic addition y = sum of per-component values (splits: comps, dispersed, biased)",
    "context-dependence": "a context component selects which feature decides the response (variants 1-3)",
    "transitive-equivalence": "same-class judgement on item pairs; test pairs need transitivity",
}


def build(name: str, **options) -> Task:
    """Build a task by name with only the options that apply to it."""
    if name == "addition":
        keys = ("split", "train_values", "instances", "seed", "values")
        return addition(**{k: v for k, v in options.items() if k in keys and v is not None})
    if name == "context-dependence":
        return context_dependence(**{k: v for k, v in options.items() if k in ("variant",) and v is not None})
    if name == "transitive-equivalence":
        keys = ("classes", "train_items")
        return transitive_equivalence(**{k: v for k, v in options.items() if k in keys and v is not None})
    raise InputError(f"unknown task '{name}' (known: {', '.join(TASKS)})")
