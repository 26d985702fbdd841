"""The numba env follows the plain-rules reference move for move; push rules, rewards, truncation."""

from __future__ import annotations

import numpy as np

from toolkit.sokoban.env import BatchEnv, observe_batch, step_one
from toolkit.sokoban.levels import parse_text, stack
from toolkit.sokoban.reference import PySokoban


def test_numba_env_matches_reference_on_20k_random_actions(gen_levels):
    levels = [lv for lv, _, _ in gen_levels]
    levels = (levels * 4)[:200]
    walls, targets, boxes, players = stack(levels)
    rng = np.random.default_rng(0)
    obs = np.zeros((1, 7, 6, 6), np.float32)
    for i, lv in enumerate(levels):
        ref = PySokoban(lv, cap=10**9)
        b, p = boxes[i].copy(), players[i].copy()
        for a in rng.integers(0, 5, 100):
            reward, solved, _ = step_one(walls[i], targets[i], b, p, int(a))
            r_ref, s_ref, _ = ref.step(int(a))
            assert abs(reward - r_ref) < 1e-9 and solved == s_ref
            assert tuple(p) == ref.player
            assert {tuple(x) for x in np.argwhere(b)} == ref.boxes
            if solved:
                break
        observe_batch(walls[i:i + 1], targets[i:i + 1], b[None], p[None], obs)
        assert np.array_equal(obs[0], np.array(ref.observation(), np.float32))


ROOM = "; r\n#######\n#     #\n# $$. #\n#@  . #\n#######\n"


def _env(text=ROOM, cap=120):
    return BatchEnv(parse_text(text, "t"), 1, sample=False, cap=cap)


def test_push_rules_and_rewards():
    env = _env()
    assert env.players[0].tolist() == [2, 0]
    r, term, trunc = env.step(np.array([1]))  # up: free floor
    assert env.players[0].tolist() == [1, 0] and abs(r[0] + 0.01) < 1e-6
    env.step(np.array([4]))  # right: two boxes in a row cannot be pushed
    assert env.players[0].tolist() == [1, 0] and env.boxes[0, 1, 1] and env.boxes[0, 1, 2]
    for a in (2, 4, 4, 1):  # down, right, right, then up pushes the box at (1,2) to (0,2)
        env.step(np.array([a]))
    assert env.boxes[0, 0, 2] and not env.boxes[0, 1, 2] and env.players[0].tolist() == [1, 2]
    env.step(np.array([3]))  # left pushes (1,1) to (1,0)
    assert env.boxes[0, 1, 0] and env.players[0].tolist() == [1, 1]
    env.step(np.array([3]))  # a box against the border does not move
    assert env.boxes[0, 1, 0] and env.players[0].tolist() == [1, 1]


def test_box_on_target_off_target_and_solve_reward():
    env = _env("; s\n######\n#@$. #\n######\n")
    r, term, _ = env.step(np.array([4]), auto_reset=False)
    assert abs(r[0] - (10 + 1 - 0.01)) < 1e-5 and term[0]
    env = _env("; s\n#######\n#@*  .#\n# $   #\n#######\n")  # a box off a target, then onto the other
    r, term, _ = env.step(np.array([4]), auto_reset=False)
    assert abs(r[0] - (-1 - 0.01)) < 1e-5 and not term[0]
    env.step(np.array([4]), auto_reset=False)
    r, term, _ = env.step(np.array([4]), auto_reset=False)
    assert abs(r[0] - (1 - 0.01)) < 1e-5 and not term[0]  # the other box is still off target


def test_truncation_at_cap_and_reset():
    env = _env(cap=5)
    for _ in range(4):
        _, term, trunc = env.step(np.array([0]))
        assert not trunc[0]
    _, term, trunc = env.step(np.array([0]))
    assert trunc[0] and not term[0] and env.steps[0] == 0  # auto-reset


def test_gym_wrapper_passes_check_env(gen_levels):
    from gymnasium.utils.env_checker import check_env

    from toolkit.sokoban.gym_env import SokobanEnv

    env = SokobanEnv([lv for lv, _, _ in gen_levels[:5]])
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (7, 6, 6) and obs.sum() == 36
