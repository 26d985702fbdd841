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
