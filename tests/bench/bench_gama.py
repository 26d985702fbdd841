"""GAMA bench timing: the full bench (8 games x 5 runs x 20 rounds, built-in players), goal < 60 s on 2 cores.

Prints the wall time of the real CLI (1 and 2 workers), in-process games/s, and the leaderboard of the
four built-in strategies, and (when the official run files are beside the checkout) the LLaMA-3.1-8B row that
`gama import` gives against the published one; writes the figures to bench-results/gama.json.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from toolkit.core.records import RecordWriter  # noqa: E402
from toolkit.gama import Job, bench_jobs, run_jobs, summarize  # noqa: E402
from toolkit.gama.games import GAMES  # noqa: E402

GOAL_S = 60.0


def cli_bench(players: str, workers: int) -> tuple[float, dict]:
    cmd = [sys.executable, "-m", "cli", "--quiet", "gama", "bench", "--players", players, "--runs", "5",
           "--rounds", "20", "--seed", "0", "-j", str(workers)]
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT),
                                                                           "PATH": "/usr/bin:/bin"})
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    summary = json.loads(out.stdout.splitlines()[-1])
    return wall, summary


def main() -> None:
    figures: dict = {"goal_s": GOAL_S}
    wall1, summary = cli_bench("equilibrium", 1)
    wall2, _ = cli_bench("equilibrium", 2)
    figures.update(cli_wall_s_1_worker=round(wall1, 2), cli_wall_s_2_workers=round(wall2, 2),
                   goal_ratio=round(wall1 / GOAL_S, 4), speedup_2_workers=round(wall1 / wall2, 2))
    board = {}
    start = time.perf_counter()
    n_jobs = 0
    with open("/dev/null", "w") as sink:
        writer = RecordWriter(None)
        writer._handle = sink
        for players in ("random", "equilibrium", "best-response", "fictitious"):
            jobs = bench_jobs(Job(game="guess", players=players, rounds=20), list(GAMES), 5, {})
            n_jobs += len(jobs)
            results = run_jobs(jobs, writer)
            s = summarize(results)[0]
            board[players] = {"overall": round(s["overall"], 1), **{g: round(v, 1) for g, v in s["games"].items()}}
    in_process = time.perf_counter() - start
    figures.update(in_process_games_per_s=round(n_jobs / in_process, 1), leaderboard=board,
                   equilibrium_overall=round(summary["overall"], 2))
    print(f"full bench (8 games x 5 runs x 20 rounds, equilibrium players) via CLI: {wall1:.2f} s with 1 worker, "
          f"{wall2:.2f} s with 2 workers; goal < {GOAL_S:.0f} s -> ratio {wall1 / GOAL_S:.3f}")
    print(f"in-process: {n_jobs} game runs in {in_process:.2f} s = {n_jobs / in_process:.1f} runs/s")
    for players, row in board.items():
        print(f"  {players:14s} overall {row['overall']:5.1f}  " + " ".join(f"{g}={row[g]:.1f}" for g in GAMES))
    figures.update(official_row())
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "gama.json").write_text(json.dumps(figures, indent=2))


# The published LLaMA-3.1-8B row, and its official run files beside the checkout when present.
PUBLISHED = {"overall": 56.0, "guess": 85.5, "bar": 75.7, "dollar": 56.4, "goods": 19.6, "diner": 59.3,
             "auction": 37.1, "battle": 35.9, "pirate": 78.3}
OFFICIAL = ROOT.parent / "shared" / "gama-official" / "llama-3.1-8b"


def official_row() -> dict:
    """`gama import` of the official files: the row against the published one (largest gap), and the import time."""
    if not OFFICIAL.is_dir():
        print(f"official run files not found at {OFFICIAL}: leaderboard check skipped")
        return {}
    from toolkit.gama.official import import_folder

    start = time.perf_counter()
    results = list(import_folder(OFFICIAL))
    took = time.perf_counter() - start
    row = next(s for s in summarize(results) if s["variant"] == "default")
    got = {"overall": row["overall"], **row["games"]}
    gap = max(abs(got[k] - v) for k, v in PUBLISHED.items())
    print(f"official LLaMA-3.1-8B files: {len(results)} runs imported in {took:.2f} s; row "
          + " | ".join(f"{got[k]:.1f}" for k in PUBLISHED) + f"; largest gap to the published row {gap:.3f}")
    return {"official_row": {k: round(got[k], 3) for k in PUBLISHED}, "official_max_gap": round(gap, 4),
            "official_import_s": round(took, 3)}


if __name__ == "__main__":
    main()
