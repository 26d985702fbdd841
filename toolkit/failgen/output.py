"""Turn an episode into files (keyframe images, grids, optional GIF) and records (contract schema 1)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from toolkit.core.records import make_record
from toolkit.failgen import prompts
from toolkit.failgen.episode import Episode
from toolkit.failgen.modes import NOMINAL
from toolkit.failgen.world import VIEWS

PLACE_SKILLS = {"place_on", "place_at", "turn", "lower"}


def save_png(array_or_image, path: Path) -> None:
    img = array_or_image if isinstance(array_or_image, Image.Image) else Image.fromarray(array_or_image)
    img.save(path, format="PNG", optimize=False, compress_level=1)


def save_gif(frames: list[np.ndarray], path: Path, ms: int = 400) -> None:
    images = [Image.fromarray(f).convert("P", palette=Image.Palette.ADAPTIVE, colors=128) for f in frames]
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:], duration=ms, loop=0)


def _explain(ep: Episode) -> str:
    pert = ep.perturbation
    scene = ep.env.scene
    st = scene.subtasks[pert.subtask]
    words = scene.words
    target = words.get(st.target) if st.skill in PLACE_SKILLS and st.target else None
    other = words.get(pert.other) if pert.other else None
    return prompts.explanation(pert.mode, words.get(st.obj, st.obj), other, target, st.skill)


def episode_records(ep: Episode, out_dir: Path, dir_field: str, *, images: bool = True,
                    gif: bool = False) -> tuple[dict, list[dict]]:
    """Write the episode's files under out_dir/<episode_id>/ and return (episode record, sample records)."""
    eid = ep.episode_id
    env = ep.env
    folder = out_dir / eid
    rel = Path(eid)
    frames: list[str] = []
    if images:
        folder.mkdir(parents=True, exist_ok=True)
        for c, col in enumerate(env.columns):
            for view in VIEWS:
                name = f"kf{c:02d}_{view}.png"
                save_png(col.images[view], folder / name)
                frames.append((rel / name).as_posix())
        if gif:
            frames_gif = env.video or [col.images["front"] for col in env.columns]
            save_gif(frames_gif, folder / "front.gif", ms=100 if env.video else 400)
    last = len(ep.results) - 1 if ep.mode == NOMINAL else ep.failed_subtask
    samples = []
    explanation = "" if ep.mode == NOMINAL else _explain(ep)
    for s in range(last + 1):
        run = ep.results[s]
        label = "No" if (ep.mode != NOMINAL and s == ep.failed_subtask) else "Yes"
        expl = explanation if label == "No" else ""
        image = ""
        if images:
            name = f"grid_{s}.png"
            save_png(env.grid(s), folder / name)
            image = (rel / name).as_posix()
        samples.append(make_record(
            "aha.sample", 1, sample_id=f"{eid}/{s}", episode_id=eid, task=ep.task, mode=ep.mode, seed=ep.seed,
            subtask_index=s, subtask=run.description, image=image,
            question=prompts.question(run.description, env.grid_rows, env.future), grid_rows=list(env.grid_rows),
            future=env.future,
            answer=prompts.answer(label, expl), label=label, explanation=expl, dir=dir_field,
            keyframes_shown=max(run.columns) + 1, paraphrases=list(env.paraphrases(s))))
    record = make_record(
        "failgen.episode", 1, episode_id=eid, task=ep.task, seed=ep.seed, mode=ep.mode, success=ep.success,
        failed_keyframe=ep.failed_keyframe, failed_subtask=ep.failed_subtask,
        subtasks=[r.description for r in ep.results], keyframes=len(env.columns),
        object_poses={"initial": env.initial_poses, "final": ep.final_poses}, frames=frames, dir=dir_field,
        keyframe_names=[c.keyframe for c in env.columns],
        subtask_keyframes=[r.columns for r in ep.results], subtask_success=[r.success for r in ep.results],
        perturbation=ep.perturbation.describe() if ep.perturbation else None, attempts=ep.attempts,
        joint_states=ep.joints, views=list(VIEWS), image_size=env.image_size if images else None,
        gif=(rel / "front.gif").as_posix() if (images and gif) else None)
    return record, samples
