"""MAPS simulation throughput: PySpice's shared ngspice (one worker process) against `ngspice -b` started per
circuit, on 200 generated circuits (goal: at least 5x), and against lcapy's exact solve on 20.

Prints simulations/s and the ratios; writes them to bench-results/maps.json.
"""

import json
import random
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from toolkit.maps.circuit import to_netlist  # noqa: E402
from toolkit.maps.crosscheck import lcapy_voltages  # noqa: E402
from toolkit.maps.generate import draw_circuit  # noqa: E402
from toolkit.maps.simulate import Simulator  # noqa: E402

GOAL = 5.0


def rate(fn, nets) -> float:
    start = time.perf_counter()
    for net in nets:
        fn(net)
    return len(nets) / (time.perf_counter() - start)


def main() -> None:
    rng = random.Random(0)
    nets = [to_netlist(draw_circuit(rng.choice(["small", "medium"]), rng), hide_values=False) for _ in range(200)]
    with Simulator("pyspice") as py, Simulator("ngspice") as sub:
        py.run(nets[0])  # start the worker outside the timing
        py_rate = rate(py.run, nets)
        sub_rate = rate(sub.run, nets)
    warnings.simplefilter("ignore")
    small = [n for n in nets if not any(e.kind in "EGFH" for e in n.elements)][:20]

    def exact(net):
        try:
            lcapy_voltages(net)
        except ValueError:
            pass

    lcapy_rate = rate(exact, small)
    out = {"pyspice_per_s": round(py_rate, 1), "ngspice_subprocess_per_s": round(sub_rate, 1),
           "lcapy_per_s": round(lcapy_rate, 2), "pyspice_over_subprocess": round(py_rate / sub_rate, 2),
           "pyspice_over_lcapy": round(py_rate / lcapy_rate, 1), "goal_ratio": GOAL,
           "goal_met": py_rate / sub_rate >= GOAL}
    print(f"PySpice shared library: {py_rate:.1f} sims/s; ngspice -b subprocess: {sub_rate:.1f} sims/s "
          f"({py_rate / sub_rate:.1f}x, goal {GOAL}x); lcapy exact: {lcapy_rate:.2f} sims/s "
          f"({py_rate / lcapy_rate:.0f}x)")
    Path(ROOT / "bench-results").mkdir(exist_ok=True)
    (ROOT / "bench-results" / "maps.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
