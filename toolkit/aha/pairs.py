"""Training signals that make a detector read the object its sub-task names.

A wrong-object grid and its hindsight twin (hindsight.py) show the same image with opposite labels;
only the object word differs. Trained as independent samples, the pair's signal is drowned by the
thousands of samples a text-or-image shortcut answers, so a small model never binds the word to the
image. Two training-only signals target that binding:

- pair batching with a pairwise margin loss: each sample and its twin go into the same batch, and
  a logistic loss on the difference of their Yes-minus-No margins at the verdict token is added. The
  image is the same on both sides, so the only way to lower it is the interaction of the object word
  with the image;
- the handled object's colour: a head on the image features must say the colour of the object the
  robot handled (for a wrong_object grid the one FailGen's simulator grasped instead, as its
  explanation records; for every other grid the object the sub-task names first). The vision tokens
  then carry the colour the language model has to match with the word. The label is never an input
  at inference; the head is dropped when training ends.
"""

from __future__ import annotations

import random
import re

from toolkit.aha.hindsight import WRONG_OBJECT, hindsight, parse_wrong_object
from toolkit.aha.samples import Sample
from toolkit.aha.vision_aux import IGNORE
from toolkit.failgen.tasks import PALETTE

COLOUR_WORDS = re.compile(r"\b(" + "|".join(PALETTE) + r")\b")


def first_colour(text: str) -> str | None:
    m = COLOUR_WORDS.search(text.lower())
    return m.group(1) if m else None


def handled_colour(sample: Sample) -> str | None:
    """The colour of the object the robot handled in the sample's grid (None when no colour is known)."""
    if sample.mode == WRONG_OBJECT and sample.label == "No":
        parsed = parse_wrong_object(sample.explanation)
        return first_colour(parsed[2]) if parsed else None
    return first_colour(sample.subtask)


def colour_labels(samples: list[Sample]) -> list[int]:
    """Index into PALETTE of each sample's handled colour, IGNORE when unknown. A relabelled sample
    shows its source's image, so it takes its source's colour (its own words name another object)."""
    source = {s.sample_id: s for s in samples if not s.relabelled}
    out = []
    for s in samples:
        base = source.get(s.sample_id.split("#", 1)[0]) if s.relabelled else s
        colour = handled_colour(base) if base is not None else None
        out.append(PALETTE.index(colour) if colour else IGNORE)
    return out


def twin_pairs(samples: list[Sample]) -> list[tuple[int, int]]:
    """(source, relabelled twin) index pairs: same image, opposite labels. Each sample in one pair at most."""
    index = {s.sample_id: i for i, s in enumerate(samples) if not s.relabelled}
    pairs, used = [], set()
    for j, s in enumerate(samples):
        if not s.relabelled:
            continue
        i = index.get(s.sample_id.split("#", 1)[0])
        if i is None or i in used or samples[i].label == s.label or samples[i].image != s.image:
            continue
        used.update((i, j))
        pairs.append((i, j))
    return pairs


def paired_batches(n: int, pairs: list[tuple[int, int]], batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    """The epoch's batches of indices 0..n-1 with each pair's two members in the same batch. There are
    as many batches as unpaired batching gives (ceil(n / batch_size)): a cut that would split a pair
    moves one place earlier, so a batch holds batch_size - 1 to batch_size + 1 samples."""
    if batch_size < 2:
        raise ValueError("pair batching needs a batch size of at least 2")
    paired = {i for p in pairs for i in p}
    units = [list(p) for p in pairs] + [[i] for i in range(n) if i not in paired]
    random.Random(seed * 1000003 + epoch).shuffle(units)
    order = [i for unit in units for i in unit]
    starts = {0}
    pos = 0
    for unit in units:  # unit boundaries: cuts that split no pair
        starts.add(pos)
        pos += len(unit)
    cuts = [0]
    for k in range(1, -(-n // batch_size)):
        cuts.append(k * batch_size if k * batch_size in starts else k * batch_size - 1)
    cuts.append(n)
    return [order[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]


def verdict_margins(logits, labels, yes_id: int, no_id: int):
    """Per row, logit(Yes) - logit(No) where the first answer token is predicted (labels: -100 outside
    the answer; logits not shifted, as the model returns them)."""
    import torch

    target = labels[:, 1:]
    mask = target != -100
    first = mask.int().argmax(dim=1)
    rows = torch.arange(labels.shape[0], device=labels.device)
    at = logits[rows, first].float()
    return at[:, yes_id] - at[:, no_id]


def pair_margin_loss(margins, pairs_in_batch: list[tuple[int, int]], yes_rows: list[bool]):
    """Logistic loss on (margin of the Yes member - margin of the No member), mean over the pairs."""
    import torch
    import torch.nn.functional as F

    if not pairs_in_batch:
        return margins.sum() * 0.0
    yes = torch.stack([margins[a if yes_rows[a] else b] for a, b in pairs_in_batch])
    no = torch.stack([margins[b if yes_rows[a] else a] for a, b in pairs_in_batch])
    return F.softplus(no - yes).mean()


def both_ways(vlm, samples: list[Sample]) -> list[dict]:
    """The both-ways check: each wrong_object grid asked with the object its sub-task names (gold "No")
    and with the object the robot handled (gold "Yes"); per grid the model's Yes-minus-No margin both
    ways. A detector that reads the object word gives the handled side the larger margin."""
    import torch

    from toolkit.aha.train import encode_sample
    from toolkit.core.vlm_train import collate, forward

    twins = {s.sample_id.split("#", 1)[0]: s for s in hindsight(samples) if s.sample_id.endswith("#handled")}
    named = [s for s in samples if s.sample_id in twins]
    if not named:
        return []
    pad = vlm.tokenizer.pad_token_id if vlm.tokenizer.pad_token_id is not None else 0
    vlm.tokenizer.padding_side = "right"
    out = []
    model = vlm.model.eval()
    with torch.no_grad():
        for s in named:
            items = [encode_sample(vlm, s), encode_sample(vlm, twins[s.sample_id])]  # answers "No, ..." / "Yes"
            no_id, yes_id = (int(it["labels"][it["labels"] != -100][0]) for it in items)
            batch = {k: v.to(vlm.device) for k, v in collate(items, pad).items()}
            logits = forward(model, {k: v for k, v in batch.items() if k != "labels"}).logits
            m = verdict_margins(logits, batch["labels"], yes_id, no_id).tolist()
            out.append({"sample_id": s.sample_id, "task": s.task, "margin_named": round(m[0], 4),
                        "margin_handled": round(m[1], 4)})
    return out


def both_ways_summary(rows: list[dict]) -> dict:
    """Counts over `both_ways` rows: grids whose verdict differs by the object asked, right both ways ("No" for
    the named object, "Yes" for the handled one), the handled side's margin larger; mean margin difference."""
    d = [r["margin_handled"] - r["margin_named"] for r in rows]
    n = max(len(d), 1)
    return {"grids": len(rows),
            "verdict_differs": sum((r["margin_named"] > 0) != (r["margin_handled"] > 0) for r in rows),
            "right_both_ways": sum(r["margin_named"] < 0 < r["margin_handled"] for r in rows),
            "handled_larger": sum(x > 0 for x in d), "named_no": sum(r["margin_named"] < 0 for r in rows),
            "handled_yes": sum(r["margin_handled"] > 0 for r in rows),
            "mean_diff": round(sum(d) / n, 4), "mean_abs_diff": round(sum(map(abs, d)) / n, 4)}
