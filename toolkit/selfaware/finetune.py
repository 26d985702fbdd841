"""LoRA / QLoRA / full fine-tuning of a local causal LM on chat JSONL, loss on assistant tokens only.

Each example is rendered with the tokenizer's chat template, else the hf backend's plain rendering
("role: text" lines ending in "assistant:"); the labels are -100 everywhere but the final assistant
turn's tokens (and the end-of-sequence token after it). Defaults follow the paper's Llama-3.1-70B runs:
LoRA rank 4, lr 2e-5, batch 8, 3 epochs.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines


def read_chat_jsonl(path: Path, *, skip_bad: bool = False, bad: BadLines | None = None) -> list[dict]:
    """Examples with a `messages` list ending in a non-empty assistant turn; bad lines fail or are counted."""
    bad = bad if bad is not None else BadLines()
    out = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        problem = None
        try:
            ex = json.loads(line)
        except json.JSONDecodeError as exc:
            ex, problem = None, f"{path}:{i}: not JSON ({exc.msg})"
        if problem is None:
            msgs = ex.get("messages") if isinstance(ex, dict) else None
            if not isinstance(msgs, list) or not msgs:
                problem = f"{path}:{i}: field 'messages' missing or empty"
            elif not (isinstance(msgs[-1], dict) and msgs[-1].get("role") == "assistant"
                      and isinstance(msgs[-1].get("content"), str) and msgs[-1]["content"].strip()):
                problem = f"{path}:{i}: field 'messages' has no final non-empty assistant turn"
        if problem:
            if not skip_bad:
                raise InputError(problem)
            bad.add(problem)
            continue
        out.append(ex)
    return out


def render_prompt(tok, messages: list[dict]) -> str:
    if getattr(tok, "chat_template", None):
        return tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return "\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\nassistant:"


def encode_example(tok, messages: list[dict], max_len: int = 512) -> tuple[list[int], list[int]]:
    """(input ids, labels): the prompt (everything before the final assistant turn) is masked with -100."""
    prompt = render_prompt(tok, messages[:-1])
    templ = bool(getattr(tok, "chat_template", None))
    p_ids = tok(prompt, add_special_tokens=not templ)["input_ids"]
    answer = messages[-1]["content"] if templ else " " + messages[-1]["content"]
    a_ids = tok(answer, add_special_tokens=False)["input_ids"]
    if tok.eos_token_id is not None:
        a_ids = a_ids + [tok.eos_token_id]
    ids = (p_ids + a_ids)[-max_len:]
    labels = ([-100] * len(p_ids) + a_ids)[-max_len:]
    return ids, labels


def collate(batch: list[tuple[list[int], list[int]]], pad_id: int):
    import torch

    width = max(len(ids) for ids, _ in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), width), -100, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for i, (x, y) in enumerate(batch):  # right padding for training
        ids[i, : len(x)], labels[i, : len(y)], mask[i, : len(x)] = torch.tensor(x), torch.tensor(y), 1
    return ids, labels, mask


def lora_targets(model) -> list[str]:
    """Every linear layer's short name except the output head (all-linear LoRA)."""
    import torch

    names = {n.rsplit(".", 1)[-1] for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    return sorted(names - {"lm_head"})


def finetune(data: list[dict], model_dir: Path, out: Path, *, lora_r: int = 4, lr: float = 2e-5, batch: int = 8,
             epochs: int = 3, qlora: bool = False, full: bool = False, train_tokens: list[str] | None = None,
             merge: bool = False, seed: int = 0, max_steps: int | None = None, device: str = "auto") -> dict:
    import torch

    from toolkit.core.models import load_causal_lm

    if qlora and not torch.cuda.is_available():
        raise InputError("--qlora: 4-bit NF4 training needs a CUDA device (none found); use plain LoRA")
    torch.manual_seed(seed)
    model, tok, dev = load_causal_lm(model_dir, device=device, load_in_4bit=qlora)
    model.train()
    if not full:
        from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

        if qlora:
            model = prepare_model_for_kbit_training(model)
        kwargs = {}
        if train_tokens:
            ids = tok.convert_tokens_to_ids(train_tokens)
            if tok.unk_token_id is not None and tok.unk_token_id in ids:
                raise InputError(f"--train-tokens {','.join(train_tokens)}: not every token is in the vocabulary")
            kwargs["trainable_token_indices"] = ids
        cfg = LoraConfig(r=lora_r, lora_alpha=2 * lora_r, lora_dropout=0.0, target_modules=lora_targets(model),
                         task_type="CAUSAL_LM", **kwargs)
        model = get_peft_model(model, cfg)
    encoded = [encode_example(tok, ex["messages"]) for ex in data]
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    rng = random.Random(seed)
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    losses, step, start = [], 0, time.perf_counter()
    for _ in range(epochs):
        order = list(range(len(encoded)))
        rng.shuffle(order)
        for b in range(0, len(order), batch):
            ids, labels, mask = (t.to(dev) for t in collate([encoded[i] for i in order[b: b + batch]], pad))
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            step += 1
            if max_steps and step >= max_steps:
                break
        if max_steps and step >= max_steps:
            break
    seconds = time.perf_counter() - start
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.eval()
    if full or (merge and not qlora):
        if not full:
            model = model.merge_and_unload()
        model.save_pretrained(out)
        tok.save_pretrained(out)
    else:
        model.save_pretrained(out)
    trainable = sum(p.numel() for p in params)
    return {"steps": step, "examples": len(data), "first_loss": losses[0] if losses else None,
            "last_loss": losses[-1] if losses else None, "losses": [round(x, 4) for x in losses],
            "trainable_params": trainable, "train_seconds": round(seconds, 2),
            "steps_per_second": round(step / seconds, 3) if seconds else None,
            "kind": "full" if full else ("qlora" if qlora else "lora")}
