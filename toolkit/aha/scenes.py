"""The FailGen scenes (task, seed) a model was trained and validated on, and overlap checks.

A FailGen scene is fixed by (task, seed): every mode of a seed replays the same objects and
poses, so a grid of an unseen mode on a training seed still shows images the model has seen.
`reason aha train` records the scenes in the model directory; `aha loop` and `aha eval` count
how many of theirs overlap, and `aha loop` refuses an overlap unless told otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from toolkit.core.errors import InputError

SCENES_FILE = "training_scenes.json"
Scene = tuple[str, int]
_EPISODE = re.compile(r"^(?P<task>.+)-s(?P<seed>\d+)-[^-]+$")


def scene_of(task: str, seed: int | None, episode_id: str = "") -> Scene | None:
    """(task, seed) from a record's fields, else parsed from a FailGen episode id (task-sSEED-mode)."""
    if task and seed is not None:
        return task, int(seed)
    m = _EPISODE.match(episode_id)
    return (m["task"], int(m["seed"])) if m else None


def write_scenes(model_dir: str | Path, train: Iterable[Scene], validation: Iterable[Scene]) -> None:
    data = {"train": sorted({(t, s) for t, s in train}), "validation": sorted({(t, s) for t, s in validation})}
    text = json.dumps({k: [list(x) for x in v] for k, v in data.items()}, separators=(",", ":"))
    (Path(model_dir) / SCENES_FILE).write_text(text + "\n", encoding="utf-8")


def read_scenes(model_dir: str | Path) -> set[Scene] | None:
    """Every scene the model was trained or validated on; None when the directory records none."""
    path = Path(model_dir) / SCENES_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {(str(t), int(s)) for key in ("train", "validation") for t, s in data[key]}
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{path}: corrupted training-scenes file ({type(exc).__name__}: {exc})") from None


def overlap(scenes: Iterable[Scene], seen: set[Scene]) -> list[Scene]:
    """The scenes (sorted, once each) that the model saw in training or validation."""
    return sorted({s for s in scenes if s in seen})


def describe(found: list[Scene], limit: int = 4) -> str:
    shown = ", ".join(f"({t}, {s})" for t, s in found[:limit])
    return shown + (f" and {len(found) - limit} more" if len(found) > limit else "")
