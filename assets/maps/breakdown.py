"""Error breakdown of the learned PPM's grid texts against gold circuits: grid size, topology (every edge's
kind, polarity and meter; values ignored), element values, by number of elements.

Usage: PYTHONPATH=. python assets/maps/breakdown.py NETLISTS.jsonl CIRCUITS.jsonl
(NETLISTS: `reason maps perceive --model DIR` output of a learned PPM, which keeps each `grid_text`).
"""

import json
import sys
from collections import defaultdict

from toolkit.maps.grid_text import grid_text


def lines(text: str) -> tuple[str, dict]:
    parts = [p.split() for p in text.split(";") if p.strip()]
    head = " ".join(parts[0]) if parts else ""
    return head, {tuple(p[:3]): p[3:] for p in parts[1:] if len(p) >= 4}


def shape(words: list[str]) -> tuple:
    """An edge without its value: kind, sign, meter."""
    return tuple(w for w in words if w in ("+", "-", "mU", "mI") or w == words[0])


def main(pred_path: str, gold_path: str) -> None:
    gold = {}
    for line in open(gold_path, encoding="utf-8"):
        r = json.loads(line)
        gold[r["id"]] = (grid_text(r["layout"], r["components"]), r)
    n = grid = topo = 0
    values = [0, 0]
    edges = [0, 0]
    by_size = defaultdict(lambda: [0, 0, 0])  # n, topology right, all right
    for line in open(pred_path, encoding="utf-8"):
        p = json.loads(line)
        gtext, rec = gold[p["id"]]
        ghead, gl = lines(gtext)
        phead, pl = lines(p.get("grid_text", ""))
        n += 1
        grid += ghead == phead
        t_ok = ghead == phead and all(shape(pl.get(k, ["?"])) == shape(v) for k, v in gl.items())
        topo += t_ok
        all_ok = t_ok
        for k, v in gl.items():
            pv = pl.get(k, ["?"])
            edges[0] += shape(pv) == shape(v)
            edges[1] += 1
            if v[0] not in ("wire", "open") and pv[0] == v[0]:
                ok = [w for w in pv if w not in shape(pv)] == [w for w in v if w not in shape(v)]
                values[0] += ok
                values[1] += 1
                all_ok = all_ok and ok
        size = sum(1 for c in rec["components"] if c["kind"] not in ("wire", "open"))
        by_size[size][0] += 1
        by_size[size][1] += t_ok
        by_size[size][2] += all_ok
    out = {"n": n, "grid_size_right": round(grid / n, 4), "topology_right": round(topo / n, 4),
           "edges_right_values_ignored": round(edges[0] / max(1, edges[1]), 4), "edges": edges[1],
           "element_values_right": round(values[0] / max(1, values[1]), 4), "elements_kind_right": values[1],
           "by_elements": {k: {"n": v[0], "topology_right": round(v[1] / v[0], 3), "all_right": round(v[2] / v[0], 3)}
                           for k, v in sorted(by_size.items())}}
    print(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:3])
