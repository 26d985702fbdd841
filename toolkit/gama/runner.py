"""Run a list of Jobs (in-process, a process pool or Ray), appending records as each job finishes."""

from __future__ import annotations

from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.parallel import iter_jobs
from toolkit.core.records import RecordWriter, dumps, read_records
from toolkit.gama.engine import RESULT, ROUND, Job, play, result_key


def previous_results(out: Path | None) -> list[dict]:
    """Prepare --out for --resume and return the `gama.result` records it already holds.

    Rounds of a run that never got its result (an interrupted run) and old summaries are dropped,
    as are malformed lines; the run is played again and the summary recomputed.
    """
    if out is None or not Path(out).exists():
        return []
    kept = list(read_records(out, skip_bad=True))
    results = [r for r in kept if r.get("type") == RESULT]
    finished = {result_key(r) for r in results}
    kept = [r for r in kept if r.get("type") == RESULT or (r.get("type") == ROUND and result_key(r) in finished)]
    tmp = Path(out).with_suffix(Path(out).suffix + ".resume")
    tmp.write_text("".join(dumps(r) + "\n" for r in kept), encoding="utf-8")
    tmp.replace(out)
    return results


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
