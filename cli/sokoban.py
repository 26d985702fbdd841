"""`reason sokoban`: numba Sokoban, generator and solver, a CPU-trained DRC agent, plan probes and interventions."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, SeedOpt, SkipBadOpt, ThreadsOpt, open_writer, report_bad, seed_or_global
from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, make_record

app = typer.Typer(help="Emergent planning in a model-free agent: Sokoban env, solver, DRC agent, plan probes.\n\n"
                       "Example: reason --seed 9000 sokoban gen --split test --n 200 | reason sokoban play - "
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


def _levels(path: str, skip_bad: bool, moves: list | None = None):
    from toolkit.sokoban.levels import read_levels

    bad = BadLines()
    levels = read_levels(path, skip_bad, bad, moves)
    if bad.count:
        console.warn(f"skipped {bad.count} bad level(s): {'; '.join(bad.examples)}")
    if not levels:
        raise InputError(f"{path}: no valid levels")
    return levels


def _agent(path: Path | None):
    from toolkit.core.assets import asset_path
    from toolkit.core.extras import require

    require("ml", "torch", "safetensors")
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
    jsonl: Annotated[bool, typer.Option("--jsonl", help="Write sokoban.level records.")] = False,
    seed: SeedOpt = None, out: OutOpt = None,
):
    """Generate solver-proven levels by reverse play. The seed (global --seed, default 0) picks the levels: seed 0
    rebuilds the shipped assets/sokoban/levels files, so fresh levels need another seed.

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


def _training_pool(path: str, grid: tuple[int, int], size: str) -> tuple[list, list[int] | None, dict]:
    """A level file as a training pool: its levels, their optimal moves when every record gives them (else None:
    the difficulty curriculum is off) and the spec the training log records (the file and a digest of its levels)."""
    import hashlib

    from toolkit.sokoban.levels import check_grid

    given: list = []
    levels = _levels(path, False, given)
    check_grid(levels, grid, f"--size {size}")
    moves = given if given and all(m is not None for m in given) else None
    if given and moves is None:
        console.warn(f"{path}: {sum(m is None for m in given)} level(s) without `moves`; "
                     "training without the difficulty curriculum")
    digest = hashlib.sha256("\n\n".join(lv.text() for lv in levels).encode()).hexdigest()
    return levels, moves, {"grid": list(grid), "file": path, "sha256": digest, "moves_known": moves is not None,
                           "boxes": sorted({lv.n_boxes for lv in levels})}


@app.command()
def train(
    ctx: typer.Context,
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Agent directory to write.")],
    arch: Annotated[str, typer.Option("--arch", help="D,N for DRC(D,N), or ff (feed-forward baseline).")] = "2,2",
    channels: Annotated[int, typer.Option("--channels", min=1, help="Channels C.")] = 16,
    size: Annotated[str, typer.Option("--size", help="Interior size N or HxW.")] = "6",
    boxes: Annotated[str, typer.Option("--boxes", help="Box counts (curriculum order).")] = "1,2",
    envs: Annotated[int, typer.Option("--envs", min=1, help="Parallel environments.")] = 64,
    minutes: Annotated[float, typer.Option("--minutes", min=0.01, help="Wall-clock training budget.")] = 30.0,
    # 5000: with --min-moves 1 over half the levels are under 6 moves, and the curriculum's harder end needs variety
    levels_n: Annotated[int, typer.Option("--levels", min=10, help="Training levels generated (train split).")] = 5000,
    max_moves: Annotated[int, typer.Option("--max-moves", min=1)] = 40,
    # 1, not gen's 6: the difficulty curriculum starts on the 1-3 move levels
    min_moves: Annotated[int, typer.Option("--min-moves", min=1)] = 1,
    init: Annotated[Path | None, typer.Option("--init", help="Continue training this agent directory (same arch, "
                                              "channels and size; the curricula resume where its log ended).")] = None,
    encoder_relu: Annotated[bool | None, typer.Option(
        "--encoder-relu/--raw-encoder", help="ReLU on the encoder output (the shipped agents) or the raw conv output "
        "(the official DRCNet). Default: the --init agent's, else --encoder-relu.")] = None,
    gamma: Annotated[float | None, typer.Option(
        "--gamma", min=0.0, max=1.0, help="Discount (default 0.9, which learns fastest from scratch on CPU; the "
        "official run's 0.97 weighs later box placements more, for continuing a competent agent).")] = None,
    lam: Annotated[float | None, typer.Option("--lambda", min=0.0, max=1.0,
                                              help="GAE lambda (default 0.9; official 0.97).")] = None,
    lr: Annotated[float | None, typer.Option(
        "--lr", help="Adam learning rate (default 2e-3, which learns fastest from scratch on CPU; the "
        "official run's 4e-4 takes smaller steps, for continuing a competent agent).")] = None,
    anneal_lr: Annotated[bool, typer.Option(
        "--anneal-lr", help="Let the learning rate fall linearly to 0 over --minutes, as the official run's schedule "
        "does over its whole budget; for the last chunk of a competent agent, not from scratch.")] = False,
    levels_file: Annotated[str | None, typer.Option(
        "--levels-file", help="Train on these levels instead of generating a pool: a Boxoban text file (e.g. the "
        "official boxoban-levels) or `sokoban gen --jsonl` records, whose `moves` drive the difficulty curriculum; "
        "made once, a pool serves every chunk. --levels, --boxes, --min-moves and --max-moves then do not apply.")
    ] = None,
    checkpoint_minutes: Annotated[float, typer.Option(
        "--checkpoint-minutes", min=0, help="Write the agent directory (its train_log.json marked partial) every "
        "this many minutes of training, so a stopped run keeps its last checkpoint; 0: only at the end.")] = 10.0,
    threads: ThreadsOpt = 1,
    seed: SeedOpt = None,
):
    """Train an agent with PPO on freshly generated train-split levels (or a --levels-file); writes config.json,
    model.safetensors, train_log.json, optimizer.safetensors (Adam's moments, which --init continues) and prints one
    sokoban.trained record.

    Example: reason --seed 0 sokoban train -o assets/sokoban/agent --minutes 30
    Continue it: reason --seed 1 sokoban train -o AGENT2 --init assets/sokoban/agent --envs 256 --minutes 60
    One pool for many chunks: reason --seed 7 sokoban gen --size 8 --boxes 3 --min-moves 18 --max-moves 80 --n 6000
    --jsonl -o POOL.jsonl, then train ... --size 8 --levels-file POOL.jsonl
    """
    from toolkit.core.extras import require

    if lr is not None and lr <= 0:  # zero would spend the whole budget changing nothing; below it, unlearning
        raise InputError(f"--lr {lr}: expected a learning rate above 0")
    require("ml", "torch", "safetensors")
    import torch

    from toolkit.sokoban.drc import AgentConfig, save_agent
    from toolkit.sokoban.generate import generate
    from toolkit.sokoban.ppo import PPOConfig, continue_from, curriculum_end
    from toolkit.sokoban.ppo import train as run

    torch.set_num_threads(threads)
    s = seed_or_global(seed)
    if arch == "ff":
        depth, ticks, kind = 2, 2, "ff"
    else:
        parts = _ints(arch, "--arch", 1)
        if len(parts) != 2:
            raise InputError(f"--arch {arch}: expected D,N or ff")
        depth, ticks, kind = parts[0], parts[1], "drc"
    grid = _size(size)
    cfg = AgentConfig(arch=kind, depth=depth, ticks=ticks, channels=channels, grid=grid,
                      encoder_relu=True if encoder_relu is None else encoder_relu)
    start, earlier, moments = ((None, None, None) if init is None
                               else continue_from(init, cfg, relu_given=encoder_relu is not None))
    if start is not None:
        cfg.encoder_relu = start.cfg.encoder_relu
    t0 = time.time()
    if levels_file is None:
        box_counts = _ints(boxes, "--boxes", 1)
        made = generate(levels_n, grid, box_counts, max_moves, "train", s, min_moves)
        levels, moves = [lv for lv, _, _ in made], [m for _, m, _ in made]
        spec = {"grid": list(grid), "boxes": box_counts, "min_moves": min_moves, "max_moves": max_moves}
    else:
        generation = {"--levels": "levels_n", "--boxes": "boxes", "--min-moves": "min_moves",
                      "--max-moves": "max_moves"}
        # by the source's name: typer's click may be its own copy, whose enum is another class
        given = [flag for flag, name in generation.items()
                 if getattr(ctx.get_parameter_source(name), "name", "DEFAULT") not in ("DEFAULT", "DEFAULT_MAP")]
        if given:
            raise InputError(f"--levels-file {levels_file}: {', '.join(given)} shape generated levels only; "
                             "drop them or the file")
        levels, moves, spec = _training_pool(levels_file, grid, size)
        levels_n = len(levels)
    gen_s = time.time() - t0
    curriculum = None if earlier is None else curriculum_end(earlier)

    def full_log(run_log: dict) -> dict:
        # the level pool's spec, so a chunk continued on other levels (e.g. harder ones) says so in its log
        log = {**run_log, "levels": levels_n, "level_spec": spec,
               "generation_seconds": round(gen_s, 1), "command_seed": s}
        if earlier is not None:
            log["continued_from"] = {"dir": str(init), "fingerprint": start.fingerprint,
                                     "frames": earlier.get("frames"), "seconds": earlier.get("seconds"),
                                     "curriculum": curriculum, "adam_moments": "saved" if moments else "fresh"}
            log["total_frames"] = log["frames"] + int(earlier.get("total_frames", earlier.get("frames", 0)))
        return log

    ppo = PPOConfig(envs=envs)
    ppo.gamma = ppo.gamma if gamma is None else gamma
    ppo.lam = ppo.lam if lam is None else lam
    ppo.lr = ppo.lr if lr is None else lr
    ppo.anneal_lr = anneal_lr
    result = run(levels, cfg, ppo, minutes * 60, s, moves=moves, init=start, curriculum=curriculum,
                 checkpoint=None if checkpoint_minutes <= 0 else
                 lambda agent, run_log, adam: save_agent(agent, out_dir, full_log(run_log), moments=adam),
                 checkpoint_seconds=checkpoint_minutes * 60, moments=moments)
    log = full_log(result.log)
    save_agent(result.agent, out_dir, log, moments=result.moments)
    size_bytes = sum(f.stat().st_size for f in out_dir.iterdir())
    with open_writer(None) as writer:
        writer.write(make_record("sokoban.trained", dir=str(out_dir), arch=kind, depth=depth, ticks=ticks,
                                 channels=channels, grid=list(grid), frames=log["frames"], updates=log["updates"],
                                 seconds=log["seconds"], bytes=size_bytes, config_hash=cfg.digest(),
                                 last=log["history"][-1] if log["history"] else None))




def _play_agent(agent_path: Path | None):
    if agent_path is not None and str(agent_path) == "random":
        return None
    return _agent(agent_path)


@app.command()
def play(
    levels: LevelsArg,
    agent_path: Annotated[Path | None, typer.Option("--agent", help="Agent directory, or 'random' (baseline).")] = None,
    think: Annotated[str, typer.Option("--think", help="Comma list of thinking steps k.")] = "0",
    think_mode: Annotated[str, typer.Option("--think-mode", help="noop (counted no-op steps) or free.")] = "noop",
    no_episodes: Annotated[bool, typer.Option("--no-episodes", help="Only the solve_rate records.")] = False,
    cap: Annotated[int, typer.Option("--cap", min=1, help="Step cap per episode.")] = 120,
    seed: SeedOpt = None, out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Greedy play with k thinking steps: sokoban.episode per level and k, sokoban.solve_rate per k with
    the exact McNemar p-value against k=0.

    Example: reason sokoban play assets/sokoban/levels/test.txt --think 0,1,2,4,8 --no-episodes
    """
    from toolkit.sokoban.evaluate import solve_rates
    from toolkit.sokoban.levels import check_grid

    ks = _ints(think, "--think", 0)
    if think_mode not in ("noop", "free"):
        raise InputError(f"--think-mode {think_mode}: expected noop or free")
    agent = _play_agent(agent_path)
    lv = _levels(levels, skip_bad)
    if agent is not None:
        check_grid(lv, agent.cfg.grid, str(agent_path or "shipped agent"))
    name = "random" if agent is None else str(agent_path or "shipped")
    with open_writer(out) as writer:
        for k, eps, row in solve_rates(agent, lv, ks, think_mode, cap, seed_or_global(seed)):
            if not no_episodes:
                for level, e in zip(lv, eps, strict=True):
                    writer.write(make_record("sokoban.episode", id=e.level_id, think=k, mode=think_mode,
                                             solved=e.solved, steps=e.steps, boxes=level.n_boxes))
            writer.write(make_record("sokoban.solve_rate", **row, agent=name))


@app.command()
def collect(
    levels: LevelsArg,
    output: Annotated[Path, typer.Option("--out", "-o", help="Dataset file (.safetensors).")],
    agent_path: AgentOpt = None,
    episodes: Annotated[int, typer.Option("--episodes", min=1, help="Episodes (levels cycled).")] = 3000,
    seed: SeedOpt = None, skip_bad: SkipBadOpt = False,
):
    """Roll the agent out greedily and store obs, last-tick cell/hidden states per layer, CA/CB labels.

    Example: reason sokoban collect train.txt --episodes 3000 -o A.safetensors
    """
    from toolkit.sokoban.levels import check_grid
    from toolkit.sokoban.probes import collect as run
    from toolkit.sokoban.probes import save_dataset

    agent = _agent(agent_path)
    lv = _levels(levels, skip_bad)
    check_grid(lv, agent.cfg.grid, str(agent_path or "shipped agent"))
    data = run(agent, lv, episodes, seed_or_global(seed))
    save_dataset(data, output, agent.fingerprint)
    with open_writer(None) as writer:
        writer.write(make_record("sokoban.dataset", path=str(output), episodes=episodes, steps=int(len(data["CA"])),
                                 solved=int(data["solved"].sum()), agent_hash=agent.fingerprint))


@app.command()
def probe(
    train_path: Annotated[Path, typer.Option("--train", help="Dataset from `collect` (train levels).")],
    test_path: Annotated[Path, typer.Option("--test", help="Dataset from `collect` (disjoint test levels).")],
    output: Annotated[Path, typer.Option("--out", "-o", help="Probes file (.safetensors); records go to stdout.")],
    concept: Annotated[str, typer.Option("--concept", help="Comma list of CA, CB.")] = "CA,CB",
    kernel: Annotated[str, typer.Option("--kernel", help="Comma list of 1, 3.")] = "1,3",
    source: Annotated[str, typer.Option("--source", help="Comma list of cell, hidden, obs, tanh-cell "
                                         "(tanh of the cell state: a diagnostic, not the paper's probe).")
                  ] = "cell,hidden,obs",
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="Seeds per probe (initialisation and order).")] = 5,
    fit: Annotated[str, typer.Option("--fit", help="conv (the official bias-free conv probe, AdamW, every "
                                     "transition) or logreg (logistic regression on standardised squares).")] = "conv",
    epochs: Annotated[int, typer.Option("--epochs", min=1, help="Epochs of the conv fit (official: 30).")] = 30,
    max_samples: Annotated[int, typer.Option("--max-samples", min=100, help="Training squares per logreg fit.")
                           ] = 100000,
    solved_only: Annotated[bool, typer.Option("--solved-only", help="Only the steps of episodes the agent solved, "
                                              "in both datasets (the official probes use all).")] = False,
    # one by default: a probe run beside a training run then takes one core, not both
    threads: ThreadsOpt = 1,
    seed: SeedOpt = None,
):
    """Fit square-level probes; one sokoban.probe per (concept, source, layer, kernel, seed) with macro F1 and
    per-class P/R/F1 on the test dataset; the first seed's weights go to --out.

    Example: reason sokoban probe --train A.safetensors --test B.safetensors --kernel 1,3 -o P.safetensors
    """
    from toolkit.sokoban.concepts import check_concept
    from toolkit.sokoban.probes import (
        FITS,
        SOURCES,
        fit_and_score,
        fit_threads,
        load_dataset,
        probe_key,
        save_probes,
        solved_steps,
    )

    if fit not in FITS:
        raise InputError(f"--fit {fit}: expected one of {', '.join(FITS)}")
    from toolkit.core.extras import require

    if fit == "conv":
        require("ml", "torch")
    require("rl", "sklearn")  # both fits are scored with its metrics
    concepts = [check_concept(c) for c in concept.split(",") if c]
    kernels = _ints(kernel, "--kernel")
    for k in kernels:
        if k not in (1, 3):
            raise InputError(f"--kernel {k}: expected 1 or 3")
    sources = [s for s in source.split(",") if s]
    for s in sources:
        if s not in SOURCES:
            raise InputError(f"--source {s}: expected one of {', '.join(SOURCES)}")
    train_data, h1 = load_dataset(train_path)
    test_data, h2 = load_dataset(test_path)
    if solved_only:
        train_data, test_data = solved_steps(train_data, train_path), solved_steps(test_data, test_path)
    if h1 != h2:
        raise InputError(f"{test_path}: collected from another agent than {train_path} ({h2} != {h1})")
    depth = train_data["cell"].shape[1]
    base = seed_or_global(seed)
    saved = {}
    with fit_threads(threads, fit), open_writer(None) as writer:
        for c in concepts:
            for s in sources:
                for layer in ([0] if s == "obs" else range(depth)):
                    for k in kernels:
                        for i in range(seeds):
                            w, b, res = fit_and_score(train_data, test_data, c, s, layer, k, base + i, fit, epochs,
                                                      max_samples)
                            key = probe_key(c, s, layer, k)
                            if i == 0:
                                saved[key] = (w, b)
                            writer.write(make_record("sokoban.probe", concept=c, source=s, layer=layer, kernel=k,
                                                     seed=base + i, key=key, fit=fit, solved_only=solved_only, **res))
    save_probes(saved, output, h1, {"concepts": concepts, "sources": sources, "kernels": kernels, "fit": fit})


def _probes_for(agent, path: Path):
    from toolkit.sokoban.probes import load_probes

    return load_probes(path, agent.fingerprint)


@app.command()
def ticks(
    levels: LevelsArg,
    probes: Annotated[Path, typer.Option("--probes", help="Probes file from `probe`.")],
    agent_path: AgentOpt = None,
    think: Annotated[int, typer.Option("--think", help="Thinking (no-op) steps before acting.")] = 5,
    kernel: Annotated[int, typer.Option("--kernel", help="Probe kernel 1 or 3.")] = 1,
    bidir: Annotated[bool, typer.Option("--bidir", help="Also the bidirectionality index (top-layer CB).")] = False,
    out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Plan F1 at every tick of the first 1+think steps (cell-state probes vs the episode's final labels):
    one sokoban.plan_f1 per (concept, step, tick, layer).

    Example: reason sokoban ticks test.txt --probes P.safetensors --think 5 | jq -c '[.step,.tick,.macro_f1]'
    """
    from toolkit.sokoban.evaluate import bidirectionality, plan_f1
    from toolkit.sokoban.levels import check_grid
    from toolkit.sokoban.rollout import rollout

    if think < 0:
        raise InputError(f"--think {think}: must be >= 0")
    if kernel not in (1, 3):
        raise InputError(f"--kernel {kernel}: expected 1 or 3")
    agent = _agent(agent_path)
    table = _probes_for(agent, probes)
    lv = _levels(levels, skip_bad)
    check_grid(lv, agent.cfg.grid, str(agent_path or "shipped agent"))
    eps = rollout(agent, lv, think, "noop", keep_obs=bidir, keep_states=True, max_state_steps=think + 1)
    with open_writer(out) as writer:
        for row in plan_f1(agent, eps, table, think, kernel, str(probes)):
            writer.write(make_record("sokoban.plan_f1", **row))
        if bidir:
            for row in bidirectionality(agent, eps, table, think, kernel):
                writer.write(make_record("sokoban.bidirectionality", **row))


@app.command()
def cases(
    levels: LevelsArg,
    agent_path: AgentOpt = None,
    max_ratio: Annotated[float, typer.Option("--max-ratio", help="Alternative route at most this x longer.")] = 1.5,
    out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Intervention cases: the agent's own route paired with a solver alternative avoiding a checkpoint square.

    Example: reason sokoban cases test.txt -o cases.jsonl
    """
    from toolkit.sokoban.interventions import build_cases
    from toolkit.sokoban.levels import check_grid

    agent = _agent(agent_path)
    lv = _levels(levels, skip_bad)
    check_grid(lv, agent.cfg.grid, str(agent_path or "shipped agent"))
    with open_writer(out) as writer:
        for i, case in enumerate(build_cases(agent, lv, max_ratio)):
            writer.write(make_record("sokoban.case", half="pick" if i % 2 == 0 else "test",
                                     agent_hash=agent.fingerprint, **case))


@app.command()
def intervene(
    cases_path: Annotated[Path, typer.Option("--cases", help="sokoban.case JSONL.")],
    probes: Annotated[Path, typer.Option("--probes", help="Probes file (CA cell 1x1 probes are used).")],
    agent_path: AgentOpt = None,
    alphas: Annotated[str, typer.Option("--alphas", help="Comma list of scales.")] = "0.25,0.5,1,2,4",
    control: Annotated[str, typer.Option("--control", help="random (the official: a random-init conv probe scaled "
                                         "to the probe's norm), random-per-square (a random vector of the row's norm "
                                         "at each square) or none.")] = "random",
    protocol: Annotated[str, typer.Option("--protocol", help="official (NEVER writes all episode, direction writes "
                                          "until the agent enters the new route) or first-push (all writes stop at "
                                          "the first push).")] = "official",
    cap: Annotated[int, typer.Option("--cap", min=1, help="Step cap per episode.")] = 120,
    seed: SeedOpt = None, out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Pick (layer, alpha) on the 'pick' half of the cases, then test it and the random control on the 'test' half.

    Example: reason sokoban intervene --cases cases.jsonl --probes P.safetensors --alphas 0.25,0.5,1,2,4
    """
    from toolkit.core.records import read_records
    from toolkit.sokoban.interventions import ARMS, PROTOCOLS, case_level, sweep
    from toolkit.sokoban.probes import probe_key

    scales = _floats(alphas, "--alphas")
    if control != "none" and control not in ARMS[1:]:
        raise InputError(f"--control {control}: expected random, random-per-square or none")
    if protocol not in PROTOCOLS:
        raise InputError(f"--protocol {protocol}: expected one of {', '.join(PROTOCOLS)}")
    agent = _agent(agent_path)
    bad = BadLines()
    all_cases = []
    for i, rec in enumerate(read_records(str(cases_path), types=["sokoban.case"], skip_bad=skip_bad, bad=bad), 1):
        case_level(rec, f"{cases_path}:{i}")
        if rec.get("agent_hash") not in (None, agent.fingerprint):
            raise InputError(f"{cases_path}:{i}: case built for another agent ({rec.get('agent_hash')})")
        all_cases.append(rec)
    report_bad(bad)
    if not all_cases:
        raise InputError(f"{cases_path}: no cases")
    table = _probes_for(agent, probes)
    weights = {}
    for layer in range(agent.cfg.depth):
        key = probe_key("CA", "cell", layer, 1)
        if key not in table:
            raise InputError(f"{probes}: no probe '{key}'")
        weights[layer] = table[key][0]
    pick = [c for c in all_cases if c.get("half") == "pick"] or all_cases[::2]
    test = [c for c in all_cases if c.get("half") == "test"] or all_cases[1::2] or all_cases
    kinds = {"sweep": "sokoban.intervention_sweep", "case": "sokoban.intervention",
             "summary": "sokoban.intervention_summary"}
    with open_writer(out) as writer:
        for kind, row in sweep(agent, pick, test, weights, scales, [] if control == "none" else [control],
                               seed_or_global(seed), cap, protocol):
            writer.write(make_record(kinds[kind], **row))


@app.command()
def export(
    onnx: Annotated[Path | None, typer.Option("--onnx", help="ONNX file to write (one agent step).")] = None,
    thinker: Annotated[Path | None, typer.Option("--thinker", help="Thinker-format .safetensors to write.")] = None,
    agent_path: AgentOpt = None,
):
    """Export one step (obs, state) -> (logits, value, new state) to ONNX and check it against torch, and/or the
    weights as a Thinker DRCNet state dict (which `import --thinker` reads back).

    Example: reason sokoban export --agent assets/sokoban/agent --onnx agent.onnx
    """
    if onnx is None and thinker is None:
        raise InputError("export: give --onnx FILE and/or --thinker FILE")
    agent = _agent(agent_path)
    with open_writer(None) as writer:
        if onnx is not None:
            from toolkit.core.extras import require

            require("rl", "onnx", "onnxruntime")
            from toolkit.sokoban.export import export_onnx, max_difference

            export_onnx(agent, onnx)
            writer.write(make_record("sokoban.export", path=str(onnx), format="onnx", bytes=onnx.stat().st_size,
                                     max_abs_diff=max_difference(agent, onnx), agent_hash=agent.fingerprint))
        if thinker is not None:
            from safetensors.torch import save_file

            from toolkit.sokoban.thinker_io import to_thinker

            thinker.parent.mkdir(parents=True, exist_ok=True)
            save_file({k: v.contiguous() for k, v in to_thinker(agent).items()}, str(thinker))
            writer.write(make_record("sokoban.export", path=str(thinker), format="thinker",
                                     bytes=thinker.stat().st_size, agent_hash=agent.fingerprint))


@app.command("import")
def import_thinker(
    thinker: Annotated[Path, typer.Option("--thinker", help="Thinker DRC actor (.tar, .pt, .safetensors).")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Agent directory to write.")],
    ticks: Annotated[int, typer.Option("--ticks", min=1, help="Ticks per step N (the official DRC(3,3): 3).")] = 3,
    trust_pickle: Annotated[bool, typer.Option("--trust-pickle", help="Allow loading a pickle checkpoint.")] = False,
):
    """Convert a Thinker-format DRC actor (e.g. Bush et al.'s ckp_actor_realstep250m.tar) into an agent directory
    that every other command takes via --agent; levels must match its grid (8x8 interiors of Boxoban 10x10 files).

    Example: reason sokoban import --thinker ckp_actor_realstep250m.tar --trust-pickle -o drc33
    """
    from toolkit.core.extras import require

    require("ml", "torch", "safetensors")
    from toolkit.sokoban.drc import load_agent, save_agent
    from toolkit.sokoban.thinker_io import from_thinker, load_thinker_file

    agent = from_thinker(load_thinker_file(thinker, trust_pickle), ticks, str(thinker))
    save_agent(agent, out_dir, {"imported_from": str(thinker), "format": "thinker"}, half=False)
    loaded = load_agent(out_dir)
    with open_writer(None) as writer:
        writer.write(make_record("sokoban.imported", dir=str(out_dir), source=str(thinker), depth=agent.cfg.depth,
                                 ticks=ticks, channels=agent.cfg.channels, grid=list(agent.cfg.grid),
                                 agent_hash=loaded.fingerprint, config_hash=agent.cfg.digest()))


@app.command()
def show(
    level_path: Annotated[str, typer.Argument(help="Level file (the first level is shown).")],
    probes: Annotated[Path, typer.Option("--probes", help="Probes file from `probe`.")],
    agent_path: AgentOpt = None,
    concept: Annotated[str, typer.Option("--concept", help="CA or CB.")] = "CA",
    layer: Annotated[int | None, typer.Option("--layer", min=0, help="Layer decoded (default: the top).")] = None,
    steps: Annotated[int, typer.Option("--steps", min=1, help="Env steps shown.")] = 3,
    gif: Annotated[Path | None, typer.Option("--gif", help="Also draw the arrows per step and tick as a GIF.")] = None,
    out: OutOpt = None,
):
    """The decoded plan as arrows per step and tick: one sokoban.plan record each (rows of ^ v < > over the level);
    with --gif, an animated GIF with one frame per step and tick.

    Example: reason sokoban show assets/sokoban/levels/test.txt --probes assets/sokoban/probes.safetensors
    """
    import numpy as np

    from toolkit.sokoban.concepts import check_concept
    from toolkit.sokoban.levels import check_grid
    from toolkit.sokoban.probes import features, predict, probe_key
    from toolkit.sokoban.rollout import rollout

    check_concept(concept)
    agent = _agent(agent_path)
    table = _probes_for(agent, probes)
    level = _levels(level_path, False)[0]
    check_grid([level], agent.cfg.grid, str(agent_path or "shipped agent"))
    d = agent.cfg.depth - 1 if layer is None else layer
    if d >= agent.cfg.depth:
        raise InputError(f"--layer {d}: the agent has {agent.cfg.depth} layers")
    key = probe_key(concept, "cell", d, 1)
    if key not in table:
        raise InputError(f"{probes}: no probe '{key}'")
    from toolkit.sokoban.render import frame, obs_rows, write_gif

    (ep,) = rollout(agent, [level], keep_obs=True, keep_states=True, max_state_steps=steps)
    arrows = np.array(list(" ^v<>"))
    frames = []
    with open_writer(out) as writer:
        for step, states in enumerate(ep.states):
            base = obs_rows(ep.obs[step])
            for tick in range(states.shape[0]):
                grid = states[tick, 0, d][None].astype(np.float32)
                pred = predict(*table[key], features(grid, 1)).reshape(agent.cfg.grid)
                rows = ["".join(arrows[k] if k else base[r][c] for c, k in enumerate(line))
                        for r, line in enumerate(pred)]
                writer.write(make_record("sokoban.plan", id=level.id, step=step, tick=tick, layer=d,
                                         concept=concept, rows=rows))
                if gif is not None:
                    frames.append(frame(base, pred, f"{concept} L{d} step {step} tick {tick}"))
        if gif is not None:
            write_gif(frames, gif)
            writer.write(make_record("sokoban.plan_gif", id=level.id, path=str(gif), frames=len(frames),
                                     concept=concept, layer=d))
