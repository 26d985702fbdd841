"""The six manipulations run on a workspace of named values (images, boxes, texts, numbers).

`img_0` is the input image; every CROP_AND_ZOOMIN adds an image and makes it current. Boxes remember the
image they were found on, so a crop always cuts original pixels of that image; box text in arguments
(`[[...]]`, 0-999) refers to the current image. Perceivers (grounder, OCR) see at most `budget` px.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from toolkit.cogcom.boxes import boxes_text, check_norm, from_norm, parse_boxes
from toolkit.cogcom.calc import calculate
from toolkit.cogcom.chain import Call
from toolkit.core.errors import InputError

Grounder = Callable[[Image.Image, str, int], list[list[int]]]
Reader = Callable[[Image.Image, int, str], str]
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
MAX_PIXELS = 4096 * 4096


@dataclass
class Value:
    kind: str  # image | boxes | text | number
    data: object
    image: str = ""  # boxes: the image they are on; image: its own name

    def brief(self, images: dict[str, Image.Image]) -> object:
        """A JSON-able view: box text + pixels, the image name and size, the text or number."""
        if self.kind == "boxes":
            im = images[self.image]
            return {"boxes": self.data, "text": boxes_text(self.data, *im.size) if self.data else "[[]]",
                    "on": self.image}
        if self.kind == "image":
            crop = {"crop": self.data} if isinstance(self.data, dict) else {}  # where it was cut from
            return {"image": self.image, "size": list(images[self.image].size), **crop}
        return self.data


def number_in(text: str) -> float | None:
    m = _NUMBER.search(str(text).replace(",", ""))
    return float(m.group()) if m else None


@dataclass
class Workspace:
    image: Image.Image
    grounder: Grounder
    reader: Reader
    budget: int = 448
    images: dict[str, Image.Image] = field(default_factory=dict)
    values: dict[str, Value] = field(default_factory=dict)
    current: str = "img_0"

    def __post_init__(self) -> None:
        self.images["img_0"] = self.image.convert("RGB")
        self.values["img_0"] = Value("image", None, "img_0")

    def fork(self) -> Workspace:
        """A branch that shares the images made so far but adds its own (for synthesis trees)."""
        twin = Workspace.__new__(Workspace)
        twin.image, twin.grounder, twin.reader, twin.budget = self.image, self.grounder, self.reader, self.budget
        twin.images, twin.values, twin.current = dict(self.images), dict(self.values), self.current
        return twin

    # -- argument resolution -------------------------------------------------------------------------------
    def _lookup(self, arg: str, where: str) -> Value:
        name = arg.strip().strip("`")
        if name in self.values:
            return self.values[name]
        if name.startswith("[["):
            norm = parse_boxes(name, where)
            if not norm:
                raise InputError(f"{where}: empty box list {name}")
            im = self.images[self.current]
            return Value("boxes", [from_norm(b, *im.size) for b in norm], self.current)
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise InputError(f"{where}: variable '{name}' is used before it is assigned")
        raise InputError(f"{where}: cannot read argument {arg!r}")

    def _region(self, arg: str, where: str) -> Image.Image:
        value = self._lookup(arg, where)
        if value.kind == "image":
            return self.images[value.image]
        if value.kind == "boxes" and value.data:
            return self.images[value.image].crop(tuple(value.data[0]))
        raise InputError(f"{where}: expected an image or a box, got {value.kind}")

    # -- the manipulations ---------------------------------------------------------------------------------
    def run(self, call: Call, where: str = "step") -> Value:
        handler = getattr(self, "_" + call.name.lower())
        try:
            value = handler(call.args, f"{where}: {call.name}")
        except (ValueError, ArithmeticError, IndexError, KeyError, TypeError) as exc:
            # arguments no check foresaw (a model writes anything): that call's error, never a crash of the run
            raise InputError(f"{where}: {call.name}: cannot run {call.raw or call.name!r} "
                             f"({type(exc).__name__}: {exc})") from exc
        if call.var:
            self.values[call.var] = value
        return value

    def _grounding(self, args: list[str], where: str) -> Value:
        if not args:
            raise InputError(f"{where}: GROUNDING needs a phrase")
        on = self.current
        if len(args) > 1 and self._lookup(args[1], where).kind == "image":
            on = self._lookup(args[1], where).image
        phrase = args[0].strip().strip("`").strip("'\"")
        return Value("boxes", self.grounder(self.images[on], phrase, self.budget), on)

    def _crop_and_zoomin(self, args: list[str], where: str) -> Value:
        if not args:
            raise InputError(f"{where}: CROP_AND_ZOOMIN needs a box")
        boxes = self._lookup(args[0], where)
        if boxes.kind != "boxes":
            raise InputError(f"{where}: CROP_AND_ZOOMIN needs a box, got {boxes.kind}")
        if not boxes.data:
            raise InputError(f"{where}: CROP_AND_ZOOMIN got no box (the grounding found nothing)")
        box = boxes.data[0]
        if len(args) > 1 and args[1].strip().strip("`") == "auto":  # fill the perceiver's budget, x2..x4
            factor = float(min(4, max(2, self.budget // max(1, box[2] - box[0], box[3] - box[1]))))
        elif len(args) > 1:
            try:
                factor = float(args[1].strip().strip("`"))
            except ValueError:
                raise InputError(f"{where}: zoom factor {args[1].strip()!r} is not a number (e.g. 2, or auto)") \
                    from None
        else:
            factor = 2.0
        if not 1 <= factor <= 8:
            raise InputError(f"{where}: zoom factor {factor:g} outside [1, 8]")
        size = (round((box[2] - box[0]) * factor), round((box[3] - box[1]) * factor))
        if size[0] * size[1] > MAX_PIXELS:  # a model that keeps zooming wide boxes grows images without end
            raise InputError(f"{where}: the zoomed image would be {size[0]}x{size[1]} px, over {MAX_PIXELS} px")
        image = crop_and_zoomin(self.images[boxes.image], box, factor)
        name = f"img_{len(self.images)}"
        self.images[name], self.current = image, name
        return Value("image", {"on": boxes.image, "box": box, "x": factor}, name)

    def _ocr(self, args: list[str], where: str) -> Value:
        region = self._region(args[0], where) if args else self.images[self.current]
        mode = "scene" if args and self._lookup(args[0], where).kind == "image" and \
            self._lookup(args[0], where).image == "img_0" else "crop"
        return Value("text", self.reader(region, self.budget, mode))

    def _counting(self, args: list[str], where: str) -> Value:
        if not args:
            raise InputError(f"{where}: COUNTING needs boxes")
        value = self._lookup(args[0], where)
        if value.kind != "boxes":
            raise InputError(f"{where}: COUNTING counts boxes, got {value.kind}")
        return Value("number", float(len(value.data)))

    def _calculate(self, args: list[str], where: str) -> Value:
        expr = ",".join(args)

        def substitute(m: re.Match) -> str:
            name = m.group(1) or m.group(2)
            if name not in self.values:
                return m.group(0)
            value = self.values[name]
            number = value.data if value.kind == "number" else number_in(value.data) if value.kind == "text" else None
            if number is None:
                raise InputError(f"{where}: variable '{name}' holds no number")
            return repr(float(number))

        expr = re.sub(r"`([A-Za-z_][A-Za-z0-9_]*)`|\b([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*\()", substitute, expr)
        return Value("number", calculate(expr, where))

    def _line(self, args: list[str], where: str) -> Value:
        if not args:
            raise InputError(f"{where}: LINE needs points")
        im = self.images[self.current]
        points = parse_points(args[0], where) if args[0].strip().strip("`").startswith("[[") else None
        if points is None:
            value = self._lookup(args[0], where)
            if value.kind != "boxes":
                raise InputError(f"{where}: LINE needs points or boxes, got {value.kind}")
            im = self.images[value.image]
            pixel = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in value.data]
        else:
            pixel = [((x + 0.5) * im.width / 1000, (y + 0.5) * im.height / 1000) for x, y in points]
        if len(pixel) < 2:
            raise InputError(f"{where}: LINE needs at least 2 points")
        image = draw_line(im, pixel)
        name = f"img_{len(self.images)}"
        self.images[name], self.current = image, name
        return Value("image", None, name)


def crop_and_zoomin(image: Image.Image, box: list[int], factor: float) -> Image.Image:
    """Cut `box` (pixels) from the original image and enlarge it `factor` times with bicubic resampling."""
    crop = image.crop(tuple(box))
    size = (max(1, round(crop.width * factor)), max(1, round(crop.height * factor)))
    return crop.resize(size, Image.Resampling.BICUBIC)


def draw_line(image: Image.Image, points: list[tuple[float, float]]) -> Image.Image:
    """A copy of the image with a red polyline through the points (the input is left as it was)."""
    out = image.copy()
    ImageDraw.Draw(out).line(points, fill=(255, 0, 0), width=max(2, image.width // 300))
    return out


def parse_points(text: str, where: str) -> list[tuple[int, int]]:
    """`[[x,y;x,y]]` (0-999) -> points; a group of 4 numbers is read as two points."""
    m = re.search(r"\[\[([0-9,;\s]*)\]\]", text)
    if not m:
        raise InputError(f"{where}: cannot read points {text!r}")
    numbers = [int(v) for part in m.group(1).split(";") for v in part.split(",") if v.strip()]
    if len(numbers) % 2 or any(v < 0 or v > 999 for v in numbers):
        raise InputError(f"{where}: points {text!r} need x,y pairs in [0,999]")
    return list(zip(numbers[::2], numbers[1::2], strict=True))


__all__ = ["Value", "Workspace", "crop_and_zoomin", "draw_line", "parse_points", "check_norm"]
