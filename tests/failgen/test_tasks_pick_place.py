"""Tasks pick-place and push: nominal demos succeed, every applicable failure mode makes the task fail."""

import pytest

from tests.failgen.labels import NOMINAL_SEEDS, check_mode, check_nominal, modes_of

TASKS = ("pick-place", "push")


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("seed", NOMINAL_SEEDS)
def test_nominal_succeeds(task, seed):
    check_nominal(task, seed)


@pytest.mark.parametrize("task,mode", [(t, m) for t in TASKS for m in modes_of(t)])
def test_mode_fails_and_is_labelled(task, mode, tmp_path):
    check_mode(task, mode, tmp_path)
