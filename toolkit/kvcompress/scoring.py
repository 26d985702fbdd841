"""Head importance: retrieval score (copy-paste frequency) and the R2 (retrieval-reasoning) variant.

Retrieval score (Wu et al.): on needle-in-a-haystack trials over a grid of context lengths and
depths, decode greedily; at each step, a head "copies" when its top-1 attended position lies inside
the needle and the token there equals the generated token. Each copy adds 1/|answer| to the head.
Trials count only when the answer's ROUGE-1 recall exceeds 0.5; scores are averaged over them.

R2 score (HeadKV, Important_Head/retrieval_head_detection_r2.py): on two-hop trials with distractor
needles and an explicit reasoning step, at every decoding step each head takes its top-|needle| attended
positions (the needle being the answer-path sentences, the fact and the link); each one inside the needle
adds its attention weight / |needle| to the head. A trial counts when the answer's QA-F1 exceeds 0.5;
scores are averaged over the trials that count.

R2-mass (`r2-mass`, this project's variant): each step that emits a content word of the answer (a key of
the reasoning step or a value) adds the attention mass the head puts on the answer-path sentences,
divided by the number of content words; trials count by ROUGE-1 recall > 0.5.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from toolkit.kvcompress.tasks import KEYS, VALUES, WORD_ID, Example, decode, make_example

CONTENT = set(KEYS) | set(VALUES)

RETRIEVAL_THRESHOLD = 0.1
SCORE_METHODS = ("retrieval", "r2", "r2-mass")


def rouge1_recall(generated: list[str], reference: list[str]) -> float:
    """Unigram recall of the reference in the generated words (clipped counts)."""
    if not reference:
        return 0.0
    gen, ref = Counter(generated), Counter(reference)
    return sum(min(c, gen[w]) for w, c in ref.items()) / sum(ref.values())


def copy_step_scores(attn: np.ndarray, prompt_ids: list[int], token: int, needle: tuple[int, int],
                     answer_len: int) -> np.ndarray:
    """Retrieval-score contribution of one decoding step.

    attn: (layers, heads, kv_len) attention of the current query; returns (layers, heads) with
    1/answer_len where the head's argmax lies in [needle) and the token there equals `token`.
    """
    top = attn.argmax(axis=-1)
    lo, hi = needle
    inside = (top >= lo) & (top < hi)
    ids = np.asarray(prompt_ids)
    same = np.zeros_like(inside)
    same[inside] = ids[top[inside]] == token
    return (inside & same).astype(np.float64) / answer_len


def mass_step_scores(attn: np.ndarray, spans: list[tuple[int, int]], answer_len: int) -> np.ndarray:
    """R2 contribution of one step: attention mass on the answer-path sentences / |answer|."""
    total = np.zeros(attn.shape[:2])
    for lo, hi in spans:
        total += attn[..., lo:hi].sum(-1)
    return total / answer_len


def needle_topk_step_scores(attn: np.ndarray, spans: list[tuple[int, int]]) -> np.ndarray:
    """Reference R2 contribution of one step: per head, the weights of its top-|needle| positions that lie in
    the needle (the union of `spans`), divided by |needle|."""
    inside = np.zeros(attn.shape[-1], dtype=bool)
    for lo, hi in spans:
        inside[lo:hi] = True
    n = int(inside.sum())
    if n == 0:
        return np.zeros(attn.shape[:-1])
    k = min(n, attn.shape[-1])
    top = np.argsort(-attn, axis=-1, kind="stable")[..., :k]
    weights = np.take_along_axis(attn, top, axis=-1)
    return (weights * inside[top]).sum(-1) / n


def qa_f1(generated: list[str], reference: list[str]) -> float:
    """Token-level F1 of the answer words (LongBench / SQuAD qa_f1_score on pre-split words)."""
    common = sum((Counter(generated) & Counter(reference)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(generated), common / len(reference)
    return 2 * precision * recall / (precision + recall)


def decode_with_attention(model, prompt_ids: list[int], max_new: int):
    """Greedy decode; yields (token, attention (layers, heads, kv_len)) per step. Needs eager attention."""
    import torch
    from transformers import DynamicCache

    cache = DynamicCache(config=model.config)
    ids = torch.tensor([prompt_ids], device=model.device)
    with torch.no_grad():
        if ids.shape[1] > 1:
            model(input_ids=ids[:, :-1], cache=cache, use_cache=True)
        current = ids[:, -1:]
        for _ in range(max_new):
            out = model(input_ids=current, cache=cache, use_cache=True, output_attentions=True)
            token = int(out.logits[0, -1].argmax())
            attn = torch.stack([a[0, :, -1, :] for a in out.attentions]).float().cpu().numpy()
            yield token, attn
            if token == WORD_ID["</s>"]:
                return
            current = torch.tensor([[token]], device=model.device)


@dataclass
class HeadScores:
    method: str
    scores: np.ndarray  # (layers, heads)
    trials: int
    kept: int
    lengths: list[int]
    depths: list[float]

    @property
    def retrieval_share(self) -> float:
        return float((self.scores > RETRIEVAL_THRESHOLD).mean())

    def top_heads(self, k: int) -> list[tuple[int, int]]:
        flat = np.argsort(-self.scores.ravel(), kind="stable")[:k]
        return [divmod(int(i), self.scores.shape[1]) for i in flat]

    def to_json(self) -> dict:
        return {"type": "kvcompress.head_scores", "schema": 1, "method": self.method,
                "layers": int(self.scores.shape[0]), "heads": int(self.scores.shape[1]),
                "scores": np.round(self.scores, 6).tolist(), "trials": self.trials, "kept": self.kept,
                "lengths": self.lengths, "depths": self.depths, "threshold": RETRIEVAL_THRESHOLD,
                "retrieval_share": self.retrieval_share,
                "top_heads": [list(h) for h in self.top_heads(min(8, self.scores.size))]}


def score_heads(model, method: str = "retrieval", lengths=(256, 512, 1024), depths=(0.1, 0.3, 0.5, 0.7, 0.9),
                trials: int = 2, seed: int = 0, progress=None) -> HeadScores:
    """Score every (layer, query head) with `method` (one of SCORE_METHODS) over the length x depth grid."""
    if method not in SCORE_METHODS:
        raise ValueError(f"unknown scoring method {method!r}")
    cfg = model.config
    total = np.zeros((cfg.num_hidden_layers, cfg.num_attention_heads))
    rng = random.Random(seed)
    n, kept = 0, 0
    for length in lengths:
        for depth in depths:
            for _ in range(trials):
                if method == "retrieval":
                    ex = make_example(rng, "single", length, depth=depth)
                else:
                    ex = make_example(rng, "twohop", length, depth=depth, n_distractors=2)
                contrib, ok = _score_trial(model, ex, method)
                n += 1
                if ok:
                    kept += 1
                    total += contrib
                if progress:
                    progress()
    scores = total / max(kept, 1)
    return HeadScores(method, scores, n, kept, list(lengths), list(depths))


def _score_trial(model, ex: Example, method: str) -> tuple[np.ndarray, bool]:
    prompt_ids = ex.ids()
    cfg = model.config
    contrib = np.zeros((cfg.num_hidden_layers, cfg.num_attention_heads))
    generated = []
    content = [w for w in ex.answer if w in CONTENT]  # copyable words (keys of the reasoning step, values)
    answer_len = len(content)
    for token, attn in decode_with_attention(model, prompt_ids, len(ex.answer)):
        word = decode([token])[0]
        if word == "</s>":
            break
        generated.append(word)
        if method == "retrieval":
            contrib += copy_step_scores(attn, prompt_ids, token, ex.answer_span, answer_len)
        elif method == "r2":
            contrib += needle_topk_step_scores(attn, ex.support)
        elif word in content:
            contrib += mass_step_scores(attn, ex.support, answer_len)
    reference = ex.answer[:-1]
    if method == "r2":
        return contrib, qa_f1(generated, reference) > 0.5
    return contrib, rouge1_recall(generated, reference) > 0.5


def save_scores(result: HeadScores, out: str | Path, model_dir: str = "") -> tuple[Path, Path]:
    """Write the JSON score file and a heatmap PNG next to it; returns both paths."""
    from toolkit.core.errors import InputError

    try:
        return _save_scores(result, out, model_dir)
    except OSError as exc:
        raise InputError(f"{exc.filename or out}: cannot write ({exc.strerror or exc})") from None


def _save_scores(result: HeadScores, out: str | Path, model_dir: str = "") -> tuple[Path, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    data = result.to_json()
    data["model"] = str(model_dir)
    png = out.with_suffix(".png")
    data["heatmap"] = png.name
    out.write_text(json.dumps(data, indent=1))
    fig, ax = plt.subplots(figsize=(1 + 0.45 * result.scores.shape[1], 1 + 0.45 * result.scores.shape[0]))
    im = ax.imshow(result.scores, cmap="viridis", vmin=0, vmax=max(1e-6, float(result.scores.max())))
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    ax.set_title(f"{result.method} score ({result.retrieval_share:.0%} > {RETRIEVAL_THRESHOLD})")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(png, dpi=80)
    plt.close(fig)
    return out, png


def load_scores(path: str | Path) -> dict:
    from toolkit.core.errors import InputError

    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such head-score file (run `reason kvcompress score`)")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{p}: not a JSON head-score file ({exc})") from None
    if not isinstance(data, dict) or "scores" not in data:
        raise InputError(f"{p}: missing field 'scores'")
    try:
        scores = np.asarray(data["scores"], dtype=np.float64)
    except (TypeError, ValueError):
        scores = np.zeros(0)
    if scores.ndim != 2:
        raise InputError(f"{p}: field 'scores' must be a (layers, heads) matrix")
    data["scores"] = scores
    return data
