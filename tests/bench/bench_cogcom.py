"""Benchmark of `reason cogcom`: claim-1 accuracies on held-out fonts and seeds (60 questions per kind),
seconds per question of the fixed chain vs one-shot OCR at native resolution (goal: chain >= 1.5x faster),
and synthesis throughput (chains/s with the rule planner). Writes bench-results/cogcom.json.
Size via COGCOM_BENCH_PER_KIND (default 60)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PER_KIND = int(os.environ.get("COGCOM_BENCH_PER_KIND", "60"))


def reason(*args: str, stdin: str | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    res = subprocess.run([sys.executable, "-m", "cli", "--quiet", *args], capture_output=True, text=True, env=env,
                         cwd=ROOT, input=stdin)
    if res.returncode != 0:
        raise SystemExit(f"reason {' '.join(args)} failed: {res.stderr.strip()[-400:]}")
    return res.stdout


def first(text: str) -> dict:
    return json.loads(text.splitlines()[0])


def main() -> None:
    from toolkit.cogcom.ocr import engine_name

    figures: dict = {"per_kind": PER_KIND, "budget": 448, "fonts": "heldout", "ocr_engine": engine_name()}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for i, kind in enumerate(("read", "count", "compute")):
            reason("cogcom", "scenes", "--n", str(PER_KIND), "--seed", str(30000 + 1000 * i), "--fonts", "heldout",
                   "--kinds", kind, "--out", str(d / kind))
        items = d / "items.jsonl"
        items.write_text("".join((d / k / "items.jsonl").read_text().replace('"images/', f'"{k}/images/')
                                 for k in ("read", "count", "compute")))
        for policy in ("fixed", "oneshot", "oneshot-native"):
            t0 = time.perf_counter()
            chains = reason("cogcom", "solve", "--items", str(items), "--policy", policy)
            wall = time.perf_counter() - t0
            result = first(reason("cogcom", "eval", "--pred", "-", "--gold", str(items), stdin=chains))
            figures[policy] = {"exact": {k: round(v["score"], 4) for k, v in result["by_kind"].items()},
                               "seconds_per_question": round(result["seconds_per_question"], 4),
                               "wall_seconds": round(wall, 1)}
        figures["chain_speedup_vs_native_ocr"] = round(
            figures["oneshot-native"]["seconds_per_question"] / figures["fixed"]["seconds_per_question"], 2)
        t0 = time.perf_counter()
        summary = first(reason("cogcom", "synth", "--items", str(d / "read" / "items.jsonl"), "--llm",
                               "py:toolkit.cogcom.planner:plan", "--out", str(d / "syn")))
        seconds = time.perf_counter() - t0
        figures["synthesis"] = {"questions": summary["n"], "paths": summary["paths"], "yield": summary["yield"],
                                "precision": round(summary["precision"], 4),
                                "chains_per_s": round(summary["paths"] / seconds, 3)}
    out = ROOT / "bench-results" / "cogcom.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=1))
    print(json.dumps(figures, indent=1))
    print(f"chain vs one-shot native OCR: {figures['chain_speedup_vs_native_ocr']}x faster per question (goal >= 1.5x)")


if __name__ == "__main__":
    main()
