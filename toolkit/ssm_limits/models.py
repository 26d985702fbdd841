"""Small causal LMs (Mamba or Llama) trained on compose/iterate, and their held-out evaluation.

Encoding (word tokens): `<s> u v , u v , ... Q x K3 =` then the target. CoT target: every trace value, then
`</s>`; direct: the answer then `</s>`. Loss only on the target. Iterate tables are listed in order 0..n-1,
compose lines in their shuffled order; `--query-first` problems put `Q x Kk ;` before the table; `x_last`
problems end the prompt `Q K3 = x`, so that the first hop, like every later CoT hop, looks up the token just
written (the model's meta file records the format, and evaluation uses it).
Training draws fresh tables every step, only from the train split (hash buckets), so every test table is new.
Training is resumable: the optimizer, step and random states are saved with the model (`train_state.pt`).
"""

from __future__ import annotations

import inspect
import json
import math
import random
import time
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.models import load_torch_state
from toolkit.ssm_limits.tasks import (
    POOL,
    SET_LETTERS,
    check_params,
    compose_data,
    generate,
    iterate_data,
    split_of,
    trace,
)

MODEL_TASKS = ("compose", "iterate")
MAX_DEPTH = 8
SPECIAL = ["<pad>", "<s>", "</s>", "<unk>"]
VOCAB = (SPECIAL + [",", ";", "=", "Q"] + [f"K{k}" for k in range(1, MAX_DEPTH + 1)]
         + [str(i) for i in range(POOL)] + [f"{c}{i}" for c in SET_LETTERS for i in range(POOL)])
META = "ssm_limits.json"
STATE = "train_state.pt"
# the settings a resumed run must share with the run it continues
RESUME_KEYS = ("arch", "task", "sizes", "depths", "mode", "layers", "hidden", "state", "batch", "lr", "query_first",
               "x_last", "warmup", "curriculum", "max_steps", "init")


def encode_words(problem_data: dict, task: str, mode: str, x_last: bool = False) -> tuple[list[str], list[str]]:
    """(prompt words, target words) of one compose/iterate problem."""
    d = problem_data
    if task == "iterate":
        table = [w for i, v in enumerate(d["f"]) for w in (str(i), str(v), ",")]
        x = str(d["x"])
    else:
        table = [w for a, b in d["lines"] for w in (a, b, ",")]
        x = d["x"]
    query = ["Q", x, f"K{d['k']}"]
    if x_last and not d.get("query_first"):
        prompt = ["<s>"] + table + ["Q", f"K{d['k']}", "=", x]
    else:
        prompt = ["<s>"] + (query + [";"] + table if d.get("query_first") else table + query) + ["="]
    values = [n["value"] for n in trace(task, d) if n["id"] != "x"]
    target = (values if mode == "cot" else values[-1:]) + ["</s>"]
    return prompt, target


def relabel(rng: random.Random, rows: list[tuple[list[str], list[str]]], pool: int = POOL
            ) -> list[tuple[list[str], list[str]]]:
    """Rename every symbol through a random permutation of the first `pool` symbols (one per sequence; pool = the
    largest trained size), so that all their embeddings train even on small tables; the table structure is
    unchanged."""
    out = []
    for prompt, target in rows:
        perm = rng.sample(range(pool), pool)

        def ren(w, perm=perm):
            if w.isdigit():
                return str(perm[int(w)])
            if w[0] in SET_LETTERS and w[1:].isdigit():
                return f"{w[0]}{perm[int(w[1:])]}"
            return w
        out.append(([ren(w) for w in prompt], [ren(w) for w in target]))
    return out


def build_tokenizer():
    from toolkit.core.tokenizers import word_tokenizer

    return word_tokenizer(VOCAB)


def build_model(arch: str, layers: int, hidden: int, state: int = 16, vocab: int = len(VOCAB)):
    """Mamba (mambapy scan) or a Llama with 4 heads whose MLP width matches the Mamba's parameters."""
    from transformers import LlamaConfig, LlamaForCausalLM, MambaConfig, MambaForCausalLM

    ids = {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}
    mamba_cfg = MambaConfig(vocab_size=vocab, hidden_size=hidden, state_size=state, num_hidden_layers=layers,
                            expand=2, conv_kernel=4, use_mambapy=True, tie_word_embeddings=True, **ids)
    if arch == "mamba":
        return MambaForCausalLM(mamba_cfg)
    if arch != "transformer":
        raise InputError(f"--arch {arch}: expected mamba or transformer")
    target = sum(p.numel() for p in MambaForCausalLM(mamba_cfg).parameters())

    def llama(inter):
        return LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
                           num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=1024,
                           tie_word_embeddings=True, **ids)
    base = sum(p.numel() for p in LlamaForCausalLM(llama(1)).parameters())
    per_unit = 3 * hidden * layers
    inter = max(1, round((target - base) / per_unit) + 1)
    return LlamaForCausalLM(llama(inter))


def sample_train(rng: random.Random, task: str, size: int, depth: int, query_first: bool = False) -> dict:
    while True:
        data = (iterate_data(rng, size, depth) if task == "iterate" else compose_data(rng, size, depth, query_first))
        if split_of(task, data) == "train":
            return data


def batch_tensors(tokenizer, rows: list[tuple[list[str], list[str]]]):
    import torch

    width = max(len(p) + len(t) for p, t in rows)
    ids = torch.zeros((len(rows), width), dtype=torch.long)
    labels = torch.full((len(rows), width), -100, dtype=torch.long)
    vocab = tokenizer.get_vocab()
    for b, (p, t) in enumerate(rows):
        seq = [vocab[w] for w in p + t]
        ids[b, : len(seq)] = torch.tensor(seq)
        labels[b, len(p): len(seq)] = torch.tensor(seq[len(p):])
    return ids, labels


def stage_of(curriculum: list, step: int, sizes: list[int], depths: list[int]) -> tuple[list[int], list[int]]:
    """The (sizes, depths) trained at `step`: the first curriculum stage (sizes, depths, until) not yet over,
    else the full setting."""
    for st_sizes, st_depths, until in curriculum:
        if step < until:
            return st_sizes, st_depths
    return sizes, depths


def lr_at(lr: float, progress: float, step: int, warmup: int) -> float:
    """Linear warmup over `warmup` steps, then cosine to 0 over the budget."""
    return lr * min(1.0, (step + 1) / warmup if warmup else 1.0) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def train(arch: str, task: str, sizes: list[int], depths: list[int], mode: str, layers: int, hidden: int,
          seconds: float, out: Path, seed: int = 0, batch: int = 64, lr: float = 1e-3, state: int = 16,
          query_first: bool = False, log=None, max_steps: int | None = None, x_last: bool = False,
          warmup: int = 0, curriculum: list | None = None, resume: bool = False, probe_every: int = 0,
          probe_n: int = 50, stop_at: int | None = None, init: Path | None = None) -> dict:
    """Train for a number of steps (`max_steps`; cosine learning rate over them, after `warmup` linear steps;
    `seconds` caps this call and `stop_at` ends it at that step, so a long budget runs as resumable chunks) or,
    without `max_steps`, for a wall-clock budget; save a model directory. `curriculum`: [(sizes, depths,
    until_step), ...] trained before the full setting (symbols renamed within the largest size of all stages).
    With `resume` the run continues the one saved in `out` (same settings); `init` starts a new run (new optimizer,
    step 0, its own schedule and curriculum) from the weights of a saved model of the same shape. Every
    `probe_every` steps the model is decoded on fixed dev-split problems (`probe_n` per cell: each size at K = 1
    and the deepest K), the accuracy and floor logged and kept in the meta's `probes`."""
    import torch

    from toolkit.core.models import seed_everything
    from toolkit.ssm_limits.scan import use_fast_mamba_scan

    if task not in MODEL_TASKS:
        raise InputError(f"--task {task}: small models train on {' or '.join(MODEL_TASKS)}")
    curriculum = [(list(a), list(b), int(c)) for a, b, c in (curriculum or [])]
    for s in sorted({s for st in curriculum for s in st[0]} | set(sizes)):
        for k in sorted({k for st in curriculum for k in st[1]} | set(depths)):
            check_params(task, s, k)
    settings = {"arch": arch, "task": task, "sizes": sizes, "depths": depths, "mode": mode, "layers": layers,
                "hidden": hidden, "state": state, "batch": batch, "lr": lr, "query_first": query_first,
                "x_last": x_last, "warmup": warmup, "curriculum": [list(c) for c in curriculum],
                "max_steps": max_steps, "init": None if init is None else str(init)}
    seed_everything(seed)
    rng = random.Random(seed)
    tok = build_tokenizer()
    step, losses, probes, spent = 0, [], [], 0.0
    resumed = resume and (out / STATE).exists()
    # the step count of the model a run started from, kept across the run's resumed chunks
    init_meta = {} if init is None else {"init_steps": _saved_meta(out if resumed else init).get(
        "init_steps" if resumed else "steps")}
    if resumed:
        model, opt, step, losses, probes, spent = _resume(out, settings, rng)
    else:
        if resume and log:
            log(f"{out}: no saved training state; starting from step 0")
        model = build_model(arch, layers, hidden, state) if init is None else _init_from(init, arch, layers, hidden)
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    n_params = sum(p.numel() for p in model.parameters())
    pool = max(sizes + [s for st in curriculum for s in st[0]])
    probe_set = _probe_set(task, sizes, depths, probe_n, query_first) if probe_every else []
    # eval mode on purpose: neither model has dropout, and Mamba's training branch only adds a kernel probe
    model.eval()
    start = time.time()
    with use_fast_mamba_scan(model):
        while ((elapsed := time.time() - start) < seconds and (max_steps is None or step < max_steps)
               and (stop_at is None or step < stop_at)):
            progress = (spent + elapsed) / seconds if max_steps is None else step / max_steps
            for g in opt.param_groups:
                g["lr"] = lr_at(lr, progress, step, warmup)
            st_sizes, st_depths = stage_of(curriculum, step, sizes, depths)
            size, depth = rng.choice(st_sizes), rng.choice(st_depths)  # one shape per batch: no padding
            rows = relabel(rng, [encode_words(sample_train(rng, task, size, depth, query_first), task, mode, x_last)
                                 for _ in range(batch)], pool=pool)
            ids, labels = batch_tensors(tok, rows)
            # no cache: with one, transformers' Mamba takes its cached path and the fused scan would not run
            loss = model(input_ids=ids, labels=labels, use_cache=False).loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
            losses = losses[-200:]
            step += 1
            if log and step % 100 == 0:
                log(f"step {step} {time.time() - start:.0f}s loss {sum(losses[-100:]) / len(losses[-100:]):.3f}")
            if probe_every and step % probe_every == 0:
                probes.append(_probe(model, tok, probe_set, mode, x_last, step))
                if log:
                    log(f"step {step} dev " + " ".join(f"n={c['size']} K={c['depth']} {c['accuracy']:.2f} "
                                                       f"(floor {c['floor']:.2f})" for c in probes[-1]["cells"]))
    spent += time.time() - start
    meta = {**settings, **init_meta, "seconds": round(spent, 1), "steps": step, "params": n_params, "seed": seed,
            "final_loss": round(sum(losses[-50:]) / max(1, len(losses[-50:])), 4),
            "done": max_steps is not None and step >= max_steps, "probes": probes}
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    torch.save({"optimizer": opt.state_dict(), "step": step, "rng": rng.getstate(), "losses": losses,
                "torch_rng": torch.get_rng_state(), "seconds": spent}, out / STATE)
    (out / META).write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def _saved_meta(model_dir: Path) -> dict:
    try:
        return json.loads((model_dir / META).read_text())
    except (OSError, json.JSONDecodeError):
        return {}


def _init_from(init: Path, arch: str, layers: int, hidden: int):
    """The weights of a saved model, checked to be the architecture and shape this run names (a mismatch is an
    input error, so the meta never describes a model it is not)."""
    from transformers import AutoModelForCausalLM

    from toolkit.core.models import check_model_dir

    check_model_dir(init, "--init model")
    try:
        model = AutoModelForCausalLM.from_pretrained(init)
    except (ValueError, OSError) as exc:
        raise InputError(f"--init {init}: not a saved model ({str(exc).splitlines()[0][:120]})") from None
    cfg = model.config
    found = ("mamba" if cfg.model_type == "mamba" else "transformer", cfg.num_hidden_layers, cfg.hidden_size,
             cfg.vocab_size)
    if found != (arch, layers, hidden, len(VOCAB)):
        raise InputError(f"--init {init}: a {found[0]} with {found[1]} layers, hidden {found[2]}, vocabulary "
                         f"{found[3]}; this run is a {arch} with {layers} layers, hidden {hidden}, vocabulary "
                         f"{len(VOCAB)}")
    return model


def _resume(out: Path, settings: dict, rng: random.Random):
    """The model, optimizer, step, recent losses, probes and seconds of the run saved in `out`."""
    import torch
    from transformers import AutoModelForCausalLM

    try:
        saved = json.loads((out / META).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{out / META}: cannot resume ({exc})") from None
    differ = [k for k in RESUME_KEYS if saved.get(k) != settings[k]]
    if differ:
        k = differ[0]
        raise InputError(f"{out}: --resume with {k} = {settings[k]!r}, but the saved run has {saved.get(k)!r}")
    model = AutoModelForCausalLM.from_pretrained(out)
    opt = torch.optim.AdamW(model.parameters(), lr=settings["lr"], weight_decay=0.01)
    state = load_torch_state(out / STATE)
    opt.load_state_dict(state["optimizer"])
    rng.setstate(state["rng"])
    torch.set_rng_state(state["torch_rng"])
    return model, opt, state["step"], state["losses"], saved.get("probes", []), state["seconds"]


def _probe_set(task: str, sizes: list[int], depths: list[int], n: int, query_first: bool) -> list[dict]:
    cells = [(s, k) for s in sizes for k in sorted({min(depths), max(depths)})]
    return [p for s, k in cells for p in generate(task, s, k, n, "dev", 7, query_first)]


def _probe(model, tok, problems: list[dict], mode: str, x_last: bool, step: int) -> dict:
    from toolkit.ssm_limits.errors import floor

    outs = {o["id"]: o["answer"] for o in evaluate(model, tok, problems, mode, x_last=x_last)}
    cells: dict[tuple, list] = {}
    for p in problems:
        cells.setdefault((p["params"]["size"], p["params"]["depth"]), []).append(
            (outs[p["id"]] == p["answer"], floor(p)))
    return {"step": step, "cells": [{"size": s, "depth": k, "n": len(v),
                                     "accuracy": round(sum(a for a, _ in v) / len(v), 4),
                                     "floor": round(sum(f for _, f in v) / len(v), 4)}
                                    for (s, k), v in sorted(cells.items())]}


def load(model_dir: Path, task: str):
    """A local causal LM and its tokenizer; a tokenizer lacking task symbols is an input error (named)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from toolkit.core.models import check_model_dir

    model_dir = check_model_dir(model_dir)
    try:
        model = AutoModelForCausalLM.from_pretrained(model_dir)
        tok = AutoTokenizer.from_pretrained(model_dir)
    except (ValueError, OSError, KeyError) as exc:
        raise InputError(f"{model_dir}: not a causal LM directory ({str(exc).splitlines()[0][:120]})") from None
    vocab = tok.get_vocab()
    needed = ["<s>", "</s>", ",", "=", "Q"] + ([str(i) for i in range(8)] if task == "iterate" else ["a0", "b0"])
    missing = [w for w in needed if w not in vocab]
    if missing:
        raise InputError(f"{model_dir}: tokenizer lacks task symbols: {', '.join(missing[:6])}")
    model.eval()
    return model, tok


def decode_batch(model, tok, prompts: list[list[str]], max_new: int) -> list[list[str]]:
    """Greedy decoding of equal-length prompts: one prefill, then one token at a time through the model's cache
    (Mamba's recurrent state, Llama's KV cache)."""
    import torch

    vocab = tok.get_vocab()
    inv = {i: w for w, i in vocab.items()}
    unk = vocab.get("<unk>", 0)
    ids = torch.tensor([[vocab.get(w, unk) for w in p] for p in prompts])
    out: list[list[str]] = [[] for _ in prompts]
    done = [False] * len(prompts)
    # transformers' Mamba takes its state as `cache` and drops an unknown `past_key_values` without a word (every
    # step would then start from an empty state); Llama takes `past_key_values`
    cache_kw = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
    with torch.no_grad():
        step = model(input_ids=ids, use_cache=True)
        pos = ids.shape[1]
        for _ in range(max_new):
            nxt = step.logits[:, -1].argmax(-1)
            for b, t in enumerate(nxt.tolist()):
                if not done[b]:
                    w = inv.get(t, "<unk>")
                    if w == "</s>":
                        done[b] = True
                    else:
                        out[b].append(w)
            if all(done):
                break
            step = model(input_ids=nxt[:, None], **{cache_kw: step.past_key_values}, use_cache=True,
                         cache_position=torch.tensor([pos]))
            pos += 1
    return out


def evaluate(model, tok, problems: list[dict], mode: str, batch: int = 50, x_last: bool = False) -> list[dict]:
    """Model outputs for compose/iterate problems as (id, steps, answer) dicts, grouped by shape (prompts in the
    model's format: `x_last` as it was trained)."""
    from toolkit.ssm_limits.scan import use_fast_mamba_scan

    groups: dict[tuple, list[dict]] = {}
    for p in problems:
        groups.setdefault((p["params"]["size"], p["params"]["depth"]), []).append(p)
    with use_fast_mamba_scan(model):
        return _decode_groups(model, tok, groups, mode, batch, x_last)


def _decode_groups(model, tok, groups: dict, mode: str, batch: int, x_last: bool) -> list[dict]:
    results = []
    for (_, depth), group in sorted(groups.items()):
        for i in range(0, len(group), batch):
            chunk = group[i: i + batch]
            prompts = [encode_words(p["data"], p["task"], mode, x_last)[0] for p in chunk]
            outs = decode_batch(model, tok, prompts, (depth if mode == "cot" else 1) + 1)
            for p, words in zip(chunk, outs, strict=False):
                results.append({"id": p["id"], "steps": words if mode == "cot" else [],
                                "answer": words[-1] if words else None})
    return results
