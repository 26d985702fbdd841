"""Left-padded batches with position ids that ignore the padding."""

from __future__ import annotations


def encode_batch(tokenizer, texts: list[str], device: str = "cpu"):
    """input_ids, attention_mask and position_ids for a left-padded batch.

    Position ids count only real tokens, so a left-padded prompt sees exactly the positions it
    would see alone (models with absolute or rotary positions otherwise shift by the pad count).
    """
    import torch

    ids = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    for text, row in zip(texts, ids, strict=True):
        if not row:
            from toolkit.core.errors import InputError

            raise InputError(f"prompt {text!r} has no tokens")
    width = max(len(r) for r in ids)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    input_ids = torch.full((len(ids), width), pad, dtype=torch.long)
    mask = torch.zeros((len(ids), width), dtype=torch.long)
    for i, row in enumerate(ids):
        input_ids[i, width - len(row):] = torch.tensor(row, dtype=torch.long)
        mask[i, width - len(row):] = 1
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    return input_ids.to(device), mask.to(device), positions.to(device)


def forward(model, input_ids, attention_mask, position_ids):
    """One forward pass with explicit position ids (falls back when a model does not take them)."""
    try:
        return model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=False)
    except TypeError:
        return model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False)


def chunks(items: list, size: int):
    for i in range(0, len(items), max(1, size)):
        yield items[i: i + size]
