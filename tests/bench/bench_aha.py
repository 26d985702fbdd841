"""Benchmark of `reason aha` with the shipped tiny detector (assets/aha/model).

Figures: binary accuracy / ROUGE-L on fresh FailGen seeds for one training task (stack) and
one held-out task (sort), detection throughput (grids/s), training throughput of the tiny
model (steps/s), and task success with vs without detector feedback (`aha loop`, inject-rate
0.3). Writes bench-results/aha.json. Sizes via AHA_BENCH_EPISODES (loop seeds, default 6).
"""

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

LOOP_EPISODES = int(os.environ.get("AHA_BENCH_EPISODES", "6"))
MODES_PP = ("nominal,grasp,slip,translation_x,translation_y,translation_z,rotation_x,rotation_y,"
            "wrong_sequence,wrong_object")


def reason(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2")}
    res = subprocess.run([sys.executable, "-m", "cli", "--quiet", *args], capture_output=True, text=True, env=env,
                         cwd=ROOT)
    if res.returncode != 0:
        raise SystemExit(f"reason {' '.join(args)} failed: {res.stderr.strip()[-400:]}")
    return res.stdout


def records(text: str) -> list[dict]:
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def accuracy(tmp: Path) -> dict:
    reason("failgen", "--task", "stack", "--episodes", "1", "--seed", "2000", "--image-size", "64",
           "--out", str(tmp / "fg-stack"))
    reason("failgen", "--task", "sort", "--modes", MODES_PP, "--episodes", "1", "--seed", "2000",
           "--image-size", "64", "--out", str(tmp / "fg-sort"))
    samples = tmp / "samples.jsonl"
    samples.write_text("".join((tmp / d / "samples.jsonl").read_text() for d in ("fg-stack", "fg-sort")))
    n = len(records(samples.read_text()))
    t0 = time.perf_counter()
    reason("aha", "detect", str(samples), "--out", str(tmp / "verdicts.jsonl"), "--device", "cpu")
    seconds = time.perf_counter() - t0
    result = records(reason("aha", "eval", "--pred", str(tmp / "verdicts.jsonl"), "--no-cosine", "--json"))[0]
    return {"samples": n, "detect_seconds_incl_load": round(seconds, 2), "grids_per_s": round(n / seconds, 2),
            "by_task": {k: {m: v[m] for m in ("n", "binary", "rouge_l")} for k, v in result["by_task"].items()},
            "overall": {m: result["overall"][m] for m in ("n", "binary", "rouge_l")}}


def train_speed(tmp: Path) -> dict:
    from tests.aha.synth import make_dataset

    data = make_dataset(tmp / "synth", seeds=range(2))
    reason("aha", "tiny", "--data", str(data), "--out", str(tmp / "tiny"))
    t0 = time.perf_counter()
    out = records(reason("aha", "train", "--data", str(data), "--model", str(tmp / "tiny"), "--out",
                         str(tmp / "run"), "--full", "--epochs", "10", "--max-steps", "20", "--batch-size", "16",
                         "--val-frac", "0"))
    seconds = time.perf_counter() - t0
    return {"steps": out[-1]["steps"], "seconds_incl_load": round(seconds, 2),
            "steps_per_s": round(out[-1]["steps"] / seconds, 3)}


def loop() -> dict:
    summary = records(reason("aha", "loop", "--task", "pick-place", "--episodes", str(LOOP_EPISODES),
                             "--inject-rate", "0.3", "--oracle", "--seed", "500"))[-1]
    return {k: summary[k] for k in ("task", "episodes", "inject_rate", "episodes_with_injection",
                                    "success_without_feedback", "success_with_feedback", "success_with_oracle",
                                    "gain_points", "retries")}


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        figures = {"accuracy": accuracy(tmp), "train_speed": train_speed(tmp), "loop": loop()}
    print(json.dumps(figures, indent=1))
    out = ROOT / "bench-results" / "aha.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
