import random

import pytest

from toolkit.core.errors import InputError
from toolkit.maps.circuit import OPEN, WIRE, point_nets, to_netlist
from toolkit.maps.generate import TIERS, draw_circuit, valid
from toolkit.maps.netlist import parse_netlist, parse_value


def test_spice_scale_suffixes():
    assert parse_value("1M") == pytest.approx(1e-3)
    assert parse_value("2MEG") == pytest.approx(2e6)
    assert parse_value("4.7k") == pytest.approx(4700)
    assert parse_value("10uF") == pytest.approx(1e-5)
    for bad in ("4.7kk", "k", "1.2.3"):
        with pytest.raises(ValueError):
            parse_value(bad)


@pytest.mark.parametrize("text, field", [
    ("Q1 1 0 5\n", "element"), ("R1 1 10\n", "nodes"), ("R1 1 0 4.7kk\n", "value"), (".subckt amp 1 2\n", "card"),
    (".model D D\n", "card"),
])
def test_bad_cards_name_line_and_field(text, field):
    with pytest.raises(InputError) as err:
        parse_netlist(".title t\n" + text, source="x.cir")
    assert str(err.value).startswith("x.cir:2: field") and field in str(err.value)


def test_empty_rejected_when_values_are_needed():
    with pytest.raises(InputError, match="<Empty>"):
        parse_netlist("R1 1 0 <Empty>\nV1 1 0 5\n", allow_empty=False)


def test_seed_reproduces_circuits():
    for tier in TIERS:
        a = [draw_circuit(tier, random.Random(f"s{i}")) for i in range(5)]
        b = [draw_circuit(tier, random.Random(f"s{i}")) for i in range(5)]
        assert a == b


@pytest.mark.parametrize("tier", ["small", "medium", "v11"])
def test_validity_rules_hold(tier):
    rng = random.Random(3)
    for _ in range(40):
        c = draw_circuit(tier, rng)
        assert valid(c)
        rows, cols = c["rows"], c["cols"]
        if tier == "small":
            assert sorted((rows, cols)) in ([2, 2], [2, 3])
            assert {e["kind"] for e in c["edges"]} <= {WIRE, OPEN, "R", "V", "I"}
            assert 1 <= sum(bool(e["meter"]) for e in c["edges"]) <= 2
        nets = point_nets(c)
        for e in c["edges"]:
            outer = (e["a"][0] == e["b"][0] and e["a"][0] in (0, rows - 1)) or (
                e["a"][1] == e["b"][1] and e["a"][1] in (0, cols - 1))
            assert not (outer and e["kind"] == OPEN)
            meter = (e["meter"] or " ")[0]
            assert not (meter == "U" and e["kind"] in (WIRE, "V", "E", "H"))
            assert not (meter == "I" and e["kind"] in (OPEN, "I", "G", "F"))
            if e["kind"] not in (WIRE, OPEN) and meter != "I":
                assert nets[tuple(e["a"])] != nets[tuple(e["b"])]
            if e["kind"] in ("E", "G"):
                assert e["ctrl"].startswith("U")
            if e["kind"] in ("F", "H"):
                assert e["ctrl"].startswith("I")
        net = to_netlist(c)
        assert parse_netlist(net.text()).text() == net.text()


def _square(top, bottom, left, right) -> dict:
    """A 2x2 grid circuit with ground at the bottom-left corner and these four edge kinds."""
    edges = [((0, 0), (0, 1), top), ((1, 0), (1, 1), bottom), ((0, 0), (1, 0), left), ((0, 1), (1, 1), right)]
    return {"rows": 2, "cols": 2, "ground": [1, 0],
            "edges": [{"a": list(a), "b": list(b), "kind": k, "meter": None} for a, b, k in edges]}


def test_circuits_without_a_unique_dc_point_are_rejected():
    assert valid(_square("R", "R", "V", "R"))
    assert valid(_square("R", "R", "I", "R"))
    # two current sources are the only links between the top and bottom resistors: a cut set
    assert not valid(_square("R", "R", "I", "I"))
    # a capacitor is open at DC, so a current source and a capacitor make a cut set too
    assert not valid(_square("R", "R", "I", "C"))
    # two voltage sources in parallel (the wires merge each side into one net): a loop of sources
    assert not valid(_square(WIRE, WIRE, "V", "V"))
    assert not valid(_square(WIRE, WIRE, "V", "L"))  # an inductor is a short at DC


def test_latex_answers_and_import(tmp_path):
    from toolkit.maps.answer import parse_number
    from toolkit.maps.qa_import import import_qa

    assert parse_number("$-0.5 \\mathrm{~A}$") == pytest.approx(-0.5)
    assert parse_number("2.2 mA") == pytest.approx(2.2e-3)
    assert parse_number("$3 \\times 10^{-3} \\mathrm{~W}$") == pytest.approx(3e-3)
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "7.jpg").write_bytes(b"x")
    qa = tmp_path / "qa.json"
    qa.write_text('[{"id": 7, "question": "Find I", "answer": "$-0.5 \\\\mathrm{~A}$"}, {"id": 8, "question": "?"}]')
    with pytest.raises(InputError, match="problem 1: field 'answer'"):
        list(import_qa(qa, tmp_path / "img"))
    bad = []
    rows = list(import_qa(qa, tmp_path / "img", skip_bad=True, bad=bad))
    assert [(r["value"], r["unit"]) for r in rows] == [(-0.5, "A")] and len(bad) == 1


def test_noisy_render_differs_from_clean_at_the_same_size():
    import numpy as np

    from toolkit.maps.render import SIZE, draw

    circuit = draw_circuit("small", random.Random(4))
    clean = np.asarray(draw(circuit, style="clean").convert("L"), dtype=float)
    noisy = np.asarray(draw(circuit, style="noisy", seed=1).convert("L"), dtype=float)
    assert clean.shape == noisy.shape == (SIZE, SIZE)
    assert (clean < 128).mean() > 0.02  # the schematic is drawn
    assert 1.0 < np.abs(clean - noisy).mean() < 40.0  # jitter, rotation, blur and JPEG change it, not erase it


def test_value_labels_are_decided_once_per_circuit_as_in_the_anchor():
    def shown(labels, tier, seed):
        rng = random.Random(seed)
        out = []
        for _ in range(150):
            c = draw_circuit(tier, rng, labels=labels)
            out.append({e["shown"] for e in c["edges"] if "value" in e})
        return out

    for tier in ("medium", "v11"):
        per_circuit = shown("circuit", tier, 21)
        assert all(len(s) == 1 for s in per_circuit)  # all values shown, or none
        all_shown = sum(s == {True} for s in per_circuit) / len(per_circuit)
        assert 0.7 < all_shown < 0.9  # the anchor's p = 0.8
        assert sum(len(s) == 2 for s in shown("element", tier, 21)) > 30  # the per-element option mixes them
    assert all(s == {True} for s in shown("circuit", "small", 22))


def test_a_timed_out_simulation_is_run_again_not_redrawn(monkeypatch):
    """A timeout on a loaded machine must not change which circuit an item draws: the deck runs again with
    more time (here the retry is a stand-in that answers), and the first result is not taken as a failure."""
    from toolkit.maps import dataset
    from toolkit.maps.simulate import SimResult

    calls = []

    class Patient:
        def __init__(self, engine, timeout):
            calls.append(timeout)

        def run(self, net, analysis="op"):
            return SimResult(True, "ngspice", 1.0, meters={"U1": 2.0})

    monkeypatch.setattr(dataset, "Simulator", Patient)
    hurried = dataset._patient(lambda net, analysis="op": SimResult(False, "pyspice", 5e3, error="timeout after 5.0s"))
    result = hurried(parse_netlist("V1 1 0 2\nR1 1 0 1k\n"))
    assert result.ok and result.meters["U1"] == 2.0 and calls == [dataset.RETRY_TIMEOUTS[0]]
    singular = dataset._patient(lambda net, analysis="op": SimResult(False, "pyspice", 1.0, error="singular matrix"))
    assert not singular(parse_netlist("V1 1 0 2\nR1 1 0 1k\n")).ok and calls == [dataset.RETRY_TIMEOUTS[0]]
