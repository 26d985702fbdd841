"""The CSBM benchmark: 8 settings (4 structure shifts, each also with an attribute shift) × seeds × base TTAs,
each with and without Matcha, plus the oracle γ; cells are appended as they finish so `--resume` continues.

One job = one structure shift and one seed: it draws that seed's source graph, trains the GPRGNN, and evaluates
the plain and `-attr` targets (same source model). The base-TTA cell is round 0 of the Matcha run: the base TTA
with the source γ, exactly what a run without Matcha computes.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field

from toolkit.core.errors import InputError
from toolkit.core.records import make_record
from toolkit.matcha.csbm import generate_csbm
from toolkit.matcha.io import Graph, graph_stats
from toolkit.matcha.output import DEFAULT_SCHEDULE, DEFAULT_STOP, PAPER_OUTPUT
from toolkit.matcha.tta import TTAS

# (source degree, source homophily) -> (target degree, target homophily); from the paper's CSBM scripts
SHIFTS = {
    "homo2hetero": ((5, 0.8), (5, 0.2)),
    "hetero2homo": ((5, 0.2), (5, 0.8)),
    "high2low": ((10, 0.8), (2, 0.8)),
    "low2high": ((2, 0.8), (10, 0.8)),
}
SETTINGS = [s for base in SHIFTS for s in (base, base + "-attr")]
ATTR_DELTA = 0.02
TARGET_SEED_OFFSET = 1000


@dataclass
class BenchConfig:
    nodes: int = 5000
    features: int = 2000
    mu: float = 0.03
    rounds: int = 50
    lr: float = 1.0
    epochs: int = 500
    fixed_graphs: bool = False
    tta_hp: dict = field(default_factory=dict)  # base-TTA hyperparameters other than the paper's (tta.DEFAULTS)
    schedule: str = DEFAULT_SCHEDULE  # Matcha's step on γ over the rounds, and the round output
    stop: str = DEFAULT_STOP

    def key(self) -> dict:
        key = asdict(self)
        if not key["tta_hp"]:  # cells made with the paper's hyperparameters carry no tta_hp
            del key["tta_hp"]
        if (key["schedule"], key["stop"]) == PAPER_OUTPUT:  # cells made before the choice existed
            del key["schedule"], key["stop"]
        return key


def parse_settings(text: str) -> list[str]:
    if text.strip() == "all":
        return list(SETTINGS)
    out = []
    for name in (s.strip() for s in text.split(",") if s.strip()):
        if name not in SETTINGS:
            raise InputError(f"--settings {name!r}: unknown setting (one of: all, {', '.join(SETTINGS)})")
        out.append(name)
    return out


def parse_ttas(text: str) -> list[str]:
    out = [t.strip() for t in text.split(",") if t.strip()]
    for t in out:
        if t not in TTAS:
            raise InputError(f"--tta {t!r}: unknown base TTA (one of: {', '.join(TTAS)})")
    return out


def parse_seeds(text: str) -> list[int]:
    seeds = []
    try:
        for part in text.split(","):
            lo, sep, hi = part.partition("-")
            seeds.extend(range(int(lo), int(hi) + 1) if sep else [int(lo)])
    except ValueError:
        raise InputError(f"--seeds {text!r}: expected e.g. 0-4 or 0,2,7") from None
    return seeds


def make_pair(setting: str, seed: int, nodes: int = 5000, features: int = 2000, mu: float = 0.03,
              fixed_graphs: bool = False) -> tuple[Graph, Graph]:
    """Source graph from `seed`, target from 1000 + seed (with --fixed-graphs: seeds 0 and 1000 for every seed)."""
    base = setting.removesuffix("-attr")
    if base not in SHIFTS:
        raise InputError(f"--setting {setting!r}: unknown setting (one of: {', '.join(SETTINGS)})")
    (sd, sh), (td, th) = SHIFTS[base]
    s = 0 if fixed_graphs else seed
    delta = ATTR_DELTA if setting.endswith("-attr") else 0.0
    source = generate_csbm(nodes, features, mu, 0.0, sd, sh, seed=s)
    target = generate_csbm(nodes, features, mu, delta, td, th, seed=s + TARGET_SEED_OFFSET)
    return source, target


@dataclass
class Job:
    shift: str
    seed: int
    settings: list[str]
    ttas: list[str]
    config: BenchConfig
    missing: list[tuple] = field(default_factory=list)  # (setting, tta, matcha) still to write
    threads: int = 1                 # torch threads per job (0: leave torch's default)
    save_dir: str | None = None      # keep the source model in SAVE_DIR/SHIFT-seedS
    models_dir: str | None = None    # reuse the source model saved in MODELS_DIR/SHIFT-seedS instead of training


def source_model(job: Job, source: Graph):
    """(model, training info, AdaNPC memory) of a job: loaded from --models when saved there, else trained."""
    from pathlib import Path

    from toolkit.matcha.gprgnn import CONFIG, load_model, save_model, source_memory, train_gprgnn

    saved = Path(job.models_dir) / f"{job.shift}-seed{job.seed}" if job.models_dir else None
    if saved is not None and (saved / "config.json").exists():
        model, memory = load_model(str(saved))
        return model, json.loads((saved / CONFIG).read_text())["train"], memory
    model, info = train_gprgnn(source, epochs=job.config.epochs, seed=job.seed)
    memory = source_memory(model, source)
    if job.save_dir:
        save_model(model, Path(job.save_dir) / f"{job.shift}-seed{job.seed}", info, memory)
    return model, info, memory


def cell_key(cell: dict) -> tuple:
    return (cell["setting"], cell["seed"], cell["tta"], bool(cell["matcha"]))


def plan_jobs(settings: list[str], seeds: list[int], ttas: list[str], config: BenchConfig,
              done: set[tuple]) -> list[Job]:
    jobs = []
    for seed in seeds:  # seed-major: a partial run covers every setting for its first seeds
        for base in SHIFTS:
            mine = [s for s in settings if s.removesuffix("-attr") == base]
            missing = [(s, t, m) for s in mine for t in ttas for m in (False, True)
                       if (s, seed, t, m) not in done]
            if missing:
                jobs.append(Job(base, seed, mine, ttas, config, missing))
    return jobs


def run_job(job: Job) -> list[dict]:
    import torch

    from toolkit.matcha.adapt import matcha_adapt, oracle_gamma

    if job.threads:
        torch.set_num_threads(job.threads)
    cfg = job.config
    start = time.perf_counter()
    settings = sorted({s for s, _, _ in job.missing}, key=job.settings.index)
    source, _ = make_pair(job.shift, job.seed, cfg.nodes, cfg.features, cfg.mu, cfg.fixed_graphs)
    model, info, memory = source_model(job, source)
    train_s = time.perf_counter() - start
    cells = []
    for setting in settings:
        _, target = make_pair(setting, job.seed, cfg.nodes, cfg.features, cfg.mu, cfg.fixed_graphs)
        stats = graph_stats(target)
        o_gamma, o_acc = oracle_gamma(model, target)
        for tta in job.ttas:
            want = [m for m in (False, True) if (setting, tta, m) in job.missing]
            if not want:
                continue
            res = matcha_adapt(model, target, tta, rounds=cfg.rounds, lr=cfg.lr, schedule=cfg.schedule,
                               stop=cfg.stop, memory=memory, **cfg.tta_hp)
            accs = [row["accuracy"] for row in res.trace]
            pics = [row["pic"] for row in res.trace]
            pic_round = min(range(len(pics)), key=pics.__getitem__)
            paper = accs[-1]
            if True in want and cfg.schedule != PAPER_OUTPUT[0]:  # the paper's output, beside ours (a constant
                # step's trace is the paper's run, so its last round is that output)
                paper = matcha_adapt(model, target, tta, rounds=cfg.rounds, lr=cfg.lr, schedule="constant",
                                     stop="last", memory=memory, **cfg.tta_hp).trace[-1]["accuracy"]
            common = dict(setting=setting, seed=job.seed, tta=tta, source_accuracy=round(info["train_accuracy"], 6),
                          oracle_accuracy=round(o_acc, 6), oracle_gamma=[round(g, 6) for g in o_gamma],
                          target_homophily=stats["edge_homophily"], target_degree=stats["mean_degree"],
                          config=cfg.key(), train_s=round(train_s, 2))
            for m in want:
                extra = (dict(accuracy=accs[res.chosen_round], output_round=res.chosen_round,
                              accuracy_last_round=accs[-1], accuracy_paper=paper,
                              accuracy_pic_stop=accs[pic_round], pic_stop_round=pic_round,
                              gamma=[round(g, 6) for g in res.gamma_after], accuracy_trace=accs,
                              pic_trace=pics, wall_s=res.wall_s)
                         if m else dict(accuracy=accs[0], gamma=[round(g, 6) for g in res.gamma_before]))
                cells.append(make_record("matcha.cell", 1, **common, matcha=m, **extra))
    return cells
