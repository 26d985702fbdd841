"""The exemplar reader, an alternative perception model (`--model assets/maps/ppm-exemplar`): circuit image ->
grid circuit -> SPICE netlist.

An exemplar reader fitted on generated circuits: the grid size is the label of the nearest training
thumbnail; each grid edge's kind, polarity and meter are those of the nearest training crop around an
edge midpoint (downsampled); its printed value (and the control meter of a controlled source) is that
of the nearest training value line (see value_line.py) drawn at the same scale. The netlist follows
from the edges by the rules that number nets and name elements in the generator.

Each read carries a confidence: for each element's value line, the margin 1 - d1/d2 between the distance d1
to the nearest exemplar and d2 to the nearest exemplar with another label (0: a tie, 1: nothing else near);
the circuit's confidence is the smallest of them, and 0 when the read edges had to be repaired (a controlled
source naming no meter of its kind) or the read circuit breaks the generator's structural rules
(`generate.valid`), which every real circuit of the kind obeys. Values are where this reader fails (a quarter
of them wrong, against 1-3 % of kinds, meters and polarities), and on validation circuits the smallest
margin over all decisions (size, shapes, polarities too) separated right reads from wrong ones less well.
"""

from __future__ import annotations

import json
from pathlib import Path

from toolkit.maps.circuit import OPEN, WIRE, assign_names, grid_edges, to_netlist
from toolkit.maps.netlist import EMPTY, Netlist
from toolkit.maps.render import SIZE, point_pixels
from toolkit.maps.value_line import label_box, value_image

POLAR = {"V", "I", "E", "G", "F", "H"}
SIDES = [2, 3, 4, 5, 6]
CROP = 48
SHAPE = 24
THUMB = 32
FORMAT = "maps-ppm-exemplar-3"


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


def thumbnail(gray, size: int):
    import numpy as np
    from PIL import Image

    small = Image.fromarray((gray * 255).astype("uint8")).resize((size, size), Image.BILINEAR)
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


def shape_features(crops):
    """Downsampled crops (kind, polarity and meter are large shapes)."""
    import numpy as np

    n = len(crops)
    k = CROP // SHAPE
    return crops.reshape(n, SHAPE, k, SHAPE, k).mean(axis=(2, 4)).reshape(n, -1).astype(np.float32)


def body(crop, vertical: int):
    """The band of a crop that holds the element's body (its polarity marks), without the labels beside it."""
    band = crop[:, 14:34].T if vertical else crop[14:34, :]
    return band.reshape(-1).astype("float32")


def edge_labels(circuit: dict) -> list[dict]:
    out = []
    for e in circuit.get("components") or circuit["edges"]:
        kind = e["kind"]
        element = kind not in (WIRE, OPEN)
        out.append({"kind": kind, "flip": bool(e.get("flip")) and kind in POLAR,
                    "meter": (e.get("meter") or " ")[0].strip(),
                    "value": (e["value"] if e.get("shown", True) else EMPTY) if element else "",
                    "ctrl": e.get("ctrl") or ""})
    return out


def _nearest_margin(query, bank, bank_sq, labels) -> tuple[int, float]:
    """(index of the nearest row of bank, margin 1 - d1/d2 against the nearest row with another label)."""
    import numpy as np

    d = np.maximum(bank_sq - 2.0 * bank @ query + float(query @ query), 0.0)
    best = int(np.argmin(d))
    other = labels != labels[best]
    if not other.any():
        return best, 1.0
    d1, d2 = float(np.sqrt(d[best])), float(np.sqrt(d[other].min()))
    return best, (1.0 - d1 / d2) if d2 > 0 else 0.0


class ExemplarPPM:
    """Arrays of training exemplars and their labels; `read` labels a new image by nearest neighbours."""

    def __init__(self, arrays: dict):
        self.a = arrays

    @classmethod
    def fit(cls, items: list[tuple]) -> ExemplarPPM:
        """items: (gray image, circuit record) pairs."""
        import numpy as np

        thumbs, sides, shapes, texts, keys, labels, polar_keys, edge_ends = [], [], [], [], [], [], [], []
        for gray, rec in items:
            rows, cols = rec["layout"]["rows"], rec["layout"]["cols"]
            thumbs.append(thumbnail(gray, THUMB).reshape(-1))
            sides.append((rows, cols))
            crops, vertical = edge_crops(gray, rows, cols)
            span = max(rows, cols)
            for crop, (a, b), lab in zip(crops, grid_edges(rows, cols), edge_labels(rec), strict=True):
                shapes.append(crop)
                labels.append(lab)
                keys.append(str(span))
                edge_ends.append((a, b))
                polar_keys.append(f"{lab['kind']}|{int(a[0] != b[0])}|{span}|{lab['meter']}")
                box = label_box(rows, cols, a, b, lab["kind"], lab["meter"] == "I")
                texts.append(value_image(gray, box).reshape(-1))
        shape_feats = shape_features(np.stack(shapes))
        element = np.array([lab["kind"] not in (WIRE, OPEN) for lab in labels])
        polar = np.array([lab["kind"] in POLAR for lab in labels])
        crops_all = np.stack(shapes)
        arrays = {
            "thumbs": (np.stack(thumbs) * 255).astype(np.uint8), "sides": np.array(sides, dtype=np.int8),
            "shapes": (shape_feats * 255).astype(np.uint8),
            "shape_labels": np.array([f"{lab['kind']}|{int(lab['flip'])}|{lab['meter']}" for lab in labels]),
            "texts": (np.stack(texts)[element] * 255).astype(np.uint8),
            "text_keys": np.array(keys)[element],
            "text_labels": np.array([f"{lab['value']}|{lab['ctrl']}" for lab in labels])[element],
            "polar_crops": (np.stack([body(c, int(a[0] != b[0])) for c, (a, b) in zip(crops_all[polar],
                                      np.array(edge_ends, dtype=object)[polar], strict=True)]) * 255).astype(np.uint8),
            "polar_keys": np.array(polar_keys)[polar],
            "polar_flips": np.array([int(lab["flip"]) for lab in labels])[polar].astype(np.int8),
        }
        return cls(arrays)

    def _f(self, name):
        cache = self.__dict__.setdefault("_cache", {})
        if name not in cache:
            x = self.a[name].astype("float32") / 255.0
            cache[name] = (x, (x * x).sum(1))
        return cache[name]

    def read(self, gray) -> dict:
        """The grid circuit read from one image."""
        return self.read_with_confidence(gray)[0]

    def read_with_confidence(self, gray) -> tuple[dict, float]:
        """The grid circuit read from one image and its confidence (module doc)."""
        thumbs, tsq = self._f("thumbs")
        pick, _ = _nearest_margin(thumbnail(gray, THUMB).reshape(-1), thumbs, tsq, self._side_labels())
        margins = []  # of the value lines
        rows, cols = (int(x) for x in self.a["sides"][pick])
        crops, vertical = edge_crops(gray, rows, cols)
        shapes, ssq = self._f("shapes")
        feats = shape_features(crops)
        texts, xsq = self._f("texts")
        span = max(rows, cols)
        edges = []
        for i, (a, b) in enumerate(grid_edges(rows, cols)):
            pick, _ = _nearest_margin(feats[i], shapes, ssq, self.a["shape_labels"])
            kind, flip, meter = str(self.a["shape_labels"][pick]).split("|")
            if kind in POLAR:  # polarity marks are small: decide them at full resolution among the same kind
                flip, _ = self._polarity(crops[i], f"{kind}|{int(vertical[i])}|{span}|{meter}", flip)
            edge = {"a": list(a), "b": list(b), "kind": kind, "flip": flip == "1", "meter": meter or None}
            if kind not in (WIRE, OPEN):
                line = value_image(gray, label_box(rows, cols, a, b, kind, meter == "I")).reshape(-1)
                value, ctrl, margin = self._text(line, str(span), texts, xsq)
                margins.append(margin)
                edge.update(value=value, shown=value != EMPTY, ctrl=ctrl or None)
            edges.append(edge)
        assign_names(edges)
        repaired = _fix_controls(edges)
        circuit = {"rows": rows, "cols": cols, "ground": [rows - 1, 0], "edges": edges}
        # a read that breaks the rules every drawn circuit obeys (e.g. a blank page read as all opens) is not sure
        from toolkit.maps.generate import valid

        if repaired or not valid(circuit):
            return circuit, 0.0
        return circuit, max(0.0, min(margins, default=1.0))

    def _side_labels(self):
        cache = self.__dict__.setdefault("_cache", {})
        if "side_labels" not in cache:
            cache["side_labels"] = self.a["sides"][:, 0].astype(int) * 10 + self.a["sides"][:, 1].astype(int)
        return cache["side_labels"]

    def _polarity(self, crop, key, fallback: str) -> tuple[str, float]:
        import numpy as np

        idx = np.flatnonzero(self.a["polar_keys"] == key)
        if not len(idx):
            return fallback, 0.0  # no exemplar of this kind and size: a guess
        crops, csq = self._f("polar_crops")
        pick, margin = _nearest_margin(body(crop, int(key.split("|")[1])), crops[idx], csq[idx],
                                       self.a["polar_flips"][idx])
        return str(int(self.a["polar_flips"][idx[pick]])), margin

    def _text(self, feat, key, texts, xsq):
        import numpy as np

        mask = self.a["text_keys"] == key
        if not mask.any():
            mask = np.ones(len(self.a["text_keys"]), dtype=bool)
        idx = np.flatnonzero(mask)
        pick, margin = _nearest_margin(feat, texts[idx], xsq[idx], self.a["text_labels"][idx])
        value, ctrl = str(self.a["text_labels"][idx[pick]]).split("|")
        return value, ctrl, margin

    def save(self, out: Path, meta: dict) -> None:
        import numpy as np

        out.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(out / "exemplars.npz", **self.a)
        (out / "config.json").write_text(json.dumps({"format": FORMAT, "crop": CROP, "shape": SHAPE,
                                                     "thumb": THUMB, **meta}, indent=1) + "\n")


def load_model(path: Path) -> ExemplarPPM:
    """The reader in `path`; a missing or corrupt directory raises ValueError naming the file."""
    import zipfile

    import numpy as np

    config, data = path / "config.json", path / "exemplars.npz"
    if not config.is_file():
        raise ValueError(f"{config}: missing (not a maps PPM directory)")
    try:
        cfg = json.loads(config.read_text())
        if cfg.get("format") != FORMAT or cfg.get("crop") != CROP:
            raise KeyError("format")
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
        raise ValueError(f"{config}: not a {FORMAT} config") from None
    if not data.is_file():
        raise ValueError(f"{data}: missing")
    try:
        with np.load(data) as z:
            arrays = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise ValueError(f"{data}: corrupt ({type(exc).__name__})") from None
    needed = {"thumbs", "sides", "shapes", "shape_labels", "texts", "text_keys", "text_labels", "polar_crops",
              "polar_keys", "polar_flips"}
    if not needed <= set(arrays):
        raise ValueError(f"{data}: missing arrays {sorted(needed - set(arrays))}")
    return ExemplarPPM(arrays)


def _fix_controls(edges: list[dict]) -> bool:
    """A controlled source must name an existing meter of its kind: keep the read one if it exists,
    else take the first such meter; with none, the source cannot be expressed and becomes an open.
    Returns whether anything was repaired."""
    meters = [e["meter"] for e in edges if e.get("meter")]
    dropped = repaired = False
    for e in edges:
        if e["kind"] not in ("E", "G", "F", "H"):
            e.pop("ctrl", None)
            continue
        letter = "U" if e["kind"] in ("E", "G") else "I"
        if e.get("ctrl") not in meters or not e["ctrl"].startswith(letter):
            options = [m for m in meters if m.startswith(letter)]
            repaired = True
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
    return repaired


def perceive_netlist(model: ExemplarPPM, image: Path) -> Netlist:
    return to_netlist(model.read(load_gray(image)), hide_values=True)
