"""A tiny LLaVA (toolkit.core.tiny_vlm) that drives the manipulation runtime on read questions.

Training conversations are made from synthesized positive chains (GROUNDING -> CROP_AND_ZOOMIN -> OCR):
the box the chain grounded becomes two model-written crops, coarse to fine, as the runtime plays them:

  USER: <scene> launch text, Question: What does the red sign say?
  ASSISTANT: CROP_AND_ZOOMIN([[w0,w1,w2,w3]], 2)->img_1      3 x 3 image-token cells around the sign's centre
  USER: <img_1> Based on this new image and the reasoning history:
  ASSISTANT: CROP_AND_ZOOMIN([[b0,b1,b2,b3]], 2)->img_2      the sign's box on img_1
  USER: <img_2> Based on this new image and the reasoning history:
  ASSISTANT: OCR(img_2)->txt_1
  USER: OCR returned: <the chain's OCR text>
  ASSISTANT: So the answer is `txt_1`.

Boxes are 100 bins per side, each a single word token: bin b is written as the box-text value 10*b
("000".."990"), so the model's replies stay in the 0-999 box grammar every runtime reads. The model never
reads text (OCR does); it decides where to look, which is what the IoU of its final crop measures.

The coarse crop is snapped to the vision tower's patch grid (the scene is shown as grid x grid image
tokens): its words say which token column and row hold the sign, the one thing the tokens can tell, instead
of a bin inside a token the model cannot see. While training, a per-patch head on the image tokens
(`toolkit.core.patch_aux`) learns "the <colour> sign is in this patch" from the box the chain grounded, on
the scene and on the first zoom: the vision tower gets a direct gradient towards the sign.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from toolkit.cogcom.boxes import from_norm
from toolkit.cogcom.ground import perceive
from toolkit.cogcom.manip import crop_and_zoomin
from toolkit.cogcom.runtime import LAUNCH, NEW_IMAGE
from toolkit.cogcom.scenes import COLORS
from toolkit.core.errors import InputError
from toolkit.core.tiny_vlm import TinySpec, build_tiny_vlm

BINS = 100
GRID = 8  # image tokens per side of TINY_SPEC (96 px / patch 12)
CELLS = 3  # the coarse crop spans CELLS x CELLS token cells, the sign's centre in the middle one
ZOOM = 2
COLOR_CLASSES = list(COLORS)  # the patch head's outputs: one per colour a question can name
TINY_SPEC = TinySpec(image_size=96, patch_size=12, vision="clip", vision_hidden=96, vision_layers=3,
                     vision_heads=4, text_hidden=128, text_layers=2, text_heads=4, max_positions=512)
BASE_TEXT = " ".join(["USER ASSISTANT", LAUNCH, NEW_IMAGE, "OCR returned : So the answer is ` txt _ 1 ` .",
                      "CROP _ AND _ ZOOMIN ( [ [ , ] ] , 2 ) - > img _ 1 img _ 2 OCR ( img _ 2 ) - > txt _ 1",
                      "Question : What does the sign say ?",
                      *(f"{10 * b:03d}" for b in range(BINS))])


def vocab_text(text: str) -> str:
    """The words the tiny model's tokenizer makes of a text (it splits at underscores too)."""
    return text.replace("_", " _ ")


def to_bins(box: list[float], width: int, height: int) -> list[int]:
    """Pixel box -> bins 0-99 per side (nearest), never empty."""
    sizes = (width, height, width, height)
    b = [min(BINS - 1, max(0, round(BINS * c / s))) for c, s in zip(box, sizes, strict=True)]
    b[2], b[3] = max(b[2], b[0] + 1), max(b[3], b[1] + 1)
    if b[2] > BINS - 1:
        b[0], b[2] = BINS - 2, BINS - 1
    if b[3] > BINS - 1:
        b[1], b[3] = BINS - 2, BINS - 1
    return b


def bins_text(b: list[int]) -> str:
    return "[[" + ",".join(f"{10 * v:03d}" for v in b) + "]]"


def bins_to_pixels(b: list[int], width: int, height: int) -> list[int]:
    """What the runtime cuts for a box written in bins (the 0-999 reading of 10*b)."""
    return from_norm([10 * v for v in b], width, height)


def cell_edge(k: int, grid: int) -> int:
    """The bin of the k-th token-cell boundary (the last one is the last bin)."""
    return min(BINS - 1, int(k * BINS / grid + 0.5))


def grid_window(box: list[float], width: int, height: int, grid: int = GRID,
                shift: tuple[int, int] = (0, 0)) -> list[int]:
    """Bins of the CELLS x CELLS token cells centred on the cell holding the box's centre (kept inside the
    image; all of it on a grid of fewer cells), moved by `shift` cells."""
    n = min(CELLS, grid)
    cx, cy = (box[0] + box[2]) / 2 / width, (box[1] + box[3]) / 2 / height
    c0, r0 = (min(grid - n, max(0, int(v * grid) - n // 2 + d)) for v, d in zip((cx, cy), shift, strict=True))
    return [cell_edge(c0, grid), cell_edge(r0, grid), cell_edge(c0 + n, grid), cell_edge(r0 + n, grid)]


def holds(window: list[int], box: list[float], width: int, height: int) -> bool:
    """Whether the window (bins) as the runtime cuts it contains the whole pixel box."""
    px = bins_to_pixels(window, width, height)
    return px[0] <= box[0] and px[1] <= box[1] and px[2] >= box[2] and px[3] >= box[3]


def question_color(question: str) -> int | None:
    """The patch head's class of the colour a question names (None: it names none)."""
    words = re.findall(r"[a-z]+", question.lower())
    return next((COLOR_CLASSES.index(w) for w in words if w in COLOR_CLASSES), None)


def read_chain(tree: dict) -> tuple[list[int], str] | None:
    """(grounded pixel box on the scene, OCR text) of a tree's first positive GROUNDING -> ... -> OCR path."""
    nodes = tree["nodes"]
    for path in tree.get("paths", []):
        box = text = None
        for key in path:
            node = nodes[key]
            if node.get("func") == "GROUNDING" and node.get("onbox") and node.get("on") == "img_0":
                box = node["onbox"]
            elif node.get("func") == "OCR" and node.get("found"):
                text = str(node.get("return") or "")
        if box is not None and text is not None:
            return box, text
    return None


def conversation(scene, question: str, box: list[float], ocr_text: str, shift: tuple[int, int] = (0, 0),
                 budget: int = 448, grid: int = GRID) -> list[dict]:
    """The runtime's messages for one chain (images as PIL, shown at the budget as the runtime shows them);
    `shift` moves the coarse crop by that many token cells, as an imprecise first reply would. The scene's
    and img_1's image parts carry the sign's box on them (`target`: box, size) for the patch loss."""
    w, h = scene.size
    window = grid_window(box, w, h, grid, shift)
    window_px = bins_to_pixels(window, w, h)
    img_1 = crop_and_zoomin(scene, window_px, ZOOM)
    on_1 = [(box[0] - window_px[0]) * ZOOM, (box[1] - window_px[1]) * ZOOM,
            (box[2] - window_px[0]) * ZOOM, (box[3] - window_px[1]) * ZOOM]
    on_1 = [min(max(0.0, v), s) for v, s in zip(on_1, (*img_1.size, *img_1.size), strict=True)]
    fine = to_bins(on_1, *img_1.size)
    img_2 = crop_and_zoomin(img_1, bins_to_pixels(fine, *img_1.size), ZOOM)

    def user(image, text, target=None):
        parts = [{"type": "image", "image": perceive(image, budget)[0]}] if image is not None else []
        if target is not None:
            parts[0]["target"] = (target, image.size)
        return {"role": "user", "content": parts + [{"type": "text", "text": text}]}

    return [user(scene, f"{LAUNCH}\nQuestion: {question}", list(box)),
            {"role": "assistant", "content": f"CROP_AND_ZOOMIN({bins_text(window)}, {ZOOM})->img_1"},
            user(img_1, NEW_IMAGE, on_1),
            {"role": "assistant", "content": f"CROP_AND_ZOOMIN({bins_text(fine)}, {ZOOM})->img_2"},
            user(img_2, NEW_IMAGE),
            {"role": "assistant", "content": "OCR(img_2)->txt_1"},
            user(None, f"OCR returned: {ocr_text}"),
            {"role": "assistant", "content": "So the answer is `txt_1`."}]


CROPS, ALL_TURNS = (1, 3), (1, 3, 5, 7)  # message indices of the replies a training conversation teaches


def turn_examples(messages: list[dict], turns: tuple[int, ...]) -> list[tuple[list[dict], str]]:
    """(messages before the reply, reply) for the assistant messages at `turns`."""
    return [(messages[:i], messages[i]["content"]) for i in turns]


def build(out: str | Path, texts: list[str], seed: int = 0, spec: TinySpec | None = None) -> dict:
    """The untrained tiny model: vocabulary = base text (bins, runtime texts) + the given texts."""
    return build_tiny_vlm(out, [vocab_text(t) for t in texts], spec or TINY_SPEC, seed=seed,
                          base_text=vocab_text(BASE_TEXT))


def training_rows(items: list[dict], trees: dict[str, dict], seed: int, all_turns_share: float = 0.25,
                  grid: int = GRID):
    """(item id, messages, replies to teach) for every read item with a positive chain: the chain as it
    should go (both crops taught; every turn for a share of them); once more with the coarse crop moved one
    token cell (where the sign stays inside it), teaching the fine crop to find the sign off-centre; and the
    first reply once more on the mirrored scene (the coarse crop is the step a tiny model learns last)."""
    from PIL import ImageOps

    from toolkit.cogcom.images import load_image

    rng = random.Random(seed)
    moves = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
    rows = []
    for item in items:
        tree = trees.get(item["id"])
        chain = read_chain(tree) if tree else None
        if chain is None or item.get("kind") not in (None, "read"):
            continue
        scene = load_image(item["image_path"], f"item {item['id']}")
        box, text = chain
        w, h = scene.size
        every = rng.random() < all_turns_share
        rows.append((item["id"], conversation(scene, item["question"], box, text, grid=grid),
                     ALL_TURNS if every else CROPS))
        shifts = [m for m in rng.sample(moves, len(moves))
                  if grid_window(box, w, h, grid, m) != grid_window(box, w, h, grid)
                  and holds(grid_window(box, w, h, grid, m), box, w, h)]
        if shifts:
            rows.append((item["id"], conversation(scene, item["question"], box, text, shift=shifts[0], grid=grid),
                         (3,)))
        mirrored = [w - box[2], box[1], w - box[0], box[3]]
        rows.append((item["id"], conversation(ImageOps.mirror(scene), item["question"], mirrored, text, grid=grid),
                     (1,)))
    if not rows:
        raise InputError("no read item has a positive GROUNDING -> OCR chain in the trees")
    return rows


def image_targets(messages: list[dict]) -> list[tuple[list[float], tuple[int, int]] | None]:
    """The `target` (box, size) of every image part, in the order the images reach the tower."""
    return [part.get("target") for m in messages if m["role"] == "user" and not isinstance(m["content"], str)
            for part in m["content"] if part.get("type") == "image"]


def encode(vlm, messages: list[dict], reply: str, color: int | None = None, grid: int | None = None
           ) -> dict[str, Any]:
    """Token and image tensors of a conversation and its reply; the loss covers the reply only. One
    processor pass: with a word-level tokenizer the reply's tokens are exactly the sequence's tail. With
    `grid`, the patch-loss targets too: per image, the patches its `target` box covers and the asked colour
    (images without a target, or a question without a colour, train nothing)."""
    import torch

    from toolkit.cogcom.local import prompt_and_images
    from toolkit.core.patch_aux import CLASS, MASK, NO_TARGET, QUERY, patch_mask

    tok = vlm.tokenizer
    prompt, images = prompt_and_images(vlm.processor, messages)
    answer = f" {reply}{tok.eos_token}"
    full = vlm.processor(images=images, text=[prompt + answer], return_tensors="pt")
    n_answer = len(tok(answer, add_special_tokens=False)["input_ids"])
    item = {k: v[0] if k in ("input_ids", "attention_mask") else v for k, v in full.items()}
    labels = item["input_ids"].clone()
    labels[:-n_answer] = -100
    item["labels"] = labels
    if grid is not None:
        targets = image_targets(messages)
        item[MASK] = torch.tensor([patch_mask(t[0], t[1], grid) if t else [0.0] * grid * grid for t in targets])
        item[CLASS] = torch.tensor([color if t and color is not None else NO_TARGET for t in targets])
        item[QUERY] = torch.tensor([box_query(tok, item["input_ids"], n_answer)])
    return item


def box_query(tok, input_ids, n_answer: int) -> int:
    """The position whose next token is the reply's first box coordinate (-1: the reply writes no box)."""
    words = tok.convert_ids_to_tokens(input_ids[-n_answer:].tolist())
    first = next((i for i, w in enumerate(words) if re.fullmatch(r"\d{3}", w)), None)
    return -1 if first is None else len(input_ids) - n_answer + first - 1


def position_words(tok, grid: int = GRID) -> list[int]:
    """Token id, per token column (or row) k, of the word a coarse crop writes for its left (top) edge when
    the sign's centre is in column (row) k."""
    n = min(CELLS, grid)
    edges = [cell_edge(min(grid - n, max(0, k - n // 2)), grid) for k in range(grid)]
    return tok.convert_tokens_to_ids([f"{10 * e:03d}" for e in edges])


class ChainGrounding:
    """The training-only losses on a chain's grounded box: image tokens that mark the sign (PatchGrounding),
    weighted by `attention_weight` the box-writing attention on them (AttentionGrounding), and weighted by
    `readout_weight` the box-writing heads' output naming the coordinate words (ReadoutGrounding)."""

    def __init__(self, model, device, attention_weight: float, readout_weight: float = 0.0,
                 tokenizer=None, grid: int = GRID):
        from toolkit.core.patch_aux import AttentionGrounding, PatchGrounding, ReadoutGrounding

        self.patch = PatchGrounding(model, len(COLOR_CLASSES), device)
        self.attention = AttentionGrounding(model) if attention_weight > 0 else None
        self.readout = ReadoutGrounding(model, position_words(tokenizer, grid)) if readout_weight > 0 else None
        self.attention_weight, self.readout_weight = attention_weight, readout_weight
        self.parts: dict[str, float] = {}

    def parameters(self):
        return self.patch.parameters()

    def loss(self, batch):
        loss = self.patch.loss(batch)
        self.parts = {"patch_loss": round(float(loss.detach()), 5)}
        if self.attention is not None:
            attention = self.attention.loss(batch)
            self.parts["attention_loss"] = round(float(attention.detach()), 5)
            loss = loss + self.attention_weight * attention
        if self.readout is not None:
            loss = loss + self.readout_weight * self.readout.loss(batch)
            self.parts.update(self.readout.parts)
        return loss

    def state_dict(self):
        return self.patch.state_dict()

    def load_state_dict(self, state):
        self.patch.load_state_dict(state)

    def close(self) -> None:
        self.patch.close()
        for extra in (self.attention, self.readout):
            if extra is not None:
                extra.close()


def model_grid(model: str | Path) -> int:
    """Image tokens per side of a tiny model (its tiny_spec.json); GRID when it has none."""
    import json

    spec_file = Path(model) / "tiny_spec.json"
    if not spec_file.is_file():
        return GRID
    spec = json.loads(spec_file.read_text(encoding="utf-8"))["spec"]
    if spec.get("vision", "clip") != "clip":
        raise InputError(f"{model}: the coarse crop is snapped to a CLIP tower's patch grid; this model has a "
                         f"{spec['vision']} tower")
    return spec["image_size"] // spec["patch_size"]


def train_model(items: list[dict], trees: dict[str, dict], model: str, out: str, *, minutes: float,
                epochs: float = 4.0, lr: float = 1e-3, batch_size: int = 16, seed: int = 0, val_chains: int = 40,
                resume: bool = False, writer=None, chunk_minutes: float | None = None,
                aux_weight: float = 1.0, attention_weight: float = 1.0, readout_weight: float = 1.0
                ) -> dict[str, Any]:
    from toolkit.core import console
    from toolkit.core.vlm import load_vlm
    from toolkit.core.vlm_train import SFTConfig, sft

    grid = model_grid(model)
    rows = training_rows(items, trees, seed, grid=grid)
    ids = sorted({r[0] for r in rows})
    random.Random(seed).shuffle(ids)
    val_ids = set(ids[:min(val_chains, len(ids) // 10)])  # validation chains: whole items held out
    train_rows = [r for r in rows if r[0] not in val_ids]
    val_rows = [r for r in rows if r[0] in val_ids and r[2] in (CROPS, ALL_TURNS)]
    vlm = load_vlm(model, device="cpu", trainable=True)
    vlm.tokenizer.padding_side = "right"
    console.info(f"encoding {len(train_rows)} training / {len(val_rows)} validation conversations")
    colors = {r[0]: question_color(next(it["question"] for it in items if it["id"] == r[0])) for r in rows} \
        if aux_weight > 0 else {}
    aux_grid = grid if aux_weight > 0 else None
    train_items = [encode(vlm, m, r, colors.get(i), aux_grid) for i, msgs, turns in train_rows
                   for m, r in turn_examples(msgs, turns)]
    val_items = [encode(vlm, m, r) for _, msgs, _ in val_rows for m, r in turn_examples(msgs, CROPS)]
    probe = val_rows[:20]
    probe_items = [encode(vlm, msgs[:1], msgs[1]["content"], None, grid) for _, msgs, _ in probe]

    def on_eval(m, step):
        from toolkit.cogcom.local import LocalVLMBackend
        from toolkit.core.vlm import VLM

        backend = LocalVLMBackend(name="probe", vlm=VLM(model=m, processor=vlm.processor, device=vlm.device,
                                                       word_level=True))
        coarse, fine = crop_iou_probe(backend, probe)
        x0, y0 = coordinate_probability(m, probe_items)
        extra = readout_diagnosis(m, probe_items, aux) if aux is not None and aux.readout is not None else {}
        return {**extra, "val_crop_iou": round((coarse + fine) / 2, 4), "val_coarse_iou": round(coarse, 4),
                "val_fine_iou": round(fine, 4), "val_x0_prob": round(x0, 4), "val_y0_prob": round(y0, 4)}

    cfg = SFTConfig(model=model, out=out, full=True, epochs=epochs, lr=lr, batch_size=batch_size, seed=seed,
                    max_minutes=None if chunk_minutes else minutes, chunk_minutes=chunk_minutes, warmup=30,
                    log_type="cogcom.train_log", eval_every=100, aux_weight=aux_weight,
                    aux_attention_weight=attention_weight if aux_weight > 0 else 0.0,
                    aux_readout_weight=readout_weight if aux_weight > 0 else 0.0)
    aux = ChainGrounding(vlm.model, vlm.device, attention_weight, readout_weight, vlm.tokenizer, grid) \
        if aux_weight > 0 else None
    try:
        summary = sft(cfg, vlm, train_items, val_items, resume=resume, on_epoch=on_eval, writer=writer, aux=aux)
    finally:
        if aux is not None:
            aux.close()
    summary["train_conversations"], summary["val_chains"] = len(train_rows), len(val_rows)
    return summary


def coordinate_probability(model, items: list[dict[str, Any]]) -> tuple[float, float]:
    """Mean probability the model gives the right first and second coordinate word of a crop reply
    (teacher-forced; `items` encoded with a grid, so each holds its `QUERY`)."""
    import torch

    from toolkit.core.patch_aux import QUERY
    from toolkit.core.vlm_train import forward

    sums = [0.0, 0.0]
    with torch.no_grad():
        for it in items:
            q = int(it[QUERY][0])
            batch = {k: (v.unsqueeze(0) if k in ("input_ids", "attention_mask", "labels") else v)
                     for k, v in it.items()}
            probs = forward(model, batch).logits[0].float().softmax(-1)
            for k in (0, 1):
                sums[k] += float(probs[q + 2 * k, it["input_ids"][q + 2 * k + 1]])
    return sums[0] / max(1, len(items)), sums[1] / max(1, len(items))


def readout_diagnosis(model, items: list[dict[str, Any]], aux: ChainGrounding) -> dict[str, float]:
    """Where the x0 word is lost, on the coarse turn (teacher-forced), read from the training-only hooks:
    the x head's attention mass on the sign's patches where x0 is written (`val_x0_attention`), the
    probability of the right x0 word read from that head's output alone (`val_x0_head_prob`), and read from
    the mean value of the sign's patches, as if the head attended to them only (`val_x0_sign_prob`)."""
    import torch

    from toolkit.core.patch_aux import MASK, QUERY
    from toolkit.core.vlm_train import forward

    readout, attention, head = aux.readout, aux.attention, aux.readout.heads[0]
    d, group = readout.head_dim, readout.group
    sums = {"val_x0_attention": 0.0, "val_x0_head_prob": 0.0, "val_x0_sign_prob": 0.0}
    with torch.no_grad():
        for it in items:
            q, on = int(it[QUERY][0]), it[MASK][0].bool()
            batch = {k: (v.unsqueeze(0) if k in ("input_ids", "attention_mask", "labels") else v)
                     for k, v in it.items()}
            forward(model, batch)
            word = it["input_ids"][q + 1]
            patches = (it["input_ids"] == readout.image_token).nonzero().squeeze(1)[:len(on)][on]
            if attention is not None and attention._weights is not None:
                sums["val_x0_attention"] += float(attention._weights[0, head, q, patches].sum())
            mixed, values = readout._mixed[0, q, head * d:(head + 1) * d], readout._values[0, patches]
            kv = head // group
            sign = values[:, kv * d:(kv + 1) * d].mean(0)
            sums["val_x0_head_prob"] += float(readout.read(mixed, head).float().softmax(-1)[word])
            sums["val_x0_sign_prob"] += float(readout.read(sign, head).float().softmax(-1)[word])
            readout._mixed = readout._values = None
            if attention is not None:
                attention._weights = None
    return {k: round(v / max(1, len(items)), 4) for k, v in sums.items()}


def crop_iou_probe(backend, rows) -> tuple[float, float]:
    """Mean IoU, against the chain's own replies, of the model's coarse crop and of its fine crop (history
    teacher-forced): a cheap training-time check that the crops move onto the sign."""
    from toolkit.cogcom.boxes import iou, parse_boxes

    scores: dict[int, list[float]] = {1: [], 3: []}
    for _, messages, _ in rows:
        for i in (1, 3):
            reply = backend._complete(messages[:i], 1, 0.0, 32, None).texts[0]
            gold = parse_boxes(messages[i]["content"])
            try:
                got = parse_boxes(reply)
            except InputError:
                got = []
            scores[i].append(iou(got[0], gold[0]) if got and gold else 0.0)
    return tuple(sum(v) / max(1, len(v)) for v in scores.values())
