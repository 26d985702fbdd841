"""`reason matcha`: test-time adaptation of a GNN's hop weights under graph structure shift (Matcha)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, RayOpt, ResumeOpt, SeedOpt, WorkersOpt, open_writer, seed_or_global

app = typer.Typer(help="Matcha: adapt a GPRGNN's hop weights at test time (PIC loss on a base TTA's predictions) "
                       "on CSBM graphs or your own.\n\n"
                       "Example: reason matcha pair --setting homo2hetero --seed 7 --out-dir g && "
                       "reason matcha train --graph g/source.npz --out m && "
                       "reason matcha adapt --model m --graph g/target.npz --tta tent | jq .accuracy",
                  no_args_is_help=True)

AllowPickleOpt = Annotated[bool, typer.Option("--allow-pickle", help="Allow a pickled torch_geometric Data in a "
                                                                     ".pt graph (only for files you trust).")]
DeviceOpt = Annotated[str, typer.Option("--device", help="cpu, cuda or auto.")]


def _require() -> None:
    from toolkit.core.extras import require

    require("ml", "torch", "safetensors")


def _load(path: Path, allow_pickle: bool = False, need_labels: bool = False):
    from toolkit.matcha.io import load_graph

    return load_graph(path, allow_pickle=allow_pickle, need_labels=need_labels)


def _write_graph(graph, out: Path, **extra) -> dict:
    from toolkit.matcha.io import graph_stats, save_graph
    from toolkit.matcha.records import graph_record

    save_graph(graph, out)
    return graph_record(str(out), graph_stats(graph), **extra)


@app.command()
def csbm(
    nodes: Annotated[int, typer.Option("--nodes", "-n", help="Node count (two balanced classes).")] = 5000,
    features: Annotated[int, typer.Option("--features", "-p", help="Feature dimension.")] = 2000,
    mu: Annotated[float, typer.Option("--mu", help="Class mean ±μ along 𝟙/√p.")] = 0.03,
    delta_mu: Annotated[float, typer.Option("--delta-mu", help="Attribute shift δ added to both means.")] = 0.0,
    degree: Annotated[float, typer.Option("--degree", "-d", help="d: pair probability d·h/n within, d(1-h)/n "
                                                                 "across (mean degree ≈ d/2).")] = 5.0,
    homophily: Annotated[float, typer.Option("--homophily", help="h in [0, 1].")] = 0.8,
    seed: SeedOpt = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Graph file (.npz) to write.")] = Path("graph.npz"),
):
    """Draw a CSBM graph and write it; one matcha.graph record (N, E, realised degree, homophily, class sizes).

    Example: reason matcha csbm --nodes 5000 --features 2000 --mu 0.03 --degree 5 --homophily 0.8 --seed 1 -o g.npz
    """
    from toolkit.matcha.csbm import generate_csbm

    graph = generate_csbm(nodes, features, mu, delta_mu, degree, homophily, seed=seed_or_global(seed))
    with open_writer(None) as w:
        w.write(_write_graph(graph, out, seed=seed_or_global(seed)))


@app.command()
def pair(
    setting: Annotated[str, typer.Option("--setting", help="homo2hetero, hetero2homo, high2low, low2high, "
                                                           "each optionally with -attr.")],
    seed: SeedOpt = None,
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Folder for source.npz and target.npz.")] = Path("."),
    nodes: Annotated[int, typer.Option("--nodes", "-n")] = 5000,
    features: Annotated[int, typer.Option("--features", "-p")] = 2000,
    mu: Annotated[float, typer.Option("--mu")] = 0.03,
    fixed_graphs: Annotated[bool, typer.Option("--fixed-graphs", help="Seeds 0/1000 whatever --seed (the "
                                                                      "paper's single graph pair).")] = False,
):
    """Source (seed S) and target (seed 1000+S) CSBM graphs of one shift setting; two matcha.graph records.

    Example: reason matcha pair --setting high2low-attr --seed 3 --out-dir pairs/h2l
    """
    from toolkit.matcha.bench import make_pair

    s = seed_or_global(seed)
    source, target = make_pair(setting, s, nodes, features, mu, fixed_graphs)
    with open_writer(None) as w:
        w.write(_write_graph(source, out_dir / "source.npz", role="source", setting=setting, seed=s))
        w.write(_write_graph(target, out_dir / "target.npz", role="target", setting=setting, seed=s))


@app.command()
def info(
    graph: Annotated[Path, typer.Argument(help="Graph file (.npz, H2GCN .npz or .pt).")],
    allow_pickle: AllowPickleOpt = False,
):
    """Facts of any graph: N, E, realised mean degree, edge homophily, class sizes (one matcha.graph record).

    Example: reason matcha info g/target.npz | jq .edge_homophily
    """
    from toolkit.matcha.io import graph_stats
    from toolkit.matcha.records import graph_record

    g = _load(graph, allow_pickle)
    with open_writer(None) as w:
        w.write(graph_record(str(graph), graph_stats(g)))


@app.command()
def shift(
    graph: Annotated[Path, typer.Option("--graph", "-g", help="Input graph.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Shifted graph (.npz).")],
    homophily: Annotated[float | None, typer.Option("--homophily", help="Drop edges until the edge homophily "
                                                                        "is this.")] = None,
    keep_edges: Annotated[float | None, typer.Option("--keep-edges", help="Keep this fraction of edges "
                                                                          "(degree shift).")] = None,
    feature_shift: Annotated[float | None, typer.Option("--feature-shift", help="Add δ·𝟙/√F to every "
                                                                                "node.")] = None,
    seed: SeedOpt = None,
    allow_pickle: AllowPickleOpt = False,
):
    """Apply structure/attribute shifts to any graph (in the order homophily, keep-edges, feature shift).

    Example: reason matcha shift --graph g/source.npz --homophily 0.2 --seed 42 -o g/hetero.npz
    """
    from toolkit.core.errors import InputError
    from toolkit.matcha.shift import feature_shift as fshift
    from toolkit.matcha.shift import keep_edges as kedges
    from toolkit.matcha.shift import match_homophily

    if homophily is None and keep_edges is None and feature_shift is None:
        raise InputError("matcha shift: give at least one of --homophily, --keep-edges, --feature-shift")
    if homophily is not None and not 0.0 <= homophily <= 1.0:
        raise InputError(f"--homophily {homophily}: must lie in [0, 1]")
    g = _load(graph, allow_pickle, need_labels=homophily is not None)
    s = seed_or_global(seed) if seed is not None else 42
    if homophily is not None:
        g = match_homophily(g, homophily, s)
    if keep_edges is not None:
        g = kedges(g, keep_edges, s)
    if feature_shift is not None:
        g = fshift(g, feature_shift)
    with open_writer(None) as w:
        w.write(_write_graph(g, out, source=str(graph), seed=s))


@app.command()
def train(
    graph: Annotated[Path, typer.Option("--graph", "-g", help="Labelled source graph.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Model directory to write.")],
    K: Annotated[int, typer.Option("--K", min=1, help="Propagation hops.")] = 9,
    hidden: Annotated[int, typer.Option("--hidden", min=1)] = 32,
    epochs: Annotated[int, typer.Option("--epochs", min=1)] = 500,
    lr: Annotated[float, typer.Option("--lr")] = 0.01,
    weight_decay: Annotated[float, typer.Option("--weight-decay")] = 5e-4,
    seed: SeedOpt = None,
    device: DeviceOpt = "cpu",
    allow_pickle: AllowPickleOpt = False,
):
    """Train a GPRGNN on a source graph: model.safetensors, config.json, training_log.json, memory.safetensors.

    Example: reason matcha train --graph g/source.npz --out models/m --epochs 500
    """
    _require()
    from toolkit.core import console
    from toolkit.core.models import pick_device
    from toolkit.core.records import make_record
    from toolkit.matcha.gprgnn import save_model, source_memory, train_gprgnn

    dev = pick_device(device)
    g = _load(graph, allow_pickle, need_labels=True)
    model, info = train_gprgnn(g, K=K, hidden=hidden, epochs=epochs, lr=lr, weight_decay=weight_decay,
                               seed=seed_or_global(seed), device=dev)
    save_model(model.cpu(), out, info, source_memory(model.cpu(), g))
    console.info(f"trained in {info['wall_s']:.1f} s; source accuracy {info['train_accuracy']:.4f}")
    with open_writer(None) as w:
        w.write(make_record("matcha.train", 1, model=str(out), graph=str(graph), train_accuracy=round(
            info["train_accuracy"], 6), hop_weights=[round(v, 6) for v in model.hop_weights.tolist()],
            epochs=epochs, lr=lr, weight_decay=weight_decay, K=K, hidden=hidden, seed=seed_or_global(seed),
            wall_s=info["wall_s"]))


def _check_output(stop: str, schedule: str) -> None:
    from toolkit.core.errors import InputError
    from toolkit.matcha.output import SCHEDULES, STOPS

    if stop not in STOPS:
        raise InputError(f"--stop {stop!r}: expected {' or '.join(STOPS)}")
    if schedule not in SCHEDULES:
        raise InputError(f"--schedule {schedule!r}: expected {' or '.join(SCHEDULES)}")


@app.command()
def adapt(
    model: Annotated[str, typer.Option("--model", "-m", help="Model directory or py:MODULE:FN.")],
    graph: Annotated[Path, typer.Option("--graph", "-g", help="Target graph (labels optional).")],
    tta: Annotated[str, typer.Option("--tta", help="Base TTA: erm, tent, t3a or adanpc.")] = "erm",
    matcha: Annotated[bool, typer.Option("--matcha/--no-matcha", help="Adapt γ with the PIC loss.")] = True,
    rounds: Annotated[int, typer.Option("--rounds", help="Matcha rounds.")] = 50,
    lr: Annotated[float, typer.Option("--lr", help="SGD learning rate on γ.")] = 1.0,
    stop: Annotated[str, typer.Option("--stop", help="Round output: pic (lowest PIC loss, label-free) or last "
                                                     "(the paper's).")] = "pic",
    schedule: Annotated[str, typer.Option("--schedule", help="Step on γ over the rounds: constant (the paper's) "
                                                             "or cosine (annealed to ~0 by the last round).")]
    = "constant",
    oracle: Annotated[bool, typer.Option("--oracle", help="Also fit γ on the target labels (upper bound).")] = False,
    nodes_out: Annotated[Path | None, typer.Option("--nodes-out", help="Write matcha.prediction per node.")] = None,
    tent_lr: Annotated[float, typer.Option("--tent-lr")] = 0.1,
    tent_steps: Annotated[int, typer.Option("--tent-steps", min=0)] = 10,
    t3a_filter_k: Annotated[int, typer.Option("--t3a-filter-k", help="Supports per class (-1: all).")] = 2000,
    t3a_temperature: Annotated[float, typer.Option("--t3a-temperature", help="T3A logits / T (1: as "
                                                                             "published).")] = 1.0,
    adanpc_k: Annotated[int, typer.Option("--adanpc-k", min=1)] = 10,
    adanpc_tau: Annotated[float, typer.Option("--adanpc-tau")] = 0.001,
    seed: SeedOpt = None,
    device: DeviceOpt = "cpu",
    allow_pickle: AllowPickleOpt = False,
):
    """Adapt a trained model to a target graph: one matcha.result (accuracy if labelled, γ, PIC per round).

    Example: reason matcha adapt --model m --graph g/target.npz --tta t3a --rounds 50 --oracle | jq .accuracy
    """
    from toolkit.core.errors import InputError

    if tta not in ("erm", "tent", "t3a", "adanpc"):
        raise InputError(f"--tta {tta!r}: unknown base TTA (one of: erm, tent, t3a, adanpc)")
    if rounds < 0:
        raise InputError(f"--rounds {rounds}: must be >= 0")
    stop = "last" if stop == "rounds" else stop  # the name it had before
    _check_output(stop, schedule)
    _require()
    import torch

    from toolkit.core import console
    from toolkit.core.models import pick_device
    from toolkit.matcha.adapt import matcha_adapt, oracle_gamma
    from toolkit.matcha.gprgnn import expected_features, load_model
    from toolkit.matcha.io import check_labels
    from toolkit.matcha.records import prediction_records, result_record
    torch.manual_seed(seed_or_global(seed))
    dev = pick_device(device)
    net, memory = load_model(model, dev)
    g = _load(graph, allow_pickle)
    want = expected_features(net)
    if want is not None and want != g.num_features:
        raise InputError(f"{graph}: model expects {want} features, graph has {g.num_features}")
    check_labels(g, net.classifier.out_features, graph)
    if tta == "adanpc" and memory is None:
        raise InputError(f"--tta adanpc: {model} has no memory.safetensors (source features for AdaNPC)")
    if g.edge_index.shape[1] == 0:
        console.warn(f"{graph}: the target graph has no edges; hop weights act on the node itself only")
    if oracle and g.y is None:
        raise InputError(f"--oracle: {graph} has no labels (key 'y')")
    res = matcha_adapt(net, g, tta, matcha=matcha, rounds=rounds, lr=lr, stop=stop, schedule=schedule,
                       memory=memory, device=dev,
                       tent_lr=tent_lr, tent_steps=tent_steps, t3a_filter_k=t3a_filter_k,
                       t3a_temperature=t3a_temperature, adanpc_k=adanpc_k, adanpc_tau=adanpc_tau)
    extra = {"model": model, "graph": str(graph), "stop": stop, "schedule": schedule}
    if oracle:
        o_gamma, o_acc = oracle_gamma(net, g, device=dev)
        extra.update(oracle_accuracy=round(o_acc, 6), oracle_gamma=[round(v, 6) for v in o_gamma])
    record = result_record(res, g, **extra)
    if record["accuracy"] is not None:
        console.info(f"{tta}{' + Matcha' if matcha else ''}: accuracy {record['accuracy_base']:.4f} -> "
                     f"{record['accuracy']:.4f}")
    if nodes_out is not None:
        with open_writer(nodes_out) as w:
            w.write_all(prediction_records(res, g))
    with open_writer(None) as w:
        w.write(record)


@app.command()
def bench(
    settings: Annotated[str, typer.Option("--settings", help="all or a comma list of settings.")] = "all",
    seeds: Annotated[str, typer.Option("--seeds", help="e.g. 0-4 or 0,3.")] = "0-4",
    tta: Annotated[str, typer.Option("--tta", help="Comma list of base TTAs.")] = "erm,tent,t3a,adanpc",
    nodes: Annotated[int, typer.Option("--nodes", "-n")] = 5000,
    features: Annotated[int, typer.Option("--features", "-p")] = 2000,
    mu: Annotated[float, typer.Option("--mu")] = 0.03,
    rounds: Annotated[int, typer.Option("--rounds", min=0)] = 50,
    lr: Annotated[float, typer.Option("--lr")] = 1.0,
    epochs: Annotated[int, typer.Option("--epochs", min=1)] = 500,
    fixed_graphs: Annotated[bool, typer.Option("--fixed-graphs", help="One graph pair for all seeds "
                                                                      "(the paper's way).")] = False,
    save_models: Annotated[Path | None, typer.Option("--save-models", help="Keep each source model in "
                                                                           "DIR/SHIFT-seedS.")] = None,
    models: Annotated[Path | None, typer.Option("--models", help="Reuse the source models saved in "
                                                                 "DIR/SHIFT-seedS (train the missing).")] = None,
    tent_lr: Annotated[float | None, typer.Option("--tent-lr", help="Default 0.1 (the paper's).")] = None,
    tent_steps: Annotated[int | None, typer.Option("--tent-steps", min=0, help="Default 10.")] = None,
    t3a_filter_k: Annotated[int | None, typer.Option("--t3a-filter-k", help="Default 2000.")] = None,
    t3a_temperature: Annotated[float | None, typer.Option("--t3a-temperature", help="Default 1.")] = None,
    schedule: Annotated[str, typer.Option("--schedule", help="Matcha's step on γ: constant (the paper's) or "
                                                             "cosine; cells also hold the paper's output.")]
    = "constant",
    stop: Annotated[str, typer.Option("--stop", help="Round output: pic (lowest PIC loss) or last (the "
                                                     "paper's).")] = "pic",
    out: OutOpt = None,
    resume: ResumeOpt = False,
    workers: WorkersOpt = 1,
    ray: RayOpt = None,
):
    """8 CSBM settings × seeds × base TTAs, each with and without Matcha: one matcha.cell per combination.

    Example: reason matcha bench --settings all --seeds 0-4 --workers 2 --resume -o cells.jsonl
    """
    _require()
    from toolkit.core.errors import InputError
    from toolkit.core.parallel import iter_jobs
    from toolkit.matcha.bench import BenchConfig, parse_seeds, parse_settings, parse_ttas, plan_jobs, run_job
    from toolkit.matcha.report import previous_cells

    hp = {k: v for k, v in dict(tent_lr=tent_lr, tent_steps=tent_steps, t3a_filter_k=t3a_filter_k,
                                t3a_temperature=t3a_temperature).items() if v is not None}
    _check_output(stop, schedule)
    cfg = BenchConfig(nodes, features, mu, rounds, lr, epochs, fixed_graphs, hp, schedule, stop)
    names, seed_list, ttas = parse_settings(settings), parse_seeds(seeds), parse_ttas(tta)
    if resume and out is None:
        raise InputError("--resume needs --out FILE (the cells written so far)")
    done = previous_cells(out, cfg) if resume else set()
    jobs = plan_jobs(names, seed_list, ttas, cfg, done)
    for job in jobs:
        job.threads = 1 if workers > 1 or ray else 0
        job.save_dir = str(save_models) if save_models else None
        job.models_dir = str(models) if models else None
    with open_writer(out, resume) as w:
        for cells in iter_jobs(run_job, jobs, workers=workers, ray_address=ray, description="matcha bench"):
            w.write_all(cells)


@app.command()
def report(
    cells: Annotated[Path, typer.Argument(help="matcha.cell records (JSONL).")],
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the table as Markdown on stderr.")] = False,
    md_out: Annotated[Path | None, typer.Option("--md-out", help="Also write the Markdown table here.")] = None,
    png: Annotated[Path | None, typer.Option("--png", help="Plot source, Matcha and oracle γ per setting.")] = None,
    seed: SeedOpt = None,
):
    """Mean ± std over seeds per setting and TTA, paired Matcha − base differences, oracle-γ gap closed, claims.

    Example: reason matcha report cells.jsonl --markdown --png gammas.png | jq -c .claims
    """
    from toolkit.core import console
    from toolkit.core.records import load_records
    from toolkit.matcha.report import markdown_table, plot_gammas, summarize

    rows = load_records(cells, types=["matcha.cell"], required=["setting", "seed", "tta", "matcha", "accuracy"])
    table = summarize(rows)
    text = markdown_table(table)
    if markdown:
        console.console.print(text, markup=False, highlight=False, soft_wrap=True)
    if md_out is not None:
        md_out.write_text(text + "\n")
    if png is not None:
        plot_gammas(rows, png)
    with open_writer(None) as w:
        w.write(table)


@app.command("select")
def select_cmd(
    models: Annotated[Path, typer.Option("--models", help="Saved source models DIR/SHIFT-seedS (bench "
                                                          "--save-models).")],
    tta: Annotated[str, typer.Option("--tta", help="Base TTA whose hyperparameters are chosen.")],
    grid: Annotated[list[str], typer.Option("--grid", help="Candidates 'k=v1,v2 k2=v3' (product; repeatable); keys: "
                                                           "lr, rounds, schedule, stop (Matcha), tent_lr, tent_steps, "
                                                           "t3a_filter_k, t3a_temperature, adanpc_k, adanpc_tau.")],
    settings: Annotated[str, typer.Option("--settings", help="Validation settings.")] = "homo2hetero,hetero2homo",
    seeds: Annotated[str, typer.Option("--seeds", help="Validation seeds (not the ones you report).")] = "0",
    nodes: Annotated[int, typer.Option("--nodes", "-n")] = 5000,
    features: Annotated[int, typer.Option("--features", "-p")] = 2000,
    mu: Annotated[float, typer.Option("--mu")] = 0.03,
    out: OutOpt = None,
):
    """Choose base-TTA hyperparameters on validation pairs: one matcha.selection per candidate, then the choice.

    Example: reason matcha select --models m --tta t3a --seeds 0 --grid 't3a_temperature=1,0.1' | tail -1 | jq .chosen
    """
    _require()
    from toolkit.core.errors import InputError
    from toolkit.matcha.bench import parse_seeds, parse_settings, parse_ttas
    from toolkit.matcha.select import parse_grid, select

    names, seed_list, ttas = parse_settings(settings), parse_seeds(seeds), parse_ttas(tta)
    if len(ttas) != 1:
        raise InputError(f"--tta {tta!r}: give exactly one base TTA")
    candidates = parse_grid(grid)
    with open_writer(out) as w:
        for rec in select(models, names, seed_list, ttas[0], candidates, nodes, features, mu):
            w.write(rec)
