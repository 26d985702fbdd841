"""Shared Sokoban fixtures: generated levels (seed-fixed) and small hand-written ones."""

from __future__ import annotations

import pytest

from toolkit.sokoban.levels import parse_text

ONE_PUSH = "; a\n######\n#@$.##\n#    #\n######\n\n"


@pytest.fixture(scope="session")
def gen_levels():
    from toolkit.sokoban.generate import generate

    return generate(60, (6, 6), [1, 2], 40, "val", 7)


@pytest.fixture
def one_push():
    return parse_text(ONE_PUSH, "one-push")[0]


@pytest.fixture(scope="session", autouse=True)
def _one_torch_thread():
    """Batch-64 steps of a 16-channel net are too small for threads; on a shared machine they cost 10x."""
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
