"""Accuracy under head masking and under KV-cache compression, on the synthetic tasks."""

from __future__ import annotations

import contextlib
import random
import time

import numpy as np

from toolkit.kvcompress.allocation import PAGE_METHODS
from toolkit.kvcompress.press import KVPress
from toolkit.kvcompress.tasks import WORD_ID, Example, decode, make_example, score_answer


def make_eval_set(seed: int, n_per_cell: int, lengths, tasks=("single", "multikey", "twohop")) -> list[Example]:
    """n_per_cell examples for every (task, length), needle depths spread evenly."""
    rng = random.Random(seed)
    out = []
    for task in tasks:
        for length in lengths:
            for i in range(n_per_cell):
                depth = (i + 0.5) / n_per_cell
                out.append(make_example(rng, task, int(length), depth=depth))
    return out


def generate_words(model, ex: Example, press: KVPress | None = None) -> tuple[list[str], dict]:
    """Greedy answer for one example (through model.generate), with KV statistics when a press is used."""
    import torch

    ids = torch.tensor([ex.ids()], device=model.device)
    kwargs = dict(max_new_tokens=len(ex.answer), do_sample=False, pad_token_id=WORD_ID["<pad>"],
                  eos_token_id=WORD_ID["</s>"], attention_mask=torch.ones_like(ids))
    stats: dict = {}
    with torch.no_grad():
        if press is None:
            out = model.generate(ids, **kwargs)
        else:
            with press(model):
                out = model.generate(ids, **kwargs)
            stats = {**cache_stats(press.last_cache), "answer_held": answer_held(press.last_cache, ex)}
    return decode(out[0, ids.shape[1]:].tolist()), stats


def cache_stats(cache) -> dict:
    """What a generation held (bytes, entries, page metadata) and read per decode step (cache.reads)."""
    seen = cache.layers[0].seen
    rows = cache.layers[0].keys.shape[0] if not cache.layers[0].flat else int(cache.layers[0].row.max()) + 1
    full = sum(rows * layer.n_heads * seen * 2 * layer.keys.shape[-1] * layer.keys.element_size()
               for layer in cache.layers)
    return {"kv_bytes": cache.stored_bytes(), "kv_entries": cache.stored_entries(), "full_bytes": full,
            "page_bytes": cache.page_bytes(), "reads": dict(cache.reads), "head_lengths": cache.head_lengths()}


def answer_held(cache, ex: Example) -> float:
    """Share of the answer's value words held by the KV head that holds most of them (1.0 when nothing was evicted).

    The answer can only be copied if some head still holds it, so this separates what selection dropped
    from what the model got wrong with the value in reach.
    """
    a, b = ex.value_span
    best = 0.0
    for layer in cache.layers:
        if not layer.flat:
            return 1.0
        inside = (layer.pos >= a) & (layer.pos < b)
        per_head = np.bincount(layer.head[inside].cpu().numpy(), minlength=layer.n_heads)
        best = max(best, float(per_head.max()) / (b - a))
    return best


@contextlib.contextmanager
def masked_heads(model, heads):
    """Zero the outputs of the given (layer, query head) pairs (before o_proj) inside the context."""
    by_layer: dict[int, list[int]] = {}
    for layer, head in heads:
        by_layer.setdefault(int(layer), []).append(int(head))
    handles = []
    head_dim = getattr(model.config, "head_dim", None) or model.config.hidden_size // model.config.num_attention_heads
    for layer, hs in by_layer.items():
        o_proj = model.model.layers[layer].self_attn.o_proj

        def hook(module, args, hs=tuple(hs)):
            x = args[0].clone()
            for h in hs:
                x[..., h * head_dim:(h + 1) * head_dim] = 0
            return (x,)

        handles.append(o_proj.register_forward_pre_hook(hook))
    try:
        yield
    finally:
        for h in handles:
            h.remove()


def support_positions(ex: Example) -> tuple[int, ...]:
    """Prompt positions of the sentences on the answer path (the fact, and the link for two-hop)."""
    return tuple(i for a, b in ex.support for i in range(a, b))


def accuracy(model, examples: list[Example], press: KVPress | None = None,
             pin_support: bool = False) -> tuple[float, list[dict]]:
    """Greedy accuracy; with `pin_support` (an oracle) every head keeps the answer path first, within its budget."""
    rows = []
    for ex in examples:
        if press is not None and pin_support:
            press.pinned = support_positions(ex)
        words, stats = generate_words(model, ex, press)
        rows.append({"task": ex.task, "length": len(ex.prompt), "correct": score_answer(ex, words), **stats})
    return float(np.mean([r["correct"] for r in rows])) if rows else 0.0, rows


def mask_experiment(model, scores: np.ndarray, examples: list[Example], ks=(1, 2, 4, 8), n_random: int = 5,
                    seed: int = 0) -> list[dict]:
    """Accuracy with the top-k scored heads masked vs k random heads (drawn outside the top k)."""
    from toolkit.core.errors import InputError

    rng = np.random.default_rng(seed)
    n_layers, n_heads = scores.shape
    cfg = getattr(model, "config", None)
    if cfg is not None and (cfg.num_hidden_layers, cfg.num_attention_heads) != scores.shape:
        raise InputError(f"head scores have shape {scores.shape}, model has "
                         f"{(cfg.num_hidden_layers, cfg.num_attention_heads)}")
    for k in ks:
        if not 1 <= k <= scores.size // 2:
            raise InputError(f"--k {k}: expected 1..{scores.size // 2} (the model has {scores.size} heads; "
                             "random draws come from outside the top k)")
    order = np.argsort(-scores.ravel(), kind="stable")
    base, _ = accuracy(model, examples)
    records = [{"masked": "none", "k": 0, "accuracy": base, "heads": []}]
    for k in ks:
        top = [divmod(int(i), n_heads) for i in order[:k]]
        with masked_heads(model, top):
            acc, _ = accuracy(model, examples)
        records.append({"masked": "top", "k": k, "accuracy": acc, "heads": [list(h) for h in top]})
        rest = order[k:]
        accs, draws = [], []
        for _ in range(n_random):
            pick = [divmod(int(i), n_heads) for i in rng.choice(rest, size=k, replace=False)]
            with masked_heads(model, pick):
                acc_r, _ = accuracy(model, examples)
            accs.append(acc_r)
            draws.append([list(h) for h in pick])
        records.append({"masked": "random", "k": k, "accuracy": float(np.mean(accs)),
                        "accuracy_min": float(np.min(accs)), "accuracy_max": float(np.max(accs)),
                        "draws": n_random, "heads": draws})
    return records


def eval_grid(model, examples: list[Example], methods, budgets, head_scores=None, window: int = 8,
              kernel: int = 7, beta: float = 1.2, on_row=None, pin_support: bool = False,
              page_size: int = 8, run=None, quest: dict | None = None) -> list[dict]:
    """Accuracy and KV memory held for every (method, budget); `full` is evaluated once.

    `quest` holds KVPress's page options besides the page size (min_pages, dense_layers, gqa).

    `run(press, pinned)` (default: greedy accuracy on `examples`) returns one dict per example with
    "task", "correct" (a score in [0, 1]), "length" and the cache statistics of generate_words.
    """
    if run is None:
        def run(press, pinned):
            return accuracy(model, examples, press, pinned)[1]
    rows = []
    for method in methods:
        for budget in ([0] if method == "full" else budgets):
            press = KVPress(method, budget=budget if method != "full" else 10**9, window=window, kernel=kernel,
                            head_scores=head_scores, beta=beta, page_size=page_size, **(quest or {}))
            pinned = pin_support and method != "full"  # the full cache keeps everything anyway
            t0 = time.perf_counter()
            per = run(press, pinned)
            acc = float(np.mean([r["correct"] for r in per]))
            by_task, held = {}, {}
            for task in sorted({r["task"] for r in per}):
                by_task[task] = float(np.mean([r["correct"] for r in per if r["task"] == task]))
                if all("answer_held" in r for r in per):
                    held[task] = float(np.mean([r["answer_held"] for r in per if r["task"] == task]))
            kv = float(np.mean([r["kv_bytes"] for r in per]))
            full_bytes = float(np.mean([r["full_bytes"] for r in per]))
            reads = {k: sum(r["reads"][k] for r in per) for k in per[0]["reads"]}
            steps = max(reads["steps"], 1)
            row = {"method": method, "budget": None if method == "full" else budget, "accuracy": acc,
                   "page_size": page_size if method in PAGE_METHODS else None,
                   **({"min_pages": press.min_pages, "dense_layers": press.dense_layers, "gqa_select": press.gqa,
                         "page_meta": press.page_meta}
                      if method in PAGE_METHODS else {}),
                   "beta": beta if method.startswith("headkv") else None,
                   "by_task": by_task, "answer_held_by_task": held, "pinned_support": pinned, "kv_bytes_mean": kv,
                   "kv_fraction": None if not full_bytes else kv / full_bytes,
                   "holds_full_context": bool(kv >= full_bytes), "page_meta_bytes_mean":
                       float(np.mean([r["page_bytes"] for r in per])),
                   "attended_fraction": reads["attended"] / max(reads["context"], 1),
                   "bytes_moved_per_token": (reads["kv_bytes"] + reads["meta_bytes"]) / steps,
                   "full_bytes_per_token": reads["context_bytes"] / steps,
                   "context_mean": float(np.mean([r["length"] for r in per])),
                   "examples": len(per), "seconds": round(time.perf_counter() - t0, 2)}
            rows.append(row)
            if on_row:
                on_row(row)
    return rows
