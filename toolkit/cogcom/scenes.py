"""Synthetic 1024x768 scenes with small signs, trays of tiny shapes and price tags, and one question each.

Every colored object in a scene has its own color, so a phrase like "red sign" names exactly one object.
Clutter is drawn in low-saturation greys so a color mask does not pick it up. Fonts come with matplotlib:
train = DejaVu Sans / Sans Mono, held-out = DejaVu Serif / STIX, so claims are measured on unseen type.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 1024, 768
KINDS = ("read", "count", "compute")

# name -> RGB; hues far apart so an HSV mask separates them.
COLORS = {
    "red": (205, 30, 30), "orange": (235, 125, 20), "yellow": (225, 200, 20), "green": (30, 150, 50),
    "cyan": (20, 170, 190), "blue": (35, 70, 200), "purple": (120, 50, 170), "pink": (225, 60, 160),
}
FONT_FILES = {"train": ["DejaVuSans.ttf", "DejaVuSansMono.ttf"], "heldout": ["DejaVuSerif.ttf", "STIXGeneral.ttf"]}
WORDS = ["EXIT", "OPEN", "STOP", "GATE", "PARK", "SALE", "CAFE", "HOTEL", "TAXI", "BANK", "MARKET", "NORTH",
         "SOUTH", "WEST", "EAST", "LOBBY", "DOCK", "STAIRS", "TICKETS", "BAKERY", "PHARMACY", "GARDEN", "MUSEUM",
         "LIBRARY", "STATION", "PLATFORM", "OFFICE", "HALL", "ROAD", "BRIDGE", "CLOSED", "PUSH", "PULL", "ENTRY"]
SHAPES = ("circle", "square", "triangle")


@dataclass
class SceneObject:
    kind: str  # sign | tray | tag
    color: str
    box: list[int]  # x0, y0, x1, y1 in pixels
    text: str = ""
    count: int = 0
    shape: str = ""
    price: float = 0.0
    shape_boxes: list[list[int]] = field(default_factory=list)


def font_paths(split: str) -> list[Path]:
    import matplotlib

    root = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    return [root / name for name in FONT_FILES[split]]


def format_number(x: float) -> str:
    """The one way answers print numbers: at most 2 decimals, no trailing zeros ("4.75", "8.5", "12")."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _free_box(rng: random.Random, taken: list[list[int]], w: int, h: int, margin: int = 14) -> list[int] | None:
    for _ in range(200):
        x0, y0 = rng.randint(20, WIDTH - w - 20), rng.randint(20, HEIGHT - h - 20)
        box = [x0, y0, x0 + w, y0 + h]
        if all(box[2] + margin < t[0] or t[2] + margin < box[0] or box[3] + margin < t[1] or t[3] + margin < box[1]
               for t in taken):
            return box
    return None


def _clutter(draw: ImageDraw.ImageDraw, rng: random.Random) -> None:
    for _ in range(rng.randint(25, 45)):
        g = rng.randint(150, 215)
        tint = (g + rng.randint(-8, 8), g + rng.randint(-8, 8), g + rng.randint(-8, 8))
        x, y = rng.randint(0, WIDTH), rng.randint(0, HEIGHT)
        if rng.random() < 0.5:
            end = (x + rng.randint(-150, 150), y + rng.randint(-150, 150))
            draw.line([x, y, *end], fill=tint, width=rng.randint(1, 3))
        else:
            draw.rectangle([x, y, x + rng.randint(10, 90), y + rng.randint(10, 60)], outline=tint, width=1)


def _text_color(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    luma = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    return (0, 0, 0) if luma > 150 else (255, 255, 255)


def _draw_label(draw, rng, font_file: Path, text: str, color: str, taken, pad=(8, 5)) -> list[int] | None:
    font = ImageFont.truetype(str(font_file), rng.randint(10, 16))
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    w, h = right - left + 2 * pad[0], bottom - top + 2 * pad[1]
    box = _free_box(rng, taken, w, h)
    if box is None:
        return None
    rgb = COLORS[color]
    draw.rectangle(box, fill=rgb)
    draw.text((box[0] + pad[0] - left, box[1] + pad[1] - top), text, fill=_text_color(rgb), font=font)
    return box


def _draw_tray(draw, rng, color: str, taken) -> SceneObject | None:
    count, size = rng.randint(5, 25), rng.randint(4, 8)
    cols = rng.randint(5, 7)
    cell = size + rng.randint(3, 5)  # gaps of 3-5 px: clear at full size, merged when shrunk
    w, h = cols * cell + 24, -(-25 // cols) * cell + 24
    box = _free_box(rng, taken, w, h)
    if box is None:
        return None
    rgb, shape = COLORS[color], rng.choice(SHAPES)
    draw.rectangle(box, outline=rgb, width=3, fill=(245, 245, 240))
    cells = rng.sample(range(cols * (-(-25 // cols))), count)
    shape_boxes = []
    for c in cells:
        x = box[0] + 12 + (c % cols) * cell + rng.randint(0, 1)
        y = box[1] + 12 + (c // cols) * cell + rng.randint(0, 1)
        sb = [x, y, x + size, y + size]
        if shape == "circle":
            draw.ellipse(sb, fill=rgb)
        elif shape == "square":
            draw.rectangle(sb, fill=rgb)
        else:
            draw.polygon([(x + size / 2, y), (x + size, y + size), (x, y + size)], fill=rgb)
        shape_boxes.append(sb)
    return SceneObject("tray", color, box, count=count, shape=shape, shape_boxes=shape_boxes)


def _price(rng: random.Random) -> float:
    return rng.randint(1, 99) + rng.choice([0, 0.25, 0.5, 0.75, 0.05, 0.9, 0.1, 0.45])


def draw_scene(seed: int, split: str, kind: str) -> tuple[Image.Image, list[SceneObject], dict]:
    """One scene and its question (kind read | count | compute); the same (seed, split, kind) gives the same image."""
    rng = random.Random(f"cogcom-{seed}-{split}-{kind}")
    image = Image.new("RGB", (WIDTH, HEIGHT), tuple(rng.randint(225, 245) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    _clutter(draw, rng)
    fonts = font_paths(split)
    colors = rng.sample(list(COLORS), len(COLORS))
    objects: list[SceneObject] = []
    taken: list[list[int]] = []
    for _ in range(rng.randint(2, 4)):
        text = " ".join(rng.choice(WORDS) if rng.random() < 0.75 else str(rng.randint(2, 99))
                        for _ in range(rng.randint(1, 2)))
        color = colors.pop()
        box = _draw_label(draw, rng, rng.choice(fonts), text, color, taken)
        if box:
            taken.append(box)
            objects.append(SceneObject("sign", color, box, text=text))
    for _ in range(rng.randint(1, 2)):
        tray = _draw_tray(draw, rng, colors.pop(), taken)
        if tray:
            taken.append(tray.box)
            objects.append(tray)
    for _ in range(2):
        price = _price(rng)
        color = colors.pop()
        box = _draw_label(draw, rng, rng.choice(fonts), f"${price:.2f}", color, taken, pad=(6, 4))
        if box:
            taken.append(box)
            objects.append(SceneObject("tag", color, box, text=f"${price:.2f}", price=price))
    return image, objects, _question(rng, objects, kind)


def _question(rng: random.Random, objects: list[SceneObject], kind: str) -> dict:
    signs = [o for o in objects if o.kind == "sign"]
    trays = [o for o in objects if o.kind == "tray"]
    tags = [o for o in objects if o.kind == "tag"]
    if kind == "read" and signs:
        s = rng.choice(signs)
        return {"question": f"What does the {s.color} sign say?", "answer": s.text, "boxes": [s.box],
                "targets": [f"{s.color} sign"]}
    if kind == "count" and trays:
        t = rng.choice(trays)
        return {"question": f"How many {t.shape}s are in the {t.color} tray?", "answer": str(t.count),
                "boxes": [t.box], "targets": [f"{t.color} tray"]}
    if kind == "compute" and len(tags) == 2:
        a, b = tags
        return {"question": f"What is the total price of the {a.color} tag and the {b.color} tag?",
                "answer": format_number(a.price + b.price), "boxes": [a.box, b.box],
                "targets": [f"{a.color} tag", f"{b.color} tag"]}
    return {}


def make_item(seed: int, split: str, kind: str, image_dir: Path, rel_dir: str) -> tuple[dict, Image.Image]:
    """A scene whose question of `kind` exists (retrying the seed's sub-stream), saved as PNG; returns its item."""
    for attempt in range(20):
        image, objects, question = draw_scene(seed * 100 + attempt, split, kind)
        if question:
            break
    else:
        raise RuntimeError(f"no {kind} question for seed {seed}")
    item_id = f"{split}-{seed}-{kind}"
    name = f"{item_id}.png"
    image.save(image_dir / name)
    item = {"id": item_id, "image": f"{rel_dir}/{name}", "question": question["question"],
            "answer": question["answer"], "kind": kind, "boxes": question["boxes"], "targets": question["targets"],
            "fonts": split, "seed": seed,
            "objects": [{"kind": o.kind, "color": o.color, "box": o.box, **({"text": o.text} if o.text else {}),
                         **({"count": o.count, "shape": o.shape} if o.kind == "tray" else {})} for o in objects]}
    return item, image


def kind_schedule(n: int, kinds: list[str]) -> list[str]:
    """read, count and compute in a 2:2:1 rhythm (the claim's 300/300/150), or the single kind asked for."""
    pattern = [k for k in ("read", "count", "read", "count", "compute") if k in kinds] or kinds
    return [pattern[i % len(pattern)] for i in range(n)]


def generate(n: int, seed: int, split: str, out: Path, kinds: list[str]) -> list[dict]:
    image_dir = out / "images"
    image_dir.mkdir(parents=True, exist_ok=True)
    return [make_item(seed + i, split, kind, image_dir, "images")[0]
            for i, kind in enumerate(kind_schedule(n, kinds))]
