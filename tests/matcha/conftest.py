"""A tiny homophily-shift pair (n=1000, p=200) and one GPRGNN trained on its source, shared by the matcha tests."""

from __future__ import annotations

import pytest

TINY = {"nodes": 1000, "features": 200, "mu": 0.1}


@pytest.fixture(scope="session")
def tiny_pair():
    from toolkit.matcha.bench import make_pair

    return make_pair("homo2hetero", 0, **TINY)


@pytest.fixture(scope="session")
def tiny_model(tiny_pair):
    import torch

    from toolkit.matcha.gprgnn import source_memory, train_gprgnn

    torch.set_num_threads(1)
    source, _ = tiny_pair
    model, info = train_gprgnn(source, epochs=100, seed=0)
    return model, info, source_memory(model, source)
