"""`reason swe-search`: Monte Carlo Tree Search over a coding agent's actions on a git repository."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from cli.common import (
    LLMOpt,
    RayOpt,
    RecordOpt,
    ResumeOpt,
    SeedOpt,
    SkipBadOpt,
    WorkersOpt,
    open_writer,
    report_bad,
    seed_or_global,
)

app = typer.Typer(help="SWE-Search: MCTS with a value agent and a debate over a coding agent's actions.\n\n"
                       "Example: reason swe-search run -i assets/swe_search/instances.jsonl -n 20 -o preds.jsonl",
                  no_args_is_help=True)


class _LazyWriter:
    """Opens (and so truncates) its file only at the first record, so a run that fails before
    producing anything leaves an existing output file as it was. Writability is checked at once."""

    def __init__(self, out: Path | None, append: bool) -> None:
        self.out, self.append, self.writer = out, append, None
        if out is not None and str(out) != "-":
            from toolkit.core.records import RecordWriter

            RecordWriter(out, append=True).close()  # creates or appends nothing: never truncates

    def write(self, record: dict) -> None:
        if self.writer is None:
            self.writer = open_writer(self.out, self.append)
        self.writer.write(record)

    def finish(self) -> None:
        if self.writer is None:
            self.writer = open_writer(self.out, self.append)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _terminate(signum, frame):  # so temporary clones are removed on SIGTERM too
    sys.exit(128 + signum)


@app.command()
def run(
    instances: Annotated[Path, typer.Option("--instances", "-i", help="SWE-bench instances JSONL ('-' = stdin), "
                                                                     "as published or with local repo paths.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Predictions JSONL for the SWE-bench harness "
                                                                 "(one swe.prediction per instance; default stdout).")]
        = None,
    trees: Annotated[Path | None, typer.Option("--trees", help="Write swe.tree records (search trees, test "
                                                              "commands) to this file (default: nowhere).")] = None,
    repos_dir: Annotated[Path | None, typer.Option("--repos-dir", help="Where `repo` names like owner/name are "
                                                                      "cloned (owner/name, owner__name or name, "
                                                                      "directory or .bundle).")] = None,
    strategy: Annotated[str, typer.Option("--strategy", help="mcts, linear (one trajectory), linear-undo, or "
                                                             "restarts (best of --restarts linear runs).")] = "mcts",
    iterations: Annotated[int, typer.Option("--iterations", "-n", min=1, help="Max expansions (nodes).")] = 100,
    instance: Annotated[list[str] | None, typer.Option("--instance", help="Only these instance ids.")] = None,
    selector: Annotated[str, typer.Option("--selector", help="reference (SWE-Search code: own reward, root depth "
                                                             "bonus, bonus/penalty terms) or paper (eq. 3).")]
        = "reference",
    c: Annotated[float, typer.Option("--c", help="UCT exploration weight C.")] = 1.0,
    c_scale: Annotated[float, typer.Option("--c-scale", help="Reward scale C is multiplied by (1 = as in the "
                                                             "reference code).")] = 100.0,
    alpha: Annotated[float, typer.Option("--alpha", help="Depth bonus alpha*exp(-beta*(d-1)).")] = 200.0,
    beta: Annotated[float, typer.Option("--beta", help="Depth bonus decay beta.")] = 0.8,
    gamma: Annotated[float, typer.Option("--gamma", help="Depth penalty gamma*sqrt(d).")] = 0.8,
    max_expansions: Annotated[int, typer.Option("--max-expansions", min=1, help="Children per node.")] = 3,
    max_depth: Annotated[int, typer.Option("--max-depth", min=1, help="Nodes this deep are not expanded "
                                                                     "(mcts; the reference's default 10).")] = 10,
    max_finished: Annotated[int, typer.Option("--max-finished", min=1, help="Stop after finished nodes under "
                                                                           "this many distinct parents.")] = 3,
    min_finished: Annotated[int, typer.Option("--min-finished", min=1, help="The reward threshold stops the "
                                                                           "search only with this many.")] = 2,
    reward_threshold: Annotated[float, typer.Option("--reward-threshold", help="Stop when a finished node "
                                                                              "reaches this reward.")] = 100.0,
    restarts: Annotated[int, typer.Option("--restarts", min=1, help="Linear runs of --strategy restarts.")] = 5,
    max_cost: Annotated[int, typer.Option("--max-cost", min=0, help="Stop after this many LLM tokens "
                                                                   "(0 = no limit).")] = 0,
    test_timeout: Annotated[float, typer.Option("--test-timeout", min=0.1, help="Seconds per test run.")] = 60.0,
    python: Annotated[str | None, typer.Option("--python", help="Interpreter of the repository's environment "
                                                                "(`python`/`pytest` in test commands map to it; "
                                                                "default: this one).")] = None,
    debate_agents: Annotated[int, typer.Option("--debate-agents", min=1, help="Discriminator agents.")] = 5,
    debate_rounds: Annotated[int, typer.Option("--debate-rounds", min=1, help="Discriminator rounds.")] = 3,
    model_name: Annotated[str, typer.Option("--model-name", help="model_name_or_path in predictions.")] =
        "reason-swe-search",
    llm: LLMOpt = None,
    record: RecordOpt = None,
    path_credit: Annotated[float, typer.Option("--path-credit", min=0.0, max=1.0, help="Offline value: credit of "
                                               "a reproduction test that failed at base_commit and passes on the "
                                               "same execution path (1 = plain pass rate).")] = 0.5,
    offline: Annotated[bool, typer.Option("--offline", help="Model-free agent (fault localization + mutations, "
                                                            "test pass-rate value) even if $REASON_LLM is set.")]
        = False,
    seed: SeedOpt = None,
    skip_bad: SkipBadOpt = False,
    resume: ResumeOpt = False,
    workers: WorkersOpt = 1,
    ray: RayOpt = None,
) -> None:
    """Search for a patch per instance; write swe.prediction records (SWE-bench: instance_id, model_patch,
    model_name_or_path) to --out and swe.tree records to --trees.

    The agent sees the repository and the problem statement and runs PASS_TO_PASS and its own tests;
    test_patch and FAIL_TO_PASS are used only by the final check (the `resolved` field).
    Without --llm (and no $REASON_LLM) the offline agent runs: no model needed.

    Example: reason swe-search run --instances assets/swe_search/instances.jsonl -n 50 --out preds.jsonl
    """
    import os

    from toolkit.core import console
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.parallel import iter_jobs
    from toolkit.core.records import BadLines, existing_keys

    require("swe")
    from toolkit.swe_search.instances import load_instances
    from toolkit.swe_search.runner import solve_job
    from toolkit.swe_search.search import STRATEGIES

    if strategy not in STRATEGIES:
        raise InputError(f"--strategy {strategy}: expected one of {', '.join(STRATEGIES)}")
    if selector not in ("reference", "paper"):
        raise InputError(f"--selector {selector}: expected reference or paper")
    if min_finished > max_finished:
        raise InputError(f"--min-finished {min_finished}: larger than --max-finished {max_finished}")
    if trees is not None and out is not None and Path(trees).resolve() == Path(out).resolve():
        raise InputError(f"--trees {trees}: must differ from --out (the harness reads one prediction per row)")
    if repos_dir is not None and not repos_dir.is_dir():
        raise InputError(f"--repos-dir {repos_dir}: not a directory")
    llm_uri = None if offline else (llm or os.environ.get("REASON_LLM"))
    if record and not llm_uri:
        raise InputError("--record needs an LLM backend (--llm or $REASON_LLM)")
    if record and workers > 1:
        raise InputError("--record needs --workers 1 (one process appends to the replay file)")
    signal.signal(signal.SIGTERM, _terminate)
    bad = BadLines()
    todo = load_instances(instances, skip_bad=skip_bad, bad=bad, only=instance, repos_dir=repos_dir)
    if instance and not todo:
        raise InputError(f"{instances}: no instance with id {', '.join(instance)}")
    done = set()
    if resume:
        done = existing_keys(out, lambda r: r["instance_id"] if r["type"] == "swe.prediction" else None)
    todo = [t for t in todo if t.instance_id not in done]
    options = {"strategy": strategy, "iterations": iterations, "selector": selector, "c": c, "c_scale": c_scale,
               "alpha": alpha, "beta": beta, "gamma": gamma, "max_expansions": max_expansions,
               "max_depth": max_depth, "max_finished": max_finished, "min_finished": min_finished,
               "reward_threshold": reward_threshold, "path_credit": path_credit,
               "restarts": restarts, "max_cost": max_cost, "test_timeout": test_timeout, "python": python,
               "seed": seed_or_global(seed), "debate_agents": debate_agents, "debate_rounds": debate_rounds}
    jobs = [{"instance": t.to_job(), "options": options, "llm": llm_uri, "record": str(record) if record else None,
             "model_name": model_name} for t in todo]
    resolved = total = quiet = 0
    writer = _LazyWriter(out, resume)
    tree_writer = _LazyWriter(trees, resume) if trees else None
    try:
        for result in iter_jobs(solve_job, jobs, workers=workers, ray_address=ray, description="instances"):
            if result[0] == "error":
                if not skip_bad:
                    raise InputError(result[1])
                bad.add(result[1])
                continue
            prediction, tree = result
            writer.write(prediction)
            if tree_writer is not None:
                tree_writer.write(tree)
            total += 1
            resolved += bool(prediction["resolved"])
            console.info(f"{prediction['instance_id']}: resolved={prediction['resolved']} "
                         f"expansions={prediction['expansions']} chosen_by={prediction['chosen_by']}")
            if prediction.get("note"):
                console.warn(f"{prediction['instance_id']}: {prediction['note']}")
                quiet += 1
        for w in (writer, tree_writer):
            if w is not None:
                w.finish()  # a finished run with nothing new still replaces the old output
    finally:
        writer.close()
        if tree_writer is not None:
            tree_writer.close()
    agent = "LLM " + llm_uri.split(":", 1)[0] if llm_uri else "offline"
    console.info(f"{strategy} ({agent} agent): resolved {resolved}/{total} (hidden FAIL_TO_PASS + PASS_TO_PASS)"
                 + (f"; {quiet} of them with no failing test to start from (see above)" if quiet else ""))
    report_bad(bad)
    if total and quiet == total:
        from toolkit.core.errors import RuntimeFailure

        raise RuntimeFailure(f"{instances}: none of the {total} instance(s) gave the agent a failing test or an "
                             "example to start from, so no patch was checked (predictions written; see above)")


@app.command()
def show(
    tree: Annotated[Path, typer.Argument(help="JSONL holding swe.tree records (output of `run`).")],
    instance: Annotated[str | None, typer.Option("--instance", help="Only this instance id.")] = None,
    details: Annotated[bool, typer.Option("--details", help="Also show observations, explanations, feedback.")]
        = False,
    width: Annotated[int, typer.Option("--width", min=20, help="Characters of action arguments shown.")] = 80,
    skip_bad: SkipBadOpt = False,
) -> None:
    """Render search trees (actions, values, visits; chosen node marked) on stderr.

    Example: reason swe-search show preds.jsonl --instance mini__stats-1 --details
    """
    from toolkit.core.errors import InputError
    from toolkit.core.records import BadLines, read_records
    from toolkit.swe_search.render import render_tree, tree_problem

    bad = BadLines()
    shown = 0
    for rec in read_records(tree, skip_bad=skip_bad, bad=bad):
        if rec.get("type") != "swe.tree" or (instance and rec.get("instance_id") != instance):
            continue
        problem = tree_problem(rec)
        if problem:
            raise InputError(f"{tree}: swe.tree record for {rec.get('instance_id')}: {problem}")
        render_tree(rec, width=width, details=details)
        shown += 1
    if not shown:
        raise InputError(f"{tree}: no swe.tree record" + (f" for {instance}" if instance else ""))
    report_bad(bad)


@app.command("make-bench")
def make_bench(
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Directory for instances.jsonl and repos/.")] =
        Path("assets/swe_search"),
    verify: Annotated[bool, typer.Option("--verify", help="Also run every instance's tests and check that "
                                                          "FAIL_TO_PASS, PASS_TO_PASS and traps behave "
                                                          "as promised (slow).")] = False,
) -> None:
    """Generate the benchmark: small projects with injected bugs as git bundles + instances.jsonl in the
    SWE-bench dataset's form (hidden tests in test_patch), in families: traps, valleys, 3-5 coordinated
    edits, simple.

    Example: reason swe-search make-bench --out-dir assets/swe_search --verify
    """
    from collections import Counter

    from toolkit.core import console
    from toolkit.core.errors import RuntimeFailure
    from toolkit.core.extras import require

    require("swe")
    from toolkit.swe_search.benchgen import generate
    from toolkit.swe_search.benchgen import verify as verify_bench

    rows = generate(out_dir)
    families = ", ".join(f"{k} {n}" for k, n in Counter(r["family"] for r in rows).items())
    console.info(f"wrote {len(rows)} instances ({families}) to {out_dir}/instances.jsonl")
    if verify:
        problems = verify_bench(out_dir / "instances.jsonl")
        if problems:
            raise RuntimeFailure(f"{len(problems)} broken promise(s); first: {problems[0]}")
        console.info("verified: FAIL_TO_PASS, PASS_TO_PASS and traps behave as promised")


@app.command()
def compare(
    instances: Annotated[Path, typer.Option("--instances", "-i", help="Instances JSONL (e.g. the benchmark).")] =
        Path("assets/swe_search/instances.jsonl"),
    out: Annotated[Path | None, typer.Option("--out", "-o", help="swe.compare records, one per run, then a "
                                                                 "swe.compare_summary (default stdout).")] = None,
    strategies: Annotated[str, typer.Option("--strategies", help="Comma-separated strategies.")] =
        "mcts,linear,linear-undo,restarts",
    seeds: Annotated[str, typer.Option("--seeds", help="Comma-separated seeds.")] = "0,1,2,3,4",
    budgets: Annotated[str, typer.Option("--budgets", help="Comma-separated node budgets.")] = "10,25,50,100",
    target_budget: Annotated[int, typer.Option("--target-budget", help="Budget of the McNemar test.")] = 50,
    instance: Annotated[list[str] | None, typer.Option("--instance", help="Only these instance ids.")] = None,
    test_timeout: Annotated[float, typer.Option("--test-timeout", min=0.1, help="Seconds per test run.")] = 60.0,
    path_credit: Annotated[float, typer.Option("--path-credit", min=0.0, max=1.0, help="Offline value: credit of "
                                               "a reproduction test that failed at base_commit and passes on the "
                                               "same execution path (1 = plain pass rate).")] = 0.5,
    workers: WorkersOpt = 1,
    seed: SeedOpt = None,
) -> None:
    """Offline agent: MCTS against linear (no undo), linear with undo and best-of-k restarts at equal node
    budgets over seeds; budget curves, per-family counts, trap-escape rate and a paired McNemar test, all
    judged by the hidden tests.

    Example: reason swe-search compare --budgets 10,25,50 --seeds 0,1 --workers 2 --out compare.jsonl
    """
    from toolkit.core import console
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.parallel import iter_jobs
    from toolkit.core.records import make_record

    require("swe")
    from toolkit.swe_search.compare import compare_instance, summarize
    from toolkit.swe_search.instances import load_instances
    from toolkit.swe_search.search import STRATEGIES

    def ints(text: str, name: str) -> list[int]:
        try:
            values = [int(v) for v in text.split(",") if v.strip()]
        except ValueError:
            raise InputError(f"--{name} {text}: expected comma-separated integers") from None
        if not values or min(values) < (1 if name == "budgets" else 0):
            raise InputError(f"--{name} {text}: expected comma-separated integers >= {int(name == 'budgets')}")
        return values

    names = [s.strip() for s in strategies.split(",") if s.strip()]
    for name in names:
        if name not in STRATEGIES:
            raise InputError(f"--strategies: {name}: expected some of {', '.join(STRATEGIES)}")
    seed_list, budget_list = ints(seeds, "seeds"), ints(budgets, "budgets")
    del seed  # the seeds of the runs are --seeds
    todo = load_instances(instances, only=instance)
    by_family: dict[str, list] = {}
    for t in todo:
        by_family.setdefault(t.extra.get("family", ""), []).append(t)
    # interleave families: a run cut short still covers every family
    order = [g[i] for i in range(max(map(len, by_family.values()), default=0)) for g in by_family.values()
             if i < len(g)]
    jobs = [{"instance": t.to_job(), "strategies": names, "seeds": seed_list, "budgets": budget_list,
             "options": {"test_timeout": test_timeout, "path_credit": path_credit}} for t in order]
    writer = open_writer(out, False)
    records = []
    try:
        for result in iter_jobs(compare_instance, jobs, workers=workers, description="instances"):
            for rec in result:
                writer.write(rec)
                records.append(rec)
        summary = summarize(records, target_budget)
        writer.write(make_record("swe.compare_summary", 1, instances=len(jobs), **summary))
    finally:
        writer.close()
    for s, curve in summary["curves"].items():
        console.info(f"{s:12s} " + "  ".join(f"{b}: {n}/{summary['runs'][s][b]}" for b, n in curve.items()))
    if summary["mcnemar"]:
        m = summary["mcnemar"]
        console.info(f"McNemar at {m['budget']} nodes, mcts vs {m['baseline']}: {m['mcts_only']} vs "
                     f"{m['baseline_only']} discordant of {m['pairs']} pairs, p = {m['p_value']:g}")
