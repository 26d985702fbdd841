"""`reason sokoban`: numba Sokoban, generator and solver, a CPU-trained DRC agent, plan probes and interventions."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, SeedOpt, SkipBadOpt, open_writer, report_bad, seed_or_global
from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, make_record

app = typer.Typer(help="Emergent planning in a model-free agent: Sokoban env, solver, DRC agent, plan probes.\n\n"
                       "Example: reason sokoban gen --split test --n 200 | reason sokoban play - "
                       "--agent assets/sokoban/agent --think 0,4",
                  no_args_is_help=True)

LevelsArg = Annotated[str, typer.Argument(help="Boxoban text or sokoban.level JSONL (- for stdin).")]
AgentOpt = Annotated[Path | None, typer.Option("--agent", help="Agent directory (default: the shipped agent).")]


def _ints(text: str, name: str, minimum: int | None = None) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InputError(f"{name} {text}: expected comma-separated integers") from None
    if not values:
        raise InputError(f"{name}: empty list")
    if minimum is not None and min(values) < minimum:
        raise InputError(f"{name} {text}: values must be >= {minimum}")
    return values


def _floats(text: str, name: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InputError(f"{name} {text}: expected comma-separated numbers") from None
    if not values:
        raise InputError(f"{name}: empty list")
    return values


def _size(text: str) -> tuple[int, int]:
    parts = _ints(text.replace("x", ","), "--size", 3)
    if len(parts) == 1:
        return parts[0], parts[0]
    if len(parts) != 2:
        raise InputError(f"--size {text}: expected N or HxW")
    return parts[0], parts[1]


def _levels(path: str, skip_bad: bool):
    from toolkit.sokoban.levels import read_levels

    bad = BadLines()
    levels = read_levels(path, skip_bad, bad)
    if bad.count:
        console.warn(f"skipped {bad.count} bad level(s): {'; '.join(bad.examples)}")
    if not levels:
        raise InputError(f"{path}: no valid levels")
    return levels


def _agent(path: Path | None):
    from toolkit.core.assets import asset_path
    from toolkit.sokoban.drc import load_agent

    return load_agent(path or asset_path("sokoban/agent"))


@app.command()
def gen(
    size: Annotated[str, typer.Option("--size", help="Interior size N or HxW.")] = "6",
    boxes: Annotated[str, typer.Option("--boxes", help="Comma list of box counts, cycled.")] = "1,2",
    n: Annotated[int, typer.Option("--n", min=1, help="Number of levels.")] = 100,
    max_moves: Annotated[int, typer.Option("--max-moves", min=1, help="Longest optimal solution kept.")] = 40,
    min_moves: Annotated[int, typer.Option("--min-moves", min=1, help="Shortest optimal solution kept.")] = 6,
    split: Annotated[str, typer.Option("--split", help="train, val or test (disjoint by content hash).")] = "train",
    jsonl: Annotated[bool, typer.Option("--jsonl", help="Write sokoban.level records instead of Boxoban text.")] = False,
    seed: SeedOpt = None, out: OutOpt = None,
):
    """Generate solver-proven levels by reverse play.

    Example: reason sokoban gen --size 6 --boxes 1,2 --n 2000 --max-moves 40 --split test -o L.txt
    """
    from toolkit.sokoban.generate import generate
    from toolkit.sokoban.levels import format_levels, level_record

    made = generate(n, _size(size), _ints(boxes, "--boxes", 1), max_moves, split, seed_or_global(seed), min_moves)
    if jsonl:
        with open_writer(out) as writer:
            for level, moves, pushes in made:
                writer.write(level_record(level, split=split, moves=moves, pushes=pushes))
        return
    text = format_levels([lv for lv, _, _ in made])
    if out is None:
        print(text, end="")
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)


@app.command()
def solve(
    levels: LevelsArg,
    algo: Annotated[str, typer.Option("--algo", help="astar (push-level) or bfs (move-level).")] = "astar",
    node_limit: Annotated[int, typer.Option("--node-limit", min=1, help="Expanded-node budget per level.")] = 200_000,
    out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Move-optimal solutions as LURD strings (lower case walks, upper case pushes).

    Example: reason sokoban solve assets/sokoban/levels/test.txt --algo astar | jq -c '[.id, .moves]'
    """
    from toolkit.sokoban.solver import solve as run

    if algo not in ("astar", "bfs"):
        raise InputError(f"--algo {algo}: expected astar or bfs")
    with open_writer(out) as writer:
        for level in _levels(levels, skip_bad):
            t0 = time.perf_counter()
            sol = run(level, algo, node_limit)
            writer.write(make_record("sokoban.solution", id=level.id, status=sol.status, solved=sol.solved,
                                     moves=sol.moves, pushes=sol.pushes, lurd=sol.lurd, nodes=sol.nodes,
                                     algo=algo, seconds=round(time.perf_counter() - t0, 4)))


@app.command()
def train(
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Agent directory to write.")],
    arch: Annotated[str, typer.Option("--arch", help="D,N for DRC(D,N), or ff (feed-forward baseline).")] = "2,2",
    channels: Annotated[int, typer.Option("--channels", min=1, help="Channels C.")] = 16,
    size: Annotated[str, typer.Option("--size", help="Interior size N or HxW.")] = "6",
    boxes: Annotated[str, typer.Option("--boxes", help="Box counts of the training levels (curriculum order).")] = "1,2",
    envs: Annotated[int, typer.Option("--envs", min=1, help="Parallel environments.")] = 64,
    minutes: Annotated[float, typer.Option("--minutes", min=0.01, help="Wall-clock training budget.")] = 30.0,
    levels_n: Annotated[int, typer.Option("--levels", min=10, help="Training levels generated (train split).")] = 2000,
    max_moves: Annotated[int, typer.Option("--max-moves", min=1)] = 40,
    min_moves: Annotated[int, typer.Option("--min-moves", min=1)] = 6,
    seed: SeedOpt = None,
):
    """Train an agent with PPO on freshly generated train-split levels; writes config.json, model.safetensors,
    train_log.json and prints one sokoban.trained record.

    Example: reason --seed 0 sokoban train -o assets/sokoban/agent --minutes 30
    """
    from toolkit.core.extras import require

    require("ml", "torch", "safetensors")
    import torch

    from toolkit.sokoban.drc import AgentConfig, save_agent
    from toolkit.sokoban.generate import generate
    from toolkit.sokoban.ppo import PPOConfig
    from toolkit.sokoban.ppo import train as run

    torch.set_num_threads(1)
    s = seed_or_global(seed)
    if arch == "ff":
        depth, ticks, kind = 2, 2, "ff"
    else:
        parts = _ints(arch, "--arch", 1)
        if len(parts) != 2:
            raise InputError(f"--arch {arch}: expected D,N or ff")
        depth, ticks, kind = parts[0], parts[1], "drc"
    grid = _size(size)
    t0 = time.time()
    levels = [lv for lv, _, _ in generate(levels_n, grid, _ints(boxes, "--boxes", 1), max_moves, "train", s, min_moves)]
    gen_s = time.time() - t0
    cfg = AgentConfig(arch=kind, depth=depth, ticks=ticks, channels=channels, grid=grid)
    result = run(levels, cfg, PPOConfig(envs=envs), minutes * 60, s)
    log = {**result.log, "levels": levels_n, "generation_seconds": round(gen_s, 1), "command_seed": s}
    save_agent(result.agent, out_dir, log)
    size_bytes = sum(f.stat().st_size for f in out_dir.iterdir())
    with open_writer(None) as writer:
        writer.write(make_record("sokoban.trained", dir=str(out_dir), arch=kind, depth=depth, ticks=ticks,
                                 channels=channels, grid=list(grid), frames=log["frames"], updates=log["updates"],
                                 seconds=log["seconds"], bytes=size_bytes, config_hash=cfg.digest(),
                                 last=log["history"][-1] if log["history"] else None))

