"""`ssm.problem` records in and out: a line missing a field or naming an unknown task is an input error."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, make_record, read_records
from toolkit.ssm_limits.tasks import TASKS

PROBLEM_FIELDS = ("id", "task", "params", "data", "answer", "trace", "prompt_direct", "prompt_cot")


def problem_record(problem: dict) -> dict:
    return make_record("ssm.problem", **problem)


def read_problems(path: str, *, skip_bad: bool = False, bad: BadLines | None = None) -> Iterator[dict]:
    name = "<stdin>" if str(path) == "-" else str(path)
    for lineno, rec in enumerate(read_records(path, types=["ssm.problem"], required=PROBLEM_FIELDS,
                                              skip_bad=skip_bad, bad=bad), start=1):
        if rec["task"] not in TASKS:
            message = f"{name}:{lineno}: field 'task': unknown task '{rec['task']}'"
            if not skip_bad:
                raise InputError(message)
            if bad is not None:
                bad.add(message)
            continue
        yield rec
