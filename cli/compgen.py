"""`reason compgen`: the kernel theory of compositional generalization."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, SeedOpt, SkipBadOpt, open_writer, report_bad, seed_or_global

app = typer.Typer(help="Kernel theory of compositional generalization: tasks, kernel models, theory, networks.\n\n"
                       "Example: reason compgen theory --task transitive-equivalence --rep relu",
                  no_args_is_help=True)

TaskArg = Annotated[str, typer.Option("--task", "-t", help="addition | context-dependence | transitive-equivalence")]
SplitOpt = Annotated[str | None, typer.Option("--split", help="addition: comps | dispersed | biased")]
VariantOpt = Annotated[int | None, typer.Option("--variant", help="context-dependence: 1, 2 or 3")]
TrainValuesOpt = Annotated[int | None, typer.Option("--train-values", help="addition comps: values seen everywhere")]
InstancesOpt = Annotated[int | None, typer.Option("--instances", help="addition dispersed: training pairs per value")]
TrainItemsOpt = Annotated[int | None, typer.Option("--train-items", help="transitive-equivalence: anchor items")]
RepOpt = Annotated[str, typer.Option("--rep", help="disentangled | conjunctive | mixed | relu | rbf | sims:s0,..,sC")]
RidgeOpt = Annotated[float, typer.Option("--ridge", min=0.0, help="Ridge penalty (0 = exact interpolation).")]


def _task(task, split, variant, train_values, instances, train_items, seed):
    from toolkit.compgen import build

    return build(task, split=split, variant=variant, train_values=train_values, instances=instances,
                 train_items=train_items, seed=seed)


@app.command("tasks")
def tasks_cmd(out: OutOpt = None) -> None:
    """List the task families and write one `compgen.task` record per default task.

    Example: reason compgen tasks | jq -c '{task, n_train, n_test}'
    """
    from rich.table import Table

    from toolkit.compgen import TASKS, build
    from toolkit.compgen.records import task_record
    from toolkit.core.console import console

    table = Table(title="compgen tasks")
    for col in ("task", "what", "train", "test"):
        table.add_column(col)
    with open_writer(out) as writer:
        for name, what in TASKS.items():
            task = build(name)
            writer.write(task_record(task))
            table.add_row(name, what, str(int(task.train.sum())), str(int((~task.train).sum())))
    console.print(table)


@app.command("kernel")
def kernel_cmd(task: TaskArg = "addition", rep: RepOpt = "disentangled", ridge: RidgeOpt = 0.0,
               split: SplitOpt = None, variant: VariantOpt = None, train_values: TrainValuesOpt = None,
               instances: InstancesOpt = None, train_items: TrainItemsOpt = None, seed: SeedOpt = None,
               out: OutOpt = None) -> None:
    """Kernel ridge regression on a compositionally structured kernel: held-out predictions and errors.

    Example: reason compgen kernel --task context-dependence --variant 1 --rep relu --ridge 1e-6
    """
    from toolkit.compgen import converged_function, errors, kernel_fit, sims_for
    from toolkit.compgen.records import prediction_records, summary_record

    t = _task(task, split, variant, train_values, instances, train_items, seed_or_global(seed))
    sims = sims_for(rep, t.components)
    fit = kernel_fit(t, sims, ridge)
    theory = converged_function(t, sims, ridge)
    errs = errors(t, fit.pred)
    with open_writer(out) as writer:
        writer.write_all(prediction_records(t, fit.pred, "kernel", theory.pred, rep=rep))
        writer.write(summary_record("kernel", t, rep=rep, ridge=ridge, sims=sims.tolist(), **errs,
                                    max_theory_gap=float(abs(fit.pred - theory.pred).max())))
    _print_summary(f"kernel {t.name} ({rep}, ridge {ridge:g})", errs)


@app.command("theory")
def theory_cmd(task: TaskArg = "addition", rep: RepOpt = "disentangled", ridge: RidgeOpt = 0.0,
               split: SplitOpt = None, variant: VariantOpt = None, train_values: TrainValuesOpt = None,
               instances: InstancesOpt = None, train_items: TrainItemsOpt = None, seed: SeedOpt = None,
               out: OutOpt = None) -> None:
    """The theory's prediction: conjunction-wise additive decomposition, learnability, failure diagnostics.

    Example: reason compgen theory --task transitive-equivalence --rep relu
    """
    from toolkit.compgen import conjunction_weights, converged_function, errors, learnability, sims_for
    from toolkit.compgen.records import summary_record
    from toolkit.compgen.theory import memorization_leak, shortcut_bias, subset_name

    t = _task(task, split, variant, train_values, instances, train_items, seed_or_global(seed))
    sims = sims_for(rep, t.components)
    fit = converged_function(t, sims, ridge)
    learn = learnability(t)
    weights = conjunction_weights(sims)
    decomposition = {}
    for s in range(2**t.components):
        block = fit.g[fit.offsets[s]: fit.offsets[s + 1]]
        decomposition[subset_name(s, t.components)] = {"weight": float(weights[s]), "values": block.tolist()}
    record = summary_record(
        "theory", t, rep=rep, ridge=ridge, learnable=learn.learnable, order=learn.order,
        residual_by_order=learn.residual_by_order, decomposition=decomposition,
        test_predictions=[{"combination": [int(v) for v in t.x[i]], "prediction": float(fit.pred[i]),
                           "target": float(t.y[i])} for i in range(len(t.x)) if not t.train[i]],
        memorization_leak=memorization_leak(t, fit), shortcut_bias=shortcut_bias(t, fit, sims, ridge),
        **errors(t, fit.pred))
    with open_writer(out) as writer:
        writer.write(record)
    verdict = f"learnable with conjunctions of order {learn.order}" if learn.learnable else "not learnable"
    _print_summary(f"theory {t.name} ({rep}): {verdict}",
                   {**errors(t, fit.pred), **memorization_leak(t, fit)})


@app.command("nets")
def nets_cmd(task: TaskArg = "addition", arch: Annotated[str, typer.Option("--arch", help="mlp|convnet|resnet|vit")]
             = "mlp", steps: Annotated[int, typer.Option("--steps", min=1)] = 300,
             lr: Annotated[float, typer.Option("--lr")] = 1e-3, width: Annotated[int, typer.Option("--width")] = 64,
             split: SplitOpt = None, variant: VariantOpt = None, train_values: TrainValuesOpt = None,
             instances: InstancesOpt = None, train_items: TrainItemsOpt = None, seed: SeedOpt = None,
             out: OutOpt = None) -> None:
    """Train a small network on rendered inputs and compare its held-out outputs with the theory (needs torch).

    Example: reason compgen nets --task addition --arch convnet --steps 300 -o nets.jsonl
    """
    from toolkit.compgen import errors
    from toolkit.compgen.nets import ARCHS, agreement, train_and_compare
    from toolkit.compgen.records import prediction_records, summary_record
    from toolkit.core.errors import InputError

    archs = list(ARCHS) if arch == "all" else arch.split(",")
    for a in archs:
        if a not in ARCHS:
            raise InputError(f"--arch {a}: unknown (known: {', '.join(ARCHS)}, all)")
    s = seed_or_global(seed)
    t = _task(task, split, variant, train_values, instances, train_items, s)
    with open_writer(out) as writer:
        for a in archs:
            r = train_and_compare(t, a, steps=steps, lr=lr, width=width, seed=s)
            writer.write_all(prediction_records(t, r.net_pred, a, r.ntk_pred))
            stats = {"net": errors(t, r.net_pred), "theory": errors(t, r.ntk_pred),
                     "agreement_ntk": agreement(t, r.net_pred, r.ntk_pred),
                     "agreement_structured": agreement(t, r.net_pred, r.structured_pred)}
            writer.write(summary_record("nets", t, arch=a, steps=steps, final_loss=r.final_loss,
                                        ntk_sims=r.sims.tolist(), **stats))
            _print_summary(f"nets {t.name} {a}", {**{f"net_{k}": v for k, v in stats["net"].items()},
                                                  "corr_with_theory": stats["agreement_ntk"]["corr"]})


@app.command("report")
def report_cmd(records: Annotated[Path, typer.Argument(help="compgen records (JSONL) or - for stdin")],
               png: Annotated[Path, typer.Option("--png", help="Figure of theory vs observed.")] = Path(
                   "compgen-report.png"), skip_bad: SkipBadOpt = False) -> None:
    """Table of kernel/theory/network summaries and a PNG of predicted vs observed held-out outputs.

    Example: reason compgen kernel --rep relu > r.jsonl && reason compgen report r.jsonl --png fig.png
    """
    from rich.table import Table

    from toolkit.compgen.report import collect, plot_predicted_vs_observed, record_problem
    from toolkit.core.console import console
    from toolkit.core.errors import InputError
    from toolkit.core.records import BadLines, read_records

    bad = BadLines()
    recs = []
    for n, rec in enumerate(read_records(records, skip_bad=skip_bad, bad=bad), start=1):
        problem = record_problem(rec)
        if problem:
            message = f"{records}: record {n} ({rec.get('type')}): {problem}"
            if not skip_bad:
                raise InputError(message)
            bad.add(message)
            continue
        recs.append(rec)
    rows, points = collect(recs)
    if not rows and not points:
        raise InputError(f"{records}: no compgen.kernel/theory/nets/prediction records")
    table = Table(title="compgen report")
    for col in ("kind", "task", "model", "train mse", "test mse", "test acc", "theory corr"):
        table.add_column(col)
    for r in rows:
        kind = r["type"].split(".")[-1]
        stats = r.get("net", r)
        model = r.get("arch") or r.get("rep", "")
        corr = r.get("agreement_ntk", {}).get("corr")
        table.add_row(kind, r["task"], model, _fmt(stats.get("train_mse")), _fmt(stats.get("test_mse")),
                      _fmt(stats.get("test_accuracy")), _fmt(corr))
    console.print(table)
    report_bad(bad)
    if points:
        console.print(f"figure: {plot_predicted_vs_observed(points, png)}")


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def _print_summary(title: str, stats: dict) -> None:
    from toolkit.core.console import console

    console.print(f"{title}: " + ", ".join(f"{k} {v:.4g}" for k, v in stats.items()))
