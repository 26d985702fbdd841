"""The trained pairwise selector (`--selector model:DIR`): a sequence classifier that reads the question,
hint and two candidates with their results, and says whether A or B answers the question.

Its trunk starts from the generator trained here (so it reads schema names and SQL the same way) and
its head is new; `train-selector --classifier` fine-tunes both on pairs in both orders.
"""

from __future__ import annotations

import json
from pathlib import Path

from toolkit.chase_sql.selection import result_text
from toolkit.core.errors import InputError
from toolkit.core.extras import require

KIND = "pairwise-classifier"
META = "selector.json"


def pair_text(question: str, evidence: str, sql_a: str, result_a: str, sql_b: str, result_b: str) -> str:
    return (f"## Task: SQL candidate selection\nQuestion: {question}\nHint: {evidence or 'none'}\n"
            f"A: {sql_a}\nA gives: {result_a}\nB: {sql_b}\nB gives: {result_b}\nWhich answers the question?")


def check_selector_dir(path: str | Path) -> dict:
    """The selector's metadata; a directory that is not a trained pairwise selector is a one-line error."""
    p = Path(path)
    meta = p / META
    if not p.is_dir():
        raise InputError(f"--selector model:{p}: no such directory")
    try:
        data = json.loads(meta.read_text(encoding="utf-8")) if meta.is_file() else {}
    except (json.JSONDecodeError, UnicodeDecodeError):
        data = {}
    if data.get("kind") != KIND or not (p / "config.json").is_file():
        raise InputError(f"--selector model:{p}: not a pairwise selector model (needs {META} of kind {KIND!r} and "
                         f"config.json; train one with `reason chase-sql train-selector --classifier`)")
    return data


def encode_pairs(tokenizer, texts: list[str], max_length: int):
    """Right-padded ids keeping each text's last `max_length` tokens (the candidates sit at the end)."""
    import torch

    seqs = [tokenizer(t, add_special_tokens=False)["input_ids"][-(max_length - 1):] + [tokenizer.eos_token_id]
            for t in texts]
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), tokenizer.pad_token_id, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
        mask[i, : len(s)] = 1
    return ids, mask


class ModelSelector:
    def __init__(self, path: str | Path, device: str = "cpu") -> None:
        require("ml", "torch", "transformers")
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from toolkit.core.models import quiet_library_logs

        meta = check_selector_dir(path)
        quiet_library_logs()
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self.model = AutoModelForSequenceClassification.from_pretrained(str(path), local_files_only=True).to(device)
        self.model.eval()
        self.max_length = int(meta.get("max_length", 512))
        self._cache: dict[str, str] = {}  # a tournament asks about the same two queries many times

    def prob_a(self, texts: list[str], batch: int = 16) -> list[float]:
        """P(A answers the question) per text; batches of similar length, so little padding is computed."""
        import torch

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        probs = [0.0] * len(texts)
        for s in range(0, len(order), batch):
            chunk = order[s:s + batch]
            ids, mask = encode_pairs(self.tokenizer, [texts[i] for i in chunk], self.max_length)
            with torch.no_grad():
                p = self.model(input_ids=ids, attention_mask=mask).logits.softmax(-1)[:, 0].tolist()
            for i, v in zip(chunk, p, strict=True):
                probs[i] = v
        return probs

    def choose(self, schema: str, question: str, evidence: str, sql_a: str, res_a, sql_b: str, res_b) -> str:
        text = pair_text(question, evidence, sql_a, result_text(res_a), sql_b, result_text(res_b))
        if text not in self._cache:
            self._cache[text] = "A" if self.prob_a([text])[0] >= 0.5 else "B"
        return self._cache[text]


def twin_starts(pairs: list[dict]) -> list[int]:
    """Indices i where pairs[i + 1] is pairs[i] swapped (same question, other label): `build_pairs` writes each pair
    as (A,B) then (B,A)."""
    return [i for i in range(0, len(pairs) - 1, 2)
            if pairs[i]["qid"] == pairs[i + 1]["qid"] and pairs[i]["label"] != pairs[i + 1]["label"]]


def pair_counts(probs: list[float], pairs: list[dict]) -> tuple[int, int, int]:
    """(right verdicts, swap-consistent twins, twins): a twin agrees when its two verdicts pick one candidate."""
    says_a = [p >= 0.5 for p in probs]
    right = sum(a == (p["label"] == "A") for a, p in zip(says_a, pairs, strict=True))
    twins = twin_starts(pairs)
    return right, sum(says_a[i] != says_a[i + 1] for i in twins), len(twins)


def score_pairs(selector: ModelSelector, pairs: list[dict]) -> dict:
    """Accuracy over labelled pairs and A/B-swap agreement over their twins (a pair, then the same two candidates
    swapped: `pairs` writes them so); the swap agreement is the share of twins whose two verdicts pick one candidate."""
    probs = selector.prob_a([p["text"] for p in pairs])
    right, agree, twins = pair_counts(probs, pairs)
    return {"n": len(pairs), "questions": len({p["qid"] for p in pairs}),
            "accuracy": round(100.0 * right / max(1, len(pairs)), 2),
            "swap_agreement": round(100.0 * agree / max(1, twins), 2),
            "twins": twins, "probs": probs}
