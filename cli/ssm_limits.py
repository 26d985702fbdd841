"""`reason ssm-limits`: compositional tasks with gold traces, LLM error types, SSM-vs-transformer capacity."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, SeedOpt, SkipBadOpt, open_writer, report_bad, seed_or_global

app = typer.Typer(help="Limits of sequence models: gold-traced compose/iterate/mult/dp/zebra problems, LLM CoT "
                       "error types, Mamba vs transformer training, state-bits sweeps.\n\n"
                       "Example: reason ssm-limits gen --task iterate --size 16 --depth 1..6 --split test",
                  no_args_is_help=True)

TaskOpt = Annotated[str, typer.Option("--task", "-t", help="compose | iterate | mult | dp | zebra")]
SizeOpt = Annotated[str, typer.Option("--size", "-s", help="n (compose/iterate), m digits (mult), L (dp), N (zebra);"
                                                           " a list '8,16' or range '4..8' for several")]
DepthOpt = Annotated[str | None, typer.Option("--depth", "--depths", "-k",
                                              help="K maps / hops / multiplier digits / zebra M; '1..6' for several")]


@app.command("tasks")
def tasks_cmd() -> None:
    """List the task families and their knobs.

    Example: reason ssm-limits tasks
    """
    from toolkit.core.console import console
    from toolkit.ssm_limits.tasks import TASKS

    for name, what in TASKS.items():
        console.print(f"{name}: {what}", soft_wrap=True, markup=False, highlight=False)


@app.command("gen")
def gen_cmd(task: TaskOpt = "iterate", size: SizeOpt = "8", depth: DepthOpt = None,
            n: Annotated[int, typer.Option("--n", min=1, help="Problems per size and depth.")] = 50,
            split: Annotated[str, typer.Option("--split", help="train | dev | test (hash buckets)")] = "test",
            query_first: Annotated[bool, typer.Option("--query-first", help="compose: query before the lines")] = False,
            seed: SeedOpt = None, out: OutOpt = None) -> None:
    """Write `ssm.problem` records (prompts, gold answer, trace nodes).

    Example: reason ssm-limits gen --task compose --size 8 --depth 2 --n 100 --split test -o p.jsonl
    """
    from toolkit.ssm_limits.records import problem_record
    from toolkit.ssm_limits.tasks import generate
    from toolkit.ssm_limits.util import parse_ints

    if task == "zebra":
        from toolkit.core.extras import require

        require("logic", "constraint")
    sizes = parse_ints(size, "--size")
    depths = parse_ints(depth, "--depth") if depth else [None]
    batches = [generate(task, s, k, n, split, seed_or_global(seed), query_first) for s in sizes for k in depths]
    with open_writer(out) as writer:
        for batch in batches:
            for p in batch:
                writer.write(problem_record(p))


@app.command("solve")
def solve_cmd(problems: Annotated[str, typer.Argument(help="ssm.problem JSONL, or - for stdin")],
              skip_bad: SkipBadOpt = False, out: OutOpt = None) -> None:
    """Re-solve every problem from its inputs and check answer and trace: `ssm.check` records.

    Example: reason ssm-limits solve p.jsonl | jq -c 'select(.ok | not)'
    """
    from toolkit.core.records import BadLines
    from toolkit.ssm_limits.records import read_problems
    from toolkit.ssm_limits.traces import check_problem

    bad = BadLines()
    with open_writer(out) as writer:
        for p in read_problems(problems, skip_bad=skip_bad, bad=bad):
            writer.write(check_problem(p))
    report_bad(bad)


@app.command("train")
def train_cmd(arch: Annotated[str, typer.Option("--arch", help="mamba | transformer")] = "transformer",
              task: TaskOpt = "iterate", size: SizeOpt = "16", depth: DepthOpt = "1..4",
              mode: Annotated[str, typer.Option("--mode", help="cot | direct")] = "cot",
              layers: Annotated[int, typer.Option("--layers", min=1)] = 2,
              hidden: Annotated[int, typer.Option("--hidden", min=8)] = 64,
              state: Annotated[int, typer.Option("--state", min=1, help="Mamba state size per channel")] = 16,
              steps: Annotated[int, typer.Option("--steps", min=0, help="Training steps (the budget; cosine over "
                                                 "them). 0: the wall-clock budget alone, as the shipped models")]
              = 3000,
              minutes: Annotated[float, typer.Option("--minutes", min=0.05, help="Wall-clock cap (with --steps 0: "
                                                     "the budget, cosine over the time)")] = 120.0,
              lr: Annotated[float, typer.Option("--lr", min=0.0, help="Peak learning rate (cosine to 0)")] = 2e-3,
              batch: Annotated[int, typer.Option("--batch", min=1, help="Sequences per step")] = 32,
              query_first: Annotated[bool, typer.Option("--query-first")] = False,
              x_last: Annotated[bool, typer.Option("--x-last", help="End the prompt `Q Kk = x`: the first hop "
                                                   "looks up the token just written, like every later CoT hop")]
              = False,
              warmup: Annotated[int, typer.Option("--warmup", min=0, help="Linear warmup steps")] = 0,
              curriculum: Annotated[str, typer.Option("--curriculum", help="Stages before the full setting, "
                                                      "SIZES:DEPTHS@UNTIL_STEP;... e.g. '8:1@2000;8,16:1..2@5000'")]
              = "",
              resume: Annotated[bool, typer.Option("--resume", help="Continue the run saved in --out (same "
                                                   "settings) up to --steps; --minutes caps each call")] = False,
              init: Annotated[Path | None, typer.Option("--init", help="Start from the weights of this model "
                                                        "directory (new optimizer, step 0, this run's schedule); "
                                                        "with --resume, used only if --out has no saved state")]
              = None,
              stop_at: Annotated[int, typer.Option("--stop-at", min=0, help="End this call at step N of the "
                                                   "--steps budget (the run stays resumable); 0: no such stop")]
              = 0,
              probe_every: Annotated[int, typer.Option("--probe-every", min=0, help="Decode fixed dev problems "
                                                       "every N steps (accuracy and floor logged)")] = 0,
              seed: SeedOpt = None,
              out: Annotated[Path, typer.Option("--out", "-o", help="Model directory to write")] = Path("ssm-model"),
              ) -> None:
    """Train a small Mamba or Llama (matched parameters) on fresh train-split tables for a number of steps (the
    same run on a busy or an idle machine; --minutes only caps it).

    Example: reason --seed 0 ssm-limits train --arch mamba --task iterate --size 8,16 --depths 1..4 --steps 3000 -o m
    """
    import sys

    from toolkit.core.extras import require
    from toolkit.core.records import dumps, make_record
    from toolkit.ssm_limits.models import train
    from toolkit.ssm_limits.util import check_mode, parse_curriculum, parse_ints

    require("ml", "torch", "transformers", "mambapy")
    check_mode(mode)
    from toolkit.core.console import info

    if resume and not steps:
        from toolkit.core.errors import InputError

        raise InputError("--resume needs a step budget (--steps N)")
    meta = train(arch, task, parse_ints(size, "--size"), parse_ints(depth, "--depth"), mode, layers, hidden,
                 minutes * 60, out, seed=seed_or_global(seed), batch=batch, lr=lr, state=state, query_first=query_first,
                 log=info, max_steps=steps or None, x_last=x_last, warmup=warmup,
                 curriculum=parse_curriculum(curriculum), resume=resume, probe_every=probe_every,
                 init=init, stop_at=stop_at or None)
    sys.stdout.write(dumps(make_record("ssm.model", path=str(out), **meta)) + "\n")


@app.command("ask")
def ask_cmd(problems: Annotated[str, typer.Argument(help="ssm.problem JSONL, or - for stdin")],
            llm: Annotated[str | None, typer.Option("--llm", help="openai:MODEL@URL, hf:PATH, replay:FILE, py:MOD:FN")]
            = None,
            mode: Annotated[str, typer.Option("--mode", help="cot | direct")] = "cot",
            shots: Annotated[int, typer.Option("--shots", min=0, help="Worked train-split examples per prompt")] = 0,
            workers: Annotated[int, typer.Option("--workers", "-j", min=1, help="Concurrent requests")] = 1,
            record: Annotated[Path | None, typer.Option("--record", help="Also record exchanges here")] = None,
            resume: Annotated[bool, typer.Option("--resume", help="Skip ids already in --out (same config)")] = False,
            seed: SeedOpt = None, skip_bad: SkipBadOpt = False, out: OutOpt = None) -> None:
    """Ask an LLM every problem and parse its steps and answer: `ssm.response` records.

    Example: reason ssm-limits ask p.jsonl --llm openai:gpt-4o@https://api.openai.com/v1 --mode cot -j 4 -o r.jsonl
    """
    from cli.common import make_llm, report_usage
    from toolkit.core.records import BadLines
    from toolkit.ssm_limits.ask import ask_all
    from toolkit.ssm_limits.records import read_problems
    from toolkit.ssm_limits.util import check_mode

    check_mode(mode)
    if resume and out is None:
        from toolkit.core.errors import InputError

        raise InputError("--resume needs --out FILE")
    bad = BadLines()
    items = list(read_problems(problems, skip_bad=skip_bad, bad=bad))
    backend = make_llm(llm, record, seed_or_global(seed))
    config = {"llm": llm or backend.name, "mode": mode, "shots": shots, "seed": seed_or_global(seed)}
    ask_all(items, backend, mode, shots, seed_or_global(seed), workers, out, resume, config)
    report_bad(bad)
    report_usage(backend)


@app.command("score")
def score_cmd(responses: Annotated[str, typer.Argument(help="ssm.response JSONL, or - for stdin")],
              problems: Annotated[Path, typer.Option("--problems", "-p", help="The ssm.problem file asked")],
              skip_bad: SkipBadOpt = False, out: OutOpt = None) -> None:
    """Score replies against gold traces: `ssm.score` per item, then `ssm.curve` rows (accuracy, Wilson CI,
    error types, shortcuts, per-step p).

    Example: reason ssm-limits score r.jsonl --problems p.jsonl | jq -c 'select(.type=="ssm.curve")'
    """
    from toolkit.core.records import BadLines
    from toolkit.ssm_limits.score import score_all

    bad = BadLines()
    with open_writer(out) as writer:
        writer.write_all(score_all(responses, problems, skip_bad, bad))
    report_bad(bad)


@app.command("eval")
def eval_cmd(model: Annotated[Path, typer.Option("--model", "-m", help="A local causal LM directory")],
             task: TaskOpt = "iterate", size: SizeOpt = "8,16,32,64", depth: DepthOpt = "1..8",
             mode: Annotated[str, typer.Option("--mode", help="cot | direct")] = "cot",
             n: Annotated[int, typer.Option("--n", min=1, help="Test problems per size and depth")] = 100,
             seed: SeedOpt = None, out: OutOpt = None) -> None:
    """Greedy-decode fresh test-split problems with a small model: `ssm.curve` rows.

    Example: reason ssm-limits eval --model assets/ssm_limits/models/mamba --task iterate --depths 1..8
    """
    from toolkit.core.extras import require
    from toolkit.ssm_limits.evaluate import eval_model
    from toolkit.ssm_limits.util import check_mode, parse_ints

    require("ml", "torch", "transformers")
    check_mode(mode)
    rows = eval_model(model, task, parse_ints(size, "--size"), parse_ints(depth, "--depth"), mode, n,
                      seed_or_global(seed))
    with open_writer(out) as writer:
        writer.write_all(rows)


@app.command("sweep")
def sweep_cmd(sizes: Annotated[str, typer.Option("--sizes", help="Table sizes n")] = "4,8,16,32",
              floats: Annotated[str, typer.Option("--floats", help="State floats (channels x 2)")]
              = "2,4,8,16,32,64,128,256",
              bits: Annotated[int, typer.Option("--bits", help="Bits per state float at the bottleneck")] = 4,
              tasks: Annotated[str, typer.Option("--tasks", help="iterate and/or compose (K=1)")] = "iterate,compose",
              steps: Annotated[int, typer.Option("--steps-per-run", min=0, help="Training steps per point (the "
                                                 "budget). 0: --seconds-per-run alone, as the shipped sweep")] = 2000,
              seconds: Annotated[float, typer.Option("--seconds-per-run", min=1.0, help="Wall-clock cap per point "
                                                     "(with --steps-per-run 0: the budget)")] = 600.0,
              resume: Annotated[bool, typer.Option("--resume", help="Keep finished points in --out")] = False,
              seed: SeedOpt = None, out: OutOpt = None) -> None:
    """Train one-layer selective SSMs with a quantized state on K=1 lookups: `ssm.capacity` per point (accuracy,
    bits, Fano ceiling, n log2 n), then `ssm.capacity-summary` (B*(n), log-log slope).

    Example: reason ssm-limits sweep --sizes 4,8,16,32 --bits 4 --steps-per-run 2000 -o S.jsonl --resume
    """
    from toolkit.core.console import info
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.ssm_limits.sweep import run_sweep
    from toolkit.ssm_limits.util import parse_ints

    if bits < 1:
        raise InputError(f"--bits {bits}: must be >= 1")
    task_list = [t.strip() for t in tasks.split(",") if t.strip()]
    for t in task_list:
        if t not in ("iterate", "compose"):
            raise InputError(f"--tasks {tasks}: '{t}' is not iterate or compose")
    size_list = parse_ints(sizes, "--sizes")
    if max(size_list) > 64:
        raise InputError(f"--sizes {sizes}: above the symbol pool (64)")
    require("ml", "torch", "mambapy")
    run_sweep(task_list, size_list, parse_ints(floats, "--floats"), bits, seconds, seed_or_global(seed),
              out, resume, log=info, max_steps=steps or None)


@app.command("automaton")
def automaton_cmd(model: Annotated[Path, typer.Option("--model", "-m", help="Automaton model dir (trained if empty)")],
                  bits: Annotated[int, typer.Option("--bits", help="Bits per state float, every step")] = 4,
                  train_seconds: Annotated[float, typer.Option("--train-seconds", min=1.0)] = 60.0,
                  max_n: Annotated[int, typer.Option("--max-n", min=1, help="Largest n in training")] = 8,
                  test_n: Annotated[int, typer.Option("--test-n", min=1, help="Test n = 1..this")] = 32,
                  seed: SeedOpt = None, out: OutOpt = None) -> None:
    """Quantized one-layer SSM on a^n b^n: reachable states, minimal DFA (automata-lib), accuracy by n.

    Example: reason ssm-limits automaton --model runs/anbn --bits 4
    """
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require

    if bits < 1:
        raise InputError(f"--bits {bits}: must be >= 1")
    require("logic", "automata")
    require("ml", "torch", "mambapy")
    from toolkit.ssm_limits.automaton import analyse

    with open_writer(out) as writer:
        writer.write(analyse(model, bits, train_seconds, max_n, test_n, seed_or_global(seed)))
