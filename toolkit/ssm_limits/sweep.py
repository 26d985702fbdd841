"""Capacity sweep: one-layer selective SSMs with a p-bit state bottleneck on K=1 lookups of uniform tables.

For each table size n and state size (floats = channels * state), train for a number of steps (or, without one,
a fixed wall time; the time is always a cap) on fresh
train-split tables, test on fresh test-split tables, and compare with the Fano ceiling of a B-bit message.
B*(n) is the smallest B reaching held-out accuracy 0.9; exactness needs B >= n log2 n.
"""

from __future__ import annotations

import math
import os
import random
import time
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import RecordWriter, make_record, read_records
from toolkit.ssm_limits.tasks import compose_data, iterate_data, split_of

STATE = 2  # SSM state per channel; the state floats are varied through the channel count
HIDDEN = 32
SEP = 3  # conv_kernel - 1 separators flush the convolution state


def vocab_for(task: str, n: int) -> dict[str, int]:
    words = ["<pad>", "<s>", "|"] + ([str(i) for i in range(n)] if task == "iterate"
                                     else [f"{c}{i}" for c in "ab" for i in range(n)])
    return {w: i for i, w in enumerate(words)}


def sample(rng: random.Random, task: str, n: int, split: str) -> dict:
    while True:
        data = iterate_data(rng, n, 1) if task == "iterate" else compose_data(rng, n, 1)
        if split_of(task, data) == split:
            return data


def encode(task: str, data: dict, vocab: dict[str, int]) -> tuple[list[int], int]:
    """(ids up to and including the query, answer id). The table, SEP separators, then the query."""
    if task == "iterate":
        pairs = [(str(i), str(v)) for i, v in enumerate(data["f"])]
        x, ans = str(data["x"]), str(data["f"][data["x"]])
    else:
        pairs = [tuple(line) for line in data["lines"]]
        x, ans = data["x"], dict(pairs)[data["x"]]
    ids = [vocab["<s>"]] + [vocab[w] for p in pairs for w in p] + [vocab["|"]] * SEP + [vocab[x]]
    return ids, vocab[ans]


def run_point(task: str, n: int, floats: int, bits: int, seconds: float, seed: int, n_test: int = 500,
              max_steps: int | None = None) -> dict:
    import torch

    from toolkit.ssm_limits.selective import SelectiveLM, fano_ceiling

    if floats < STATE or floats % STATE:
        raise InputError(f"state floats {floats}: must be a multiple of {STATE}")
    torch.manual_seed(seed)
    rng = random.Random(f"sweep:{seed}:{task}:{n}:{floats}")
    vocab = vocab_for(task, n)
    model = SelectiveLM(len(vocab), HIDDEN, STATE, floats // STATE, bits)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    cut = 2 * n + SEP  # index of the last separator (after <s> and 2n table tokens)
    model(torch.tensor([encode(task, sample(rng, task, n, "train"), vocab)[0]]), cut)  # lazy imports off the clock
    start, steps = time.time(), 0
    model.train()
    while (elapsed := time.time() - start) < seconds and (max_steps is None or steps < max_steps):
        progress = elapsed / seconds if max_steps is None else steps / max_steps
        for g in opt.param_groups:
            g["lr"] = 3e-3 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
        batch = [encode(task, sample(rng, task, n, "train"), vocab) for _ in range(64)]
        ids = torch.tensor([b[0] for b in batch])
        target = torch.tensor([b[1] for b in batch])
        loss = torch.nn.functional.cross_entropy(model(ids, cut)[:, -1], target)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        steps += 1
    model.eval()
    test_rng = random.Random(f"sweep-test:{seed}:{task}:{n}")
    batch = [encode(task, sample(test_rng, task, n, "test"), vocab) for _ in range(n_test)]
    with torch.no_grad():
        pred = model(torch.tensor([b[0] for b in batch]), cut)[:, -1].argmax(-1)
    acc = float((pred == torch.tensor([b[1] for b in batch])).float().mean())
    b = model.message_bits()
    return make_record("ssm.capacity", task=task, n=n, state_floats=floats, bits_per_float=bits, bits=b,
                       accuracy=round(acc, 4), se=round(math.sqrt(max(acc * (1 - acc), 1e-9) / n_test), 4),
                       n_test=n_test, fano_ceiling=round(fano_ceiling(n, b), 4), n_log2_n=round(n * math.log2(n), 2),
                       steps=steps, max_steps=max_steps, seconds=seconds, seed=seed)


def bstar_summary(points: list[dict], target: float = 0.9) -> list[dict]:
    """B*(n) per task, B*/(n log2 n), and the log-log slope of B* against n."""
    out = []
    for task in sorted({p["task"] for p in points}):
        rows = []
        for n in sorted({p["n"] for p in points if p["task"] == task}):
            ok = [p["bits"] for p in points if p["task"] == task and p["n"] == n and p["accuracy"] >= target]
            bstar = min(ok) if ok else None
            rows.append({"n": n, "bstar": bstar,
                         "ratio": None if bstar is None else round(bstar / (n * math.log2(n)), 3)})
        pts = [(math.log(r["n"]), math.log(r["bstar"])) for r in rows if r["bstar"]]
        slope = None
        if len(pts) >= 2:
            mx, my = sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)
            slope = round(sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts), 3)
        leaks = [p for p in points if p["task"] == task and p["accuracy"] > p["fano_ceiling"] + 3 * p["se"]]
        out.append(make_record("ssm.capacity-summary", task=task, target=target, bstar=rows, slope=slope,
                               above_ceiling=len(leaks)))
    return out


def _drop_summaries(path: Path) -> None:
    """Rewrite `path` without its capacity-summary lines (atomically); every other line is kept as it was."""
    lines = path.read_text().splitlines(keepends=True)
    kept = [ln for ln in lines if '"ssm.capacity-summary"' not in ln]
    if len(kept) != len(lines):
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text("".join(kept))
        os.replace(tmp, path)


def run_sweep(tasks: list[str], sizes: list[int], floats: list[int], bits: int, seconds: float, seed: int,
              out: Path | None, resume: bool, log=None, max_steps: int | None = None) -> list[dict]:
    if bits < 1:
        raise InputError(f"--bits {bits}: must be >= 1")
    config = {"bits": bits, "seconds": seconds, "seed": seed, "max_steps": max_steps}
    done = {}
    if resume and out is not None and out.exists():
        for rec in read_records(out, types=["ssm.capacity", "ssm.capacity-summary"]):
            if rec["type"] != "ssm.capacity":
                continue
            have = {"seed": rec["seed"], "seconds": rec["seconds"], "bits": rec["bits_per_float"],
                    "max_steps": rec.get("max_steps")}
            if have != config:
                raise InputError(f"{out}: --resume with a changed config (bits/seconds/steps/seed differ)")
            done[(rec["task"], rec["n"], rec["state_floats"])] = rec
        _drop_summaries(out)  # the summary is recomputed over all points below; one per file
    points = []
    with RecordWriter(out, append=resume) as writer:
        for task in tasks:
            for n in sizes:
                for f in floats:
                    if (task, n, f) in done:
                        points.append(done[(task, n, f)])
                        continue
                    rec = run_point(task, n, f, bits, seconds, seed, max_steps=max_steps)
                    if log:
                        log(f"{task} n={n} floats={f} bits={rec['bits']} acc={rec['accuracy']} "
                            f"ceiling={rec['fano_ceiling']}")
                    writer.write(rec)
                    points.append(rec)
        summary = bstar_summary(points)
        writer.write_all(summary)
    return points + summary
