"""Answer-option scoring at the first answer token: accuracy, full-vocabulary distributions."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.core.errors import InputError
from toolkit.steer.batching import chunks, encode_batch, forward

EPS = 1e-8


@dataclass
class Scores:
    accuracy: float
    correct: list[bool]
    predicted: list[int]
    probs: object  # float64 tensor [n, vocab]: next-token distribution after each prompt


def option_token_ids(tokenizer, options: list[str], where: str = "options") -> list[int]:
    """First token of each option (the answer is read at the first answer token)."""
    ids = []
    for o in options:
        toks = tokenizer(" " + o, add_special_tokens=False)["input_ids"]
        if not toks:
            raise InputError(f"{where}: option {o!r} has no tokens")
        ids.append(toks[0])
    if len(set(ids)) < len(ids):
        raise InputError(f"{where}: options {options} share a first token; they cannot be told apart")
    return ids


def score_problems(model, tokenizer, problems, *, batch_size: int = 64, device: str = "cpu") -> Scores:
    import torch

    correct, predicted, probs = [], [], []
    with torch.no_grad():
        for chunk in chunks(list(problems), batch_size):
            ids, mask, pos = encode_batch(tokenizer, [p.prompt for p in chunk], device)
            logits = forward(model, ids, mask, pos).logits[:, -1, :].double().cpu()
            probs.append(torch.softmax(logits, dim=-1))
            for row, p in zip(logits, chunk, strict=True):
                opt = option_token_ids(tokenizer, p.options, f"problem {p.family}/{p.index}")
                pick = int(torch.argmax(row[opt]))
                predicted.append(pick)
                correct.append(pick == p.answer)
    n = len(correct)
    return Scores(sum(correct) / n if n else 0.0, correct, predicted,
                  torch.cat(probs) if probs else torch.zeros(0))


def kl_divergence(p, q, eps: float = EPS):
    """KL(P || Q) in nats per row, with eps added inside the logs."""
    import torch

    return torch.sum(p * (torch.log(p + eps) - torch.log(q + eps)), dim=-1)


def entropy_bits(p, eps: float = EPS):
    """Shannon entropy in bits per row, with eps inside the log."""
    import torch

    return -torch.sum(p * torch.log2(p + eps), dim=-1)
