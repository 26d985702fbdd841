"""Generation with a control vector applied (`reason steer apply`)."""

from __future__ import annotations

from toolkit.steer.batching import chunks, encode_batch
from toolkit.steer.hooks import steering
from toolkit.steer.vectors import ControlVector


def generate_steered(model, tokenizer, prompts: list[str], vec: ControlVector | None, alpha: float, *,
                     max_new_tokens: int = 8, temperature: float = 0.0, seed: int = 0, batch_size: int = 16,
                     preserve_norm: bool = False, layers_path: str | None = None, device: str = "cpu") -> list[str]:
    """Continuations of left-padded prompts, with attention masks, while alpha * v is added.

    Greedy when temperature == 0, else sampling seeded per batch, so results do not depend on
    what ran before.
    """
    import torch

    directions = vec.directions if vec is not None else {}
    texts: list[str] = []
    with steering(model, directions, alpha if directions else 0.0, preserve_norm=preserve_norm,
                  layers_path=layers_path):
        for b, chunk in enumerate(chunks(prompts, batch_size)):
            ids, mask, _ = encode_batch(tokenizer, chunk, device)
            kwargs = {"max_new_tokens": max_new_tokens, "pad_token_id": tokenizer.pad_token_id,
                      "eos_token_id": tokenizer.eos_token_id}
            if temperature > 0:
                torch.manual_seed(seed + b)
                kwargs.update(do_sample=True, temperature=temperature, top_k=0, top_p=1.0)
            else:
                kwargs.update(do_sample=False)
            with torch.no_grad():
                out = model.generate(input_ids=ids, attention_mask=mask, **kwargs)
            for row in out[:, ids.shape[1]:]:
                texts.append(tokenizer.decode(row, skip_special_tokens=True).strip())
    return texts
