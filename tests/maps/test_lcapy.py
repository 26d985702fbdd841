import random
import warnings

import pytest

from toolkit.maps.circuit import to_netlist
from toolkit.maps.crosscheck import lcapy_voltages
from toolkit.maps.generate import draw_circuit
from toolkit.maps.simulate import Simulator, ngspice_binary


def test_lcapy_agrees_with_ngspice_on_five_circuits():
    pytest.importorskip("lcapy")
    try:
        ngspice_binary()
    except Exception:
        pytest.skip("needs `make sysdeps`")
    rng = random.Random(2)
    checked = 0
    with Simulator("pyspice") as sim, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while checked < 5:
            net = to_netlist(draw_circuit("small", rng), hide_values=False)
            result = sim.run(net)
            if not result.ok:
                continue
            try:
                exact = lcapy_voltages(net)
            except ValueError:  # held up only by ngspice's gmin: no exact solution to compare
                continue
            for node, v in exact.items():
                assert result.voltages[node] == pytest.approx(v, rel=1e-6, abs=1e-9)
            checked += 1
