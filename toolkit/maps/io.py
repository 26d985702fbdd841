"""Reading netlists from .cir files or records, and turning results into records."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, read_records
from toolkit.maps.netlist import Netlist, parse_netlist

NETLIST_TYPES = ["maps.circuit", "maps.netlist", "maps.sim"]


def iter_netlists(source: str, *, skip_bad: bool = False, bad: BadLines | None = None,
                  allow_empty: bool = True) -> Iterator[tuple[str, str, Netlist | None, dict]]:
    """(id, netlist text, parsed netlist or None if unparseable, record) from a .cir file or JSONL records."""
    if source != "-" and Path(source).suffix.lower() in (".cir", ".sp", ".spice", ".net"):
        path = Path(source)
        if not path.is_file():
            raise InputError(f"{path}: no such file")
        text = path.read_text(encoding="utf-8", errors="replace")
        yield path.stem, text, parse_netlist(text, source=str(path), allow_empty=allow_empty), {}
        return
    name = "<stdin>" if source == "-" else source
    for lineno, rec in enumerate(read_records(source, types=NETLIST_TYPES, required=["id", "netlist"],
                                              skip_bad=skip_bad, bad=bad), start=1):
        text = rec["netlist"]
        if not isinstance(text, str):
            raise InputError(f"{name}:{lineno}: field 'netlist': expected a string")
        try:
            net = parse_netlist(text, source=f"{name}:{lineno}: netlist line", allow_empty=allow_empty)
        except InputError as exc:
            # a reader's unparsed output, or its failed simulation: the item abstains downstream
            if rec.get("parsed") is False or (rec.get("type") == "maps.sim" and rec.get("ok") is False):
                net = None
            elif skip_bad:
                (bad or BadLines()).add(str(exc))
                continue
            else:
                raise
        yield rec["id"], text, net, rec


def sim_record(cid: str, text: str, result, analysis: str) -> dict:
    data = asdict(result)
    if not data["traces"]:
        data.pop("traces")
    return {"type": "maps.sim", "schema": 1, "id": cid, "netlist": text, "analysis": analysis, **data}


def sim_from_record(rec: dict):
    from toolkit.maps.simulate import SimResult

    if rec.get("type") != "maps.sim":
        return None
    return SimResult(ok=bool(rec.get("ok")), engine=rec.get("engine", "?"), ms=rec.get("ms", 0.0),
                     error=rec.get("error"), voltages=rec.get("voltages", {}), currents=rec.get("currents", {}),
                     meters=rec.get("meters", {}))
