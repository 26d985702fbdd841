"""Training of the PPM on generated circuits: the grid reader on whole images, the edge reader on crops."""

from __future__ import annotations

import json
import time
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import read_records
from toolkit.maps.ppm import SIDES, VALUE_LEN, build_model, edge_crops, edge_targets, grid_input, load_gray


def load_examples(dirs: list[Path], limit: int | None = None):
    """Arrays from circuits.jsonl + images of each generated folder."""
    import numpy as np

    crops, vertical, targets, grids, sides = [], [], [], [], []
    for folder in dirs:
        path = folder / "circuits.jsonl"
        if not path.is_file():
            raise InputError(f"{path}: no such file (expected a folder written by `reason maps generate`)")
        for lineno, rec in enumerate(read_records(path, types=["maps.circuit"]), start=1):
            if limit and len(grids) >= limit:
                break
            try:
                gray = load_gray(folder / rec["image"])
            except ValueError as exc:
                raise InputError(f"{path}:{lineno}: field 'image': {exc}") from None
            rows, cols = rec["layout"]["rows"], rec["layout"]["cols"]
            c, v = edge_crops(gray, rows, cols)
            crops.append((c * 255).astype("uint8"))
            vertical.append(v)
            targets.extend(edge_targets(rec))
            grids.append((grid_input(gray) * 255).astype("uint8"))
            sides.append((SIDES.index(rows), SIDES.index(cols)))
    if not grids:
        raise InputError("no training circuits found")
    kind, flip, value, meter, ctrl = zip(*targets, strict=True)
    return {"crops": np.concatenate(crops), "vertical": np.concatenate(vertical), "kind": np.array(kind),
            "flip": np.array(flip), "value": np.array(value).reshape(-1, VALUE_LEN), "meter": np.array(meter),
            "ctrl": np.array(ctrl), "grids": np.stack(grids), "sides": np.array(sides)}


def train(data: dict, out: Path, *, steps: int = 3000, minutes: float = 25.0, batch: int = 32, lr: float = 2e-3,
          seed: int = 0, log=None) -> dict:
    """Train from `load_examples` arrays; saves to `out`; returns {'losses': [...], 'steps': n, 'seconds': s}."""
    import numpy as np
    import torch
    from torch.nn import functional as F

    from toolkit.maps.ppm import save_model

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.05)
    n_edges, n_grids = len(data["kind"]), len(data["sides"])
    tensors = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in data.items()}
    start, losses = time.time(), []
    model.train()
    step = 0
    for step in range(1, steps + 1):
        idx = torch.from_numpy(rng.integers(0, n_edges, size=batch))
        crops = tensors["crops"][idx].float()[:, None] / 255.0
        shift = rng.integers(-2, 3, size=2)  # small misalignment, as a noisy render has
        crops = torch.roll(crops, shifts=(int(shift[0]), int(shift[1])), dims=(2, 3))
        heads = model.edges(crops, tensors["vertical"][idx])
        loss = (F.cross_entropy(heads["kind"], tensors["kind"][idx])
                + F.cross_entropy(heads["flip"], tensors["flip"][idx], ignore_index=-100)
                + F.cross_entropy(heads["value"].reshape(-1, heads["value"].shape[-1]),
                                  tensors["value"][idx].reshape(-1), ignore_index=-100)
                + F.cross_entropy(heads["meter"], tensors["meter"][idx])
                + _masked_ce(heads["ctrl"], tensors["ctrl"][idx]))
        gidx = torch.from_numpy(rng.integers(0, n_grids, size=min(16, n_grids)))
        sides = model.sides(tensors["grids"][gidx].float()[:, None] / 255.0)
        loss = loss + F.cross_entropy(sides.reshape(-1, len(SIDES)), tensors["sides"][gidx].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        if log and step % 50 == 0:
            log(f"step {step} loss {np.mean(losses[-50:]):.4f} ({time.time() - start:.0f}s)")
        if time.time() - start > minutes * 60:
            break
    model.eval()
    meta = {"steps": step, "seconds": round(time.time() - start, 1), "edges": n_edges, "circuits": n_grids,
            "batch": batch, "lr": lr, "seed": seed, "final_loss": float(np.mean(losses[-50:]))}
    save_model(model, out, meta)
    (out / "losses.json").write_text(json.dumps([round(x, 5) for x in losses]) + "\n")
    return {"losses": losses, **meta}


def _masked_ce(logits, target):
    from torch.nn import functional as F

    if bool((target != -100).any()):
        return F.cross_entropy(logits, target, ignore_index=-100)
    return logits.sum() * 0.0
