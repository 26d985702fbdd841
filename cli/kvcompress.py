"""`reason kvcompress`: retrieval heads and head-level KV-cache compression (HeadKV) with baselines."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, SeedOpt, ThreadsOpt, open_writer, seed_or_global

app = typer.Typer(help="Retrieval-head scores, head masking, and per-head KV-cache compression (HeadKV).\n\n"
                       "Example: reason kvcompress score --method retrieval --out scores.json",
                  no_args_is_help=True)

ModelOpt = Annotated[Path, typer.Option("--model", help="Local model directory.")]
AttnOpt = Annotated[str, typer.Option("--attn", help="Attention implementation: eager or sdpa.")]
DeviceOpt = Annotated[str, typer.Option("--device", help="auto, cpu or cuda[:N].")]
ScoresOpt = Annotated[Path | None, typer.Option(
    "--scores", help="Head-score JSON (default: shipped retrieval scores).")]
PageSizeOpt = Annotated[int, typer.Option("--page-size", min=1, help="Tokens per page (quest).")]
MinPagesOpt = Annotated[int, typer.Option(
    "--min-pages", min=0, help="Quest: every head reads at least this many pages (the reference's 3).")]
DenseLayersOpt = Annotated[int | None, typer.Option(
    "--dense-layers", min=0, help="Quest: the first N layers read the whole cache (default: the reference's 2 "
    "for quest, 0 for headkv+quest, whose allocation budgets every layer's heads).")]
PageMetaOpt = Annotated[str, typer.Option(
    "--page-meta", help="Quest page bounds stored as the keys are (keys, the reference) or in bfloat16/float16, "
    "rounded outward so the bound still holds.")]
GqaSelectOpt = Annotated[str, typer.Option(
    "--gqa-select", help="Quest pages per query head (query, the reference) or one set per KV head (kv).")]


def _default_model() -> Path:
    from toolkit.kvcompress import DEFAULT_MODEL

    return Path(DEFAULT_MODEL)


@app.command()
def train(
    out: Annotated[Path, typer.Option("--out", help="Directory for the trained model.")],
    curriculum: Annotated[str | None, typer.Option(
        "--curriculum", help="Stages STEPS:drill:BATCH or STEPS:MIN-MAX:BATCH (words), comma-separated, "
                             "run in order (default: the shipped model's schedule).")] = None,
    lr: Annotated[float, typer.Option("--lr")] = 1e-3,
    layers: Annotated[int, typer.Option("--layers", min=1)] = 4,
    hidden: Annotated[int, typer.Option("--hidden", min=8)] = 128,
    heads: Annotated[int, typer.Option("--heads", min=1)] = 8,
    kv_heads: Annotated[int, typer.Option("--kv-heads", min=1, help="KV heads (< heads: GQA).")] = 8,
    threads: ThreadsOpt = 1,
    repeat_prob: Annotated[float, typer.Option(
        "--repeat-prob", help="Chance of a copy drill per 512 words of haystack.")] = 0.5,
    stretch_prob: Annotated[float, typer.Option("--stretch-prob", help="Share with a position skip.")] = 0.25,
    rope_theta: Annotated[float, typer.Option("--rope-theta")] = 1e6,
    head_lasso: Annotated[str, typer.Option(
        "--head-lasso", help="Group-lasso weight on each head's q/o projections (head sparsity): one number, "
                             "or one per layer, comma-separated.")] = "0.08",
    tasks: Annotated[str, typer.Option(
        "--tasks", help="Task mix of the task stages, drawn uniformly (repeat a task to weight it); "
                        "single, multikey, twohop, latent.")] = "single,multikey,twohop",
    seed: SeedOpt = None,
):
    """Train the small Llama model on the synthetic retrieval tasks (curriculum from short to long contexts).

    Example: reason kvcompress train --out assets/kvcompress/model
    """
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require

    require("ml", "torch", "transformers")
    import torch

    if heads % kv_heads or hidden % heads:
        raise InputError("--heads must divide --hidden and be a multiple of --kv-heads")
    from toolkit.kvcompress.train import DEFAULT_CURRICULUM, lasso_weights, parse_curriculum

    curriculum = curriculum or DEFAULT_CURRICULUM
    try:
        steps = sum(s.steps for s in parse_curriculum(curriculum))
    except ValueError as exc:
        raise InputError(f"--curriculum: {exc}") from None
    try:
        lasso_weights(head_lasso, layers)
    except ValueError as exc:
        raise InputError(f"--head-lasso {exc}") from None
    mix = tuple(_tasks(tasks))
    torch.set_num_threads(threads)
    from toolkit.core.records import dumps, make_record
    from toolkit.kvcompress.train import train as run

    summary = run(out, curriculum=curriculum, lr=lr, seed=seed_or_global(seed), n_layers=layers, n_heads=heads,
                  n_kv_heads=kv_heads, hidden=hidden, repeat_prob=repeat_prob, stretch_prob=stretch_prob,
                  rope_theta=rope_theta, head_lasso=head_lasso, tasks=mix)
    print(dumps(make_record("kvcompress.trained", 1, model=str(out), steps=steps, params=summary["params"],
                            train_seconds=summary["train_seconds"],
                            teacher_forced=summary["final_teacher_forced"],
                            teacher_forced_per_task=summary["final_teacher_forced_per_task"],
                            final=summary["log"][-1] if summary["log"] else None)))


@app.command()
def score(
    model: ModelOpt = None,
    method: Annotated[str, typer.Option(
        "--method", help="retrieval (copy-paste), r2 (HeadKV's retrieval-reasoning score) or r2-mass "
        "(attention mass on the answer path at the answer's content words).")] = "retrieval",
    out: Annotated[Path | None, typer.Option(
        "--out", help="Head-score JSON to write (a .png heatmap goes next to it).")] = None,
    lengths: Annotated[str, typer.Option("--lengths", help="Context lengths (tokens).")] = "256,512,1024,2048",
    depths: Annotated[str, typer.Option("--depths", help="Needle depths in [0, 1].")] = "0.1,0.3,0.5,0.7,0.9",
    trials: Annotated[int, typer.Option("--trials", min=1, help="Trials per (length, depth).")] = 2,
    device: DeviceOpt = "cpu",
    seed: SeedOpt = None,
):
    """Score every (layer, head) by retrieval or R2 on needle trials; print the share of heads above 0.1.

    Example: reason kvcompress score --model assets/kvcompress/model --method retrieval --out scores.json
    """
    from toolkit.core import console
    from toolkit.core.errors import InputError
    from toolkit.core.paths import check_writable
    from toolkit.core.records import dumps, make_record
    from toolkit.kvcompress.loading import load_model, parse_floats, parse_ints
    from toolkit.kvcompress.scoring import SCORE_METHODS, save_scores, score_heads

    if method not in SCORE_METHODS:
        raise InputError(f"--method {method}: expected one of {', '.join(SCORE_METHODS)}")
    check_writable(out or Path(f"scores-{method}.json"))
    model_dir = model or _default_model()
    lm, _ = load_model(model_dir, "eager", device)
    result = score_heads(lm, method, parse_ints(lengths, "--lengths"), parse_floats(depths, "--depths"),
                         trials, seed_or_global(seed))
    out = out or Path(f"scores-{method}.json")
    json_path, png = save_scores(result, out, str(model_dir))
    console.info(f"{method}: {result.retrieval_share:.1%} of heads score > 0.1 "
                 f"({result.kept}/{result.trials} trials kept); top heads {result.top_heads(4)}")
    print(dumps(make_record("kvcompress.head_scores", 1, method=method, scores_file=str(json_path),
                            heatmap=str(png), retrieval_share=result.retrieval_share, trials=result.trials,
                            kept=result.kept, top_heads=[list(h) for h in result.top_heads(8)])))


@app.command("mask-heads")
def mask_heads(
    model: ModelOpt = None,
    scores: ScoresOpt = None,
    ks: Annotated[str, typer.Option("--k", help="Numbers of heads to mask.")] = "1,2,4,8",
    n_random: Annotated[int, typer.Option("--random", min=1, help="Random draws per k.")] = 5,
    n: Annotated[int, typer.Option("--n", min=1, help="Examples per (task, length).")] = 8,
    lengths: Annotated[str, typer.Option("--lengths")] = "512,1024",
    tasks: Annotated[str, typer.Option("--tasks")] = "single,multikey",
    device: DeviceOpt = "cpu",
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Mask the top-k retrieval heads vs k random heads and measure retrieval accuracy.

    Example: reason kvcompress mask-heads --scores assets/kvcompress/scores-retrieval.json --k 2,4
    """
    from toolkit.core import console
    from toolkit.core.records import make_record
    from toolkit.kvcompress import DEFAULT_SCORES
    from toolkit.kvcompress.evaluate import make_eval_set, mask_experiment
    from toolkit.kvcompress.loading import load_model, parse_ints
    from toolkit.kvcompress.scoring import load_scores

    data = load_scores(scores or DEFAULT_SCORES["retrieval"])
    lm, _ = load_model(model or _default_model(), "eager", device)
    s = seed_or_global(seed)
    examples = make_eval_set(s, n, parse_ints(lengths, "--lengths"), _tasks(tasks))
    recs = mask_experiment(lm, data["scores"], examples, parse_ints(ks, "--k"), n_random, s)
    with open_writer(out) as writer:
        for r in recs:
            writer.write(make_record("kvcompress.mask", 1, examples=len(examples), **r))
    for r in recs:
        console.info(f"mask {r['masked']:>6} k={r['k']}: accuracy {r['accuracy']:.3f}")


@app.command()
def needle(
    model: ModelOpt = None,
    scores: ScoresOpt = None,
    method: Annotated[str, typer.Option("--method", help="full or any compression method.")] = "headkv+quest",
    budget: Annotated[int, typer.Option("--budget", min=1, help="Average KV size per head (window included).")] = 40,
    lengths: Annotated[str, typer.Option("--lengths", help="Context lengths (tokens).")] = "256,512,1024,2048",
    depths: Annotated[str, typer.Option("--depths", help="Needle depths in [0, 1].")] = "0,0.25,0.5,0.75,1",
    trials: Annotated[int, typer.Option("--trials", min=1, help="Needles per cell.")] = 4,
    page_size: PageSizeOpt = 8,
    min_pages: MinPagesOpt = 3,
    dense_layers: DenseLayersOpt = None,
    gqa_select: GqaSelectOpt = "query",
    page_meta: PageMetaOpt = "bfloat16",
    heatmap: Annotated[Path, typer.Option("--heatmap", help="PNG to write.")] = Path("needle.png"),
    attn: AttnOpt = "sdpa",
    device: DeviceOpt = "cpu",
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Needle-in-a-haystack grid (context length x depth): one record per cell and a heatmap PNG.

    Example: reason kvcompress needle --method headkv+quest --budget 40 --heatmap needle.png
    """
    from toolkit.core import console
    from toolkit.core.errors import InputError
    from toolkit.core.paths import check_writable
    from toolkit.core.records import make_record
    from toolkit.kvcompress import DEFAULT_SCORES
    from toolkit.kvcompress.allocation import METHODS
    from toolkit.kvcompress.loading import load_model, parse_floats, parse_ints
    from toolkit.kvcompress.needle import needle_grid, save_heatmap
    from toolkit.kvcompress.press import KVPress
    from toolkit.kvcompress.scoring import load_scores

    if method not in METHODS:
        raise InputError(f"--method {method}: expected one of {', '.join(METHODS)}")
    depth_list, length_list = parse_floats(depths, "--depths"), parse_ints(lengths, "--lengths")
    if any(not 0 <= d <= 1 for d in depth_list):
        raise InputError(f"--depths {depths}: expected numbers in [0, 1]")
    check_writable(heatmap)
    head_scores = load_scores(scores or DEFAULT_SCORES["retrieval"])["scores"] if method.startswith("headkv") else None
    press = KVPress(method, budget=budget if method != "full" else 10**9, head_scores=head_scores,
                    page_size=page_size, min_pages=min_pages, dense_layers=dense_layers, gqa=gqa_select,
                    page_meta=page_meta)
    lm, _ = load_model(model or _default_model(), attn, device)
    with open_writer(out) as writer:
        def on_cell(length, depth, acc, rows):
            reads = [r["reads"] for r in rows]
            attended = sum(r["attended"] for r in reads) / max(sum(r["context"] for r in reads), 1)
            writer.write(make_record("kvcompress.needle", 1, method=method, budget=None if method == "full" else budget,
                                     length=length, depth=depth, accuracy=acc, trials=len(rows),
                                     attended_fraction=attended))

        grid = needle_grid(lm, length_list, depth_list, press, trials, seed_or_global(seed), on_cell=on_cell)
    title = f"{method}" + ("" if method == "full" else f", KV size {budget}/head") + f": mean {grid.mean():.2f}"
    png = save_heatmap(grid, length_list, depth_list, title, heatmap)
    console.info(f"needle {method}: mean accuracy {grid.mean():.3f} over {grid.size} cells; heatmap {png}")


def _tasks(text: str) -> list[str]:
    from toolkit.core.errors import InputError
    from toolkit.kvcompress.tasks import ALL_TASKS

    out = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in out if t not in ALL_TASKS]
    if bad or not out:
        raise InputError(f"--tasks {text}: expected some of {', '.join(ALL_TASKS)}")
    return out


@app.command("eval")
def evaluate(
    model: ModelOpt = None,
    scores: ScoresOpt = None,
    budgets: Annotated[str, typer.Option(
        "--budgets", help="Average KV size per head (window included).")] = "32,64,128",
    methods: Annotated[str, typer.Option("--methods")] = "full,streaming,snapkv,pyramidkv,adakv,headkv",
    n: Annotated[int, typer.Option("--n", min=1, help="Examples per (task, length).")] = 8,
    lengths: Annotated[str, typer.Option("--lengths")] = "1024,2048",
    tasks: Annotated[str, typer.Option("--tasks")] = "single,multikey,twohop",
    window: Annotated[int, typer.Option("--window", min=1)] = 8,
    kernel: Annotated[int, typer.Option("--kernel", min=1)] = 7,
    beta: Annotated[float, typer.Option("--beta", help="HeadKV pool split: each head keeps base - base//beta.")] = 1.2,
    page_size: PageSizeOpt = 8,
    min_pages: MinPagesOpt = 3,
    dense_layers: DenseLayersOpt = None,
    gqa_select: GqaSelectOpt = "query",
    page_meta: PageMetaOpt = "bfloat16",
    pin_support: Annotated[bool, typer.Option(
        "--pin-support", help="Oracle diagnostic: every head keeps the answer path's sentences first (within "
        "its budget), to tell what selection loses from what the budget loses.")] = False,
    data: Annotated[Path | None, typer.Option(
        "--data", help="LongBench-format JSONL (input, context, answers, length, dataset) instead of the "
                       "synthetic tasks; the metric follows the dataset name.")] = None,
    metric: Annotated[str | None, typer.Option(
        "--metric", help="With --data: one metric for every record (qa_f1, rouge, classification, code_sim, "
                         "count, retrieval).")] = None,
    max_length: Annotated[int | None, typer.Option(
        "--max-length", min=16, help="With --data: prompts longer than this keep their first and last halves.")] = None,
    max_new_tokens: Annotated[int | None, typer.Option(
        "--max-new-tokens", min=1, help="With --data: answer length (default: by metric, as LongBench).")] = None,
    skip_bad: Annotated[bool, typer.Option("--skip-bad", help="With --data: skip malformed lines.")] = False,
    attn: AttnOpt = "eager",
    device: DeviceOpt = "cpu",
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Accuracy vs KV budget for each method, with the KV memory held and what each decode step reads.

    Prefill methods (streaming, snapkv, pyramidkv, adakv, headkv) evict; quest and headkv+quest keep the
    whole cache and read the window plus the pages whose key bound is highest for each decode query.

    Example: reason kvcompress eval --budgets 32,64,128,256 --methods full,snapkv,headkv,headkv+quest
    Example: reason kvcompress eval --data longbench/hotpotqa.jsonl --model DIR --methods full,quest --budgets 512
    """
    from rich.table import Table

    from toolkit.core import console
    from toolkit.core.errors import InputError
    from toolkit.core.records import BadLines, make_record
    from toolkit.core.tables import name_columns
    from toolkit.kvcompress import DEFAULT_SCORES
    from toolkit.kvcompress.allocation import METHODS
    from toolkit.kvcompress.evaluate import eval_grid, make_eval_set
    from toolkit.kvcompress.loading import load_model_and_tokenizer, parse_ints
    from toolkit.kvcompress.scoring import load_scores

    wanted = [m.strip() for m in methods.split(",") if m.strip()]
    bad = [m for m in wanted if m not in METHODS]
    if bad or not wanted:
        raise InputError(f"--methods {methods}: expected some of {', '.join(METHODS)}")
    from toolkit.kvcompress.longbench import METRICS, load_longbench, runner

    if metric is not None and metric not in METRICS:
        raise InputError(f"--metric {metric}: expected one of {', '.join(METRICS)}")
    bad = BadLines()
    records = load_longbench(data, metric, skip_bad, bad) if data is not None else None
    head_scores = None
    if any(m.startswith("headkv") for m in wanted):
        head_scores = load_scores(scores or DEFAULT_SCORES["retrieval"])["scores"]
    budget_list = parse_ints(budgets, "--budgets")
    lm, tok, _ = load_model_and_tokenizer(model or _default_model(), attn, device)
    s = seed_or_global(seed)
    run, examples = None, []
    if records is not None:
        run = runner(lm, tok, records, metric, max_length, max_new_tokens)
    else:
        examples = make_eval_set(s, n, parse_ints(lengths, "--lengths"), _tasks(tasks))
    table = name_columns(Table(title="kvcompress: accuracy vs KV budget"), 2)  # method and budget name a row
    for col in ("method", "budget", "accuracy", "KV held", "attended", "read/token", "by task",
                "answer held by a head"):
        table.add_column(col, justify="right" if col in ("budget", "accuracy", "attended", "read/token") else "left")
    with open_writer(out) as writer:
        def on_row(row):
            writer.write(make_record("kvcompress.eval", 1, **row))
            frac = "" if row["kv_fraction"] is None else f" ({row['kv_fraction']:.1%})"
            table.add_row(row["method"], str(row["budget"] or "-"), f"{row['accuracy']:.3f}",
                          f"{row['kv_bytes_mean'] / 1024:.0f} KiB{frac}", f"{row['attended_fraction']:.1%}",
                          f"{row['bytes_moved_per_token'] / 1024:.1f} KiB",
                          " ".join(f"{k}={v:.2f}" for k, v in row["by_task"].items()),
                          " ".join(f"{k}={v:.2f}" for k, v in row["answer_held_by_task"].items()))

        rows = eval_grid(lm, examples, wanted, budget_list, head_scores, window, kernel, beta,
                         on_row=on_row, pin_support=pin_support, page_size=page_size, run=run,
                         quest={"min_pages": min_pages, "dense_layers": dense_layers, "gqa": gqa_select,
                                "page_meta": page_meta})
    console.console.print(table)
    if bad.report():
        console.warn(bad.report())
    partial = sorted({r["method"] for r in rows if not r["holds_full_context"]})
    if partial:
        console.info(f"{', '.join(partial)}: the cache holds less than the full context in fast memory "
                     "(evicted tokens are gone); quest methods keep it all and read a part per step")
