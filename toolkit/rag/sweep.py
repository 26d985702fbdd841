"""Budgeted sweeps: every configuration of a grid over the questions, its scores and mean cost, and
P*(L) = the best score among configurations whose mean effective length is <= L.

Grid syntax: "k=0,1,2,4,8,16;m=0,1,2,4;n=1,2,3,4" (keys k, m, n; non-negative integers, n >= 1).
Budgets: "512,4k,1M". Tasks are the questions' `task` field, else their hop count ("2hop").
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from toolkit.core.errors import InputError
from toolkit.core.records import make_record
from toolkit.rag import metrics
from toolkit.rag.methods import METHODS, Config

GRID_KEYS = ("k", "m", "n")


def parse_grid(text: str) -> dict[str, list[int]]:
    grid: dict[str, list[int]] = {}
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        key, sep, values = part.partition("=")
        key = key.strip()
        if not sep or key not in GRID_KEYS:
            raise InputError(f"--grid '{part}': unknown key '{key}' (expected k=..., m=..., n=...)")
        if key in grid:
            raise InputError(f"--grid: key '{key}' given twice")
        items = [v.strip() for v in values.split(",") if v.strip()]
        if not items:
            raise InputError(f"--grid '{part}': empty list of values")
        out = []
        for v in items:
            if not v.isdigit():
                raise InputError(f"--grid '{part}': '{v}' is not a non-negative integer")
            out.append(int(v))
        if key == "n" and min(out) < 1:
            raise InputError(f"--grid '{part}': n must be >= 1 (n=0 makes no call)")
        grid[key] = sorted(set(out))
    if not grid:
        raise InputError("--grid: empty")
    return grid


def parse_budget(text: str) -> int:
    t = text.strip().lower()
    mult = {"k": 1_000, "m": 1_000_000}.get(t[-1:], 1)
    num = t[:-1] if mult > 1 else t
    try:
        value = float(num)
    except ValueError:
        raise InputError(f"budget '{text}': expected a token count such as 512, 4k or 1M") from None
    if value <= 0 or not math.isfinite(value):
        raise InputError(f"budget '{text}': must be > 0")
    return int(value * mult)


def parse_budgets(text: str) -> list[int]:
    return sorted({parse_budget(b) for b in text.split(",") if b.strip()}) or [parse_budget(text)]


def parse_methods(text: str) -> list[str]:
    out = [m.strip() for m in text.split(",") if m.strip()]
    for m in out:
        if m not in METHODS:
            raise InputError(f"--methods: unknown method '{m}' (expected {', '.join(METHODS)})")
    return out


def configs(grid: dict[str, list[int]], methods: list[str]) -> list[Config]:
    seen, out = set(), []
    for method in methods:
        for k in grid.get("k", [0]):
            for m in grid.get("m", [0]):
                for n in grid.get("n", [1]):
                    cfg = Config(method, k, m, n).normalized()
                    if method == "iterdrag" and cfg.k == 0:
                        continue  # sub-queries with nothing retrieved: not a configuration
                    if method in ("rag", "drag", "iterdrag") and cfg.k == 0 and method != "iterdrag":
                        cfg = Config("zs" if cfg.m == 0 else "ms", 0, cfg.m, 1)
                    if method == "drag" and cfg.m == 0:
                        cfg = Config("rag", cfg.k, 0, 1)
                    if cfg.key() not in seen:
                        seen.add(cfg.key())
                        out.append(cfg)
    return out


def task_of(q: dict) -> str:
    return str(q.get("task") or f"{q.get('hops', 1)}hop")


def score_config(cfg: Config, answers: list[dict], questions: list[dict]) -> dict:
    """A `rag.config` record: overall and per-task EM/F1/Acc, mean cost, feasibility, per-question Acc."""
    per_task: dict[str, dict[str, list[float]]] = {}
    overall: dict[str, list[float]] = {"em": [], "f1": [], "acc": [], "cost": []}
    by_question: dict[str, dict[str, float]] = {}
    infeasible = 0
    for a, q in zip(answers, questions, strict=True):
        s = metrics.scores(a["prediction"], q["answers"])
        t = per_task.setdefault(task_of(q), {"em": [], "f1": [], "acc": [], "cost": []})
        for key in ("em", "f1", "acc"):
            t[key].append(s[key])
            overall[key].append(s[key])
        t["cost"].append(a["effective_tokens"])
        overall["cost"].append(a["effective_tokens"])
        by_question.setdefault(task_of(q), {})[q["id"]] = s["acc"]
        infeasible += bool(a.get("over_context"))

    def summary(d):
        n = len(d["acc"])
        return {"questions": n, **{k: round(sum(d[k]) / n, 4) for k in ("em", "f1", "acc")},
                "cost": round(sum(d["cost"]) / n, 1)}

    estimated = any(a.get("tokens_estimated") for a in answers)
    return make_record("rag.config", 1, config=cfg.key(), method=cfg.method, k=cfg.k, m=cfg.m, n=cfg.n,
                       **summary(overall),
                       tasks={t: {**summary(v), "by_question": by_question[t]} for t, v in sorted(per_task.items())},
                       feasible=infeasible == 0, over_context=infeasible, tokens_estimated=estimated)


def optima(records: list[dict], budgets: list[int], metric: str = "acc") -> Iterator[dict]:
    """`rag.optimum` per budget and task (and "all"): the best feasible configuration with cost <= L."""
    feasible = [r for r in records if r.get("feasible", True)]
    tasks = sorted({t for r in feasible for t in r.get("tasks", {})})
    for budget in budgets:
        for task in ["all", *tasks]:
            best = None
            for r in feasible:
                row = r if task == "all" else r["tasks"].get(task)
                if row is None or row["cost"] > budget:
                    continue
                if best is None or row[metric] > best[1][metric]:
                    best = (r, row)
            if best is not None:
                yield make_record("rag.optimum", 1, budget=budget, task=task, config=best[0]["config"],
                                  method=best[0]["method"], k=best[0]["k"], m=best[0]["m"], n=best[0]["n"],
                                  score=best[1][metric], metric=metric, cost=best[1]["cost"])


def scaling_fit(opt_records: list[dict], task: str = "all") -> dict:
    """Slope of P*(L) against log2 L and Pearson r (the paper's near-linear inference scaling)."""
    import numpy as np

    rows = sorted((r["budget"], r["score"]) for r in opt_records if r["task"] == task)
    if len(rows) < 2:
        return {"task": task, "points": len(rows)}
    x = np.log2([b for b, _ in rows])
    y = np.array([s for _, s in rows])
    slope = float(np.polyfit(x, y, 1)[0])
    r = float(np.corrcoef(x, y)[0, 1]) if y.std() > 0 else 0.0
    return {"task": task, "points": len(rows), "slope_per_doubling": round(slope, 4), "pearson_r": round(r, 4)}


ANCHOR_CONFIGS = (Config("zs"), Config("rag", 1), Config("ms", 0, 1))


def dry_estimate(qs: list[dict], index, cfg: Config, demo_pool: list[dict], seed: int,
                 sample: int = 20) -> tuple[float, float]:
    """(mean effective length, mean calls) a question, without calls: the prompts the runner would build,
    counted in words as the runner counts a backend that reports no tokens. IterDRAG is assumed to follow
    the question's own chain: one follow-up per hop (the gold sub-question when the question has a
    decomposition, which is also what it retrieves for), at most n, then the final line; calls = 2 min(h, n) + 1."""
    from toolkit.rag import prompts
    from toolkit.rag.methods import Runner, merge

    runner = Runner(None, index, demo_pool, seed=seed, keep_trace=False)
    total = calls = 0.0
    part = qs[:sample]

    def words(p: str) -> int:  # as Runner._call counts a prompt a backend gives no token count for
        return sum(len(m["content"].split()) + 1 for m in prompts.messages(p)) + 1

    cfg = cfg.normalized()
    for q in part:
        demos = runner.demos_for(q, cfg)
        docs = index.top(q["question"], cfg.k) if cfg.k else []
        if cfg.method != "iterdrag":
            total += words(prompts.build_prompt(cfg.method, q["question"], docs, demos))
            calls += 1
            continue
        steps = [s for s in q.get("decomposition") or [] if s.get("question")]
        hops = len(steps) or int(q.get("hops") or 1)
        chain: list[str] = []
        for i in range(min(hops, cfg.n)):
            total += words(prompts.build_prompt("iterdrag", q["question"], docs, demos, chain))  # the follow-up
            step = steps[i] if i < len(steps) else {}
            sub = step.get("question") or q["question"]
            chain.append(f"{prompts.FOLLOW} {sub}")
            docs = merge(docs, index.top(sub, cfg.k))
            total += words(prompts.build_prompt("iterdrag", q["question"], docs, demos, chain))  # its answer
            chain.append(f"{prompts.INTERMEDIATE} {step.get('answer') or 'x'}")
            calls += 2
        total += words(prompts.build_prompt("iterdrag", q["question"], docs, demos, chain, hops >= cfg.n))
        calls += 1
    n = max(1, len(part))
    return total / n, calls / n


@dataclass
class Part:
    """Questions with their own index and demonstrations (a sweep may pool several corpora)."""

    questions: list[dict]
    index: object
    demos: list[dict]


def run_sweep(parts: list[Part], grid: dict, methods: list[str], budgets: list[int], llm, *,
              done: set | None = None, previous: list[dict] | None = None, max_context: int | None = None,
              seed: int = 0, dry_run: bool = False, anchors: bool = True, workers: int = 1,
              batch: int = 64) -> Iterator[dict]:
    """rag.config per configuration (skipping `done`), then rag.optimum per budget and the rag.scaling fit."""
    from toolkit.rag.methods import Runner

    todo = configs(grid, methods)
    if anchors:
        keys = {c.key() for c in todo}
        todo = [c for c in ANCHOR_CONFIGS if c.key() not in keys] + todo
    if any(c.m for c in todo) and not all(p.demos for p in parts):
        raise InputError("sweep: the grid has m > 0 but no demonstrations were given (--demos)")
    qs_all = [q for p in parts for q in p.questions]
    if dry_run:
        for cfg in todo:
            est = [dry_estimate(p.questions, p.index, cfg, p.demos, seed) for p in parts]
            cost = sum(c for c, _ in est) / len(est)
            calls = sum(n for _, n in est) / len(est)
            # calls: the mean a question (questions x calls for the whole configuration)
            yield make_record("rag.config", 1, config=cfg.key(), method=cfg.method, k=cfg.k, m=cfg.m, n=cfg.n,
                              cost=round(cost, 1), estimated=True, calls=round(calls, 2),
                              total_calls=round(calls * len(qs_all)), questions=len(qs_all),
                              within={str(b): cost <= b for b in budgets})
        return
    records = list(previous or [])
    runners = [Runner(llm, p.index, p.demos, max_context=max_context, seed=seed, keep_trace=False, workers=workers)
               for p in parts]
    for cfg in todo:
        if done and cfg.key() in done:
            continue
        answers = []
        for part, runner in zip(parts, runners, strict=True):
            for lo in range(0, len(part.questions), batch):
                answers += runner.run(part.questions[lo: lo + batch], cfg)
        rec = score_config(cfg, answers, qs_all)
        records.append(rec)
        yield rec
    opts = list(optima(records, budgets))
    yield from opts
    for task in sorted({o["task"] for o in opts}):
        yield make_record("rag.scaling", 1, **scaling_fit(opts, task))
