"""Train the tiny reader from scratch: a 4-layer Llama over the world's word vocabulary, on CPU.

Examples come from training worlds (seeds 0-99, never the evaluation seeds 1000+), rendered exactly as
the `hf:` backend renders a call (`user: PROMPT` newline `assistant:`), the loss on the answer line only:
- single-hop answers with 0-16 BM25 documents and 0-4 demonstrations (each with its own documents);
- IterDRAG next lines on gold chains: the documents the controller retrieves (top-k for the question,
  then top-k for each gold sub-question so far, unseen ones appended), the chain so far, the next line;
  plus forced final answers after a complete chain;
- direct multi-hop answers with every gold document present among the retrieved ones (fair to RAG/DRAG).
The schedule runs to a wall-clock cap: a copy drill (induction heads form cheaply), short contexts,
then the mix with at most 2, 4 and finally 12 documents per retrieval; learning rate and stage follow the
elapsed share of the cap. Besides the answer lines, a light next-word loss on the prompt itself (names
recur between titles, texts and the question, so it trains copying on every position); batches are
drawn from a length-sorted pool so little compute goes to padding. Validation: exact answer lines on a
held-out world (seed 999, outside the training and the evaluation seeds).
"""

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path

from toolkit.core import console
from toolkit.rag import prompts, world
from toolkit.rag.retrieve import BM25

TRAIN_SEEDS = range(0, 100)
VALIDATION_SEED = 999
MAX_TRAIN_TOKENS = 800
LM_WEIGHT = 0.3  # weight of the next-word loss on prompt words against the answer-line loss
POOL = 4  # batches generated at once, sorted by length
# (end of the stage as a share of the wall-clock cap, name, most documents per retrieval, most demonstrations):
# short contexts first, where reading one fact among few documents is learnt cheaply, then longer ones
STAGES = ((0.5, "short", 2, 0), (0.8, "medium", 4, 1), (1.01, "full", 12, 2))
# hop counts of chain examples, weighted as the evaluation weights them: `world.generate` makes the same
# number of test questions (`per_hop`) of each hop count 1-4
HOP_WEIGHTS = {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0}


def pick_hops(rng) -> int:
    """One hop count drawn in the HOP_WEIGHTS proportions."""
    hops = sorted(HOP_WEIGHTS)
    return rng.choices(hops, weights=[HOP_WEIGHTS[h] for h in hops])[0]


def render(prompt: str) -> str:
    """What `HFBackend.render` makes of one user message for a tokenizer without a chat template."""
    return f"user: {prompt}\nassistant:"


class TrainingWorlds:
    """Training worlds built lazily, each with its BM25 index and a retrieval cache."""

    def __init__(self, seeds=TRAIN_SEEDS) -> None:
        self.seeds = list(seeds)
        self._cache: dict[int, tuple] = {}

    def get(self, seed: int):
        if seed not in self._cache:
            w = world.generate(seed)
            docs = [d.record() for d in w.docs]
            self._cache[seed] = (w, docs, BM25(docs), {})
        return self._cache[seed]

    def top(self, seed: int, query: str, k: int) -> list[dict]:
        _, docs, index, cache = self.get(seed)
        if query not in cache:
            cache[query] = index.search(query, 16)
        return [docs[i] for i in cache[query][:k]]


def _demos(rng, worlds, seed, method: str, m: int, k: int, hops: int) -> list[prompts.Demo]:
    w = worlds.get(seed)[0]
    pool = [q for q in w.questions if q.split == "demo" and q.hops == hops]
    return [chain_demo(worlds, seed, q, k) if method == "iterdrag" else
            prompts.Demo(q.question, q.answers[0], worlds.top(seed, q.question, k)) for q in rng.sample(pool, m)]


def chain_demo(worlds, seed, q, k: int) -> prompts.Demo:
    docs = _merge(worlds.top(seed, q.question, k), [])
    lines = []
    for step in q.decomposition:
        lines.append(f"{prompts.FOLLOW} {step['question']}")
        docs = _merge(docs, worlds.top(seed, step["question"], k))
        lines.append(f"{prompts.INTERMEDIATE} {step['answer']}")
    lines.append(f"{prompts.FINAL} {q.answers[0]}")
    return prompts.Demo(q.question, q.answers[0], docs, lines)


def _merge(docs: list[dict], new: list[dict]) -> list[dict]:
    seen = {d["id"] for d in docs}
    return docs + [d for d in new if d["id"] not in seen]


def single_hop(rng, worlds, kmax: int, mmax: int) -> tuple[str, str]:
    seed = rng.choice(worlds.seeds)
    w = worlds.get(seed)[0]
    q = rng.choice([x for x in w.questions if x.hops == 1 and x.split == "test"])
    k = rng.choice([0] + list(range(1, kmax + 1)) * 3)
    m = rng.randint(0, mmax)
    method = ("drag" if m else "rag") if k else ("ms" if m else "zs")
    demos = _demos(rng, worlds, seed, method, m, k, 1)
    docs = worlds.top(seed, q.question, k)
    return prompts.build_prompt(method, q.question, docs, demos), f"{prompts.ANSWER} {q.answers[0]}"


def chain_step(rng, worlds, kmax: int, mmax: int) -> tuple[str, str]:
    seed = rng.choice(worlds.seeds)
    w = worlds.get(seed)[0]
    hops = pick_hops(rng)
    q = rng.choice([x for x in w.questions if x.hops == hops and x.split == "test"])
    k = rng.choice([1, 2, 4, 8][: max(1, int(math.log2(kmax)) + 1)])
    m = rng.randint(0, min(mmax, 1))
    demos = _demos(rng, worlds, seed, "iterdrag", m, k, pick_hops(rng)) if m else []
    demo = chain_demo(worlds, seed, q, k)
    # position in the chain: 2 lines per hop, then the final line
    pos = rng.randint(0, len(demo.chain) - 1)
    follow_ups = sum(1 for line in demo.chain[:pos] if line.startswith(prompts.FOLLOW))
    docs = worlds.top(seed, q.question, k)
    for step in q.decomposition[:follow_ups]:
        docs = _merge(docs, worlds.top(seed, step["question"], k))
    target = demo.chain[pos]
    force = pos == len(demo.chain) - 1 and rng.random() < 0.3
    if force:
        target = q.answers[0]
    return prompts.build_prompt("iterdrag", q.question, docs, demos, demo.chain[:pos], force_final=force), target


def full_chain(rng, worlds, kmax: int, mmax: int) -> tuple[str, str]:
    """A whole gold chain with every document the controller would fetch; every chain line is supervised."""
    seed = rng.choice(worlds.seeds)
    w = worlds.get(seed)[0]
    hops = pick_hops(rng)  # drawn once: inside the filter it would pick a random subset of questions instead
    q = rng.choice([x for x in w.questions if x.hops == hops and x.split == "test"])
    k = rng.choice([1, 2, 4, 8][: max(1, int(math.log2(kmax)) + 1)])
    demos = _demos(rng, worlds, seed, "iterdrag", 1, k, pick_hops(rng)) if rng.random() < mmax / 8 else []
    demo = chain_demo(worlds, seed, q, k)
    return prompts.build_prompt("iterdrag", q.question, demo.docs, demos, demo.chain[:-1]), demo.chain[-1]


def direct_multi_hop(rng, worlds, kmax: int, mmax: int) -> tuple[str, str]:
    seed = rng.choice(worlds.seeds)
    w, docs_all, _, _ = worlds.get(seed)
    hops = rng.randint(2, 4)
    q = rng.choice([x for x in w.questions if x.hops == hops and x.split == "test"])
    k = rng.randint(hops, max(hops, kmax))
    by_id = {d["id"]: d for d in docs_all}
    gold = [by_id[s["doc"]] for s in q.decomposition]
    docs = [d for d in worlds.top(seed, q.question, k) if d["id"] not in {g["id"] for g in gold}][: k - hops]
    for g in gold:
        docs.insert(rng.randint(0, len(docs)), g)
    m = rng.randint(0, mmax)
    demos = _demos(rng, worlds, seed, "drag", m, min(k, 4), hops) if m else []
    return prompts.build_prompt("drag" if m else "rag", q.question, docs, demos), f"{prompts.ANSWER} {q.answers[0]}"


MIX = ((single_hop, 0.35), (full_chain, 0.4), (chain_step, 0.2), (direct_multi_hop, 0.05))
SUPERVISED = (prompts.ANSWER, prompts.FOLLOW, prompts.INTERMEDIATE, prompts.FINAL)


def example(rng, worlds, kmax: int, mmax: int) -> tuple[str, str]:
    r, acc = rng.random(), 0.0
    for fn, share in MIX:
        acc += share
        if r < acc:
            return fn(rng, worlds, kmax, mmax)
    return MIX[-1][0](rng, worlds, kmax, mmax)


def build_tokenizer():
    from toolkit.core.tokenizers import SPECIALS, word_tokenizer

    return word_tokenizer(list(SPECIALS) + [w for w in world.vocabulary() if w not in SPECIALS])


def encode(vocab: dict[str, int], prompt: str, target: str) -> tuple[list[int], list[bool]]:
    """Word ids (the word tokenizer maps one whitespace word to one id) and the supervised mask: the
    target line with its end token, and in the prompt the content of every answer or chain line
    (demonstrations' answers and the chain so far are answers too)."""
    unk = vocab["<unk>"]
    ids: list[int] = []
    mask: list[bool] = []
    for line in render(prompt).split("\n"):
        words = line.split()
        marker = next((m for m in SUPERVISED if line.startswith(m)), None)
        skip = len(marker.split()) if marker else len(words)
        ids += [vocab.get(x, unk) for x in words]
        mask += [i >= skip for i in range(len(words))]
    words = target.split() + ["</s>"]
    ids += [vocab.get(x, unk) for x in words]
    mask += [True] * len(words)
    return ids, mask


def encode_batch(tok, pairs: list[tuple[str, str]], max_tokens: int = MAX_TRAIN_TOKENS):
    import torch

    vocab = tok.get_vocab()
    seqs = [encode(vocab, p, t) for p, t in pairs]
    seqs = [s for s in seqs if len(s[0]) <= max_tokens]
    width = max(len(ids) for ids, _ in seqs)
    ids_t = torch.full((len(seqs), width), tok.pad_token_id, dtype=torch.long)
    labels = torch.full((len(seqs), width), -100, dtype=torch.long)
    attn = torch.zeros((len(seqs), width), dtype=torch.long)
    for b, (ids, mask) in enumerate(seqs):
        ids_t[b, : len(ids)] = torch.tensor(ids)
        labels[b, : len(ids)] = torch.tensor([i if m else -100 for i, m in zip(ids, mask, strict=True)])
        attn[b, : len(ids)] = 1
    return ids_t, labels, attn


def masked_loss(model, ids, labels, attn, lm_weight: float = 0.0):
    """Next-token loss on supervised positions; with `lm_weight`, plus that weight times the mean next-word
    loss on the other (non-padding) positions. The output layer runs on the positions used alone.
    Returns (total, supervised-only) losses."""
    import torch

    hidden = model.model(input_ids=ids, attention_mask=attn).last_hidden_state[:, :-1]
    gold = labels[:, 1:]
    keep = gold != -100
    answer = torch.nn.functional.cross_entropy(model.lm_head(hidden[keep]), gold[keep])
    if not lm_weight:
        return answer, answer
    rest = (attn[:, 1:] == 1) & ~keep
    lm = torch.nn.functional.cross_entropy(model.lm_head(hidden[rest]), ids[:, 1:][rest])
    return answer + lm_weight * lm, answer


def copy_drill(rng, tok, batch: int):
    import torch

    names = list(world.names())
    half = rng.randint(8, 24)
    ids = torch.empty((batch, 2 * half), dtype=torch.long)
    vocab = tok.get_vocab()
    for b in range(batch):
        x = [vocab[rng.choice(names)] for _ in range(half)]
        ids[b] = torch.tensor(x + x)
    labels = ids.clone()
    labels[:, : half + 1] = -100
    return ids, labels, torch.ones_like(ids)


def model_config(vocab_size: int, tok, layers: int = 4, hidden: int = 128, heads: int = 4,
                 intermediate: int = 320, max_positions: int = 2048):
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=vocab_size, hidden_size=hidden, intermediate_size=intermediate,
                       num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=heads,
                       max_position_embeddings=max_positions, rope_theta=10000.0, tie_word_embeddings=True,
                       pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)


def teacher_forced(model, tok, rng, worlds, n: int = 16, kmax: int = 8, mmax: int = 1) -> float:
    """Share of fresh training-mix examples whose every supervised word (chain so far included) is predicted."""
    return line_exact(model, tok, [example(rng, worlds, kmax, mmax) for _ in range(n)], target_only=False)


def line_exact(model, tok, pairs: list[tuple[str, str]], target_only: bool = True) -> float:
    """Share of (prompt, target) pairs whose target line (and `</s>`) greedy decoding would reproduce."""
    import torch

    ids, labels, mask = encode_batch(tok, pairs, max_tokens=10**6)
    if target_only:  # supervise the target line alone, not the answers inside the prompt
        for b, (_, target) in enumerate(pairs):
            end = int(mask[b].sum())
            labels[b, : end - len(target.split()) - 1] = -100
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=mask).logits
    pred = logits[:, :-1].argmax(-1)
    gold = labels[:, 1:]
    ok = ((pred == gold) | (gold == -100)).all(-1)
    return round(float(ok.float().mean()), 3)


def validation_sets(n: int = 32) -> dict[str, list[tuple[str, str]]]:
    """Fixed held-out checks on world VALIDATION_SEED: 1-hop answers with the gold document among 8 BM25
    distractors (the shipped test's setting), and IterDRAG next lines on gold chains (k=4)."""
    rng = random.Random(VALIDATION_SEED)
    vw = TrainingWorlds([VALIDATION_SEED])
    w, docs_all, _, _ = vw.get(VALIDATION_SEED)
    by_id = {d["id"]: d for d in docs_all}
    one_hop = []
    for q in [x for x in w.questions if x.hops == 1 and x.split == "test"][:n]:
        gold = by_id[q.decomposition[0]["doc"]]
        docs = [d for d in vw.top(VALIDATION_SEED, q.question, 9) if d["id"] != gold["id"]][:8]
        docs.insert(rng.randint(0, len(docs)), gold)
        one_hop.append((prompts.build_prompt("rag", q.question, docs, []), f"{prompts.ANSWER} {q.answers[0]}"))
    chain = [chain_step(rng, vw, 4, 0) for _ in range(n)]
    return {"one_hop_k9": one_hop, "chain_step_k4": chain}


CHECKPOINT = "checkpoint.pt"


def load_checkpoint(path: Path, minutes: float) -> dict:
    """A chunk's checkpoint, which must belong to a run with the same `minutes` (the schedule depends on it)."""
    import torch

    from toolkit.core.errors import InputError

    if not path.exists():
        raise InputError(f"{path}: no checkpoint to resume from (run with --chunk-minutes first)")
    state = torch.load(path, weights_only=False)
    if state.get("minutes") != minutes:
        raise InputError(f"{path}: field 'minutes' is {state.get('minutes')}, not --minutes {minutes} "
                         "(a resumed run keeps its schedule)")
    return state


def train(out: str | Path, *, minutes: float = 20.0, seed: int = 0, lr: float = 3e-3, batch: int = 16,
          log_every: int = 40, progress_file: str | None = None, chunk_minutes: float | None = None,
          resume: bool = False) -> dict:
    """Train until `minutes` of training time; save model, tokenizer and training_log.json to `out`.

    In chunks: `chunk_minutes` stops this run early and leaves `out/checkpoint.pt` (optimizer,
    step, training time so far, random states); `resume` continues from it on the same schedule (the
    stage and learning rate follow the training time summed over the chunks, not this run's). The
    checkpoint is removed once the whole `minutes` are done."""
    import torch
    from transformers import LlamaForCausalLM

    from toolkit.core.models import seed_everything

    seed_everything(seed)
    rng = random.Random(seed)
    tok = build_tokenizer()
    config = model_config(len(tok), tok)
    config._attn_implementation = "sdpa"
    model = LlamaForCausalLM(config)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    worlds = TrainingWorlds()
    held_out = validation_sets()
    cap = minutes * 60.0
    out = Path(out)
    t0, step, log, pool = time.time(), 0, [], []
    if resume:
        state = load_checkpoint(out / CHECKPOINT, minutes)
        # the weights sit beside the checkpoint (model.safetensors, saved with it), which keeps the file small
        weights = state["model"] if "model" in state else LlamaForCausalLM.from_pretrained(out).state_dict()
        model.load_state_dict(weights)
        opt.load_state_dict(state["opt"])
        rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        step, log, t0 = state["step"], state["log"], time.time() - state["elapsed"]
    stop_at = time.time() + chunk_minutes * 60.0 if chunk_minutes else math.inf
    model.train()
    while (frac := (time.time() - t0) / cap) < 1.0 and time.time() < stop_at:
        scale = min(1.0, (step + 1) / 30) * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))
        for g in opt.param_groups:
            g["lr"] = lr * scale
        if frac < 0.05:
            stage, (ids, labels, mask) = "drill", copy_drill(rng, tok, 32)
        else:
            stage, kmax, mmax = next(s for s in STAGES if frac < s[0])[1:]
            if not pool:
                sized = [(len(render(p).split()) + len(t.split()) + 1, p, t)
                         for p, t in (example(rng, worlds, kmax, mmax) for _ in range(POOL * batch))]
                pool = [(p, t) for n, p, t in sorted(sized, key=lambda x: x[0]) if n <= MAX_TRAIN_TOKENS]
                pool = [pool[i: i + batch] for i in range(0, len(pool), batch)]
                rng.shuffle(pool)
            ids, labels, mask = encode_batch(tok, pool.pop())
        loss, answer_loss = masked_loss(model, ids, labels, mask, 0.0 if stage == "drill" else LM_WEIGHT)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if step % log_every == 0:
            model.eval()
            acc = teacher_forced(model, tok, random.Random(step), worlds)
            val = {name: line_exact(model, tok, pairs) for name, pairs in held_out.items()}
            model.train()
            entry = {"step": step, "stage": stage, "loss": round(float(answer_loss.detach()), 4),
                     "teacher_forced": acc, **val, "elapsed_s": round(time.time() - t0, 1),
                     "cpu_s": round(time.process_time(), 1)}
            log.append(entry)
            console.info(json.dumps(entry))
            if progress_file:
                with open(progress_file, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry) + "\n")
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    done = time.time() - t0 >= cap
    if done:
        (out / CHECKPOINT).unlink(missing_ok=True)
    else:
        torch.save({"opt": opt.state_dict(), "step": step, "log": log,
                    "elapsed": time.time() - t0, "rng": rng.getstate(), "torch_rng": torch.get_rng_state(),
                    "minutes": minutes}, out / CHECKPOINT)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    summary = {"minutes": minutes, "steps": step, "seed": seed, "lr": lr, "batch": batch, "lm_weight": LM_WEIGHT,
               "complete": done, "hop_weights": HOP_WEIGHTS,
               "train_seconds": round(time.time() - t0, 1), "cpu_seconds": round(time.process_time(), 1),
               "train_seeds": [TRAIN_SEEDS.start, TRAIN_SEEDS.stop - 1],
               "params": sum(p.numel() for p in model.parameters()), "log": log}
    (out / "training_log.json").write_text(json.dumps(summary, indent=1))
    return summary
