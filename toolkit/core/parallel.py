"""Embarrassingly parallel work: `map_jobs(fn, jobs, workers=N, ray_address=None)`.

Results come back in job order whatever the backend, so the same seed gives
byte-identical output with 1 worker, N processes or a Ray cluster. `iter_jobs` yields
them in order as they finish, so long runs can append results as they go.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from toolkit.core.console import progress_bar
from toolkit.core.errors import InputError

J = TypeVar("J")
R = TypeVar("R")


def iter_jobs(fn: Callable[[J], R], jobs: Sequence[J], *, workers: int = 1, ray_address: str | None = None,
              description: str = "jobs") -> Iterator[R]:
    """Yield fn(job) for each job, in job order. `fn` must be picklable (a module-level function)."""
    if workers < 1:
        raise InputError(f"--workers {workers}: must be >= 1")
    jobs = list(jobs)
    with progress_bar(len(jobs), description) as advance:
        if ray_address:
            source = _ray_iter(fn, jobs, ray_address)
        elif workers == 1 or len(jobs) <= 1:
            source = (fn(job) for job in jobs)
        else:
            source = _pool_iter(fn, jobs, workers)
        for result in source:
            advance()
            yield result


def map_jobs(fn: Callable[[J], R], jobs: Sequence[J], *, workers: int = 1, ray_address: str | None = None,
             description: str = "jobs") -> list[R]:
    return list(iter_jobs(fn, jobs, workers=workers, ray_address=ray_address, description=description))


def _call(fn, job) -> tuple[Any, str | None]:
    """Run one job in a worker; report whether its answers came from a stand-in, so the parent labels them."""
    from toolkit.core.provenance import stand_in_source

    return fn(job), stand_in_source()


def _collect(pair: tuple[Any, str | None]) -> Any:
    result, source = pair
    if source:
        from toolkit.core.provenance import mark_stand_in

        mark_stand_in(source)
    return result


def _pool_iter(fn, jobs, workers) -> Iterator[Any]:
    # spawn: safe with torch, numba and pybullet, which do not survive fork reliably.
    ctx = mp.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx)
    try:
        futures = [pool.submit(_call, fn, job) for job in jobs]
        for future in futures:
            yield _collect(future.result())
    except BaseException:
        # A failed job, Ctrl-C or a consumer that stopped: drop the queued jobs and stop the running ones (their
        # results would be thrown away). Not a `with` block: its shutdown() would reset cancel_futures.
        workers_left = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in workers_left:
            proc.terminate()
        for proc in workers_left:
            proc.join(timeout=10)
        raise
    pool.shutdown(wait=True)


def _check_reachable(address: str) -> None:
    """Fail at once on a HOST:PORT where nothing listens (ray.init would wait for minutes)."""
    import socket

    from toolkit.core.errors import RuntimeFailure

    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    if not sep or not port.isdigit():
        return  # 'local', 'auto' and the like are ray's to resolve
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as exc:
        raise RuntimeFailure(f"--ray {address}: no Ray cluster answers there ({exc.strerror or exc})") from None


def start_ray(ray, address: str, tries: int = 2) -> None:
    """ray.init, trying a local start twice: Ray waits a fixed 30 s for its own processes to register, which a
    loaded machine can miss once. A start that fails every time is a one-line error."""
    from toolkit.core.errors import RuntimeFailure

    kwargs = {"num_cpus": 2} if address == "local" else {"address": address}
    last: BaseException | None = None
    for _ in range(tries if address == "local" else 1):
        try:
            ray.init(include_dashboard=False, log_to_driver=False, **kwargs)
            return
        except Exception as exc:  # Ray reports a start-up timeout as a plain Exception
            last = exc
            ray.shutdown()
    first_line = (str(last).strip().splitlines() or [type(last).__name__])[0]
    raise RuntimeFailure(f"--ray {address}: Ray did not start ({first_line})") from None


def _ray_iter(fn, jobs, address) -> Iterator[Any]:
    from toolkit.core.extras import require

    require("ray")
    _check_reachable(address)
    import ray

    if not ray.is_initialized():
        start_ray(ray, address)
    remote = ray.remote(_call)
    refs = [remote.remote(fn, job) for job in jobs]
    for ref in refs:
        yield _collect(ray.get(ref))
