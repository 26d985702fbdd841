"""Positive chains -> LLaVA-style training JSON (`images[]` + `conversations`, one `<image>` per new image).

Descriptions get their variables' values filled in. When a path has no CROP_AND_ZOOMIN before its first
boxed step and the box is small (image/box area >= 36: x2, >= 64: x3, >= 100: x4), one is inserted there and
the crop is enlarged by that factor. Each new image opens a new turn, at most 3 images per conversation;
the chain ends with "So the answer is X.".
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from PIL import Image

from toolkit.cogcom.boxes import boxes_text
from toolkit.cogcom.manip import crop_and_zoomin

LAUNCH_PROMPTS = [
    "Answer the question step by step with a chain of manipulations: GROUNDING(a phrase)->boxes, OCR(an image or a "
    "region)->text, CROP_AND_ZOOMIN(a box, x)->new_image, CALCULATE(an expression)->number. {Q}",
    "{Q} Work it out in steps; each step may use GROUNDING(a phrase)->boxes, OCR(an image or a region)->text, "
    "CROP_AND_ZOOMIN(a box, x)->new_image or CALCULATE(an expression)->number.",
    "Solve this one manipulation at a time. Available: GROUNDING to find boxes for a phrase, OCR to read an image "
    "or a region, CROP_AND_ZOOMIN to cut a box out and enlarge it, CALCULATE to do arithmetic. {Q}",
    "Use a chain of visual operations (GROUNDING(phrase)->boxes, OCR(region)->text, CROP_AND_ZOOMIN(box, x)->image, "
    "CALCULATE(expression)->number) to answer: {Q}",
    "{Q} Reason over the image in steps, calling GROUNDING, OCR, CROP_AND_ZOOMIN or CALCULATE where it helps.",
    "Break the question into steps and apply GROUNDING(a phrase)->boxes, OCR(a region)->text, CROP_AND_ZOOMIN"
    "(a box, x)->new_image and CALCULATE(an expression)->number as needed. {Q}",
    "Look closely, step by step: locate with GROUNDING, zoom with CROP_AND_ZOOMIN, read with OCR, compute with "
    "CALCULATE, then answer. {Q}",
    "{Q} Please answer through a sequence of manipulations such as GROUNDING(a phrase)->boxes, OCR(an image or a "
    "region)->text, CROP_AND_ZOOMIN(a box, x)->new_image and CALCULATE(an expression)->number.",
    "Here is a question about the picture. Find the relevant regions with GROUNDING, enlarge them with "
    "CROP_AND_ZOOMIN, read them with OCR and do any arithmetic with CALCULATE. {Q}",
]
NEW_TURN = "Based on this new image and the reasoning history:"
MAX_IMAGES = 3


def zoom_for_ratio(ratio: float) -> int | None:
    """The enlargement for an image/box area ratio, or None when the box is large enough as it is."""
    for bound, factor in ((100, 4), (64, 3), (36, 2)):
        if ratio >= bound:
            return factor
    return None


def _fill(description: str, variables: dict[str, str]) -> str:
    return re.sub(r"`([A-Za-z_][A-Za-z0-9_]*)`", lambda m: variables.get(m.group(1), m.group(0)), description)


def export_chain(tree: dict, path: list[str], image: Image.Image, image_rel: str, out_dir: Path, tag: str,
                 rng: random.Random) -> dict:
    """One LLaVA record for one positive path; new images are written under out_dir/images."""
    nodes = [tree["nodes"][k] for k in path]
    variables: dict[str, str] = {}
    images, turns, current = [image_rel], [], [f"<image>\n{rng.choice(LAUNCH_PROMPTS).format(Q=tree['question'])}"]
    gpt: list[str] = []
    zoomed = any(n["func"] == "CROP_AND_ZOOMIN" for n in nodes)
    pictures = {"img_0": image}

    def new_image(picture: Image.Image, text: str) -> None:
        nonlocal current, gpt
        name = f"images/{tag}-{len(images)}.png"
        (out_dir / "images").mkdir(parents=True, exist_ok=True)
        picture.save(out_dir / name)
        images.append(name)
        turns.append({"from": "human", "value": "\n".join(current)})
        turns.append({"from": "gpt", "value": " ".join(gpt + [text])})
        current, gpt = [f"<image>\n{NEW_TURN}"], []

    for node in nodes:
        variables.update(node.get("variables") or {})
        box = node.get("onbox")
        if not zoomed and box and node.get("on", "img_0") == "img_0" and len(images) < MAX_IMAGES:
            ratio = image.width * image.height / max(1, (box[2] - box[0]) * (box[3] - box[1]))
            factor = zoom_for_ratio(ratio)
            if factor:
                zoomed = True
                gpt.append(_fill(node["desc"], variables))
                text = boxes_text([box], *image.size)
                new_image(crop_and_zoomin(image, box, factor),
                          f"Using CROP_AND_ZOOMIN({text}, {factor}) to crop the current image along {text} and "
                          f"enlarge it {factor} times, then re-input the new image.")
                continue
        line = _fill(node["desc"], variables)
        crop = node.get("crop")
        if crop and crop["on"] in pictures:
            pictures[crop["image"]] = crop_and_zoomin(pictures[crop["on"]], crop["box"], crop["x"])
            if len(images) < MAX_IMAGES:
                new_image(pictures[crop["image"]], line)
                continue
        gpt.append(line)
    gpt.append(f"So the answer is {tree['answer']}.")
    turns.append({"from": "human", "value": "\n".join(current)})
    turns.append({"from": "gpt", "value": " ".join(gpt)})
    return {"id": tag, "images": images, "conversations": turns}
