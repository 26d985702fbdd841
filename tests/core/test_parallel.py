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
    time.sleep(5.0)
    return job


def test_pool_stops_queued_jobs_after_a_failure(tmp_path):
    """The error shows and the process exits without first running every queued job."""
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT

    script = tmp_path / "fail.py"
    script.write_text(
        "from tests.core.test_parallel import fail_first_else_sleep\n"
        "from toolkit.core.parallel import map_jobs\n"
        "if __name__ == '__main__':\n"
        "    try:\n"
        "        map_jobs(fail_first_else_sleep, list(range(40)), workers=2)\n"
        "    except RuntimeError as exc:\n"
        "        print(exc)\n")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert out.stdout.strip() == "job 0 failed", out.stderr
    # Without stopping the pool, the 39 queued 5-second jobs would all run first (about 100 s on 2 workers).
    assert time.perf_counter() - start < 12


def test_unreachable_ray_address_fails_at_once():
    import time

    from toolkit.core.errors import RuntimeFailure

    pytest.importorskip("ray")
    start = time.perf_counter()
    with pytest.raises(RuntimeFailure, match=r"--ray 127.0.0.1:9: no Ray cluster answers there"):
        map_jobs(square_with_seed, [1, 2], ray_address="127.0.0.1:9")
    assert time.perf_counter() - start < 10
