"""The default grounding model: a small CNN over the scene plus a question encoder, one answer class per word.

The image becomes an ink map (how far each pixel is from the background colour, read at the corners), so
colours and backgrounds do not matter; two coordinate channels let the network say where things are. The
question becomes a bag of tokens: the concept, each grounded parent as one `term=value` token, and the
words of the asked term (`r2c3` reads as row 2 and column 3). The CNN's 8 x 8 feature map is read into
units that the question gates (see `build_network`), so one pass over the image serves every question about
it. Abstract questions ("Is there a path ...? Options: no, yes.") go through the same encoder as their
words, and an answer with options is restricted to them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from toolkit.core.errors import InputError

CONFIG = "grounder.json"
WEIGHTS = "model.safetensors"
SIDE = 128  # the network's input side (the 256-px scenes, 2x2 averaged)
GROUNDING_RE = re.compile(r"^Imagine that the image represents (?P<concept>[^,]+?)(?P<parents>(?: and the [^,]+? is "
                          r"[^,]+?,)*),? what is the (?P<term>.+?)\?")
PARENT_RE = re.compile(r" and the ([^,]+?) is ([^,]+?),")
OPTIONS_RE = re.compile(r"Options: (.+?)\.(?: |$)")


def ink_map(image) -> np.ndarray:
    """SIDE x SIDE float32 in [0, 1]: each pixel's largest channel distance from the background colour (the
    median of the four corners), scaled so the strongest ink reads 1."""
    a = np.asarray(image.convert("RGB").resize((2 * SIDE, 2 * SIDE)), dtype=np.float32)
    corners = np.concatenate([a[:4, :4].reshape(-1, 3), a[:4, -4:].reshape(-1, 3), a[-4:, :4].reshape(-1, 3),
                              a[-4:, -4:].reshape(-1, 3)])
    ink = np.abs(a - np.median(corners, axis=0)).max(axis=2)
    ink = ink.reshape(SIDE, 2, SIDE, 2).mean(axis=(1, 3))
    top = float(np.percentile(ink, 99.5))
    return np.clip(ink / max(top, 1.0), 0.0, 1.0).astype(np.float32)


def _words(text: str) -> list[str]:
    out = []
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        m = re.fullmatch(r"r(\d+)c(\d+)", w)
        out += [f"row:{m.group(1)}", f"col:{m.group(2)}"] if m else [w]
    return out


def question_tokens(question: str) -> tuple[list[str], list[str] | None]:
    """(tokens, options or None) of a grounding, composition or direct question."""
    q = question.split(" Answer ", 1)[0].strip()
    options = None
    m = OPTIONS_RE.search(q)
    if m:
        options = [o.strip().lower() for o in m.group(1).split(",") if o.strip()]
        q = q[:m.start()].strip()
    g = GROUNDING_RE.match(q)
    if g:
        toks = [f"concept:{g.group('concept').strip()}"]
        toks += [f"parent:{p.strip()}={v.strip().lower()}" for p, v in PARENT_RE.findall(g.group("parents"))]
        return toks + [f"term:{w}" for w in _words(g.group("term"))], options
    if q.startswith("Imagine that the image represents"):  # a composition question: scenario, then the question
        head, _, q = q.partition("Note that this scenario may be wrong.")
        toks = [f"parent:{p.strip()}={v.strip().lower()}" for p, v in PARENT_RE.findall(head + ",")]
    else:
        toks = []
    return toks + [f"word:{w}" for w in _words(q)], options


def build_network(n_tokens: int, n_answers: int, width: int = 64, hidden: int = 512):
    """BatchNorm and the (1 + gate) product: with GroupNorm and a plain product the same network sat at the
    answer priors for thousands of steps (6 epochs: walls 0.60-0.67, marks 0.40 on validation); this one leaves
    them within about a hundred."""
    import torch
    from torch import nn

    def block(cin, cout, stride):
        return [nn.Conv2d(cin, cout, 3, stride, 1), nn.BatchNorm2d(cout), nn.ReLU()]

    class Grounder(nn.Module):
        """CNN -> an 8 x 8 feature map, read by a question-gated layer: hidden unit j is (w_j . map)(1 + u_j . q),
        so a question switches on the units that read its part of the image (a cell, a pile, the start)."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Sequential(nn.Conv2d(3, 32, 5, 2, 2), nn.BatchNorm2d(32), nn.ReLU(),  # 64
                                      *block(32, 48, 2), *block(48, width, 1),  # 32
                                      *block(width, width, 2), *block(width, width, 1),  # 16
                                      *block(width, 32, 2))  # 8
            self.read = nn.Linear(32 * (SIDE // 16) ** 2, hidden)
            self.embed = nn.EmbeddingBag(n_tokens, 128, mode="sum", padding_idx=0)
            self.gate = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, hidden))
            self.out = nn.Sequential(nn.ReLU(), nn.Linear(hidden, 256), nn.ReLU(), nn.Linear(256, n_answers))
            ys, xs = torch.meshgrid(torch.linspace(-1, 1, SIDE), torch.linspace(-1, 1, SIDE), indexing="ij")
            self.register_buffer("coords", torch.stack([xs, ys])[None], persistent=False)

        def features(self, ink):  # [B, SIDE, SIDE] -> [B, hidden]: each image read once
            x = torch.cat([ink[:, None], self.coords.expand(len(ink), -1, -1, -1)], 1)
            return self.read(self.conv(x).flatten(1))

        def forward(self, feats, image_index, tokens, offsets):
            q = self.gate(self.embed(tokens, offsets))
            return self.out(feats[image_index] * (1 + q))

    return Grounder()


class Vocab:
    def __init__(self, tokens: list[str], answers: list[str]):
        self.tokens, self.answers = tokens, answers
        self.token_id = {t: i for i, t in enumerate(tokens)}
        self.answer_id = {a: i for i, a in enumerate(answers)}

    @classmethod
    def from_rows(cls, rows: list[dict[str, Any]]) -> Vocab:
        toks, answers = set(), set()
        for r in rows:
            toks.update(question_tokens(r["question"])[0])
            answers.add(str(r["answer"]).lower())
            answers.update(question_tokens(r["question"])[1] or [])
        return cls(["<pad>", *sorted(toks)], sorted(answers))

    def encode(self, question: str) -> tuple[list[int], list[int] | None]:
        toks, options = question_tokens(question)
        ids = [self.token_id[t] for t in toks if t in self.token_id] or [0]
        allowed = [self.answer_id[o] for o in options if o in self.answer_id] if options else None
        return ids, allowed or None


def pack(encoded: list[list[int]]):
    """EmbeddingBag inputs: flat token ids and each question's offset."""
    import torch

    flat, offsets = [], []
    for ids in encoded:
        offsets.append(len(flat))
        flat += ids
    return torch.tensor(flat, dtype=torch.long), torch.tensor(offsets, dtype=torch.long)


def is_grounder(path: str | Path) -> bool:
    return (Path(path) / CONFIG).is_file()


class CNNGrounder:
    """A trained grounder directory: answers (image, question) pairs in batches, one word each."""

    def __init__(self, path: str | Path):
        import torch

        from toolkit.core.models import load_tensors

        path = Path(path)
        try:
            cfg = json.loads((path / CONFIG).read_text(encoding="utf-8"))
            self.vocab = Vocab(cfg["tokens"], cfg["answers"])
            self.net = build_network(len(cfg["tokens"]), len(cfg["answers"]), **cfg.get("network", {}))
            self.net.load_state_dict(load_tensors(path / WEIGHTS)[0])
        except (OSError, KeyError, ValueError, RuntimeError) as exc:
            raise InputError(f"{path}: not a readable dsg grounder ({type(exc).__name__}: {exc})") from None
        self.net.eval()
        self.torch = torch

    def answer(self, inks: list[np.ndarray], image_index: list[int], questions: list[str]) -> list[str]:
        """The answer to each question about inks[image_index[i]]; each image goes through the CNN once."""
        torch = self.torch
        enc = [self.vocab.encode(q) for q in questions]
        tokens, offsets = pack([ids for ids, _ in enc])
        with torch.no_grad():
            feats = self.net.features(torch.from_numpy(np.stack(inks)))
            logits = self.net(feats, torch.tensor(image_index, dtype=torch.long), tokens, offsets)
        out = []
        for row, (_, allowed) in zip(logits, enc, strict=True):
            if allowed:
                mask = torch.full_like(row, float("-inf"))
                mask[allowed] = 0.0
                row = row + mask
            out.append(self.vocab.answers[int(row.argmax())])
        return out
