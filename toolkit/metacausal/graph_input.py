"""Reading what `graph` needs: one metacausal.fit record and its metacausal.assign records."""

from __future__ import annotations

from toolkit.core.errors import InputError
from toolkit.core.records import read_records
from toolkit.metacausal.records import ASSIGN, FIT, mechanism_type


def read_fit(path: str, min_slope: float) -> tuple[dict, list[dict]]:
    """The fit (mechanism types recomputed with `min_slope`) and its assignments; errors name file and line."""
    fit, assignments = None, []
    name = "<stdin>" if path == "-" else path
    for lineno, record in enumerate(read_records(path, types=[FIT, ASSIGN, "metacausal.sample"]), start=1):
        if record["type"] == FIT:
            if fit is not None:
                raise InputError(f"{name}:{lineno}: a second metacausal.fit record; give one fit per file")
            for field in ("mechanisms", "k_hat"):
                if field not in record:
                    raise InputError(f"{name}:{lineno}: missing field '{field}'")
            fit = record
        elif record["type"] == ASSIGN:
            for field in ("state", "t", "index"):
                if field not in record:
                    raise InputError(f"{name}:{lineno}: missing field '{field}'")
            assignments.append(record)
    if fit is None:
        raise InputError(f"{name}: no metacausal.fit record")
    if not fit["mechanisms"]:
        raise InputError(f"{name}: the fit has no mechanisms (K-hat = 0 under --select {fit.get('select')}); "
                         "try --select bic")
    if not assignments:
        raise InputError(f"{name}: the fit has no metacausal.assign records (graph needs per-sample states)")
    n_mech = len(fit["mechanisms"])
    for a in assignments:
        if a["state"] is None or not 0 <= int(a["state"]) < n_mech:
            raise InputError(f"{name}: assignment {a['index']}: state {a['state']!r} is not a mechanism of the fit")
    for m in fit["mechanisms"]:
        m["type"] = mechanism_type(m["slope"], 0 if m["direction"] == "x->y" else 1, min_slope)
    return fit, assignments
