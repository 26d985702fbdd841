import pytest

from toolkit.core.parallel import map_jobs


def square_with_seed(job):
    import numpy as np

    rng = np.random.default_rng(job)
    return job, float(rng.random())


def test_same_ordered_results_across_backends():
    jobs = list(range(7))
    one = map_jobs(square_with_seed, jobs, workers=1)
    two = map_jobs(square_with_seed, jobs, workers=2)
    assert one == two
    assert [j for j, _ in one] == jobs


@pytest.mark.slow
def test_ray_path_matches():
    pytest.importorskip("ray")
    import ray

    jobs = list(range(5))
    try:
        got = map_jobs(square_with_seed, jobs, ray_address="local")
    finally:
        ray.shutdown()
    assert got == map_jobs(square_with_seed, jobs)
