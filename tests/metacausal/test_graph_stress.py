import numpy as np
import pytest

from toolkit.metacausal import stress
from toolkit.metacausal.graph import build, state_of_mechanism, transitions


def test_transition_counts_and_probabilities():
    counts, env = transitions([0, 0, 1, 1, 0, 2], 3, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    assert counts.tolist() == [[1, 1, 1], [1, 1, 0], [0, 0, 0]]
    mechanisms = [{"id": i, "type": {"direction": d, "sign": "+"}} for i, d in enumerate(["x->y", "y->x", "none"])]
    assignments = [{"index": i, "t": float(i), "state": s, "environment": float(i)}
                   for i, s in enumerate([0, 0, 1, 1, 0, 2])]
    g = build(mechanisms, assignments, ("direction", "sign"))
    np.testing.assert_allclose(g.probabilities, [[1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0], [0, 0, 0]])
    assert env == {(0, 1): 2.0, (1, 0): 4.0, (0, 2): 5.0}


def test_same_type_mechanisms_merge():
    mechs = [{"id": 0, "type": {"direction": "x->y", "sign": "+"}},
             {"id": 1, "type": {"direction": "y->x", "sign": "+"}},
             {"id": 2, "type": {"direction": "x->y", "sign": "-"}}]
    states, mapping = state_of_mechanism(mechs, ("direction",))
    assert mapping == [0, 1, 0] and states[0]["mechanisms"] == [0, 2]
    states, mapping = state_of_mechanism(mechs, ("direction", "sign"))
    assert mapping == [0, 1, 2]


def test_stress_fixed_points_grid_and_boundary():
    points = stress.fixed_points()
    assert [round(p.u, 4) for p in points] == [-0.0045, 0.5, 1.0045]
    assert [p.stable for p in points] == [True, False, True]
    assert points[1].slope == pytest.approx(3.79, abs=0.01)
    _, _, states = stress.region_grid(0.1, 0.2)
    assert states.size == 66 and int((states > 0).sum()) == 45
    assert stress.boundary_level() == pytest.approx(0.526, abs=1e-3)


def test_learned_stress_states_match_analytic():
    runs = [stress.simulate(1000, 0.01, np.random.default_rng(s)) for s in range(5)]
    learned = stress.learned_states(runs)
    assert learned["agreement"] >= 0.95
    assert learned["tipping"] == pytest.approx(0.5, abs=0.03)


def test_smoothing_removes_one_step_flips():
    from toolkit.metacausal.graph import smooth_sequence

    assert smooth_sequence([0, 0, 1, 0, 0, 2, 2, 2], 3, 3) == [0, 0, 0, 0, 0, 2, 2, 2]
    assert smooth_sequence([0, 1, 0, 1], 1, 2) == [0, 1, 0, 1]
    counts, _ = transitions(smooth_sequence([0, 0, 1, 0, 0, 2, 2, 2], 3, 3), 3)
    assert counts[0, 1] == 0 and counts[0, 2] == 1
