"""Reading what `graph` needs: metacausal.fit records (one, or one per variable pair) and their metacausal.assign
records."""

from __future__ import annotations

from toolkit.core.errors import InputError
from toolkit.core.records import read_records
from toolkit.metacausal.records import ASSIGN, FIT, mechanism_type


def read_fits(path: str, min_slope: float) -> list[tuple[dict, list[dict]]]:
    """(fit, its assignments) per variable pair, in file order; mechanism types recomputed with `min_slope`.
    A file from `infer --pairs` holds one fit per pair, its fit and assign records carrying the `pair` field."""
    fits: dict[str | None, dict] = {}
    assignments: dict[str | None, list[dict]] = {}
    name = "<stdin>" if path == "-" else path
    for lineno, record in enumerate(read_records(path, types=[FIT, ASSIGN, "metacausal.sample"]), start=1):
        pair = record.get("pair")
        if record["type"] == FIT:
            if pair in fits:
                what = "a second metacausal.fit record" + (f" for pair {pair}" if pair else "")
                raise InputError(f"{name}:{lineno}: {what}; give one fit per file (or per pair)")
            for field in ("mechanisms", "k_hat"):
                if field not in record:
                    raise InputError(f"{name}:{lineno}: missing field '{field}'")
            fits[pair] = record
        elif record["type"] == ASSIGN:
            for field in ("state", "t", "index"):
                if field not in record:
                    raise InputError(f"{name}:{lineno}: missing field '{field}'")
            assignments.setdefault(pair, []).append(record)
    if not fits:
        raise InputError(f"{name}: no metacausal.fit record")
    out = []
    for pair, fit in fits.items():
        label = f" (pair {pair})" if pair else ""
        if not fit["mechanisms"]:
            raise InputError(f"{name}: the fit{label} has no mechanisms (K-hat = 0 under --select "
                             f"{fit.get('select')}); try --select bic")
        mine = assignments.get(pair, [])
        if not mine:
            raise InputError(f"{name}: the fit{label} has no metacausal.assign records (graph needs per-sample "
                             "states)")
        n_mech = len(fit["mechanisms"])
        for a in mine:
            if a["state"] is None or not 0 <= int(a["state"]) < n_mech:
                raise InputError(f"{name}: assignment {a['index']}{label}: state {a['state']!r} is not a mechanism "
                                 "of the fit")
        for m in fit["mechanisms"]:
            m["type"] = mechanism_type(m["slope"], 0 if m["direction"] == "x->y" else 1, min_slope)
        out.append((fit, mine))
    unmatched = set(assignments) - set(fits)
    if unmatched:
        raise InputError(f"{name}: metacausal.assign records for pair {sorted(map(str, unmatched))[0]} have no fit")
    return out


def read_fit(path: str, min_slope: float) -> tuple[dict, list[dict]]:
    """The one fit of a single-pair file and its assignments."""
    fits = read_fits(path, min_slope)
    if len(fits) > 1:
        name = "<stdin>" if path == "-" else path
        raise InputError(f"{name}: {len(fits)} fits (one per pair); expected one")
    return fits[0]
