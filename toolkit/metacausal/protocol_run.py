"""Running the benchmark as an appendable JSONL file: a settings header, one record per problem as it finishes,
then a confusion record per selection rule. --resume keeps the problems already there and runs the rest (problems
of an older file on which the old and the official `ad` rule disagree are run again)."""

from __future__ import annotations

import os
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.parallel import iter_jobs
from toolkit.core.records import RecordWriter, drop_partial_last_line, make_record, read_records
from toolkit.metacausal.protocol import PROBLEM_SCHEMA, ProtocolSettings, confusion, run_problem, upgrade_problem

HEADER = "metacausal.protocol"
PROBLEM = "metacausal.problem"
CONFUSION = "metacausal.confusion"


def previous_problems(out: Path, settings: ProtocolSettings) -> list[dict]:
    """Problem records of an earlier run with the same settings; rewrites `out` without its old summaries."""
    if not out.exists() or out.stat().st_size == 0:
        return []
    drop_partial_last_line(out)
    header, problems = None, []
    for record in read_records(out, skip_bad=True):
        if record.get("type") == HEADER and header is None:
            header = record
        elif record.get("type") == PROBLEM:
            upgraded = upgrade_problem(record)  # None: written under the old `ad` rule and must be re-run
            if upgraded is not None:
                problems.append(upgraded)
    if header is None:
        raise InputError(f"{out}: no {HEADER} header record; cannot resume it")
    # files written before --init existed used the benchmark's random pairs
    if {"init": "pairs", **(header.get("settings") or {})} != settings.as_dict():
        raise InputError(f"{out}:1: settings {header.get('settings')} differ from this run's "
                         f"{settings.as_dict()}; use another --out or the same options")
    tmp = out.with_suffix(out.suffix + ".resume")
    with RecordWriter(tmp) as writer:
        writer.write(header)
        writer.write_all(problems)
    os.replace(tmp, out)
    return problems


def run_protocol(ks: list[int], problems: int, settings: ProtocolSettings, methods: list[str], out: Path | None,
                 resume: bool, workers: int = 1, ray_address: str | None = None) -> list[dict]:
    """Write the header, the missing problems and the confusion records; returns the confusion records."""
    done = previous_problems(out, settings) if (resume and out is not None) else []
    have = {(p["k"], p["problem"]) for p in done}
    # problem-major order: an interrupted run holds a few problems of every K rather than all of the first K
    jobs = [(k, p, settings) for p in range(problems) for k in ks if (k, p) not in have]
    wanted = {(k, p) for k in ks for p in range(problems)}
    results = [p for p in done if (p["k"], p["problem"]) in wanted]
    with RecordWriter(out, append=bool(done)) as writer:
        if not done:
            writer.write(make_record(HEADER, 1, settings=settings.as_dict()))
        for fields in iter_jobs(run_problem, jobs, workers=workers, ray_address=ray_address,
                                description="problems"):
            record = make_record(PROBLEM, PROBLEM_SCHEMA, **fields)
            writer.write(record)
            results.append(record)
        summaries = [make_record(CONFUSION, 1, **confusion(results, m, settings.kmax, ks), settings=settings.as_dict())
                     for m in methods]
        writer.write_all(summaries)
    return summaries
