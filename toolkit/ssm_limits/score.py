"""Join responses with their problems, score each, and add the curves (labelled demo for a stand-in)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from toolkit.core import provenance
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, read_records
from toolkit.ssm_limits.curves import curve_rows
from toolkit.ssm_limits.errors import score_item
from toolkit.ssm_limits.records import read_problems


def score_all(responses: str, problems: Path, skip_bad: bool, bad: BadLines) -> Iterator[dict]:
    by_id = {p["id"]: p for p in read_problems(str(problems), skip_bad=skip_bad, bad=bad)}
    name = "<stdin>" if responses == "-" else responses
    scores = []
    for lineno, rec in enumerate(read_records(responses, types=["ssm.response"], required=("id", "mode"),
                                              skip_bad=skip_bad, bad=bad), start=1):
        problem = by_id.get(rec["id"])
        if problem is None:
            message = f"{name}:{lineno}: field 'id': '{rec['id']}' is not in {problems}"
            if not skip_bad:
                raise InputError(message)
            bad.add(message)
            continue
        s = score_item(problem, rec)
        scores.append(s)
        yield s
    demo = provenance.stand_in_source() is not None
    extra = {"demo": True, "note": provenance.NOTICE} if demo else {"demo": False}
    yield from curve_rows(scores, extra)
