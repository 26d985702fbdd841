"""The fine-tuned binary selector: a local causal LM plus a LoRA adapter that scores 'A' against 'B'.

Training and inference render the same selection prompt and compare the model's next-token
logits of the two answer letters at the end of the prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolkit.chase_sql.prompts import select_prompt
from toolkit.chase_sql.selection import result_text
from toolkit.core.errors import InputError
from toolkit.core.extras import require


def render_messages(tokenizer, messages: list[dict]) -> str:
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return "\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\nassistant:"


def answer_ids(tokenizer) -> tuple[int, int]:
    ids = []
    for letter in ("A", "B"):
        toks = tokenizer.encode(letter, add_special_tokens=False)
        if not toks:
            raise InputError(f"the tokenizer cannot encode the answer letter {letter!r}")
        ids.append(toks[-1])
    if ids[0] == ids[1]:
        raise InputError("the tokenizer maps 'A' and 'B' to the same token; it cannot serve as a selector")
    return ids[0], ids[1]


def encode_batch(tokenizer, texts: list[str], max_length: int, device: str):
    """Left-padded batch keeping the last `max_length` tokens of each prompt (the candidates sit at the end)."""
    import torch

    seqs = [tokenizer.encode(t, add_special_tokens=True)[-max_length:] for t in texts]
    width = max(len(s) for s in seqs)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    ids = torch.full((len(seqs), width), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, width - len(s):] = torch.tensor(s, dtype=torch.long)
        mask[i, width - len(s):] = 1
    return ids.to(device), mask.to(device)


def pair_logits(model, tokenizer, texts: list[str], max_length: int, device: str):
    """(batch, 2) logits of 'A' and 'B' as the next token after each prompt."""
    ids, mask = encode_batch(tokenizer, texts, max_length, device)
    a, b = answer_ids(tokenizer)
    logits = model(input_ids=ids, attention_mask=mask).logits[:, -1, :]
    return logits[:, [a, b]]


class LoRASelector:
    def __init__(self, adapter_dir: str | Path, device: str = "auto", max_length: int = 1024) -> None:
        require("ml", "torch", "transformers", "peft")
        from peft import PeftModel

        from toolkit.core.models import load_causal_lm

        adapter = Path(adapter_dir)
        meta_path = adapter / "selector.json"
        if not (adapter / "adapter_config.json").is_file() or not meta_path.is_file():
            raise InputError(f"{adapter}: not a selector adapter (needs adapter_config.json and selector.json)")
        meta: dict[str, Any] = json.loads(meta_path.read_text())
        base, self.tokenizer, self.device = load_causal_lm(meta["base_model"], device=device)
        self.model = PeftModel.from_pretrained(base, str(adapter)).to(self.device).eval()
        self.max_length = int(meta.get("max_length", max_length))

    def score(self, messages: list[dict]) -> float:
        """P('A') against P('B') as a logit difference."""
        import torch

        with torch.no_grad():
            lg = pair_logits(self.model, self.tokenizer, [render_messages(self.tokenizer, messages)],
                             self.max_length, self.device)
        return float(lg[0, 0] - lg[0, 1])

    def choose(self, schema: str, question: str, evidence: str, sql_a: str, res_a, sql_b: str, res_b) -> str:
        msgs = select_prompt(schema, question, evidence, sql_a, result_text(res_a), sql_b, result_text(res_b))
        return "A" if self.score(msgs) >= 0 else "B"
