"""Benchmark of `reason failgen`: episode overhead vs bare simulator calls, parallel scaling,
nominal success rate and effective-mode coverage per task. Writes bench-results/failgen.json."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from toolkit.failgen import runner  # noqa: E402
from toolkit.failgen.episode import run_episode  # noqa: E402
from toolkit.failgen.modes import NOMINAL  # noqa: E402
from toolkit.failgen.tasks import TASKS  # noqa: E402
from toolkit.failgen.world import VIEWS  # noqa: E402

NOMINAL_SEEDS = int(os.environ.get("FAILGEN_BENCH_SEEDS", "20"))
MODE_SEEDS = int(os.environ.get("FAILGEN_BENCH_MODE_SEEDS", "4"))


def overhead(task: str = "stack", size: int = 128, repeats: int = 3) -> dict:
    """Full episode (scene build, control, IK, rendering; then also the PNG files) / the same number of
    bare stepSimulation + getCameraImage calls on the same scene. Wall and process-CPU time both."""
    from toolkit.failgen.output import episode_records
    from toolkit.failgen.world import import_pybullet

    p = import_pybullet()
    run_episode(task, 0, image_size=size).env.close()          # warm the mesh cache
    best = None
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        ep = run_episode(task, 0, image_size=size)
        w1, c1 = time.perf_counter(), time.process_time()
        with tempfile.TemporaryDirectory() as tmp:
            episode_records(ep, Path(tmp), tmp)
        w2, c2 = time.perf_counter(), time.process_time()
        world = ep.env.world
        steps, renders = world.steps, world.renders
        for _ in range(steps):
            p.stepSimulation(physicsClientId=world.cid)
        for k in range(renders):
            world.render(VIEWS[k % 3])
        w3, c3 = time.perf_counter(), time.process_time()
        ep.env.close()
        bare_w, bare_c = w3 - w2, c3 - c2
        row = {"steps": steps, "renders": renders, "episode_s": round(w1 - w0, 3), "files_s": round(w2 - w1, 3),
               "bare_s": round(bare_w, 3),
               "ratio": round((w1 - w0) / bare_w, 3), "ratio_with_files": round((w2 - w0) / bare_w, 3),
               "ratio_cpu": round((c1 - c0) / bare_c, 3), "ratio_cpu_with_files": round((c2 - c0) / bare_c, 3)}
        if best is None or row["ratio_cpu"] < best["ratio_cpu"]:
            best = row
    return best


def scaling(task: str = "stack") -> dict:
    rates = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            jobs = runner.plan_jobs([task], {task: list(TASKS[task].modes)}, 0, 2, out, str(out),
                                    runner.Options(image_size=128))     # 24 episodes with images
            t0 = time.perf_counter()
            summary = runner.run(jobs, out, resume=False, workers=workers)
            rates[workers] = len(summary.results) / (time.perf_counter() - t0)
    return {"episodes_per_s_1": round(rates[1], 3), "episodes_per_s_2": round(rates[2], 3),
            "ratio": round(rates[2] / rates[1], 3)}


def coverage() -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for task, spec in TASKS.items():
            nominal = runner.plan_jobs([task], {task: []}, 0, NOMINAL_SEEDS, Path(tmp), tmp,
                                       runner.Options(images=False))
            modes = runner.plan_jobs([task], {task: list(spec.modes)}, 100, MODE_SEEDS, Path(tmp), tmp,
                                     runner.Options(images=False), with_nominal=False)
            res = runner.run(nominal + modes, Path(tmp), resume=False, workers=2)
            nom = [r for r in res.results if r.job.mode == NOMINAL]
            per_mode = {}
            for r in res.results:
                if r.job.mode != NOMINAL:
                    per_mode.setdefault(r.job.mode, []).append(r.kept)
            out[task] = {
                "nominal_success": round(sum(r.kept for r in nom) / len(nom), 3),
                "mode_coverage": round(sum(map(sum, per_mode.values())) / max(1, sum(map(len, per_mode.values()))), 3),
                "modes": {m: f"{sum(v)}/{len(v)}" for m, v in per_mode.items()},
                "mean_attempts": round(sum(r.attempts for r in res.results if r.job.mode != NOMINAL)
                                       / max(1, len(res.results) - len(nom)), 2),
            }
            print(f"{task:12s} nominal {out[task]['nominal_success']:.2f}  mode coverage "
                  f"{out[task]['mode_coverage']:.2f}  {out[task]['modes']}", flush=True)
    return out


def main() -> None:
    results = {"load_average_at_start": list(os.getloadavg()), "cpu_count": os.cpu_count()}
    results["overhead"] = overhead()
    o = results["overhead"]
    print(f"episode overhead: {o['ratio']:.3f} x bare steps+renders (wall; cpu {o['ratio_cpu']:.3f}; with PNG files "
          f"{o['ratio_with_files']:.3f} / cpu {o['ratio_cpu_with_files']:.3f}) (goal <= 1.25) {o}", flush=True)
    results["scaling"] = scaling()
    print(f"parallel scaling: {results['scaling']['ratio']:.3f} x with 2 workers (goal >= 1.8) "
          f"{results['scaling']}", flush=True)
    results["tasks"] = coverage()
    results["load_average_at_end"] = list(os.getloadavg())
    Path("bench-results").mkdir(exist_ok=True)
    Path("bench-results/failgen.json").write_text(json.dumps(results, indent=1) + "\n")
    print("wrote bench-results/failgen.json")


if __name__ == "__main__":
    main()
