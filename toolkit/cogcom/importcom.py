"""Read the official CoMDataset (JSONL or a JSON list; each record with `final_com`) into `cogcom.tree` records.

`final_com` maps `plevel,pindex--level,index` to a step (func, param, variables, onbox, return, desc, found).
A parent index `*` means every node of that level (the released trees use it after a grounding's fan-out).
"""

from __future__ import annotations

from pathlib import Path

from toolkit.cogcom.synth import find_paths
from toolkit.core.errors import InputError
from toolkit.core.records import json_items


def expand_wildcards(final_com: dict) -> dict[str, dict]:
    """Keys with a `*` parent index become one key per existing node of the parent level."""
    ids_by_level: dict[str, list[str]] = {}
    for key in final_com:
        child = key.split("--")[1]
        ids_by_level.setdefault(child.split(",")[0], []).append(child)
    nodes = {}
    for key, data in final_com.items():
        parent, child = key.split("--")
        plevel, pindex = parent.split(",")
        if pindex in ("*", "~"):
            for pid in ids_by_level.get(plevel, []) or [f"{plevel},0"]:
                nodes[f"{pid}--{child}"] = data
        else:
            nodes[key] = data
    return nodes


def import_com(path: Path) -> list[dict]:
    out = []
    for where, line, rec in json_items(path):
        if isinstance(rec, InputError):
            raise rec
        if not isinstance(rec, dict):
            raise InputError(f"{where}: expected a JSON object")
        final = rec.get("final_com")
        if not isinstance(final, dict) or not final:
            raise InputError(f"{where}: field 'final_com' is missing or empty")
        for field in ("question", "answer"):
            if field not in rec:
                raise InputError(f"{where}: field '{field}' is missing")
        try:
            nodes = expand_wildcards(final)
            for key, data in nodes.items():
                if "--" not in key or not isinstance(data, dict):
                    raise ValueError(key)
            paths = find_paths({k: {**v, "found": bool(v.get("found"))} for k, v in nodes.items()})
        except (ValueError, IndexError, AttributeError):
            raise InputError(f"{where}: field 'final_com' has a key that is not 'plevel,pindex--level,index'") from None
        out.append({"id": str(rec.get("pid", rec.get("id", line))), "question": rec["question"],
                    "answer": str(rec["answer"]), "image": rec.get("image_path") or rec.get("img_path"),
                    "nodes": nodes, "paths": paths, "yield": bool(paths), "source": "CoMDataset"})
    return out
