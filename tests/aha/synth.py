"""Small FailGen-like data for tests: grid PNGs + aha.sample records following the record contract.

A block moves one step right per sub-task; in a failed episode the keyframe that ends the
failed sub-task shows the block displaced (so the grid really shows the failure).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw

EXPLAIN = {
    "grasp": "the gripper did not close around the block",
    "slip": "the block slipped out of the gripper",
    "translation_x": "the gripper was misplaced along the x axis",
}
QUESTION = 'Did the robot succeed at the sub-task "{s}"? Answer Yes or No, and explain if No.'
VIEWS = 3


def draw_grid(positions: list[int | None], cell: int = 16) -> Image.Image:
    """Rows = views, columns = keyframes; None = a white (future) cell."""
    img = Image.new("RGB", (cell * len(positions), cell * VIEWS), "white")
    d = ImageDraw.Draw(img)
    for col, pos in enumerate(positions):
        for row in range(VIEWS):
            x0, y0 = col * cell, row * cell
            if pos is None:
                continue
            d.rectangle([x0, y0, x0 + cell - 1, y0 + cell - 1], fill=(90, 90, 90))
            bx = x0 + 2 + pos * (cell // 6)
            by = y0 + cell // 3 + row
            d.rectangle([bx, by, bx + cell // 4, by + cell // 4], fill=(220, 40, 40))
    return img


def make_dataset(root: Path, tasks=("push", "lift"), seeds=range(4), modes=("nominal", *EXPLAIN), n_sub: int = 3,
                 cell: int = 16) -> Path:
    """Write ROOT/samples.jsonl, ROOT/episodes.jsonl and the grids; return the samples path."""
    root.mkdir(parents=True, exist_ok=True)
    samples, episodes = [], []
    for task in tasks:
        for seed in seeds:
            for mode in modes:
                rng = random.Random(f"{task}-{seed}-{mode}")
                eid = f"{task}-s{seed}-{mode}"
                fail = None if mode == "nominal" else rng.randrange(n_sub)
                pos = [k for k in range(n_sub + 1)]
                if fail is not None:
                    for k in range(fail + 1, n_sub + 1):
                        pos[k] = 0 if mode == "grasp" else (5 if mode == "slip" else 4 - (k % 2))
                subtasks = [f"move the block to spot {k + 1}" for k in range(n_sub)]
                (root / eid).mkdir(exist_ok=True)
                last = n_sub - 1 if fail is None else fail
                for i in range(last + 1):
                    shown = [p if k <= i + 1 else None for k, p in enumerate(pos)]
                    rel = f"{eid}/grid_{i}.png"
                    draw_grid(shown, cell).save(root / rel)
                    no = i == fail
                    explanation = EXPLAIN[mode] if no else ""
                    samples.append({"type": "aha.sample", "schema": 1, "sample_id": f"{eid}/{i}", "episode_id": eid,
                                    "task": task, "mode": mode, "seed": seed, "subtask_index": i,
                                    "subtask": subtasks[i], "image": rel, "question": QUESTION.format(s=subtasks[i]),
                                    "answer": f"No, {explanation}" if no else "Yes", "label": "No" if no else "Yes",
                                    "explanation": explanation, "dir": str(root)})
                episodes.append({"type": "failgen.episode", "schema": 1, "episode_id": eid, "task": task,
                                 "seed": seed, "mode": mode, "success": fail is None, "failed_subtask": fail,
                                 "subtasks": subtasks, "dir": str(root)})
    path = root / "samples.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    (root / "episodes.jsonl").write_text("".join(json.dumps(e) + "\n" for e in episodes), encoding="utf-8")
    return path


COLOURS = [(220, 40, 40), (40, 180, 40), (40, 40, 220), (220, 200, 40)]


def make_match_dataset(root: Path, n: int = 64, explanation_words: int = 20, seed: int = 0) -> Path:
    """Grids of two blocks whose sub-task succeeded ("Yes") when both have the same colour.

    Same-or-different is not a linear read-out of pooled random image features, so a probe on
    them stays at chance until the vision tower learns; every answer carries an explanation of
    random words the image does not determine, as a long FailGen explanation is to a model that
    cannot read the grid yet.
    """
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(200)]
    rows = []
    for i in range(n):
        same = i % 2 == 0
        a = rng.randrange(len(COLOURS))
        b = a if same else rng.choice([c for c in range(len(COLOURS)) if c != a])
        img = Image.new("RGB", (32, 32), (90, 90, 90))
        d = ImageDraw.Draw(img)
        d.rectangle([2, 10, 13, 21], fill=COLOURS[a])
        d.rectangle([18, 10, 29, 21], fill=COLOURS[b])
        img.save(root / f"match_{i}.png")
        label = "Yes" if same else "No"
        explanation = " ".join(rng.choice(words) for _ in range(explanation_words))
        rows.append({"type": "aha.sample", "schema": 1, "sample_id": f"match-s{i}/0", "episode_id": f"match-s{i}",
                     "task": "match", "mode": "nominal" if same else "wrong_object", "seed": i, "subtask_index": 0,
                     "subtask": "match the blocks", "image": f"match_{i}.png",
                     "question": QUESTION.format(s="match the blocks"), "answer": f"{label}, {explanation}",
                     "label": label, "explanation": explanation, "dir": str(root)})
    path = root / "samples.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
