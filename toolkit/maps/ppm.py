"""The physical perception model (PPM): circuit image -> grid circuit -> SPICE netlist.

The image is read in two steps, both learned: a small CNN reads the grid size from the whole image,
then a second CNN reads each grid edge from a crop around its midpoint (element kind, polarity,
printed value or symbol-only, meter, control meter of a controlled source). The netlist follows from
the edges by the same deterministic rules that number nets and name elements in the generator.
"""

from __future__ import annotations

import json
from pathlib import Path

from toolkit.maps.circuit import OPEN, WIRE, assign_names, grid_edges, to_netlist
from toolkit.maps.netlist import EMPTY, Netlist
from toolkit.maps.render import SIZE, point_pixels

KINDS = [WIRE, OPEN, "R", "V", "I", "C", "L", "E", "G", "F", "H"]
POLAR = {"V", "I", "E", "G", "F", "H"}
METERS = ["none", "U", "I"]
CTRLS = ["none", "U1", "U2", "U3", "U4", "I1", "I2", "I3", "I4"]
SIDES = [2, 3, 4, 5, 6]
CROP = 48
HIDDEN = 192
GRID_INPUT = 64


VALUE_CHARS = "_0123456789.kmu#"  # '_' pads, '#' stands for a symbol-only (<Empty>) value
VALUE_LEN = 5


def encode_value(value: str) -> list[int]:
    text = "#" if value == EMPTY else value
    if len(text) > VALUE_LEN or any(ch not in VALUE_CHARS for ch in text):
        raise ValueError(f"value {value!r} cannot be encoded")
    return [VALUE_CHARS.index(ch) for ch in text.ljust(VALUE_LEN, "_")]


def decode_value(ids: list[int]) -> str:
    text = "".join(VALUE_CHARS[i] for i in ids).replace("_", "")
    return EMPTY if "#" in text or not text else text


def _torch():
    import torch
    from torch import nn

    return torch, nn


def build_model():
    torch, nn = _torch()

    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2))

    class PPM(nn.Module):
        def __init__(self):
            super().__init__()
            self.edge = nn.Sequential(block(1, 16), block(16, 32), block(32, 48), block(48, 64), nn.Flatten(),
                                      nn.Linear(64 * 9, HIDDEN), nn.ReLU())
            self.orient = nn.Embedding(2, HIDDEN)
            self.kind = nn.Linear(HIDDEN, len(KINDS))
            self.flip = nn.Linear(HIDDEN, 2)
            self.value = nn.Linear(HIDDEN, VALUE_LEN * len(VALUE_CHARS))
            self.meter = nn.Linear(HIDDEN, len(METERS))
            self.ctrl = nn.Linear(HIDDEN, len(CTRLS))
            self.grid = nn.Sequential(block(1, 8), block(8, 16), block(16, 32), block(32, 32),
                                      nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(32 * 4, 2 * len(SIDES)))

        def edges(self, crops, vertical):
            h = self.edge(crops) + self.orient(vertical)
            return {"kind": self.kind(h), "flip": self.flip(h), "value": self.value(h).view(-1, VALUE_LEN, len(VALUE_CHARS)), "meter": self.meter(h),
                    "ctrl": self.ctrl(h)}

        def sides(self, small):
            return self.grid(small).view(-1, 2, len(SIDES))

    return PPM()


# ---- image preprocessing ------------------------------------------------------------------------------

def load_gray(path: Path):
    """A SIZE x SIZE grayscale image as a float array in [0, 1] (1 = ink)."""
    import numpy as np
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(path).convert("L")
    except (OSError, UnidentifiedImageError) as exc:
        raise ValueError(f"cannot read image ({type(exc).__name__})") from None
    if image.size != (SIZE, SIZE):
        image = image.resize((SIZE, SIZE))
    return 1.0 - np.asarray(image, dtype=np.float32) / 255.0


def grid_input(gray):
    from PIL import Image
    import numpy as np

    small = Image.fromarray((gray * 255).astype("uint8")).resize((GRID_INPUT, GRID_INPUT), Image.BILINEAR)
    return np.asarray(small, dtype=np.float32) / 255.0


def edge_crops(gray, rows: int, cols: int):
    """(crops [E, CROP, CROP], vertical flags [E]) for the grid's edges in grid order."""
    import numpy as np
    from PIL import Image

    pix = point_pixels(rows, cols)
    img = Image.fromarray((gray * 255).astype("uint8"))
    crops, vertical = [], []
    for a, b in grid_edges(rows, cols):
        (x1, y1), (x2, y2) = pix[a], pix[b]
        cell = max(abs(x2 - x1), abs(y2 - y1))
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        half = cell / 2
        box = (int(round(mx - half)), int(round(my - half)), int(round(mx + half)), int(round(my + half)))
        crops.append(np.asarray(img.crop(box).resize((CROP, CROP), Image.BILINEAR), dtype=np.float32) / 255.0)
        vertical.append(int(a[1] == b[1]))
    return np.stack(crops), np.array(vertical)


def edge_targets(circuit: dict) -> list[tuple]:
    """Per edge: (kind, flip, value chars, meter, ctrl) ids; -100 where a head has nothing to learn."""
    out = []
    for e in circuit["components"] if "components" in circuit else circuit["edges"]:
        kind = e["kind"]
        element = kind not in (WIRE, OPEN)
        value = (EMPTY if not e.get("shown", True) else e["value"]) if element else None
        meter = (e.get("meter") or "none")[0] if e.get("meter") else "none"
        out.append((KINDS.index(kind), int(bool(e.get("flip"))) if kind in POLAR else -100,
                    encode_value(value) if element else [-100] * VALUE_LEN, METERS.index(meter),
                    CTRLS.index(e["ctrl"]) if e.get("ctrl") in CTRLS else -100))
    return out


# ---- save / load ------------------------------------------------------------------------------------

def save_model(model, out: Path, meta: dict) -> None:
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(out / "model.safetensors"))
    (out / "config.json").write_text(json.dumps({"format": "maps-ppm", "value_chars": VALUE_CHARS, "kinds": KINDS,
                                                 "crop": CROP, "grid_input": GRID_INPUT, **meta}, indent=1) + "\n")


def load_model(path: Path):
    """The model; a missing or corrupt directory raises ValueError naming the file."""
    from safetensors.torch import load_file

    config = path / "config.json"
    weights = path / "model.safetensors"
    if not config.is_file():
        raise ValueError(f"{config}: missing (not a maps PPM directory)")
    try:
        cfg = json.loads(config.read_text())
        if cfg["format"] != "maps-ppm" or cfg["value_chars"] != VALUE_CHARS:
            raise KeyError("format")
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"{config}: not a PPM config ({type(exc).__name__})") from None
    if not weights.is_file():
        raise ValueError(f"{weights}: missing")
    try:
        state = load_file(str(weights))
    except Exception as exc:  # safetensors raises its own error types for truncated files
        raise ValueError(f"{weights}: corrupt weights ({' '.join(str(exc).split())[:80]})") from None
    model = build_model()
    try:
        model.load_state_dict(state)
    except RuntimeError:
        raise ValueError(f"{weights}: weights do not match the config") from None
    model.eval()
    return model


# ---- inference ----------------------------------------------------------------------------------------

def read_circuit(model, gray) -> dict:
    """The grid circuit the model reads from one image."""
    torch, _ = _torch()
    with torch.no_grad():
        sides = model.sides(torch.from_numpy(grid_input(gray))[None, None]).argmax(-1)[0]
        rows, cols = SIDES[int(sides[0])], SIDES[int(sides[1])]
        crops, vertical = edge_crops(gray, rows, cols)
        heads = model.edges(torch.from_numpy(crops)[:, None], torch.from_numpy(vertical))
        picks = {k: v.argmax(-1).tolist() for k, v in heads.items()}
    edges = []
    for i, (a, b) in enumerate(grid_edges(rows, cols)):
        kind = KINDS[picks["kind"][i]]
        meter = METERS[picks["meter"][i]]
        edge = {"a": list(a), "b": list(b), "kind": kind, "flip": bool(picks["flip"][i]),
                "meter": None if meter == "none" else meter}
        if kind not in (WIRE, OPEN):
            value = decode_value(picks["value"][i])
            edge["shown"] = value != EMPTY
            edge["value"] = value
            edge["ctrl"] = CTRLS[picks["ctrl"][i]]
        edges.append(edge)
    assign_names(edges)
    _fix_controls(edges)
    return {"rows": rows, "cols": cols, "ground": [rows - 1, 0], "edges": edges}


def _fix_controls(edges: list[dict]) -> None:
    """A controlled source must name an existing meter of its kind: keep the read one if it exists,
    else take the first such meter; with none, the source cannot be expressed and becomes an open."""
    meters = [e["meter"] for e in edges if e.get("meter")]
    dropped = False
    for e in edges:
        if e["kind"] not in ("E", "G", "F", "H"):
            e.pop("ctrl", None)
            continue
        letter = "U" if e["kind"] in ("E", "G") else "I"
        if e.get("ctrl") not in meters or not e["ctrl"].startswith(letter):
            options = [m for m in meters if m.startswith(letter)]
            if options:
                e["ctrl"] = options[0]
                continue
            e["kind"], dropped = OPEN, True
            for key in ("ctrl", "value", "shown", "name"):
                e.pop(key, None)
    if dropped:  # element names follow grid order, so they shift; meter names stay
        for e in edges:
            e.pop("name", None)
            e["meter"] = e["meter"][0] if e.get("meter") else None
        assign_names(edges)


def perceive_netlist(model, image: Path) -> Netlist:
    return to_netlist(read_circuit(model, load_gray(image)), hide_values=True)
