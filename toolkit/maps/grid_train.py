"""Training the grid reader (`reason maps train --kind grid`) on folders written by `reason maps generate`.

Every circuit gives one training crop per grid edge and one value line per element, cut at the grid the
record gives (the reader finds it from the image at read time). The last circuits of the data (1 in 25)
are held out for the learning curve. Training runs in chunks: each call stops at `--minutes` or the step
total and leaves a checkpoint (weights, optimiser, step, curve) that `--resume` continues from, so the
learning-rate schedule (cosine over the step total) is the same however the run is cut.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.models import load_torch_state
from toolkit.core.records import read_records
from toolkit.maps.circuit import OPEN, WIRE, grid_edges
from toolkit.maps.grid_reader import METERS, build_nets, ctc_greedy, edge_crops, printed_line, save_reader, value_line
from toolkit.maps.grid_text import KINDS, POLAR
from toolkit.maps.ppm import load_gray

HOLD_OUT = 25  # every 25th circuit is a held-out one
CHECKPOINT = "checkpoint.pt"


def encode(dirs: list[Path], limit: int | None = None, log: Callable[[str], None] = lambda _m: None) -> dict:
    """The training arrays of every circuit in `dirs` (crops, their labels, value lines and their texts)."""
    import numpy as np

    crops, kinds, flips, meters, edge_circ = [], [], [], [], []
    lines, texts, line_circ = [], [], []
    n = 0
    for folder in dirs:
        path = folder / "circuits.jsonl"
        if not path.is_file():
            raise InputError(f"{path}: no such file (expected a folder written by `reason maps generate`)")
        for lineno, rec in enumerate(read_records(path, types=["maps.circuit"]), start=1):
            if limit and n >= limit:
                break
            try:
                gray = load_gray(folder / rec["image"])
            except (ValueError, FileNotFoundError) as exc:
                raise InputError(f"{path}:{lineno}: field 'image': {exc}") from None
            rows, cols = rec["layout"]["rows"], rec["layout"]["cols"]
            comps = rec["components"]
            if len(comps) != len(grid_edges(rows, cols)):
                raise InputError(f"{path}:{lineno}: field 'components': {len(comps)} edges for a {rows}x{cols} grid")
            crops.append((edge_crops(gray, rows, cols) * 255).astype(np.uint8))
            for (a, b), e in zip(grid_edges(rows, cols), comps, strict=True):
                kinds.append(KINDS.index(e["kind"]))
                flips.append(int(bool(e.get("flip")) and e["kind"] in POLAR) if e["kind"] in POLAR else -1)
                meters.append(METERS.index((e.get("meter") or "")[:1]))
                edge_circ.append(n)
                if e["kind"] not in (WIRE, OPEN):
                    line = value_line(gray, rows, cols, a, b, e["kind"], (e.get("meter") or "").startswith("I"))
                    lines.append((line * 255).astype(np.uint8))
                    texts.append(printed_line(e))
                    line_circ.append(n)
            n += 1
            if n % 500 == 0:
                log(f"encoded {n} circuits")
    if not n:
        raise InputError("no training circuits found")
    chars = "".join(sorted(set("".join(texts))))
    return {"crops": np.concatenate(crops), "kinds": np.array(kinds, np.int64), "flips": np.array(flips, np.int64),
            "meters": np.array(meters, np.int64), "edge_circ": np.array(edge_circ), "lines": np.stack(lines),
            "texts": np.array(texts), "line_circ": np.array(line_circ), "chars": np.array(chars),
            "circuits": np.array(n)}


def cached(dirs: list[Path], cache: Path | None, limit: int | None, log) -> dict:
    import numpy as np

    if cache and cache.is_file():
        with np.load(cache) as z:
            return {k: z[k] for k in z.files}
    arrays = encode(dirs, limit, log)
    if cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, **arrays)
    return arrays


def _targets(texts, chars: str):
    import torch

    index = {c: i + 1 for i, c in enumerate(chars)}
    flat = [index[c] for t in texts for c in t if c in index]
    lengths = [sum(c in index for c in t) for t in texts]
    return torch.tensor(flat, dtype=torch.long), torch.tensor(lengths, dtype=torch.long)


def evaluate(edge_net, line_net, arrays: dict, edge_idx, line_idx, chars: str) -> dict:
    """Held-out accuracies: edges with kind, polarity and meter all right; value lines read exactly."""
    import numpy as np
    import torch

    edge_net.eval(), line_net.eval()
    right = 0
    with torch.no_grad():
        for start in range(0, len(edge_idx), 256):
            idx = edge_idx[start:start + 256]
            k, f, m = edge_net(torch.from_numpy(arrays["crops"][idx].astype(np.float32) / 255.0))
            ok = (k.argmax(-1).numpy() == arrays["kinds"][idx]) & (m.argmax(-1).numpy() == arrays["meters"][idx])
            flips = arrays["flips"][idx]
            ok &= (flips < 0) | (f.argmax(-1).numpy() == flips)
            right += int(ok.sum())
        read = 0
        for start in range(0, len(line_idx), 256):
            idx = line_idx[start:start + 256]
            out = ctc_greedy(line_net(torch.from_numpy(arrays["lines"][idx].astype(np.float32) / 255.0)), chars)
            read += sum(text == gold for (text, _), gold in zip(out, arrays["texts"][idx], strict=True))
    edge_net.train(), line_net.train()
    return {"edge_acc": round(right / max(1, len(edge_idx)), 4), "line_acc": round(read / max(1, len(line_idx)), 4)}


def train(arrays: dict, out: Path, *, steps: int, minutes: float, resume: bool, lr: float = 2e-3,
          batch: int = 64, seed: int = 0, eval_every: int = 250, log=lambda _m: None) -> dict:
    """Train (or continue) the grid reader into `out`; returns the summary of this chunk."""
    import math

    import numpy as np
    import torch
    from torch import nn

    torch.manual_seed(seed)
    chars = str(arrays["chars"])
    held = lambda circ: circ % HOLD_OUT == HOLD_OUT - 1  # noqa: E731
    edge_train = np.flatnonzero(~held(arrays["edge_circ"]))
    edge_val = np.flatnonzero(held(arrays["edge_circ"]))
    line_train = np.flatnonzero(~held(arrays["line_circ"]))
    line_val = np.flatnonzero(held(arrays["line_circ"]))
    edge_net, line_net = build_nets(len(chars))
    params = [*edge_net.parameters(), *line_net.parameters()]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=1e-4)
    step, history, seconds = 0, [], 0.0
    ckpt = out / CHECKPOINT
    if resume:
        if not ckpt.is_file():
            raise InputError(f"--resume: {ckpt}: no checkpoint to continue from")
        state = load_torch_state(ckpt)
        if state["chars"] != chars or state["steps"] != steps:
            raise InputError(f"--resume: {ckpt}: made for other data or another --steps ({state['steps']})")
        edge_net.load_state_dict(state["edge"]), line_net.load_state_dict(state["line"])
        opt.load_state_dict(state["opt"])
        step, history, seconds = state["step"], state["history"], state["seconds"]
    rng = np.random.default_rng(seed + step)
    ce, ctc = nn.CrossEntropyLoss(), nn.CTCLoss(blank=0, zero_infinity=True)
    start, recent = time.time(), []
    edge_net.train(), line_net.train()
    while step < steps and time.time() - start < minutes * 60:
        for group in opt.param_groups:  # cosine from lr to 5 % of it over the step total
            group["lr"] = lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * step / steps)))
        ei = rng.choice(edge_train, batch)
        x = torch.from_numpy(arrays["crops"][ei].astype(np.float32) / 255.0)
        k, f, m = edge_net(x)
        kinds, flips = torch.from_numpy(arrays["kinds"][ei]), torch.from_numpy(arrays["flips"][ei])
        loss_edge = ce(k, kinds) + ce(m, torch.from_numpy(arrays["meters"][ei]))
        polar = flips >= 0
        if polar.any():
            loss_edge = loss_edge + ce(f[polar], flips[polar])
        li = rng.choice(line_train, batch)
        logp = line_net(torch.from_numpy(arrays["lines"][li].astype(np.float32) / 255.0))
        targets, lengths = _targets(arrays["texts"][li], chars)
        frames = torch.full((batch,), logp.shape[1], dtype=torch.long)
        loss_line = ctc(logp.transpose(0, 1), targets, frames, lengths)
        loss = loss_edge + loss_line
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, 5.0)
        opt.step()
        step += 1
        recent.append((float(loss_edge.detach()), float(loss_line.detach())))
        if step % eval_every == 0 or step == steps:
            entry = {"step": step, "seconds": round(seconds + time.time() - start, 1),
                     "loss_edge": round(sum(r[0] for r in recent) / len(recent), 4),
                     "loss_line": round(sum(r[1] for r in recent) / len(recent), 4),
                     **evaluate(edge_net, line_net, arrays, edge_val, line_val, chars)}
            recent = []
            history.append(entry)
            log(json.dumps(entry))
    seconds += time.time() - start
    out.mkdir(parents=True, exist_ok=True)
    torch.save({"edge": edge_net.state_dict(), "line": line_net.state_dict(), "opt": opt.state_dict(),
                "step": step, "steps": steps, "history": history, "seconds": seconds, "chars": chars}, ckpt)
    meta = {"circuits": int(arrays["circuits"]), "edges": int(len(arrays["kinds"])), "lines": int(len(arrays["texts"])),
            "step": step, "steps": steps, "seconds": round(seconds, 1), "lr": lr, "batch": batch,
            "held_out": f"every {HOLD_OUT}th circuit", "done": step >= steps,
            **(history[-1] if history else {})}
    save_reader(edge_net, line_net, chars, out, meta)
    (out / "loss.jsonl").write_text("".join(json.dumps(h) + "\n" for h in history))
    return meta
