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
    """Job 0 fails; every other job leaves a marker file when it starts, then takes 2 s."""
    import os
    import time
    from pathlib import Path

    if job == 0:
        raise RuntimeError("job 0 failed")
    (Path(os.environ["MARKERS"]) / f"{job}.started").touch()
    time.sleep(2.0)
    return job


def test_pool_stops_queued_jobs_after_a_failure(tmp_path):
    """The error shows and the process exits without first running every queued job."""
    import subprocess
    import sys

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
    markers = tmp_path / "markers"
    markers.mkdir()
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MARKERS": str(markers)},
                         timeout=300)
    assert out.stdout.strip() == "job 0 failed", out.stderr
    # Without stopping the pool, all 39 queued jobs would start; only those already running may.
    assert len(list(markers.iterdir())) <= 3


def test_unreachable_ray_address_fails_at_once():
    import time

    from toolkit.core.errors import RuntimeFailure

    pytest.importorskip("ray")
    start = time.perf_counter()
    with pytest.raises(RuntimeFailure, match=r"--ray 127.0.0.1:9: no Ray cluster answers there"):
        map_jobs(square_with_seed, [1, 2], ray_address="127.0.0.1:9")
    # Ray's own connection retries take minutes; the check must answer well before that.
    assert time.perf_counter() - start < 30
