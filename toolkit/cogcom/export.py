"""Positive chains -> LLaVA-style training JSON (`images[]` + `conversations`, one `<image>` per new image).

The conversation is laid out as the official CoM dataset builds it (THUDM/CogCoM `com_dataset.py`): the first
human turn is a launch prompt with the question; every CROP_AND_ZOOMIN is written as its call text,
`CROP_AND_ZOOMIN([[x0,y0,x1,y1]], 2)`, closes the model's turn and opens a new one whose image is the crop, with
"Based on this new image and the reasoning history:"; the chain ends with one "So the answer is X." (the gold
answer, as the official exporter writes it). At most 3 images per conversation, as the official `max_turn`.

Boxes are written in the official convention (`refine_box`): each coordinate floor(1000*min(c, size-1)/size),
clipped to 999, three digits, on the image being cropped, which must be the turn's current image (the grammar
has no image argument). The other manipulations are written as their call, `NAME(args)`, with box and text
variables filled in; image variables are named in backticks in calls and "the new image" in descriptions, never
as internal names with sizes.

Zoom: a path without a CROP_AND_ZOOMIN gets one before its first boxed step when the box is small (image/box
area >= 36). The official exporter writes 2, 3 or 4 there by the area ratio, but its runtime always enlarges x2;
here the factor written is the one the image really has: 2 by default, the ratio's 2/3/4 with `zoom="auto"`.
Differences kept on purpose: the description of the boxed step comes before the inserted zoom (the official
exporter repeats it after), and a path that cannot be written in the grammar is refused (`Unexportable`), not
cut short.
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
    "region)->text, CROP_AND_ZOOMIN(a region on the current image)->new_image, CALCULATE(an expression)->number. {Q}",
    "{Q} Work it out in steps; each step may use GROUNDING(a phrase)->boxes, OCR(an image or a region)->text, "
    "CROP_AND_ZOOMIN(a region on the current image)->new_image or CALCULATE(an expression)->number.",
    "Solve this one manipulation at a time. Available: GROUNDING to find boxes for a phrase, OCR to read an image "
    "or a region, CROP_AND_ZOOMIN to cut a box out and enlarge it, CALCULATE to do arithmetic. {Q}",
    "Use a chain of visual operations (GROUNDING(phrase)->boxes, OCR(region)->text, CROP_AND_ZOOMIN(region)->image, "
    "CALCULATE(expression)->number) to answer: {Q}",
    "{Q} Reason over the image in steps, calling GROUNDING, OCR, CROP_AND_ZOOMIN or CALCULATE where it helps.",
    "Look closely, step by step: locate with GROUNDING, zoom with CROP_AND_ZOOMIN, read with OCR, compute with "
    "CALCULATE, then answer. {Q}",
]
# every wording carries the call text; the call is the last `NAME(...)` of the reply, which the runtimes act on
CROP_PROMPTS = [
    "Using CROP_AND_ZOOMIN({BBX}, {X}) to crop the current image along the rectangular box {BBX} and enlarge the "
    "cropped image by {X} times to get a new image, and then re-input the new image.",
    "Apply CROP_AND_ZOOMIN({BBX}, {X}) to cut the box {BBX} out of the current image and zoom it in {X} times; "
    "the new image is fed back as input.",
    "Call CROP_AND_ZOOMIN({BBX}, {X}): crop the current image along {BBX}, enlarge the crop {X} times and re-input "
    "it as a new image.",
]
NEW_TURN = "Based on this new image and the reasoning history:"
FINAL = "So the answer is {ANSWER}."
MAX_IMAGES = 3
IMAGE_WORDS = "the new image"
_ANSWER_CLAUSE = re.compile(r"[\s,;:.]*\b(?:(?:so|thus|hence|therefore)\b[\s,]*)?(?:the\s+)?(?:final\s+)?answer"
                            r"(?:\s+to\s+the\s+question)?\s+is\b.*$", re.I | re.S)
_SIZED_NAME = re.compile(r"\bimg_\d+\s*\(\d+x\d+\)")


class Unexportable(ValueError):
    """A positive path that the official call grammar cannot express (the reason is the message)."""


def zoom_for_ratio(ratio: float) -> int | None:
    """The enlargement for an image/box area ratio, or None when the box is large enough as it is."""
    for bound, factor in ((100, 4), (64, 3), (36, 2)):
        if ratio >= bound:
            return factor
    return None


def _factor(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _fill(text: str, variables: dict[str, str], image_vars: set[str], in_call: bool) -> str:
    def value(m: re.Match) -> str:
        name = m.group(1)
        if name in image_vars or name == "img_0":
            return m.group(0) if in_call else IMAGE_WORDS if name != "img_0" else "the original image"
        return variables.get(name, m.group(0))

    return _SIZED_NAME.sub(IMAGE_WORDS, re.sub(r"`([A-Za-z_][A-Za-z0-9_]*)`", value, text))


def _without_answer(text: str) -> str:
    """The text with any "so the answer is ..." clause cut (the chain states its answer once, at the end)."""
    cut = _ANSWER_CLAUSE.sub("", text).strip()
    return "" if not cut else cut if cut.endswith((".", "!", "?")) else cut + "."


def _call_line(node: dict, variables: dict[str, str], image_vars: set[str]) -> str:
    """A non-crop manipulation as its call followed by its description."""
    desc = _without_answer(_fill(node["desc"], variables, image_vars, in_call=False))
    args = ", ".join(_fill(str(a).strip(), variables, image_vars, in_call=True) for a in node.get("param") or [])
    call = f"{node['func']}({args})"
    if f"{node['func']}(" in desc:
        return desc
    return f"Using {call}, {desc[:1].lower()}{desc[1:]}" if desc else f"Using {call}."


def export_chain(tree: dict, path: list[str], image: Image.Image, image_rel: str, out_dir: Path, tag: str,
                 rng: random.Random, zoom: str = "2") -> dict:
    """One LLaVA record for one positive path; new images are written under out_dir/images.

    Raises Unexportable when the path crops an image other than the turn's current one or needs more than
    MAX_IMAGES images."""
    nodes = [tree["nodes"][k] for k in path]
    variables: dict[str, str] = {}
    image_vars = {v for n in nodes if n.get("crop") or n["func"] == "LINE" for v in (n.get("variables") or {})}
    images, turns, current = [image_rel], [], [f"<image>\n{rng.choice(LAUNCH_PROMPTS).format(Q=tree['question'])}"]
    gpt: list[str] = []
    zoomed = any(n["func"] == "CROP_AND_ZOOMIN" for n in nodes)
    pictures, shown = {"img_0": image}, "img_0"  # shown: the image of the current turn
    pending: list[tuple[Image.Image, str]] = []

    def new_image(picture: Image.Image, text: str, name: str) -> None:
        nonlocal current, gpt, shown
        if len(images) >= MAX_IMAGES:
            raise Unexportable(f"needs more than {MAX_IMAGES} images")
        images.append(f"images/{tag}-{len(images)}.png")
        pending.append((picture, images[-1]))
        turns.append({"from": "human", "value": "\n".join(current)})
        turns.append({"from": "gpt", "value": " ".join(gpt + [text])})
        current, gpt, shown = [f"<image>\n{NEW_TURN}"], [], name

    def crop_text(box: list[float], on: Image.Image, factor: float) -> str:
        bbx = boxes_text([box], *on.size)
        return rng.choice(CROP_PROMPTS).format(BBX=bbx, X=_factor(factor))

    for node in nodes:
        variables.update({k: str(v) for k, v in (node.get("variables") or {}).items()})
        box = node.get("onbox")
        crop = node.get("crop")
        if crop:
            if crop["on"] != shown:
                raise Unexportable(f"crops {crop['on']} while the current image is {shown} (the official "
                                   "CROP_AND_ZOOMIN has no image argument)")
            pictures[crop["image"]] = crop_and_zoomin(pictures[crop["on"]], crop["box"], crop["x"])
            new_image(pictures[crop["image"]], crop_text(crop["box"], pictures[crop["on"]], crop["x"]), crop["image"])
            continue
        line = _call_line(node, variables, image_vars) if node["func"] else \
            _without_answer(_fill(node["desc"], variables, image_vars, in_call=False))
        if line:
            gpt.append(line)
        if not zoomed and box and node.get("on", "img_0") == "img_0" == shown:
            ratio = image.width * image.height / max(1, (box[2] - box[0]) * (box[3] - box[1]))
            factor = zoom_for_ratio(ratio)
            if factor:
                factor = factor if zoom == "auto" else 2
                zoomed = True
                new_image(crop_and_zoomin(image, box, factor), crop_text(box, image, factor), "inserted")
    gpt.append(FINAL.format(ANSWER=tree["answer"]))
    turns.append({"from": "human", "value": "\n".join(current)})
    turns.append({"from": "gpt", "value": " ".join(gpt)})
    if pending:  # written only once the whole path is known to be exportable
        (out_dir / "images").mkdir(parents=True, exist_ok=True)
        for picture, name in pending:
            picture.save(out_dir / name)
    return {"id": tag, "images": images, "conversations": turns}
