"""The interactive API another system drives: run sub-tasks one at a time, inject, detect, retry."""

import numpy as np
import pytest

from toolkit.core.errors import InputError
from toolkit.failgen import TaskEnv, question
from toolkit.failgen.grid import GAP, ROWS, is_white


def test_failed_pick_is_retried_from_current_state_and_task_recovers():
    with TaskEnv("stack", seed=1, image_size=24) as env:
        assert len(env.subtasks) == 2 and "cube" in env.subtasks[0]
        grasp = env.perturbation("grasp")
        assert grasp.subtask == 0
        first = env.run_subtask(0, grasp)
        assert first.success is False and first.perturbation["mode"] == "grasp"
        again = env.retry_subtask(0)
        assert again.success is True and again.attempt == 1
        assert env.run_subtask(1).success is True
        assert env.success() is True
        # grid after a retry: every executed keyframe, nothing white left
        img = np.asarray(env.grid(1))
        cols = len(env.columns)
        assert cols == 1 + 3 + 3 + 3
        assert img.shape == (3 * 24 + 4 * GAP, cols * 24 + (cols + 1) * GAP, 3)
        # without the failed attempt: the shape and start of a clean run's grid
        latest = np.asarray(env.grid(1, latest_only=True))
        assert latest.shape == (3 * 24 + 4 * GAP, 7 * 24 + 8 * GAP, 3)
        for k, col in enumerate([0, 4, 5, 6, 7, 8, 9]):  # start, the retried pick, the stack
            x, y = GAP + k * (24 + GAP), GAP + ROWS.index("wrist") * (24 + GAP)
            assert (latest[y + 12:y + 24, x + 2:x + 22] == env.columns[col].images["wrist"][12:24, 2:22]).all()
        pick = np.asarray(env.grid(0, latest_only=True))
        assert pick.shape == latest.shape and is_white(pick[GAP:GAP + 24, GAP + 4 * 26:GAP + 4 * 26 + 24])
        assert "pick up" in question(env.subtasks[0]) or env.subtasks[0] in question(env.subtasks[0])


def test_live_grid_has_white_cells_for_subtasks_not_run():
    with TaskEnv("stack", seed=0, image_size=16) as env:
        env.run_subtask(0)
        img = np.asarray(env.grid(0))
        total = env.n_keyframes
        assert img.shape[1] == total * 16 + (total + 1) * GAP
        last = img[GAP:GAP + 16, GAP + (total - 1) * 18: GAP + (total - 1) * 18 + 16]
        assert is_white(last)


def test_slip_then_retry_pick_and_place():
    with TaskEnv("stack", seed=2, render=False) as env:
        assert env.run_subtask(0).success
        slip = env.perturbation("slip")
        assert env.run_subtask(1, slip).success is False
        assert env.success() is False
        assert env.retry_subtask(0).success        # the cube is picked where it fell
        assert env.retry_subtask(1).success
        assert env.success()


def test_bad_mode_and_task_are_input_errors():
    with pytest.raises(InputError, match="known tasks"):
        TaskEnv("juggle", 0, render=False)
    with TaskEnv("push", 0, render=False) as env:
        with pytest.raises(InputError, match="does not apply"):
            env.perturbation("grasp")
        with pytest.raises(InputError, match="known modes"):
            env.perturbation("sneeze")


def test_failgen_runs_without_torch():
    import subprocess
    import sys

    code = ("import sys; sys.modules['torch'] = None\n"       # any torch import would now raise ImportError
            "import cli.failgen\n"
            "from toolkit.failgen import run_episode\n"
            "ep = run_episode('push', 0, 'wrong_object', image_size=16)\n"
            "assert ep.kept and ep.env.grid(0).size[0] > 0\n"
            "print('ok')\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr
