"""The dynamic tier: transient and AC questions with gold answers from ngspice."""

import json
import math
import shutil

import pytest

from toolkit.maps.answer import read_point, read_question
from toolkit.maps.netlist import parse_netlist
from toolkit.maps.questions import ask, dynamic_value
from toolkit.maps.simulate import Simulator

pytestmark = pytest.mark.skipif(shutil.which("ngspice") is None, reason="needs `make sysdeps`")

RC = """.title rc
V1 1 0 1
R1 1 2 1k
C1 2 0 1u
VI1 2 3 0
R2 3 0 1meg
.control
op
print v(2,0) ; measurement of U1
print i(VI1) ; measurement of I1
.endc
.end
"""


def test_question_wording_reads_back_kind_target_and_point():
    for kind, at in (("tran", 5e-4), ("ac", 1000.0)):
        text = ask(kind, "U1", at)
        assert read_question(text) == (kind, "U1") and read_point(text) == pytest.approx(at)
    assert read_question(ask("meter", "I2")) == ("meter", "I2") and read_point(ask("meter", "I2")) is None


def test_rc_meter_at_tau_and_corner_amplitude():
    net = parse_netlist(RC)
    tau = 1e3 * 1e-6 * 1e6 / (1e6 + 1e3)  # R1 || R2 with C1
    final = 1e6 / (1e6 + 1e3)
    fc = 1 / (2 * math.pi * tau)
    with Simulator("pyspice") as sim:
        v_tau = dynamic_value(net, "tran", "U1", tau, sim.run)
        assert v_tau == pytest.approx(final * (1 - math.exp(-1)), rel=2e-3)
        assert dynamic_value(net, "ac", "U1", fc, sim.run) == pytest.approx(final / math.sqrt(2), rel=1e-4)
        assert dynamic_value(net, "ac", "I1", fc, sim.run) == pytest.approx(final / math.sqrt(2) / 1e6, rel=1e-4)
        assert dynamic_value(net, "tran", "U9", tau, sim.run) is None


def test_dynamic_tier_gold_chain_and_reduce_abstains(reason, tmp_path):
    out = tmp_path / "d"
    r = reason("maps", "generate", "--tier", "dynamic", "--n", "4", "--seed", "3", "--out-dir", str(out))
    assert r.returncode == 0, r.stderr
    kinds = [json.loads(x)["kind"] for x in (out / "questions.jsonl").read_text().splitlines()]
    assert {"tran", "ac"} <= set(kinds)
    sims = reason("maps", "simulate", str(out / "circuits.jsonl"))
    answers = reason("maps", "answer", "--questions", str(out / "questions.jsonl"), "-", input=sims.stdout)
    score = json.loads(reason("maps", "eval", "-", "--gold", str(out / "questions.jsonl"),
                              input=answers.stdout).stdout)
    assert score["numeric_accuracy"] == 1.0 and score["by_kind"]["tran"] == 1.0 and score["by_kind"]["ac"] == 1.0
    reduced = reason("maps", "answer", "--answerer", "reduce", "--questions", str(out / "questions.jsonl"),
                     str(out / "circuits.jsonl"))
    by_id = {a["id"]: a for a in map(json.loads, reduced.stdout.splitlines())}
    for q in map(json.loads, (out / "questions.jsonl").read_text().splitlines()):
        if q["kind"] in ("tran", "ac"):
            assert by_id[q["id"]]["abstained"]


def test_simulate_cli_tran_and_ac_traces(reason, tmp_path):
    cir = tmp_path / "rc.cir"
    cir.write_text(RC.replace("V1 1 0 1", "V1 1 0 DC 1 AC 1"))
    tran = json.loads(reason("maps", "simulate", str(cir), "--analysis", "tran 10u 2m 0 10u uic").stdout)
    assert tran["ok"] and tran["analysis"].startswith("tran") and tran["traces"]["time"][-1] == pytest.approx(2e-3)
    assert tran["traces"]["v(2)"][0] == pytest.approx(0.0, abs=1e-3) and tran["traces"]["v(2)"][-1] > 0.8
    ac = json.loads(reason("maps", "simulate", str(cir), "--analysis", "ac").stdout)
    assert ac["ok"] and ac["traces"]["frequency"][0] == pytest.approx(1.0)
    assert ac["traces"]["v(2)"][0] == pytest.approx(1e6 / (1e6 + 1e3), rel=1e-3)
    r = reason("maps", "simulate", str(cir), "--analysis", "dc")
    assert r.returncode == 2 and "--analysis dc" in r.stderr
