"""Run a list of Jobs (in-process, a process pool or Ray), appending records as each job finishes."""

from __future__ import annotations

from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.parallel import iter_jobs
from toolkit.core.records import RecordWriter, read_records
from toolkit.gama.engine import RESULT, Job, play, result_key


def previous_results(out: Path | None) -> list[dict]:
    """`gama.result` records already in --out (for --resume); malformed lines are skipped."""
    if out is None or not Path(out).exists():
        return []
    return [r for r in read_records(out, skip_bad=True) if r.get("type") == RESULT]


def run_jobs(jobs: list[Job], writer: RecordWriter, *, workers: int = 1, ray_address: str | None = None,
             done: list[dict] | None = None, description: str = "games") -> list[dict]:
    """Play the jobs not already in `done`; write every record; return all result records (old + new)."""
    done = list(done or [])
    seen = {result_key(r) for r in done}
    todo = [j for j in jobs if j.key not in seen]
    if any(j.llm.record for j in todo) and (workers > 1 or ray_address):
        raise InputError("--record writes one replay file: use it with --workers 1 and without --ray")
    results = done
    for records in iter_jobs(play, todo, workers=workers, ray_address=ray_address, description=description):
        for record in records:
            writer.write(record)
        results.append(records[-1])
    return results
