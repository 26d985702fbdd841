"""`reason steer`: reasoning control vectors read from the residual stream and applied at inference."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, SeedOpt, SkipBadOpt, open_writer, report_bad, seed_or_global
from toolkit.core.assets import asset_path

app = typer.Typer(help="Reasoning control vectors: tasks, derive, apply, sweep, GGUF export/import, train.\n\n"
                       "Example: reason steer derive --task mathematical --layers 1..3 --out math.safetensors",
                  no_args_is_help=True)

DEFAULT_MODEL = asset_path("steer/model")
ModelOpt = Annotated[Path, typer.Option("--model", "-m", help="Local causal-LM directory (default: shipped model).")]
LayersPathOpt = Annotated[str | None, typer.Option(
    "--layers-path", help="Attribute path of the block list for other architectures, e.g. model.decoder.layers.")]
DeviceOpt = Annotated[str, typer.Option("--device", help="auto, cpu or cuda[:N].")]
BatchOpt = Annotated[int, typer.Option("--batch-size", min=1, help="Prompts per forward pass.")]


def _load(model: Path, device: str):
    from toolkit.core.errors import InputError
    from toolkit.core.models import load_causal_lm

    try:
        return load_causal_lm(model, device=device)
    except Exception as exc:  # a corrupted weights file raises safetensors' own error type
        if type(exc).__name__ != "SafetensorError":
            raise
        raise InputError(f"{model}: corrupted weights ({str(exc).splitlines()[0]})") from None


def _task_list(task: str) -> list[str]:
    from toolkit.steer.tasks import FAMILIES

    if task == "all":
        return list(FAMILIES)
    return [t.strip() for t in task.split(",") if t.strip()]


@app.command()
def tasks(
    task: Annotated[str, typer.Option("--task", "-t", help="A task family, a list, or all.")] = "all",
    split: Annotated[str, typer.Option("--split", help="train, validation, test or all.")] = "all",
    n: Annotated[int, typer.Option("--n", min=1, help="Problems per family and split.")] = 50,
    pairs: Annotated[bool, typer.Option("--pairs", help="Emit contrastive pairs instead of problems.")] = False,
    seed: SeedOpt = None,
    out: OutOpt = None,
):
    """Generate synthetic reasoning problems (or contrastive pairs) as JSONL records.

    Example: reason steer tasks --task deductive --split train --n 200 --pairs > pairs.jsonl
    """
    from toolkit.core.records import to_record
    from toolkit.steer.tasks import SPLITS, generate, make_pairs

    s = seed_or_global(seed)
    splits = list(SPLITS) if split == "all" else [split]
    with open_writer(out) as w:
        for family in _task_list(task):
            for sp in splits:
                problems = generate(family, sp, n, s)
                items = make_pairs(problems, s) if pairs else problems
                for item in items:
                    w.write(to_record(item))


@app.command()
def derive(
    out: Annotated[Path, typer.Option("--out", "-o", help="Vector file to write (safetensors).")],
    model: ModelOpt = DEFAULT_MODEL,
    task: Annotated[str | None, typer.Option("--task", "-t", help="Task family (or list, or all) for pairs.")] = None,
    pairs_file: Annotated[Path | None, typer.Option("--pairs", help="JSONL of {positive, negative} pairs.")] = None,
    method: Annotated[str, typer.Option("--method", help="mean, mean-diff or pca-diff.")] = "pca-diff",
    layers: Annotated[str, typer.Option("--layers", help="Blocks: 2, 1,3, 1..3, -1 or all.")] = "all",
    n: Annotated[int, typer.Option("--n", min=1, help="Train-split pairs per family (with --task).")] = 200,
    batch_size: BatchOpt = 32,
    layers_path: LayersPathOpt = None,
    device: DeviceOpt = "auto",
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Derive a control vector from last-token block outputs of contrastive pairs.

    Example: reason steer derive --task mathematical --method pca-diff --layers 1..3 --out math.safetensors
    """
    from toolkit.core.errors import InputError
    from toolkit.core.models import seed_everything
    from toolkit.core.records import BadLines, make_record
    from toolkit.steer.layers import find_layers, parse_layers
    from toolkit.steer.tasks import generate, make_pairs, read_pairs
    from toolkit.steer.vectors import derive as derive_vector
    from toolkit.steer.vectors import save_vector

    s = seed_or_global(seed)
    if (task is None) == (pairs_file is None):
        raise InputError("derive: give exactly one of --task or --pairs")
    seed_everything(s)
    bad = BadLines()
    if pairs_file is not None:
        pairs = read_pairs(pairs_file, skip_bad=skip_bad, bad=bad)
    else:
        pairs = [p for f in _task_list(task) for p in make_pairs(generate(f, "train", n, s), s)]
    lm, tok, dev = _load(model, device)
    chosen = parse_layers(layers, len(find_layers(lm, layers_path)))
    vec = derive_vector(lm, tok, pairs, chosen, method, batch_size=batch_size, layers_path=layers_path,
                        model_name=model.name, device=dev)
    save_vector(vec, out)
    report_bad(bad)
    norms = {str(k): round(float(v.norm()), 6) for k, v in vec.directions.items()}
    with open_writer(None) as w:
        w.write(make_record("steer.vector", 1, path=str(out), model=str(model), model_type=vec.model_type,
                            method=method, layers=vec.layers, pairs=len(pairs), norms=norms))


@app.command()
def apply(
    prompts: Annotated[list[str] | None, typer.Argument(help="Prompts (or use --prompts FILE).")] = None,
    vector: Annotated[Path | None, typer.Option("--vector", "-v", help="Vector file (.safetensors or .gguf).")] = None,
    alpha: Annotated[float, typer.Option("--alpha", "-a", help="Steering strength.")] = 1.0,
    model: ModelOpt = DEFAULT_MODEL,
    prompts_file: Annotated[Path | None, typer.Option("--prompts", help="JSONL with a 'prompt' field.")] = None,
    layers: Annotated[str | None, typer.Option("--layers", help="Steer only these of the vector's layers.")] = None,
    preserve_norm: Annotated[bool, typer.Option("--preserve-norm", help="Keep each state's norm.")] = False,
    max_new_tokens: Annotated[int, typer.Option("--max-new-tokens", min=1)] = 8,
    temperature: Annotated[float, typer.Option("--temperature", min=0.0, help="0 = greedy.")] = 0.0,
    batch_size: BatchOpt = 16,
    layers_path: LayersPathOpt = None,
    device: DeviceOpt = "auto",
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
    out: OutOpt = None,
):
    """Generate with alpha * vector added to the chosen block outputs at every position.

    Example: reason steer apply --vector math.safetensors --alpha 0.5 "math ( 3 + 4 ) * 2 ="
    """
    from toolkit.core.errors import InputError
    from toolkit.core.models import seed_everything
    from toolkit.core.records import BadLines, make_record, read_records
    from toolkit.steer.generate import generate_steered
    from toolkit.steer.layers import parse_layers
    from toolkit.steer.vectors import load_vector

    s = seed_or_global(seed)
    bad = BadLines()
    texts = list(prompts or [])
    if prompts_file is not None:
        for lineno, rec in enumerate(read_records(prompts_file, skip_bad=skip_bad, bad=bad), start=1):
            if not isinstance(rec.get("prompt"), str):
                msg = f"{prompts_file}:{lineno}: missing field 'prompt'"
                if not skip_bad:
                    raise InputError(msg)
                bad.add(msg)
                continue
            texts.append(rec["prompt"])
    if not texts:
        raise InputError("apply: no prompts (give them as arguments or with --prompts FILE)")
    if vector is None:
        raise InputError("apply: --vector is required")
    vec = load_vector(vector)
    if layers:
        vec = vec.only(parse_layers(layers, max(vec.layers) + 1))
    seed_everything(s)
    lm, tok, dev = _load(model, device)
    outs = generate_steered(lm, tok, texts, vec, alpha, max_new_tokens=max_new_tokens, temperature=temperature,
                            seed=s, batch_size=batch_size, preserve_norm=preserve_norm, layers_path=layers_path,
                            device=dev)
    report_bad(bad)
    with open_writer(out) as w:
        for prompt, text in zip(texts, outs, strict=True):
            w.write(make_record("steer.generation", 1, prompt=prompt, completion=text, alpha=alpha,
                                layers=vec.layers, preserve_norm=preserve_norm, vector=str(vector)))


@app.command()
def sweep(
    vector: Annotated[Path, typer.Option("--vector", "-v", help="Vector file (.safetensors or .gguf).")],
    model: ModelOpt = DEFAULT_MODEL,
    task: Annotated[str, typer.Option("--task", "-t", help="Task family, list, or all.")] = "all",
    problems_file: Annotated[Path | None, typer.Option(
        "--problems", help="JSONL problems with split validation/test instead of --task.")] = None,
    alphas: Annotated[str, typer.Option("--alphas", help="start:stop:step or a list.")] = "-1:1:0.25",
    layers: Annotated[str | None, typer.Option("--layers", help="Which of the vector's layers to try (one at a "
                                                                "time); default all of them.")] = None,
    n_val: Annotated[int, typer.Option("--n-val", min=1, help="Validation problems per family.")] = 200,
    n_test: Annotated[int, typer.Option("--n-test", min=1, help="Test problems per family.")] = 200,
    preserve_norm: Annotated[bool, typer.Option("--preserve-norm")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="Write a PNG of accuracy/KL/entropy vs alpha.")] = None,
    batch_size: BatchOpt = 64,
    layers_path: LayersPathOpt = None,
    device: DeviceOpt = "auto",
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
    out: OutOpt = None,
):
    """Sweep alpha: accuracy over answer options, KL(P_0||P_a) in nats, entropy in bits; pick alpha on validation.

    Example: reason steer sweep --vector math.safetensors --task mathematical --alphas -1:1:0.25 --plot math.png
    """
    from toolkit.core.records import BadLines, to_record
    from toolkit.steer.hooks import check_hidden_size
    from toolkit.steer.layers import parse_layers
    from toolkit.steer.report import sweep_table
    from toolkit.steer.sweep import choice_record, parse_alphas, sweep_split
    from toolkit.steer.tasks import generate, read_problems
    from toolkit.steer.vectors import load_vector

    s = seed_or_global(seed)
    grid = parse_alphas(alphas)
    if plot is not None:
        from toolkit.core.paths import check_writable

        check_writable(plot, "--plot")
    vec = load_vector(vector)
    tried = parse_layers(layers, max(vec.layers) + 1) if layers else vec.layers
    vec = vec.only(tried)
    bad = BadLines()
    groups: dict[str, dict[str, list]] = {}
    if problems_file is not None:
        for p in read_problems(problems_file, skip_bad=skip_bad, bad=bad):
            groups.setdefault(p.family, {"validation": [], "test": []}).setdefault(p.split, []).append(p)
    else:
        for f in _task_list(task):
            groups[f] = {"validation": generate(f, "validation", n_val, s), "test": generate(f, "test", n_test, s)}
    lm, tok, dev = _load(model, device)
    check_hidden_size(lm, vec.directions, str(vector))
    points, choices = [], []
    with open_writer(out) as w:
        for family, splits in groups.items():
            for layer in tried:
                for split in ("validation", "test"):
                    for p in sweep_split(lm, tok, splits[split], vec, layer, grid, preserve_norm=preserve_norm,
                                         layers_path=layers_path, batch_size=batch_size, family=family,
                                         split=split, device=dev):
                        w.write(to_record(p))
                        points.append(to_record(p))
            choice = choice_record(family, points, vector=str(vector), method=vec.method)
            w.write(choice)
            choices.append(choice)
    report_bad(bad)
    sweep_table(points, choices)
    if plot is not None:
        from toolkit.steer.plot import plot_sweep

        plot_sweep(points, plot, title=f"{vector.name} ({vec.method})")


@app.command("export")
def export_cmd(
    vector: Annotated[Path, typer.Option("--vector", "-v", help="Vector file (.safetensors).")],
    gguf: Annotated[Path, typer.Option("--gguf", help="llama.cpp control-vector GGUF to write.")],
    scale: Annotated[float, typer.Option("--scale", help="Multiply the directions first.")] = 1.0,
):
    """Export a vector as a llama.cpp control-vector GGUF (repeng's format).

    Example: reason steer export --vector math.safetensors --gguf math.gguf
    """
    from toolkit.core.records import make_record
    from toolkit.steer.gguf_io import export_gguf
    from toolkit.steer.vectors import load_vector

    vec = load_vector(vector).scale(scale)
    export_gguf(vec, gguf)
    with open_writer(None) as w:
        w.write(make_record("steer.export", 1, vector=str(vector), gguf=str(gguf), layers=vec.layers,
                            model_hint=vec.model_type, scale=scale))


@app.command("import")
def import_cmd(
    gguf: Annotated[Path, typer.Option("--gguf", help="llama.cpp control-vector GGUF to read.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Vector file to write (safetensors).")],
):
    """Import a llama.cpp / repeng control-vector GGUF as a vector file.

    Example: reason steer import --gguf math.gguf --out math.safetensors
    """
    from toolkit.core.records import make_record
    from toolkit.steer.gguf_io import import_gguf
    from toolkit.steer.vectors import save_vector

    vec = import_gguf(gguf)
    save_vector(vec, out)
    with open_writer(None) as w:
        w.write(make_record("steer.import", 1, gguf=str(gguf), vector=str(out), layers=vec.layers,
                            model_hint=vec.model_type, hidden_size=vec.hidden_size))


@app.command()
def train(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the model and tokenizer.")],
    steps: Annotated[int, typer.Option("--steps", min=1, help="Optimizer steps (fixed: keeps it imperfect).")] = 800,
    batch: Annotated[int, typer.Option("--batch", min=1)] = 64,
    threads: Annotated[int, typer.Option("--threads", min=1, help="Torch CPU threads (1 = reproducible).")] = 1,
    seed: SeedOpt = None,
):
    """Train the small GPT-NeoX (Pythia architecture) task model that ships in assets/steer/model.

    Example: reason steer train --out assets/steer/model --steps 800 --seed 0
    """
    from toolkit.core.records import make_record
    from toolkit.steer.train import TrainConfig
    from toolkit.steer.train import train as run_train

    cfg = TrainConfig(steps=steps, batch=batch, seed=seed_or_global(seed), threads=threads)
    log = run_train(out, cfg)
    with open_writer(None) as w:
        w.write(make_record("steer.trained", 1, out=str(out), **log["evals"][-1]))
