"""A small relation classifier: a 4-layer BERT (width 128) trained from a config on generated items.

The question text (without its answer choices) is read with a word tokenizer after renaming points, so the model
learns constructions, not letters. Two encodings: "points" renames them by order of appearance (the first point named
becomes p0, the next p1, ...); "roles" (`roles.py`) by the part they play (v0 the first vertex of the stated shape,
n0 the first constructed point, ...) and puts tags for the asked elements' roles first. A model's config names its
encoding (`geomrel_encoding`); a model without that key reads "points".
It predicts a canonical relation of the item's domain (line: parallel / perpendicular / intersecting / cannot,
...); the letter is the option carrying that relation's text.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.models import load_torch_state
from toolkit.geomrel import dsl

CLASSES = [f"{domain}:{rel}" for domain in dsl.DOMAINS for rel, _, _ in dsl.RELATIONS[domain]]
MAX_LEN = 96
POINTS = re.compile(r"\b[A-Z]{1,8}\b")
WORDS = re.compile(r"p\d+|\w+|[^\w\s]")
CONFIG = {"hidden_size": 128, "num_hidden_layers": 4, "num_attention_heads": 4, "intermediate_size": 512,
          "max_position_embeddings": MAX_LEN + 2}
ARTICLES = {"A"}  # a capital 'A' opening a sentence is an article, not a point, when a lowercase word follows


def body_of(question: str) -> str:
    return question.partition("Answer choices:")[0].strip()


def canonical_words(question: str, fixed: dict[str, str] | None = None) -> list[str]:
    """Lowercased words of the question body with point names replaced by p0, p1, ... in order of appearance;
    letters in `fixed` get the name given there instead."""
    names: dict[str, str] = dict(fixed or {})
    others = iter(range(26 * 26))

    def rename(m: re.Match) -> str:
        token = m.group(0)
        rest = question[m.end():m.end() + 2]
        if token in ARTICLES and rest[:1] == " " and rest[1:2].islower():
            return token.lower()
        return " ".join(names[c] if c in names else names.setdefault(c, f"p{next(others)}") for c in token)

    text = POINTS.sub(rename, body_of(question))
    return [w.lower() for w in WORDS.findall(text)]


def role_words(question: str) -> list[str]:
    from toolkit.geomrel.roles import role_words as words

    return words(question)


ENCODINGS = {"points": canonical_words, "roles": role_words}
DEFAULT_ENCODING = "roles"
MAX_LENS = {"points": MAX_LEN, "roles": 128}  # role tags come before the body, so the body keeps its room


def encoding_of(model) -> str:
    """The encoding a loaded model reads; models from before encodings were named read "points"."""
    return getattr(model.config, "geomrel_encoding", None) or "points"


def domain_of(item: dict) -> str:
    """The question domain, from the item or from its option texts."""
    if item.get("domain") in dsl.DOMAINS:
        return item["domain"]
    texts = {o.strip().lower() for o in item["options"]}
    for domain in dsl.DOMAINS:
        if all(any(t == opt.lower() for opt in (x[1] for x in dsl.RELATIONS[domain])) for t in texts):
            return domain
    return "line"


def label_of(item: dict) -> int:
    domain = domain_of(item)
    text = item["options"][ord(item["answer"]) - 65]
    rel = dsl.relation_of_text(domain, text)
    if rel is None:
        raise InputError(f"item {item.get('id')}: answer text {text!r} is not a {domain} relation")
    return CLASSES.index(f"{domain}:{rel}")


def letter_for(item: dict, scores) -> str | None:
    """The option of the best-scoring class that the item offers."""
    domain = domain_of(item)
    offered = {dsl.relation_of_text(domain, o): "ABCDE"[i] for i, o in enumerate(item["options"])}
    best = None
    for c in sorted(range(len(CLASSES)), key=lambda c: -float(scores[c])):
        d, rel = CLASSES[c].split(":")
        if d == domain and rel in offered:
            best = offered[rel]
            break
    return best


def build_vocab(texts: list[list[str]], encoding: str = "points") -> list[str]:
    from toolkit.core.tokenizers import SPECIALS

    words = sorted({w for t in texts for w in t})
    points = [f"p{i}" for i in range(26)]
    if encoding == "roles":  # every role name, so an item with more vertices or steps than seen still reads them
        points += [f"{c}{i}" for c in "vwun" for i in range(10)]
    return [*SPECIALS, *points, *(w for w in words if w not in points)]


def _encode(tokenizer, texts: list[list[str]], max_len: int = MAX_LEN):
    return tokenizer([" ".join(t) for t in texts], padding=True, truncation=True, max_length=max_len,
                     return_tensors="pt")


def without_questions_of(items: list[dict], held: list[dict]) -> tuple[list[dict], int]:
    """items minus those whose question equals a held-out one up to point letters, in either encoding (the roles
    encoding also equates texts that differ in which letters a shape lists first); and how many were dropped."""
    seen = {(name, tuple(words(it["question"]))) for it in held for name, words in ENCODINGS.items()}
    kept = [it for it in items
            if not any((name, tuple(words(it["question"]))) in seen for name, words in ENCODINGS.items())]
    return kept, len(items) - len(kept)


def with_rephrasings(items: list[dict], k: int, seed: int) -> list[dict]:
    """The items plus k rephrasings of each generated one (same construction and label, other wording)."""
    import random

    from toolkit.geomrel.generate import rephrase

    rng = random.Random(seed)
    extra = [{**it, "question": rephrase(it, rng)} for it in items if "construction" in it for _ in range(k)]
    return items + extra


WARMUP_STEPS = 200


def _schedule(step: int, elapsed: float, budget: float, max_steps: int | None) -> float:
    """Linear warm-up, then linear decay to zero at whichever of the step or time budget comes first."""
    done = max(elapsed / budget if budget > 0 else 0.0, step / max_steps if max_steps else 0.0)
    warmup = min(WARMUP_STEPS, max(1, max_steps // 10)) if max_steps else WARMUP_STEPS
    return min(1.0, (step + 1) / warmup) * max(0.0, 1.0 - done)


def training_texts(items: list[dict], rephrasings: int, seed: int, held: list[dict] = ()) -> tuple[list[dict], int]:
    """The texts a model fits on: the items with their rewordings, minus those asking a held-out question; and how
    many were left out. The classifier and the MiniLM baseline both fit on exactly these."""
    return without_questions_of(with_rephrasings(items, rephrasings, seed), held)


def _batches(n: int, batch: int, seed: int, step: int):
    """(step, indices) from `step` on: epoch e is a permutation drawn from (seed, e), so a resumed run sees the same
    batches as an uninterrupted one."""
    import torch

    per_epoch = (n + batch - 1) // batch
    while True:
        epoch, pos = divmod(step, per_epoch)
        order = torch.randperm(n, generator=torch.Generator().manual_seed(seed * 1000 + epoch))
        for idx in order.split(batch)[pos:]:
            yield step, idx
            step += 1


def train(items: list[dict], out: Path, *, minutes: float = 20.0, max_steps: int | None = None, batch: int = 32,
          lr: float = 5e-4, seed: int = 0, rephrasings: int = 0, threads: int = 1, held: list[dict] = (),
          init: Path | None = None, checkpoint: Path | None = None, chunk_steps: int | None = None,
          encoding: str = DEFAULT_ENCODING) -> dict:
    """Train; stops at max_steps or after `minutes` of wall time. Returns the training summary.

    `rephrasings` adds that many rewordings of each generated item (see `with_rephrasings`); texts that ask a
    question of `held` (up to point letters) are left out. `init` starts from a trained classifier's weights and
    vocabulary (fine-tuning) instead of a fresh config. With `checkpoint` (a file; needs max_steps, which then alone
    sets the learning-rate schedule) the run is resumable: a chunk writes the model, optimizer and step there, and
    the same command run again continues from it until max_steps; `chunk_steps` ends a chunk after that many steps.
    `encoding` names the input encoding of a fresh model (see ENCODINGS); fine-tuning keeps `init`'s."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from toolkit.core.models import quiet_library_logs, seed_everything
    from toolkit.core.tokenizers import word_tokenizer

    quiet_library_logs()
    seed_everything(seed)
    torch.set_num_threads(threads)
    if checkpoint is not None and max_steps is None:
        raise InputError("--checkpoint needs --steps (the total the schedule runs to)")
    constructions = len(items)
    items, dropped = training_texts(items, rephrasings, seed, held)
    if init is not None:
        model, tokenizer = load(init)
        encoding = encoding_of(model)
        vocab = json.loads((Path(init) / "vocab.json").read_text())
        model.train()
    if encoding not in ENCODINGS:
        raise InputError(f"--encoding: {encoding!r} is not one of {', '.join(ENCODINGS)}")
    texts = [ENCODINGS[encoding](it["question"]) for it in items]
    labels = torch.tensor([label_of(it) for it in items])
    if init is None:
        vocab = build_vocab(texts, encoding)
        tokenizer = word_tokenizer(vocab)
        # a "points" model's config stays as before the encodings had names
        named = {} if encoding == "points" else {"geomrel_encoding": encoding}
        config = BertConfig(vocab_size=len(vocab), num_labels=len(CLASSES), pad_token_id=0,
                            **{**CONFIG, "max_position_embeddings": MAX_LENS[encoding] + 2}, **named)
        model = BertForSequenceClassification(config)
    enc = _encode(tokenizer, texts, MAX_LENS[encoding])
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    step, losses, spent = 0, [], 0.0
    if checkpoint is not None and Path(checkpoint).is_file():
        state = load_torch_state(checkpoint)
        if state["texts"] != len(items) or state["max_steps"] != max_steps:
            raise InputError(f"{checkpoint}: a checkpoint of another run ({state['texts']} texts, "
                             f"{state['max_steps']} steps; this one {len(items)} and {max_steps})")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        step, losses, spent = state["step"], state["losses"], state["seconds"]
        torch.set_rng_state(state["rng"])  # dropout continues as in one uninterrupted run
    budget = minutes * 60
    schedule_budget = 0.0 if checkpoint is not None else budget  # resumable runs are scheduled by steps alone
    start, first = time.monotonic(), step
    model.train()
    for at, idx in _batches(len(items), batch, seed, step):
        step = at
        if (max_steps is not None and step >= max_steps) or time.monotonic() - start >= budget \
                or (chunk_steps is not None and step - first >= chunk_steps):
            break
        out_ = model(input_ids=enc["input_ids"][idx], attention_mask=enc["attention_mask"][idx], labels=labels[idx])
        opt.zero_grad()
        out_.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        for group in opt.param_groups:
            group["lr"] = lr * _schedule(step, time.monotonic() - start, schedule_budget, max_steps)
        opt.step()
        losses.append(float(out_.loss.detach()))
    spent += time.monotonic() - start
    if checkpoint is not None:
        Path(checkpoint).parent.mkdir(parents=True, exist_ok=True)
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step, "losses": losses,
                    "seconds": spent, "texts": len(items), "max_steps": max_steps,
                    "rng": torch.get_rng_state()}, checkpoint)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    (out / "vocab.json").write_text(json.dumps(vocab))
    k = max(1, min(20, len(losses) // 5))
    summary = {"items": constructions, "texts": len(items), "rephrasings": rephrasings,
               "dropped_held_out": dropped, "steps": step, "seconds": round(spent, 1),
               "loss_first": round(sum(losses[:k]) / k, 4), "loss_last": round(sum(losses[-k:]) / k, 4),
               "params": sum(p.numel() for p in model.parameters()), "classes": CLASSES, "seed": seed,
               "init": str(init) if init is not None else None, "encoding": encoding,
               "done": max_steps is None or step >= max_steps}
    (out / "training.json").write_text(json.dumps(summary, indent=1))
    return summary


def load(model_dir: Path):
    """(model, tokenizer); a corrupt or incomplete directory is a one-line error."""
    from toolkit.core.models import quiet_library_logs
    from toolkit.core.tokenizers import word_tokenizer

    quiet_library_logs()
    model_dir = Path(model_dir)
    for name in ("config.json", "model.safetensors", "vocab.json"):
        if not (model_dir / name).is_file():
            raise InputError(f"{model_dir}: not a geomrel classifier (missing {name})")
    try:
        from transformers import BertForSequenceClassification

        vocab = json.loads((model_dir / "vocab.json").read_text())
        model = BertForSequenceClassification.from_pretrained(model_dir)
    except (OSError, ValueError, json.JSONDecodeError) as exc:
        raise InputError(f"{model_dir}: unreadable classifier ({str(exc).splitlines()[0][:200]})") from None
    model.eval()
    return model, word_tokenizer(vocab)


def predict(model, tokenizer, items: list[dict], batch: int = 64) -> list[str | None]:
    import torch

    letters = []
    encoding = encoding_of(model)
    if encoding not in ENCODINGS:
        raise InputError(f"classifier config: unknown geomrel_encoding {encoding!r}")
    words = ENCODINGS[encoding]
    with torch.no_grad():
        for i in range(0, len(items), batch):
            chunk = items[i:i + batch]
            enc = _encode(tokenizer, [words(it["question"]) for it in chunk], MAX_LENS[encoding])
            logits = model(**{k: enc[k] for k in ("input_ids", "attention_mask")}).logits
            letters += [letter_for(it, row) for it, row in zip(chunk, logits, strict=True)]
    return letters
