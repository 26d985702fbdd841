"""A tiny LLaVA (toolkit.core.tiny_vlm) that drives the manipulation runtime on read questions.

Training conversations are made from synthesized positive chains (GROUNDING -> CROP_AND_ZOOMIN -> OCR):
the box the chain grounded becomes two model-written crops, coarse to fine, as the runtime plays them:

  USER: <scene> launch text, Question: What does the red sign say?
  ASSISTANT: CROP_AND_ZOOMIN([[w0,w1,w2,w3]], 2)->img_1      the sign's box widened by MARGIN bins
  USER: <img_1> Based on this new image and the reasoning history:
  ASSISTANT: CROP_AND_ZOOMIN([[b0,b1,b2,b3]], 2)->img_2      the sign's box on img_1
  USER: <img_2> Based on this new image and the reasoning history:
  ASSISTANT: OCR(img_2)->txt_1
  USER: OCR returned: <the chain's OCR text>
  ASSISTANT: So the answer is `txt_1`.

Boxes are 100 bins per side, each a single word token: bin b is written as the box-text value 10*b
("000".."990"), so the model's replies stay in the 0-999 box grammar every runtime reads. The model never
reads text (OCR does); it decides where to look, which is what the IoU of its final crop measures.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from toolkit.cogcom.boxes import from_norm
from toolkit.cogcom.ground import perceive
from toolkit.cogcom.manip import crop_and_zoomin
from toolkit.cogcom.runtime import LAUNCH, NEW_IMAGE
from toolkit.core.errors import InputError
from toolkit.core.tiny_vlm import TinySpec, build_tiny_vlm

BINS = 100
MARGIN = 5  # bins added on each side of the coarse crop: its error may reach this before the sign is cut
JITTER = 3  # training windows are shifted up to this many bins, as a stage-1 error would shift them
ZOOM = 2
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


def widen(b: list[int], margin: int, shift: tuple[int, int] = (0, 0)) -> list[int]:
    x0, y0, x1, y1 = b[0] - margin + shift[0], b[1] - margin + shift[1], b[2] + margin + shift[0], \
        b[3] + margin + shift[1]
    return [max(0, x0), max(0, y0), min(BINS - 1, x1), min(BINS - 1, y1)]


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
                 budget: int = 448) -> list[dict]:
    """The runtime's messages for one chain (images as PIL, shown at the budget as the runtime shows them);
    `shift` moves the coarse crop by that many bins, as an imprecise first reply would."""
    w, h = scene.size
    sign = to_bins(box, w, h)
    window = widen(sign, MARGIN, shift)
    window_px = bins_to_pixels(window, w, h)
    img_1 = crop_and_zoomin(scene, window_px, ZOOM)
    on_1 = [(box[0] - window_px[0]) * ZOOM, (box[1] - window_px[1]) * ZOOM,
            (box[2] - window_px[0]) * ZOOM, (box[3] - window_px[1]) * ZOOM]
    on_1 = [min(max(0.0, v), s) for v, s in zip(on_1, (*img_1.size, *img_1.size), strict=True)]
    fine = to_bins(on_1, *img_1.size)
    img_2 = crop_and_zoomin(img_1, bins_to_pixels(fine, *img_1.size), ZOOM)

    def user(image, text):
        parts = [{"type": "image", "image": perceive(image, budget)[0]}] if image is not None else []
        return {"role": "user", "content": parts + [{"type": "text", "text": text}]}

    return [user(scene, f"{LAUNCH}\nQuestion: {question}"),
            {"role": "assistant", "content": f"CROP_AND_ZOOMIN({bins_text(window)}, {ZOOM})->img_1"},
            user(img_1, NEW_IMAGE),
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


def training_rows(items: list[dict], trees: dict[str, dict], seed: int, all_turns_share: float = 0.25):
    """(item id, messages, replies to teach) for every read item with a positive chain: the chain as it
    should go (both crops taught; every turn for a share of them), and once more with the coarse crop shifted
    by up to JITTER bins, teaching the fine crop to find the sign off-centre."""
    from toolkit.cogcom.images import load_image

    rng = random.Random(seed)
    rows = []
    for item in items:
        tree = trees.get(item["id"])
        chain = read_chain(tree) if tree else None
        if chain is None or item.get("kind") not in (None, "read"):
            continue
        scene = load_image(item["image_path"], f"item {item['id']}")
        every = rng.random() < all_turns_share
        rows.append((item["id"], conversation(scene, item["question"], *chain), ALL_TURNS if every else CROPS))
        shift = (rng.randint(-JITTER, JITTER), rng.randint(-JITTER, JITTER))
        rows.append((item["id"], conversation(scene, item["question"], *chain, shift=shift), (3,)))
    if not rows:
        raise InputError("no read item has a positive GROUNDING -> OCR chain in the trees")
    return rows


def encode(vlm, messages: list[dict], reply: str) -> dict[str, Any]:
    """Token and image tensors of a conversation and its reply; the loss covers the reply only. One
    processor pass: with a word-level tokenizer the reply's tokens are exactly the sequence's tail."""
    from toolkit.cogcom.local import prompt_and_images

    tok = vlm.tokenizer
    prompt, images = prompt_and_images(vlm.processor, messages)
    answer = f" {reply}{tok.eos_token}"
    full = vlm.processor(images=images, text=[prompt + answer], return_tensors="pt")
    n_answer = len(tok(answer, add_special_tokens=False)["input_ids"])
    item = {k: v[0] if k in ("input_ids", "attention_mask") else v for k, v in full.items()}
    labels = item["input_ids"].clone()
    labels[:-n_answer] = -100
    item["labels"] = labels
    return item


def train_model(items: list[dict], trees: dict[str, dict], model: str, out: str, *, minutes: float,
                epochs: float = 4.0, lr: float = 1e-3, batch_size: int = 16, seed: int = 0, val_chains: int = 40,
                resume: bool = False, writer=None, chunk_minutes: float | None = None) -> dict[str, Any]:
    from toolkit.core import console
    from toolkit.core.vlm import load_vlm
    from toolkit.core.vlm_train import SFTConfig, sft

    rows = training_rows(items, trees, seed)
    ids = sorted({r[0] for r in rows})
    random.Random(seed).shuffle(ids)
    val_ids = set(ids[:min(val_chains, len(ids) // 10)])  # validation chains: whole items held out
    train_rows = [r for r in rows if r[0] not in val_ids]
    val_rows = [r for r in rows if r[0] in val_ids and r[2] != (3,)]
    vlm = load_vlm(model, device="cpu", trainable=True)
    vlm.tokenizer.padding_side = "right"
    console.info(f"encoding {len(train_rows)} training / {len(val_rows)} validation conversations")
    train_items = [encode(vlm, m, r) for _, msgs, turns in train_rows for m, r in turn_examples(msgs, turns)]
    val_items = [encode(vlm, m, r) for _, msgs, _ in val_rows for m, r in turn_examples(msgs, CROPS)]
    probe = val_rows[:10]

    def on_eval(m, step):
        from toolkit.cogcom.local import LocalVLMBackend
        from toolkit.core.vlm import VLM

        backend = LocalVLMBackend(name="probe", vlm=VLM(model=m, processor=vlm.processor, device=vlm.device,
                                                       word_level=True))
        return {"val_crop_iou": round(crop_iou_probe(backend, probe), 4)}

    cfg = SFTConfig(model=model, out=out, full=True, epochs=epochs, lr=lr, batch_size=batch_size, seed=seed,
                    max_minutes=None if chunk_minutes else minutes, chunk_minutes=chunk_minutes, warmup=30,
                    log_type="cogcom.train_log", eval_every=100)
    summary = sft(cfg, vlm, train_items, val_items, resume=resume, on_epoch=on_eval, writer=writer)
    summary["train_conversations"], summary["val_chains"] = len(train_rows), len(val_rows)
    return summary


def crop_iou_probe(backend, rows) -> float:
    """Mean IoU, against the box the chain grounded, of the model's first crop reply (teacher-forced history
    for the second): a cheap training-time check that the crops move onto the sign."""
    from toolkit.cogcom.boxes import iou, parse_boxes

    scores = []
    for _, messages, _ in rows:
        for i in (1, 3):
            reply = backend._complete(messages[:i], 1, 0.0, 32, None).texts[0]
            gold = parse_boxes(messages[i]["content"])
            try:
                got = parse_boxes(reply)
            except InputError:
                got = []
            scores.append(iou(got[0], gold[0]) if got and gold else 0.0)
    return sum(scores) / max(1, len(scores))
