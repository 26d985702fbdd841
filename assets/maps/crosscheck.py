"""Claim 3: ngspice (PySpice engine) against lcapy's exact DC solution on fresh generated circuits.

Usage: python assets/maps/crosscheck.py N SEED TIER  -> one JSON line with the counts and worst error, and
per card type (R, V, I, E, G, F, H, VI) the number of compared circuits holding one and how many of them agree.
"""

import json
import random
import sys
import warnings

from toolkit.maps.circuit import to_netlist
from toolkit.maps.crosscheck import lcapy_voltages
from toolkit.maps.generate import draw_circuit
from toolkit.maps.simulate import Simulator

n, seed, tier = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(f"crosscheck:{seed}")
warnings.simplefilter("ignore")
agree = compared = sim_failed = lcapy_singular = 0
worst = 0.0
by_card: dict[str, list[int]] = {}
with Simulator("pyspice") as sim:
    while compared + lcapy_singular < n:
        net = to_netlist(draw_circuit(tier, rng), hide_values=False)
        result = sim.run(net)
        if not result.ok:
            sim_failed += 1
            continue
        try:
            exact = lcapy_voltages(net)
        except ValueError:
            lcapy_singular += 1
            continue
        compared += 1
        # relative to each voltage, floored at 1e-6 of the circuit's largest one: a node at exactly 0 V reads
        # as ~1e-13 V in floating point, which is agreement, not a 1e-4 relative error
        floor = 1e-6 * max(max(abs(v) for v in exact.values()), 1e-9)
        err = max(abs(result.voltages[k] - v) / max(abs(v), floor) for k, v in exact.items())
        worst = max(worst, err)
        agree += err <= 1e-6
        for kind in {e.kind for e in net.elements}:
            counts = by_card.setdefault(kind, [0, 0])
            counts[0] += 1
            counts[1] += err <= 1e-6
print(json.dumps({"tier": tier, "seed": seed, "compared": compared, "agree_1e-6": agree, "worst_rel_err": worst,
                  "lcapy_singular": lcapy_singular, "ngspice_failed_redrawn": sim_failed,
                  "by_card": {k: {"compared": c, "agree_1e-6": a} for k, (c, a) in sorted(by_card.items())}}))
