import math
import os
import random
import time

import pytest

from toolkit.maps.circuit import to_netlist
from toolkit.maps.generate import draw_circuit
from toolkit.maps.netlist import parse_netlist
from toolkit.maps.simulate import Simulator

pytestmark = pytest.mark.skipif(not os.path.exists("/usr/bin/ngspice"), reason="needs `make sysdeps`")

DIVIDER = """.title divider
V1 1 0 10
R1 1 2 1k
R2 2 0 1k
.control
op
print v(2,0) ; measurement of U1
.endc
.end
"""


@pytest.fixture(scope="module")
def sims():
    with Simulator("pyspice") as py, Simulator("ngspice") as sub:
        yield py, sub


def test_divider_both_engines(sims):
    net = parse_netlist(DIVIDER)
    for sim in sims:
        r = sim.run(net)
        assert r.ok and r.meters["U1"] == pytest.approx(5.0, abs=1e-9)


# the anchor's zero-order template: voltmeters to ground printed `v(n)` and `-v(n)` (grid_rules.py)
ANCHOR_METERS = """.title Active DC Circuit
V1 1 0 10
R1 1 2 1k
R2 0 2 3k
.control
op
print v(2) ; measurement of U1
print -v(2) ; measurement of U2
print v(1, 2) ; measurement of U3
.endc
.end
"""


def test_anchor_voltmeters_to_ground_keep_their_sign(sims):
    net = parse_netlist(ANCHOR_METERS)
    for sim in sims:
        r = sim.run(net)
        assert r.ok
        assert r.meters["U1"] == pytest.approx(7.5)
        assert r.meters["U2"] == pytest.approx(-7.5)
        assert r.meters["U3"] == pytest.approx(2.5)
    # written back in the anchor's form, and read again to the same meters
    text = net.text()
    assert "print -v(2) ; measurement of U2" in text and "print v(2) ; measurement of U1" in text
    assert sims[0].run(parse_netlist(text)).meters["U2"] == pytest.approx(-7.5)


def test_vcvs_and_cccs_through_ammeter(sims):
    net = parse_netlist("""V1 1 0 2
R1 1 N12 1k
VI1 N12 0 0
E1 3 0 1 0 4
R2 3 0 1k
F1 0 4 VI1 3
R3 4 0 100
.control
op
print i(VI1) ; measurement of I1
.endc
""")
    r = sims[0].run(net)
    assert r.ok
    assert r.voltages["3"] == pytest.approx(8.0)          # E: 4 x v(1)
    assert r.meters["I1"] == pytest.approx(2e-3)          # 2 V / 1 kΩ
    assert r.voltages["4"] == pytest.approx(3 * 2e-3 * 100)  # F pushes 3 x I1 into R3


def test_rc_step_reaches_one_minus_inverse_e_at_tau(sims):
    net = parse_netlist("V1 1 0 1\nR1 1 2 1k\nC1 2 0 1u\n")
    r = sims[1].run(net, "tran 1u 3m uic")
    t, v = r.traces["time"], r.traces["v(2)"]
    k = min(range(len(t)), key=lambda i: abs(t[i] - 1e-3))
    assert v[k] == pytest.approx(1 - math.exp(-1), abs=3e-3)


def test_ac_magnitude_at_corner_frequency(sims):
    fc = 1 / (2 * math.pi * 1e3 * 1e-6)
    net = parse_netlist("V1 1 0 DC 0 AC 1\nR1 1 2 1k\nC1 2 0 1u\n")
    r = sims[0].run(net, f"ac lin 1 {fc} {fc}")
    assert r.ok and r.traces["v(2)"][0] == pytest.approx(1 / math.sqrt(2), abs=1e-4)


def test_engines_agree_on_generated_circuits(sims):
    rng = random.Random(11)
    checked = 0
    while checked < 20:
        net = to_netlist(draw_circuit(rng.choice(["small", "medium"]), rng), hide_values=False)
        a, b = (s.run(net) for s in sims)
        assert a.ok == b.ok
        if a.ok:
            for k, v in a.meters.items():
                assert b.meters[k] == pytest.approx(v, rel=1e-9, abs=1e-12)
            checked += 1


def test_singular_circuit_is_not_ok(sims):
    net = parse_netlist("V1 1 0 1\nV2 1 0 2\nR1 1 0 1k\n")  # a loop of voltage sources
    for sim in sims:
        assert not sim.run(net).ok


def test_timeout_kills_the_child():
    net = parse_netlist("V1 1 0 SIN(0 1 1k)\nR1 1 2 1k\nC1 2 0 1u\n")
    with Simulator("pyspice", timeout=0.5) as sim:
        sim.run(parse_netlist(DIVIDER))  # warm start
        child = sim._py.proc.pid
        start = time.time()
        r = sim.run(net, "tran 1n 100")
        assert not r.ok and "timeout" in r.error
        assert time.time() - start < 5
        assert not os.path.exists(f"/proc/{child}") or open(f"/proc/{child}/stat").read().split()[2] == "Z"
    r = Simulator("ngspice", timeout=0.5).run(net, "tran 1n 100")
    assert not r.ok and "timeout" in r.error


def test_a_dead_worker_falls_back_to_the_ngspice_binary(monkeypatch):
    from toolkit.maps import simulate

    monkeypatch.setattr(simulate.PySpiceEngine, "run",
                        lambda self, net, analysis, timeout: simulate.SimResult(False, "pyspice", 1.0,
                                                                                error=simulate.WORKER_DIED))
    with Simulator("pyspice") as sim:
        r = sim.run(parse_netlist(DIVIDER))
    assert r.ok and r.engine == "pyspice->ngspice" and r.meters["U1"] == pytest.approx(5.0, abs=1e-9)
