"""`generate`: circuits, their images and questions with simulated gold answers, one item per seed.

Item i of seed S uses its own random stream (S, i), so a dataset is the same with any worker count.
A drawn circuit that ngspice cannot solve (singular, e.g. a cut-set of current sources) is redrawn; a
simulation that runs out of time (a loaded machine) is run again with more time, never redrawn, so the
output does not depend on the machine's load.
"""

from __future__ import annotations

import random
from pathlib import Path

from toolkit.maps.circuit import to_netlist
from toolkit.maps.netlist import EMPTY
from toolkit.maps.questions import build_questions
from toolkit.maps.render import save
from toolkit.maps.simulate import Simulator

_SIM: Simulator | None = None


def _simulator() -> Simulator:
    """The shared-library engine where this process may start a child, else the ngspice subprocess."""
    import multiprocessing as mp

    global _SIM
    if _SIM is None:
        engine = "ngspice" if mp.current_process().daemon else "pyspice"
        _SIM = Simulator(engine, timeout=5.0)
    return _SIM


RETRY_TIMEOUTS = (20.0, 80.0)


def _patient(run):
    """`run`, and again with longer timeouts when it times out: only a deck that hangs even at the last timeout
    (a property of the circuit, not of the machine's load) comes back as a failure and is redrawn."""
    def call(net, analysis="op"):
        result = run(net, analysis)
        for timeout in RETRY_TIMEOUTS:
            if result.ok or "timeout" not in (result.error or ""):
                return result
            result = Simulator("ngspice", timeout=timeout).run(net, analysis)
        return result
    return call


def item_rng(seed: int, index: int) -> random.Random:
    return random.Random(f"maps:{seed}:{index}")


def make_item(job: tuple) -> tuple[dict, list[dict]]:
    """(tier, seed, index, out_dir, style, questions per circuit, labels) -> circuit record, question records."""
    from toolkit.maps.generate import draw_circuit

    tier, seed, index, out_dir, style, per_circuit, labels = job
    rng = item_rng(seed, index)
    sim = _simulator()
    run = _patient(sim.run)
    for _ in range(200):
        circuit = draw_circuit(tier, rng, labels=labels)
        full = to_netlist(circuit, hide_values=False)
        result = run(full)
        if not result.ok or any(abs(v) > 1e9 for v in result.voltages.values()):
            continue
        questions = build_questions(circuit, full, result, run, rng, per_circuit) if per_circuit else []
        if questions or not per_circuit:
            break
    else:
        raise RuntimeError(f"item {index}: no solvable circuit in 200 draws")
    cid = f"{tier}-{seed}-{index:05d}"
    image = f"images/{cid}.png"
    save(circuit, Path(out_dir) / image, style=style, seed=rng.randrange(2**31))
    shown = to_netlist(circuit, hide_values=True)
    record = {"type": "maps.circuit", "schema": 1, "id": cid, "tier": tier, "layout": {
        "rows": circuit["rows"], "cols": circuit["cols"], "ground": circuit["ground"]},
        "components": circuit["edges"], "meters": [m.name for m in full.measures],
        "netlist": shown.text(), "netlist_full": full.text(), "has_empty": EMPTY in shown.text(), "image": image}
    qrecords = [{"type": "maps.question", "schema": 1, "id": f"{cid}-q{k}", "circuit": cid, "image": image, **q}
                for k, q in enumerate(questions)]
    return record, qrecords


def generate(tier: str, n: int, seed: int, out_dir: Path, *, style: str = "clean", workers: int = 1,
             per_circuit: int = 2, labels: str = "circuit") -> tuple[int, int]:
    """Write circuits.jsonl, questions.jsonl and images/ under out_dir; returns (circuits, questions)."""
    from toolkit.core.parallel import iter_jobs
    from toolkit.core.records import RecordWriter

    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = [(tier, seed, i, str(out_dir), style, per_circuit, labels) for i in range(n)]
    count = 0
    with RecordWriter(out_dir / "circuits.jsonl") as cw, RecordWriter(out_dir / "questions.jsonl") as qw:
        for record, questions in iter_jobs(make_item, jobs, workers=workers, description=f"{tier} circuits"):
            cw.write(record)
            qw.write_all(questions)
            count += len(questions)
    return n, count
