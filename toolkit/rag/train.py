"""Train the tiny reader from scratch: a 4-layer Llama over the world's word vocabulary, on CPU.

Examples come from training worlds (seeds 0-99, never the evaluation seeds 1000+), rendered exactly as
the `hf:` backend renders a call (`user: PROMPT` newline `assistant:`), the loss on the answer line only:
- single-hop answers with 0-16 BM25 documents and 0-4 demonstrations (each with its own documents);
- IterDRAG next lines on gold chains: the documents the controller retrieves (top-k for the question,
  then top-k for each gold sub-question so far, unseen ones appended), the chain so far, the next line;
  plus forced final answers after a complete chain;
- direct multi-hop answers with every gold document present among the retrieved ones (fair to RAG/DRAG).
The schedule runs for a budget of optimizer steps (wall-clock minutes only cap it, so chunks on a busy
machine stay comparable): a copy drill and an entity-keyed recall drill (induction heads form cheaply),
short contexts, then the mix with at most 2, 4 and finally 12 documents per retrieval; learning rate and
stage follow the share of the step budget done.
Document order carries no answer: BM25 ranks the gold document of a 1-hop question first (written
nearest the question) for nearly every question, and a reader trained on that order learns to copy from
the nearest document instead of the one about the asked entity. Training prompts therefore hold their
documents in a random order, and chain examples add documents of the current step's relation about other
entities (the distractors a chain meets at runtime).
With `mark`, every prompt has its query terms marked (`prompts.mark_query_terms`): the asked entity's document is
then found by attending to one fixed token, which a reader of this size learns where matching a name against
1,500 others (the recall drill) was never learnt.
Besides the answer lines, a light next-word loss on the prompt itself (names
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
from toolkit.core.models import load_torch_state
from toolkit.rag import prompts, world
from toolkit.rag.retrieve import BM25

TRAIN_SEEDS = range(0, 100)
VALIDATION_SEED = 999
MAX_TRAIN_TOKENS = 800
LM_WEIGHT = 0.3  # weight of the next-word loss on prompt words against the answer-line loss
POOL = 4  # batches generated at once, sorted by length
# (end of the stage as a share of the step budget, name, most documents per retrieval, most demonstrations):
# short contexts first, where reading one fact among few documents is learnt cheaply, then longer ones;
# `drill` ends the drill stage. `warm` continues a reader that already writes the formats (--init-from).
CURRICULA = {
    "scratch": {"drill": 0.05, "stages": ((0.5, "short", 2, 0), (0.8, "medium", 4, 1), (1.01, "full", 12, 2))},
    "warm": {"drill": 0.03, "stages": ((0.25, "short", 2, 0), (0.55, "medium", 4, 1), (1.01, "full", 12, 2))},
    # warm, with marked query terms: no drill stage, the long contexts early (picking among many documents
    # is what the marks are for)
    "subject": {"drill": 0.0, "stages": ((0.1, "short", 2, 0), (0.3, "medium", 4, 1), (1.01, "full", 12, 2))},
}
STAGES = CURRICULA["scratch"]["stages"]
RECALL_EVERY = 10  # after the drill stage, every tenth step is an entity-keyed recall drill
SAME_RELATION = (1, 3)  # chain examples: this many extra documents of the current step's relation
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
        self._relations: dict[int, dict[str, str]] = {}
        self._by_relation: dict[int, dict[str, list[dict]]] = {}

    def get(self, seed: int):
        if seed not in self._cache:
            w = world.generate(seed)
            docs = [d.record() for d in w.docs]
            self._cache[seed] = (w, docs, BM25(docs), {})
            by_id = {d["id"]: d for d in docs}
            self._relations[seed] = {doc: rel for (_, rel), doc in w.fact_doc.items()}
            self._by_relation[seed] = {}
            for (_, rel), doc in sorted(w.fact_doc.items()):
                self._by_relation[seed].setdefault(rel, []).append(by_id[doc])
        return self._cache[seed]

    def doc(self, seed: int, doc_id: str) -> dict:
        _, docs, _, _ = self.get(seed)
        return docs[int(doc_id.rsplit("-d", 1)[1])]

    def same_relation(self, rng, seed: int, doc_id: str, n: int) -> list[dict]:
        """`n` other documents stating the same relation as `doc_id` (about other subjects)."""
        self.get(seed)
        pool = [d for d in self._by_relation[seed][self._relations[seed][doc_id]] if d["id"] != doc_id]
        return rng.sample(pool, min(n, len(pool)))

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
    if docs:  # the gold document at a random place: its rank would tell the answer (see the module doc)
        gold = worlds.doc(seed, q.decomposition[0]["doc"])
        docs = [d for d in docs if d["id"] != gold["id"]][: k - 1]
        docs.insert(rng.randint(0, len(docs)), gold)
    return prompts.build_prompt(method, q.question, docs, demos), f"{prompts.ANSWER} {q.answers[0]}"


def shuffled_with_distractors(rng, worlds, seed, docs: list[dict], steps: list[dict]) -> list[dict]:
    """`docs` plus SAME_RELATION documents of each step's relation, in a random order."""
    for step in steps:
        docs = _merge(docs, worlds.same_relation(rng, seed, step["doc"], rng.randint(*SAME_RELATION)))
    docs = list(docs)
    rng.shuffle(docs)
    return docs


def chain_step(rng, worlds, kmax: int, mmax: int, mix: bool = True) -> tuple[str, str]:
    """One IterDRAG next line of a gold chain; `mix` adds same-relation distractors and shuffles the documents
    (training), without it the documents are the controller's (held-out check)."""
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
    if mix:  # distractors about the relation of the step being read (or asked about next)
        docs = shuffled_with_distractors(rng, worlds, seed, docs, q.decomposition[min(pos // 2, q.hops - 1):][:1])
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
    docs = shuffled_with_distractors(rng, worlds, seed, demo.docs, q.decomposition)
    return prompts.build_prompt("iterdrag", q.question, docs, demos, demo.chain[:-1]), demo.chain[-1]


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


def example(rng, worlds, kmax: int, mmax: int, mark: bool = False) -> tuple[str, str]:
    """One training-mix example; `mark`: with the query terms marked in its documents."""
    r, acc = rng.random(), 0.0
    fn = next((fn for fn, share in MIX if r < (acc := acc + share)), MIX[-1][0])
    prompt, target = fn(rng, worlds, kmax, mmax)
    return (prompts.mark_query_terms(prompt) if mark else prompt), target


def build_tokenizer(mark: bool = False):
    """The word tokenizer; `mark` appends the query-term mark after the names (the other ids stay the same,
    so a reader without it can be warm-started)."""
    from toolkit.core.tokenizers import SPECIALS, word_tokenizer

    words = list(SPECIALS) + [w for w in world.vocabulary() if w not in SPECIALS]
    return word_tokenizer(words + ([prompts.MARK] if mark else []))


def load_grown(model, src: Path) -> None:
    """`model` from the weights at `src`, whose vocabulary may lack the last rows of `model`'s (the mark):
    those rows start at the mean embedding."""
    import torch
    from transformers import LlamaForCausalLM

    state = LlamaForCausalLM.from_pretrained(src).state_dict()
    for name in ("model.embed_tokens.weight", "lm_head.weight"):
        if name in state and state[name].shape[0] < model.config.vocab_size:
            old = state[name]
            extra = old.mean(0, keepdim=True).expand(model.config.vocab_size - old.shape[0], -1)
            state[name] = torch.cat([old, extra])
    model.load_state_dict(state)


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


def recall_drill(rng, tok, batch: int):
    """Entity-keyed copying: `key value` pairs, then some keys again in a random order, each followed by its
    value (supervised). The answer to a query is the word after that key's earlier occurrence, wherever
    it stood, which is how a document's fact is found by its subject rather than by its place."""
    import torch

    names = list(world.names())
    vocab = tok.get_vocab()
    pairs = rng.randint(4, 16)
    queries = rng.randint(2, 6)
    width = 2 * (pairs + queries)
    ids = torch.empty((batch, width), dtype=torch.long)
    labels = torch.full((batch, width), -100, dtype=torch.long)
    for b in range(batch):
        words = rng.sample(names, 2 * pairs)
        keys, values = words[:pairs], words[pairs:]
        asked = rng.sample(range(pairs), min(queries, pairs)) + [rng.randrange(pairs) for _ in range(queries - pairs)]
        seq = [w for kv in zip(keys, values, strict=True) for w in kv]
        for j in asked:
            seq += [keys[j], values[j]]
        ids[b] = torch.tensor([vocab[w] for w in seq])
        for pos in range(2 * pairs + 1, width, 2):
            labels[b, pos] = ids[b, pos]
    return ids, labels, torch.ones_like(ids)


def model_config(vocab_size: int, tok, layers: int = 4, hidden: int = 128, heads: int = 4,
                 intermediate: int = 320, max_positions: int = 2048):
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=vocab_size, hidden_size=hidden, intermediate_size=intermediate,
                       num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=heads,
                       max_position_embeddings=max_positions, rope_theta=10000.0, tie_word_embeddings=True,
                       pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)


def teacher_forced(model, tok, rng, worlds, n: int = 16, kmax: int = 8, mmax: int = 1, mark: bool = False) -> float:
    """Share of fresh training-mix examples whose every supervised word (chain so far included) is predicted."""
    return line_exact(model, tok, [example(rng, worlds, kmax, mmax, mark) for _ in range(n)], target_only=False)


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


def validation_sets(n: int = 32, mark: bool = False) -> dict[str, list[tuple[str, str]]]:
    """Fixed held-out checks on world VALIDATION_SEED: 1-hop answers with the gold document at a random place
    among 8 BM25 distractors (`one_hop_k9`: only reading the asked entity's document scores), the same
    questions with BM25's own order (`one_hop_k9_ranked`, what `reason rag run -k 9` shows the reader: the
    gold document ranks first, nearest the question), and IterDRAG next lines on gold chains (k=4) with the
    controller's documents. `mark`: the same prompts with the query terms marked."""
    rng = random.Random(VALIDATION_SEED)
    vw = TrainingWorlds([VALIDATION_SEED])
    w, docs_all, _, _ = vw.get(VALIDATION_SEED)
    by_id = {d["id"]: d for d in docs_all}
    one_hop, ranked = [], []
    for q in [x for x in w.questions if x.hops == 1 and x.split == "test"][:n]:
        gold = by_id[q.decomposition[0]["doc"]]
        top = vw.top(VALIDATION_SEED, q.question, 9)
        docs = [d for d in top if d["id"] != gold["id"]][:8]
        docs.insert(rng.randint(0, len(docs)), gold)
        target = f"{prompts.ANSWER} {q.answers[0]}"
        one_hop.append((prompts.build_prompt("rag", q.question, docs, []), target))
        ranked.append((prompts.build_prompt("rag", q.question, top, []), target))
    chain = [chain_step(rng, vw, 4, 0, mix=False) for _ in range(n)]
    sets = {"one_hop_k9": one_hop, "one_hop_k9_ranked": ranked, "chain_step_k4": chain}
    if mark:
        sets = {name: [(prompts.mark_query_terms(p), t) for p, t in pairs] for name, pairs in sets.items()}
    return sets


def shortcut_baselines(pairs: list[tuple[str, str]]) -> dict[str, float]:
    """What a reader that ignores the question would score on 1-hop answer pairs: always the most frequent
    answer (`prior`), or always the object of the document at one fixed place (`position`: the best place),
    approximated by the document whose text holds the answer at that place."""
    answers = [t.split(" : ", 1)[1] for _, t in pairs]
    prior = max(answers.count(a) for a in set(answers)) / len(answers)
    hits: dict[int, int] = {}
    for (prompt, _), answer in zip(pairs, answers, strict=True):
        docs = [line for line in prompt.split("\n") if line.startswith("document :")]
        for i, line in enumerate(docs):
            if f" {answer} " in f" {line.split(' : ', 2)[2]} ":
                hits[i] = hits.get(i, 0) + 1
                break
    position = max(hits.values(), default=0) / len(pairs)
    return {"prior": round(prior, 3), "position": round(position, 3)}


CHECKPOINT = "checkpoint.pt"


def load_checkpoint(path: Path, steps: int) -> dict:
    """A chunk's checkpoint, which must belong to a run with the same step budget (the schedule depends on it)."""
    from toolkit.core.errors import InputError

    if not path.exists():
        raise InputError(f"{path}: no checkpoint to resume from (run with --chunk-minutes first)")
    state = load_torch_state(path)
    if state.get("steps_budget") != steps:
        raise InputError(f"{path}: field 'steps_budget' is {state.get('steps_budget')}, not --steps {steps} "
                         "(a resumed run keeps its schedule)")
    return state


def stage_at(frac: float, curriculum: str) -> tuple[str, int, int]:
    """(stage, most documents, most demonstrations) at `frac` of the step budget."""
    plan = CURRICULA[curriculum]
    if frac < plan["drill"]:
        return "drill", 0, 0
    return next(s for s in plan["stages"] if frac < s[0])[1:]


def train(out: str | Path, *, steps: int = 3000, minutes: float | None = None, seed: int = 0, lr: float = 3e-3,
          batch: int = 16, log_every: int = 40, progress_file: str | None = None,
          chunk_minutes: float | None = None, chunk_steps: int | None = None, resume: bool = False,
          init_from: str | Path | None = None, curriculum: str | None = None, mark: bool = False) -> dict:
    """Train for `steps` optimizer steps; save model, tokenizer and training_log.json to `out`.

    The stage and learning rate follow the share of `steps` done, so a chunk on a busy machine does the same
    work as on an idle one; `minutes` caps the summed training time (the run then pauses as if chunked).
    In chunks: `chunk_minutes` / `chunk_steps` stop this run early and leave `out/checkpoint.pt` (optimizer,
    step, training time so far, random states); `resume` continues from it on the same schedule. The
    checkpoint is removed once all `steps` are done. `init_from`: start from another reader's weights (its
    vocabulary and shape must match), with the `warm` curriculum unless another is named. `mark`: query terms
    marked in every prompt's documents (`prompts.mark_query_terms`), the mark added to the vocabulary."""
    import torch
    from transformers import LlamaForCausalLM

    from toolkit.core.errors import InputError
    from toolkit.core.models import seed_everything

    curriculum = curriculum or ("warm" if init_from else "scratch")
    if curriculum not in CURRICULA:
        raise InputError(f"--curriculum {curriculum}: expected one of {', '.join(CURRICULA)}")
    seed_everything(seed)
    rng = random.Random(seed)
    out = Path(out)
    if resume:  # the run's own setting, whatever this call says
        mark = load_checkpoint(out / CHECKPOINT, steps).get("mark", False)
    tok = build_tokenizer(mark)
    config = model_config(len(tok), tok)
    config._attn_implementation = "sdpa"
    model = LlamaForCausalLM(config)
    if init_from and not resume:
        src = Path(init_from)
        if not (src / "model.safetensors").exists():
            raise InputError(f"--init-from {src}: no model.safetensors there")
        load_grown(model, src)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    worlds = TrainingWorlds()
    held_out = validation_sets(mark=mark)
    cap = minutes * 60.0 if minutes else math.inf
    t0, step, log, pool = time.time(), 0, [], []
    if resume:
        state = load_checkpoint(out / CHECKPOINT, steps)
        curriculum, init_from = state["curriculum"], state.get("init_from")
        # the weights sit beside the checkpoint (model.safetensors, saved with it), which keeps the file small
        weights = state["model"] if "model" in state else LlamaForCausalLM.from_pretrained(out).state_dict()
        model.load_state_dict(weights)
        opt.load_state_dict(state["opt"])
        rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        step, log, t0 = state["step"], state["log"], time.time() - state["elapsed"]
    stop_at = time.time() + chunk_minutes * 60.0 if chunk_minutes else math.inf
    stop_step = step + chunk_steps if chunk_steps else math.inf
    cpu0 = time.process_time() - (state["cpu"] if resume else 0.0)
    model.train()
    while step < steps and time.time() - t0 < cap and time.time() < stop_at and step < stop_step:
        frac = step / steps
        scale = min(1.0, (step + 1) / 30) * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))
        for g in opt.param_groups:
            g["lr"] = lr * scale
        stage, kmax, mmax = stage_at(frac, curriculum)
        drill = stage == "drill" or step % RECALL_EVERY == 0
        if stage == "drill":
            ids, labels, mask = (copy_drill if step % 2 else recall_drill)(rng, tok, 32)
        elif drill:
            ids, labels, mask = recall_drill(rng, tok, 32)
        else:
            if not pool or pool[-1][0] != stage:
                sized = [(len(render(p).split()) + len(t.split()) + 1, p, t)
                         for p, t in (example(rng, worlds, kmax, mmax, mark) for _ in range(POOL * batch))]
                kept = [(p, t) for n, p, t in sorted(sized, key=lambda x: x[0]) if n <= MAX_TRAIN_TOKENS]
                pool = [(stage, kept[i: i + batch]) for i in range(0, len(kept), batch)]
                rng.shuffle(pool)
            ids, labels, mask = encode_batch(tok, pool.pop()[1])
        loss, answer_loss = masked_loss(model, ids, labels, mask, 0.0 if drill else LM_WEIGHT)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if step % log_every == 0:
            model.eval()
            acc = teacher_forced(model, tok, random.Random(step), worlds, mark=mark)
            val = {name: line_exact(model, tok, pairs) for name, pairs in held_out.items()}
            model.train()
            entry = {"step": step, "stage": stage, "loss": round(float(answer_loss.detach()), 4),
                     "teacher_forced": acc, **val, "elapsed_s": round(time.time() - t0, 1),
                     "cpu_s": round(time.process_time() - cpu0, 1)}
            log.append(entry)
            console.info(json.dumps(entry))
            if progress_file:
                with open(progress_file, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry) + "\n")
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    done = step >= steps
    if done:
        (out / CHECKPOINT).unlink(missing_ok=True)
    else:
        torch.save({"opt": opt.state_dict(), "step": step, "log": log, "steps_budget": steps,
                    "curriculum": curriculum, "init_from": str(init_from) if init_from else None, "mark": mark,
                    "elapsed": time.time() - t0, "cpu": time.process_time() - cpu0,
                    "rng": rng.getstate(), "torch_rng": torch.get_rng_state()}, out / CHECKPOINT)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    summary = {"steps_budget": steps, "steps": step, "minutes_cap": minutes, "seed": seed, "lr": lr,
               "batch": batch, "lm_weight": LM_WEIGHT, "complete": done, "hop_weights": HOP_WEIGHTS,
               "curriculum": curriculum, "init_from": str(init_from) if init_from else None, "mark": mark,
               "train_seconds": round(time.time() - t0, 1), "cpu_seconds": round(time.process_time() - cpu0, 1),
               "train_seeds": [TRAIN_SEEDS.start, TRAIN_SEEDS.stop - 1],
               "shortcut_baselines": {name: shortcut_baselines(held_out[name])
                                      for name in ("one_hop_k9", "one_hop_k9_ranked")},
               "params": sum(p.numel() for p in model.parameters()), "log": log}
    (out / "training_log.json").write_text(json.dumps(summary, indent=1))
    return summary
