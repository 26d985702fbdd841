"""Small causal LMs (Mamba or Llama) trained on compose/iterate, and their held-out evaluation.

Encoding (word tokens): `<s> u v , u v , ... Q x K3 =` then the target. CoT target: every trace value, then
`</s>`; direct: the answer then `</s>`. Loss only on the target. Iterate tables are listed in order 0..n-1,
compose lines in their shuffled order; `--query-first` problems put `Q x Kk ;` before the table.
Training draws fresh tables every step, only from the train split (hash buckets), so every test table is new.
"""

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.ssm_limits.tasks import POOL, SET_LETTERS, check_params, compose_data, iterate_data, split_of, trace

MODEL_TASKS = ("compose", "iterate")
MAX_DEPTH = 8
SPECIAL = ["<pad>", "<s>", "</s>", "<unk>"]
VOCAB = (SPECIAL + [",", ";", "=", "Q"] + [f"K{k}" for k in range(1, MAX_DEPTH + 1)]
         + [str(i) for i in range(POOL)] + [f"{c}{i}" for c in SET_LETTERS for i in range(POOL)])
META = "ssm_limits.json"


def encode_words(problem_data: dict, task: str, mode: str) -> tuple[list[str], list[str]]:
    """(prompt words, target words) of one compose/iterate problem."""
    d = problem_data
    if task == "iterate":
        table = [w for i, v in enumerate(d["f"]) for w in (str(i), str(v), ",")]
        x = str(d["x"])
    else:
        table = [w for a, b in d["lines"] for w in (a, b, ",")]
        x = d["x"]
    query = ["Q", x, f"K{d['k']}"]
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


def train(arch: str, task: str, sizes: list[int], depths: list[int], mode: str, layers: int, hidden: int,
          seconds: float, out: Path, seed: int = 0, batch: int = 64, lr: float = 1e-3, state: int = 16,
          query_first: bool = False, log=None, max_steps: int | None = None) -> dict:
    """Train for a fixed wall-clock budget (cosine learning rate over that time); save a model directory.
    With `max_steps` the run is a fixed number of steps instead (cosine over the steps, `seconds` only a cap),
    so its outcome does not depend on the machine's load."""
    import torch

    from toolkit.core.models import seed_everything
    from toolkit.ssm_limits.scan import use_fast_mamba_scan

    if task not in MODEL_TASKS:
        raise InputError(f"--task {task}: small models train on {' or '.join(MODEL_TASKS)}")
    for s in sizes:
        for k in depths:
            check_params(task, s, k)
    seed_everything(seed)
    rng = random.Random(seed)
    tok = build_tokenizer()
    model = build_model(arch, layers, hidden, state)
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    # eval mode on purpose: neither model has dropout, and Mamba's training branch only adds a kernel probe
    model.eval()
    start = time.time()
    step, losses = 0, []
    with use_fast_mamba_scan(model):
        while (elapsed := time.time() - start) < seconds and (max_steps is None or step < max_steps):
            progress = elapsed / seconds if max_steps is None else step / max_steps
            for g in opt.param_groups:
                g["lr"] = lr * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
            size, depth = rng.choice(sizes), rng.choice(depths)  # one shape per batch: no padding
            rows = relabel(rng, [encode_words(sample_train(rng, task, size, depth, query_first), task, mode)
                                 for _ in range(batch)], pool=max(sizes))
            ids, labels = batch_tensors(tok, rows)
            loss = model(input_ids=ids, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
            step += 1
            if log and step % 100 == 0:
                log(f"step {step} {time.time() - start:.0f}s loss {sum(losses[-100:]) / len(losses[-100:]):.3f}")
    meta = {"arch": arch, "task": task, "sizes": sizes, "depths": depths, "mode": mode, "layers": layers,
            "hidden": hidden, "state": state, "seconds": seconds, "steps": step, "params": n_params, "seed": seed,
            "batch": batch, "lr": lr, "final_loss": round(sum(losses[-50:]) / max(1, len(losses[-50:])), 4),
            "query_first": query_first}
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    (out / META).write_text(json.dumps(meta, indent=1) + "\n")
    return meta


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
            step = model(input_ids=nxt[:, None], past_key_values=step.past_key_values, use_cache=True,
                         cache_position=torch.tensor([pos]))
            pos += 1
    return out


def evaluate(model, tok, problems: list[dict], mode: str, batch: int = 50) -> list[dict]:
    """Model outputs for compose/iterate problems as (id, steps, answer) dicts, grouped by shape."""
    from toolkit.ssm_limits.scan import use_fast_mamba_scan

    groups: dict[tuple, list[dict]] = {}
    for p in problems:
        groups.setdefault((p["params"]["size"], p["params"]["depth"]), []).append(p)
    with use_fast_mamba_scan(model):
        return _decode_groups(model, tok, groups, mode, batch)


def _decode_groups(model, tok, groups: dict, mode: str, batch: int) -> list[dict]:
    results = []
    for (_, depth), group in sorted(groups.items()):
        for i in range(0, len(group), batch):
            chunk = group[i: i + batch]
            prompts = [encode_words(p["data"], p["task"], mode)[0] for p in chunk]
            outs = decode_batch(model, tok, prompts, (depth if mode == "cot" else 1) + 1)
            for p, words in zip(chunk, outs, strict=False):
                results.append({"id": p["id"], "steps": words if mode == "cot" else [],
                                "answer": words[-1] if words else None})
    return results
