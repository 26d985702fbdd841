"""`reason metacausal`: meta-causal states — switching linear mechanisms, their directions and transitions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, RayOpt, ResumeOpt, SeedOpt, WorkersOpt, seed_or_global

app = typer.Typer(help="Meta-causal states: simulate switching systems, infer K linear Laplace mechanisms with their "
                       "directions, build the state graph, run the K-identification benchmark.\n\n"
                       "Example: reason metacausal simulate agents --seed 3 | reason metacausal infer --data - "
                       "--select bic | reason metacausal graph --fit - --png g.png",
                  no_args_is_help=True)

SelectOpt = Annotated[str, typer.Option("--select", help="How K is chosen: ad (the official script's rule: the "
                                                         "largest K' that passes), ad-min (lowest mean A^2 among "
                                                         "those), bic, icl or ad+bic.")]
RestartsOpt = Annotated[str, typer.Option("--restarts", help="EM restarts per K': 'official' (2, 8, 26, 177 for "
                                                             "K'=1..4) or a number.")]
EngineOpt = Annotated[str, typer.Option("--engine", help="fast (compiled exact L1 fits) or reference (LP solver).")]
KmaxOpt = Annotated[int, typer.Option("--kmax", help="Largest number of mechanisms tried (1..8).")]
InitOpt = Annotated[str, typer.Option("--init", help="EM starts: pairs (K random point pairs, the benchmark's) or "
                                                     "ransac (K lines chosen one after another by support).")]


def _int_list(text: str, name: str) -> list[int]:
    from toolkit.core.errors import InputError

    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InputError(f"{name} {text!r}: expected comma-separated integers") from None
    if not values:
        raise InputError(f"{name} {text!r}: empty")
    return values


@app.command()
def protocol(
    k: Annotated[str, typer.Option("--k", help="True numbers of mechanisms, comma separated.")] = "1,2,3,4",
    problems: Annotated[int, typer.Option("--problems", min=1, help="Problems per K (problem p uses seed "
                                                                    "first-seed + p).")] = 100,
    select: Annotated[str, typer.Option("--select", help="Selection rules to summarise, comma separated "
                                                         "(ad, ad-min, bic, icl, ad+bic); every problem record "
                                                         "scores all of them on the same fits.")] = "ad",
    kmax: KmaxOpt = 4,
    restarts: RestartsOpt = "official",
    engine: EngineOpt = "fast",
    init: InitOpt = "pairs",
    imbalance: Annotated[float, typer.Option("--imbalance", help="Class imbalance of the generator.")] = 0.2,
    first_seed: Annotated[int, typer.Option("--first-seed", help="Seed of problem 0 (benchmark: 100; tune on "
                                                                 "other seeds, e.g. 10000).")] = 100,
    seed: SeedOpt = None,
    out: OutOpt = None,
    resume: ResumeOpt = False,
    workers: WorkersOpt = 1,
    ray: RayOpt = None,
):
    """The K-identification benchmark: metacausal.problem per problem, metacausal.confusion per selection rule.

    Example: reason metacausal protocol --k 1,2,3,4 --problems 100 --select ad,bic --workers 2 --resume -o p.jsonl
    """
    from toolkit.metacausal.options import check_fit_options, parse_selections
    from toolkit.metacausal.protocol import ProtocolSettings
    from toolkit.metacausal.protocol_run import run_protocol
    from toolkit.metacausal.report import show_confusions

    seed_or_global(seed)  # problems carry their own seeds; --seed is accepted for uniformity
    ks = _int_list(k, "--k")
    if any(not 1 <= v <= 8 for v in ks):
        from toolkit.core.errors import InputError

        raise InputError(f"--k {k}: every true K must be within 1..8")
    methods = parse_selections(select)
    restarts = check_fit_options(kmax, restarts, engine, init)
    settings = ProtocolSettings(kmax=kmax, restarts=str(restarts), engine=engine, imbalance=imbalance,
                                first_seed=first_seed, init=init)
    summaries = run_protocol(ks, problems, settings, methods, out, resume, workers, ray)
    show_confusions(summaries)


SYSTEMS = ("linear", "agents", "stress")


@app.command()
def simulate(
    system: Annotated[str, typer.Argument(help="linear, agents or stress.")],
    k: Annotated[int, typer.Option("--k", min=1, max=8, help="linear: number of mechanisms.")] = 2,
    imbalance: Annotated[float, typer.Option("--imbalance", min=0.0, max=0.9, help="linear: class imbalance.")] = 0.2,
    policy: Annotated[str, typer.Option("--policy", help="agents: markov or threshold switching.")] = "markov",
    stay: Annotated[float, typer.Option("--stay", min=0.0, max=1.0, help="agents: Markov stay probability.")] = 0.98,
    steps: Annotated[int, typer.Option("--steps", min=1, help="agents/stress: time steps.")] = 2000,
    noise: Annotated[float, typer.Option("--noise", min=0.0, help="stress: observation noise (std).")] = 0.01,
    csv_out: Annotated[Path | None, typer.Option("--csv", help="Also write x, y, t, environment as CSV.")] = None,
    seed: SeedOpt = None,
    out: OutOpt = None,
):
    """Simulate a switching system: metacausal.sample records (x, y, t, environment and the hidden truth
    state/mechanism, which inference never reads). linear --seed 100+p reproduces benchmark problem p.

    Example: reason metacausal simulate agents --policy threshold --seed 3 --csv agents.csv -o agents.jsonl
    """
    from toolkit.metacausal.simulate import simulate_system

    records = simulate_system(system, seed_or_global(seed), k=k, imbalance=imbalance, policy=policy, stay=stay,
                              steps=steps, noise=noise)
    _write(records, out)
    if csv_out is not None:
        from toolkit.metacausal.simulate import write_csv

        write_csv(records, csv_out)


def _write(records: list[dict], out: Path | None) -> None:
    """All records at once, after every check has passed: a failed command leaves no half-written file."""
    from toolkit.core.records import RecordWriter

    target = None if out is None else Path(out)
    tmp = None if target is None else target.with_name(target.name + ".partial")
    with RecordWriter(tmp) as writer:
        writer.write_all(records)
    if tmp is not None:
        import os

        os.replace(tmp, target)


@app.command()
def infer(
    data: Annotated[str, typer.Option("--data", help="JSONL, CSV or .npz with the two columns ('-' = stdin JSONL).")],
    x: Annotated[str, typer.Option("--x", help="Column of the first variable.")] = "x",
    y: Annotated[str, typer.Option("--y", help="Column of the second variable.")] = "y",
    pairs: Annotated[str | None, typer.Option("--pairs", help="Several variable pairs X:Y,U:V (instead of --x/--y): "
                                                              "one fit per pair; `graph` joins them into states "
                                                              "over time.")] = None,
    kmax: KmaxOpt = 4,
    select: SelectOpt = "ad",
    restarts: RestartsOpt = "official",
    engine: EngineOpt = "fast",
    init: InitOpt = "pairs",
    skip_bad: Annotated[bool, typer.Option("--skip-bad", help="Drop rows with NaN/inf or bad values, count and "
                                                              "report them.")] = False,
    seed: SeedOpt = None,
    out: OutOpt = None,
    workers: WorkersOpt = 1,
    ray: RayOpt = None,
):
    """Fit K' = 1..kmax linear Laplace mechanisms by EM, choose K, and write a metacausal.fit record (mechanisms
    with slope, intercept, scale, direction, weight, type; every K''s scores) and a metacausal.assign record per
    sample (state, responsibilities).

    Example: reason metacausal infer --data d.jsonl --kmax 4 --select bic --restarts 20 -o fit.jsonl
    """
    import numpy as np

    from cli.common import report_bad
    from toolkit.core.records import BadLines
    from toolkit.metacausal.inference import infer as run_infer
    from toolkit.metacausal.io import check_fittable, parse_pairs, read_columns
    from toolkit.metacausal.options import check_fit_options, parse_selections
    from toolkit.metacausal.records import fit_records

    methods = parse_selections(select)
    if len(methods) != 1:
        from toolkit.core.errors import InputError

        raise InputError(f"--select {select!r}: infer takes one rule")
    plan = check_fit_options(kmax, restarts, engine, init)
    columns = parse_pairs(pairs) if pairs else [(x, y)]
    bad = BadLines()
    tables = [read_columns(data, a, b, skip_bad=skip_bad, bad=bad) for a, b in columns]
    report_bad(bad)
    for cols, (a, b) in zip(tables, columns, strict=True):
        check_fittable(cols, kmax, a, b)
    s = seed_or_global(seed)
    rng = np.random.default_rng(s)
    records, summary = [], []
    for cols, (a, b) in zip(tables, columns, strict=True):
        inf = run_infer(cols.x, cols.y, kmax, plan, rng, methods=tuple(methods), engine=engine, workers=workers,
                        ray_address=ray, init=init)
        meta = {"data": cols.source, "x_col": a, "y_col": b, "n": int(cols.x.size), "kmax": kmax,
                "restarts": str(plan), "engine": engine, "init": init, "seed": s, "skipped": bad.count}
        records += fit_records(inf, methods[0], meta, cols.t, cols.environment,
                               pair=f"{a}:{b}" if pairs else None)
        summary.append(f"{a}:{b} K-hat = {inf.choice[methods[0]][1]}")
    _write(records, out)
    from toolkit.core import console

    console.info(f"{'; '.join(summary)} under --select {methods[0]} ({tables[0].x.size} samples)")


@app.command()
def graph(
    fit: Annotated[str, typer.Option("--fit", help="Output of `infer` (fit + assign records; '-' = stdin).")],
    types: Annotated[str, typer.Option("--types", help="Mechanism attributes that define a state: direction, "
                                                       "sign.")] = "direction,sign",
    min_slope: Annotated[float, typer.Option("--min-slope", min=0.0, help="Below this |slope| a mechanism "
                                                                          "counts as no dependence.")] = 0.05,
    smooth: Annotated[int, typer.Option("--smooth", min=1, help="Majority state over this many consecutive "
                                                                "samples before counting transitions (1 = off).")] = 1,
    png: Annotated[Path | None, typer.Option("--png", help="Draw the state graph here.")] = None,
    graphml: Annotated[Path | None, typer.Option("--graphml", help="Also write GraphML here.")] = None,
    seed: SeedOpt = None,
    out: OutOpt = None,
):
    """Merge same-type mechanisms into states, count transitions in time order (P(j|i), mean environment at each
    switch) and write a metacausal.graph record (networkx node-link data).

    Example: reason metacausal graph --fit fit.jsonl --types direction,sign --png g.png --graphml g.graphml
    """
    from toolkit.core.extras import require
    from toolkit.core.records import make_record
    from toolkit.metacausal.graph import build, build_joint, draw, node_link, parse_types
    from toolkit.metacausal.graph_input import read_fits

    require("causal", "networkx")
    seed_or_global(seed)
    fields = parse_types(types)
    fits = read_fits(fit, min_slope)
    if len(fits) == 1:
        fit_record, assignments = fits[0]
        g = build(fit_record["mechanisms"], assignments, fields, smooth)
        joint = {"k_hat": fit_record["k_hat"]}
    else:  # infer --pairs: joint states over time
        g = build_joint([(f["pair"], f["mechanisms"], a) for f, a in fits], fields, smooth)
        joint = {"k_hat": {f["pair"]: f["k_hat"] for f, _ in fits}, "pairs": [f["pair"] for f, _ in fits]}
    record = make_record("metacausal.graph", 1, types=list(fields), min_slope=min_slope, smooth=smooth, **joint,
                         select=fits[0][0].get("select"), states=g.states,
                         transitions=g.counts.tolist(), probabilities=[[round(float(v), 8) for v in row]
                                                                       for row in g.probabilities],
                         graph=node_link(g))
    _write([record], out)
    if png is not None:
        draw(g, str(png))
    if graphml is not None:
        import networkx as nx

        from toolkit.metacausal.graph import to_networkx

        nx.write_graphml(to_networkx(g), str(graphml))


@app.command()
def regions(
    system: Annotated[str, typer.Option("--system", help="Only 'stress' has analytic regions.")] = "stress",
    png: Annotated[Path | None, typer.Option("--png", help="Draw the state map here (paper Fig. 2).")] = None,
    runs: Annotated[int, typer.Option("--runs", min=0, help="Fresh noisy runs to learn the states from "
                                                            "(k-nearest-neighbour regression).")] = 20,
    steps: Annotated[int, typer.Option("--steps", min=10, help="Steps per run.")] = 2000,
    noise: Annotated[float, typer.Option("--noise", min=0.0, help="Observation noise (std).")] = 0.01,
    seed: SeedOpt = None,
    out: OutOpt = None,
):
    """Stress regions: fixed points, the tipping boundary, the reinforcing cells of the (stress, external) grid,
    and how well states learned from noisy runs match the analytic ones (metacausal.regions record).

    Example: reason metacausal regions --system stress --runs 20 --seed 7 --png regions.png
    """
    from toolkit.core.errors import InputError
    from toolkit.metacausal.regions import regions_record

    if system != "stress":
        raise InputError(f"--system {system!r}: only 'stress' has analytic regions")
    record = regions_record(runs, steps, noise, seed_or_global(seed), png)
    _write([record], out)


@app.command()
def report(
    path: Annotated[Path, typer.Argument(help="A protocol file (complete or interrupted).")],
    select: Annotated[str | None, typer.Option("--select", help="Rules to show (default: all).")] = None,
    as_markdown: Annotated[bool, typer.Option("--markdown", help="Print Markdown tables on stdout instead of "
                                                                 "records.")] = False,
    png: Annotated[Path | None, typer.Option("--png", help="Draw the confusion matrices here.")] = None,
    official: Annotated[Path | None, typer.Option("--official", help="Published matrices (official-results.json): "
                                                                     "each rule's largest cell difference from "
                                                                     "every run is added.")] = None,
    seed: SeedOpt = None,
):
    """Confusion matrices of a protocol file, recomputed from its problem records (metacausal.confusion); `ad` is
    the official script's rule (largest accepted K'), `ad-min` the lowest mean A^2 among the accepted K'.

    Example: reason metacausal report p.jsonl --select ad,ad-min,bic --markdown --official official-results.json
    """
    from toolkit.core.errors import InputError
    from toolkit.core.records import make_record
    from toolkit.metacausal.options import parse_selections
    from toolkit.metacausal.protocol import confusion
    from toolkit.metacausal.report import (
        gaps_markdown,
        load_protocol,
        markdown,
        official_gaps,
        plot_confusions,
        show_confusions,
    )
    from toolkit.metacausal.select import SELECTIONS

    seed_or_global(seed)
    settings, problems, _ = load_protocol(path)
    if settings is None or not problems:
        raise InputError(f"{path}: no metacausal.protocol header or no problem records")
    methods = parse_selections(select) if select else list(SELECTIONS)
    ks = sorted({p["k"] for p in problems})
    summaries = [make_record("metacausal.confusion", 1, **confusion(problems, m, settings["kmax"], ks),
                             settings=settings) for m in methods]
    if official is not None:
        published = _read_official(official)
        for s in summaries:
            s["official_gaps"] = official_gaps(s, published)
    if as_markdown:
        for s in summaries:
            gaps = f"{gaps_markdown(s, s['official_gaps'])}\n\n" if "official_gaps" in s else ""
            print(f"### --select {s['select']}\n\n{markdown(s)}\n\n{gaps}")
    else:
        _write(summaries, None)
    show_confusions(summaries)
    if png is not None:
        plot_confusions(summaries, str(png))


def _read_official(path: Path) -> dict:
    import json

    from toolkit.core.errors import InputError

    try:
        data = json.loads(Path(path).read_text())
        runs = data["runs"]
        if not runs or not all(isinstance(r["matrix"], dict) for r in runs.values()):
            raise ValueError
    except FileNotFoundError:
        raise InputError(f"--official {path}: no such file") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InputError(f"--official {path}: expected JSON with runs.NAME.matrix.K = [counts], as "
                         "assets/metacausal/official-results.json") from None
    return data


@app.command()
def describe(
    graph_file: Annotated[str, typer.Option("--graph", help="A metacausal.graph record file ('-' = stdin).")],
    llm: Annotated[str | None, typer.Option("--llm", help="LLM backend URI: openai:MODEL@URL, hf:PATH, "
                                                          "replay:FILE, py:MOD:FN (default: $REASON_LLM).")] = None,
    record: Annotated[Path | None, typer.Option("--record", help="Also record the LLM exchange to this replay "
                                                                 "file.")] = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1, help="Answer length limit.")] = 400,
    seed: SeedOpt = None,
    out: OutOpt = None,
):
    """A prose account of the states and their switching, from any LLM backend (metacausal.description).

    Example: reason metacausal describe --graph g.jsonl --llm openai:qwen2.5@http://localhost:8000/v1
    """
    from cli.common import make_llm, report_usage
    from toolkit.metacausal.describe import describe_graph, read_graph

    seed_or_global(seed)
    graph_record = read_graph(graph_file)
    backend = make_llm(llm, record)
    result = describe_graph(graph_record, backend, max_tokens=max_tokens)
    _write([result], out)
    report_usage(backend)
