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


def fail_first_else_sleep(job):
    import time

    if job == 0:
        raise RuntimeError("job 0 failed")
    time.sleep(1.0)
    return job


def test_pool_stops_queued_jobs_after_a_failure():
    import time

    start = time.perf_counter()
    with pytest.raises(RuntimeError, match="job 0 failed"):
        map_jobs(fail_first_else_sleep, list(range(40)), workers=2)
    # Without cancelling, the 39 queued 1-second jobs would all run first (about 20 s on 2 workers).
    assert time.perf_counter() - start < 12
