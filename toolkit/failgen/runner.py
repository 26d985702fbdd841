"""A generation run: jobs (task, seed, mode) over workers or Ray, resumable, with a summary.

DIR/episodes.jsonl and DIR/samples.jsonl are appended in job order as results arrive, so an
interrupted run keeps every finished episode and `--resume` skips them; the result is the same as an
uninterrupted run because jobs are deterministic and consumed in order.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.parallel import iter_jobs
from toolkit.core.records import RecordWriter, drop_partial_last_line, dumps, existing_keys, read_records
from toolkit.failgen.episode import episode_id, run_episode
from toolkit.failgen.modes import MODES, NOMINAL, Magnitudes
from toolkit.failgen.tasks import TASKS

GIF_EVERY = 24          # physics steps between GIF frames (10 frames per simulated second)
EPISODES = "episodes.jsonl"
SAMPLES = "samples.jsonl"


@dataclass(frozen=True)
class Options:
    image_size: int = 128
    images: bool = True
    gif: bool = False
    retries: int = 3
    translation: float | None = None
    rotation_deg: float | None = None
    slip_steps: int | None = None
    tilt_deg: float | None = None
    grid_rows: tuple[str, ...] | None = None  # None: the official order
    future: str = "white"

    def magnitudes(self) -> Magnitudes:
        return Magnitudes.from_options(self.translation, self.rotation_deg, self.slip_steps, self.tilt_deg)


@dataclass(frozen=True)
class Job:
    task: str
    seed: int
    mode: str
    out_dir: str
    dir_field: str
    options: Options


@dataclass
class JobResult:
    job: Job
    kept: bool
    episode: dict | None
    samples: list[dict]
    seconds: float
    attempts: int
    failed_subtask: str | None = None


def resolve_tasks(task: str) -> list[str]:
    if task == "all":
        return list(TASKS)
    names = [t.strip() for t in task.split(",") if t.strip()]
    for name in names:
        if name not in TASKS:
            raise InputError(f"--task {name}: unknown task; known tasks: all, {', '.join(TASKS)}")
    return names


def resolve_modes(modes: str, tasks: list[str]) -> dict[str, list[str]]:
    """Modes to run per task. 'all' = every mode that applies; an explicit list must apply."""
    if modes in ("all", ""):
        return {t: list(TASKS[t].modes) for t in tasks}
    wanted = [m.strip() for m in modes.split(",") if m.strip()]
    for m in wanted:
        if m != NOMINAL and m not in MODES:
            raise InputError(f"--modes {m}: unknown mode; known modes: {', '.join(MODES)}")
    out = {}
    for t in tasks:
        ok = [m for m in wanted if m == NOMINAL or m in TASKS[t].modes]
        bad = [m for m in wanted if m not in ok]
        if bad and len(tasks) == 1:
            raise InputError(f"--modes {bad[0]}: does not apply to task {t}; applicable: {', '.join(TASKS[t].modes)}")
        out[t] = [m for m in ok if m != NOMINAL]
    if not any(out.values()) and NOMINAL not in wanted:
        raise InputError(f"--modes {modes}: applies to none of the tasks {', '.join(tasks)}")
    return out


def plan_jobs(tasks: list[str], modes: dict[str, list[str]], seed: int, episodes: int, out_dir: Path,
              dir_field: str, options: Options, with_nominal: bool = True) -> list[Job]:
    jobs = []
    for t in tasks:
        for s in range(seed, seed + episodes):
            for m in ([NOMINAL] if with_nominal else []) + modes[t]:
                jobs.append(Job(t, s, m, str(out_dir), dir_field, options))
    return jobs


def run_job(job: Job) -> JobResult:
    """Generate one episode and write its files (runs in a worker process)."""
    opts = job.options
    ep = run_episode(job.task, job.seed, job.mode, image_size=opts.image_size, render=opts.images,
                     magnitudes=opts.magnitudes(), retries=opts.retries,
                     video_every=GIF_EVERY if (opts.gif and opts.images) else None, grid_rows=opts.grid_rows,
                     future=opts.future)
    try:
        if not ep.kept:
            return JobResult(job, False, None, [], ep.seconds, ep.attempts)
        from toolkit.failgen.output import episode_records

        record, samples = episode_records(ep, Path(job.out_dir), job.dir_field, images=opts.images, gif=opts.gif)
        failed = ep.results[ep.failed_subtask].description if ep.failed_subtask is not None else None
        return JobResult(job, True, record, samples, ep.seconds, ep.attempts, failed)
    finally:
        if ep.env is not None:
            ep.env.close()


def prepare_out(out_dir: Path, *, resume: bool, force: bool) -> None:
    """Refuse a non-empty directory unless resuming or forced; check that it can be written."""
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"--out {out_dir}: exists and is not a directory")
    if out_dir.exists() and any(out_dir.iterdir()) and not resume:
        if not force:
            raise InputError(f"--out {out_dir}: directory is not empty; use --resume to continue or --force "
                             "to overwrite")
        for name in (EPISODES, SAMPLES):
            (out_dir / name).unlink(missing_ok=True)
        for child in out_dir.iterdir():
            if child.is_dir() and is_episode_dir(child.name):
                shutil.rmtree(child)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise InputError(f"--out {out_dir}: cannot write ({exc.strerror})") from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise InputError(f"--out {out_dir}: cannot write (permission denied)")


def is_episode_dir(name: str) -> bool:
    """Whether a folder name is one of ours (<task>-s<seed>-<mode>); --force removes only those."""
    import re

    match = re.fullmatch(r"(.+)-s(\d+)-([a-z_]+)", name)
    return bool(match and match.group(1) in TASKS and match.group(3) in (*MODES, NOMINAL))


def resume_state(out_dir: Path) -> set[str]:
    """Episode ids already complete; samples of incomplete episodes are dropped so they are rewritten."""
    ep_path, sa_path = out_dir / EPISODES, out_dir / SAMPLES
    for path in (ep_path, sa_path):
        if path.exists():
            drop_partial_last_line(path)
    done = existing_keys(ep_path, lambda r: r["episode_id"])
    if sa_path.exists():
        keep = [r for r in read_records(sa_path, skip_bad=True) if r.get("episode_id") in done]
        sa_path.write_text("".join(dumps(r) + "\n" for r in keep), encoding="utf-8")
    return done


@dataclass
class Summary:
    results: list[JobResult] = field(default_factory=list)
    skipped_done: int = 0

    def add(self, r: JobResult) -> None:
        self.results.append(r)


def run(jobs: list[Job], out_dir: Path, *, resume: bool, workers: int = 1, ray_address: str | None = None,
        stream: Callable[[dict], None] | None = None) -> Summary:
    """Run the jobs, appending records to DIR/episodes.jsonl and DIR/samples.jsonl in job order."""
    done = resume_state(out_dir) if resume else set()
    todo = [j for j in jobs if episode_id(j.task, j.seed, j.mode) not in done]
    summary = Summary(skipped_done=len(jobs) - len(todo))
    with RecordWriter(out_dir / EPISODES, append=resume) as eps, RecordWriter(out_dir / SAMPLES, append=resume) as sas:
        for result in _iterate(todo, workers, ray_address):
            if result.kept:
                for s in result.samples:
                    sas.write(s)
                eps.write(result.episode)
                if stream is not None:
                    stream(result.episode)
                    for s in result.samples:
                        stream(s)
            summary.add(result)
    return summary


def _iterate(jobs: list[Job], workers: int, ray_address: str | None) -> Iterator[JobResult]:
    yield from iter_jobs(run_job, jobs, workers=workers, ray_address=ray_address, description="episodes")
