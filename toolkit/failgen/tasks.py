"""The eight tasks: scene randomisation per seed, sub-tasks, final success check, failure sites.

A failure *site* says where a mode is injected: (sub-task index, keyframe index within the sub-task).
Sites are derived from the skills (`SKILL_SITES`) and restricted to the modes each task lists, which
are the ones verified to make that task fail (see tests/failgen).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from toolkit.failgen import geometry as geo
from toolkit.failgen import skills as sk
from toolkit.failgen.skills import Subtask

CUBE = (0.05, 0.05, 0.05)
PALETTE = ("red", "blue", "green", "yellow", "purple", "orange", "cyan")

TEXTS = {
    "pick": ("pick up the {o}", "grasp the {o} and lift it", "lift the {o} off the table"),
    "place_on": ("place the {o} on the {t}", "put the {o} on top of the {t}", "stack the {o} onto the {t}"),
    "place_at": ("place the {o} in the {t}", "put the {o} down in the {t}", "move the {o} into the {t}"),
    "turn": ("turn the {o} to match the {t}", "rotate the {o} into line with the {t}"),
    "lower": ("lower the {o} onto the {t} and release it", "set the {o} down on the {t}"),
    "push": ("push the {o} into the {t}", "slide the {o} over to the {t}"),
    "grasp_handle": ("grasp the handle of the {o}", "grab the {o}'s handle"),
    "pull": ("pull the {o} open", "open the {o} by pulling its handle"),
}

# Where each mode can be injected in a skill: mode -> keyframe index within the skill's keyframes.
SKILL_SITES = {
    "pick": {"grasp": 1, "translation_x": 1, "translation_y": 1, "translation_z": 1, "rotation_x": 1,
             "rotation_y": 1, "wrong_sequence": 0, "wrong_object": 0},
    "place_on": {"slip": 0, "translation_x": 1, "translation_y": 1, "rotation_z": 1, "no_rotation": 0,
                 "rotation_x": 1, "rotation_y": 1},
    "place_at": {"slip": 0, "translation_x": 1, "translation_y": 1},
    "turn": {"slip": 0, "rotation_z": 0, "no_rotation": 0},
    "lower": {"rotation_z": 0, "translation_x": 0, "translation_y": 0},
    "push": {"translation_y": 1, "translation_z": 1, "translation_x": 2, "wrong_object": 0, "wrong_sequence": 1},
    "grasp_handle": {"grasp": 1, "translation_x": 1, "translation_y": 1, "translation_z": 1,
                     "rotation_z": 1, "wrong_sequence": 0, "wrong_object": 0},
    "pull": {"slip": 0},
}


@dataclass
class Scene:
    """What a task's build step returns for one seed."""

    subtasks: list[Subtask]
    success: Callable[[object], bool]
    words: dict[str, str]                   # object name -> words used in descriptions
    others: dict[str, str]                  # object name -> the object wrong_object uses instead


@dataclass(frozen=True)
class Task:
    name: str
    summary: str
    build: Callable[[object, np.random.Generator], Scene]
    modes: tuple[str, ...]
    steps: tuple[str, ...] = ()     # generic sub-task outline (the real wording names colours)


def _positions(rng: np.random.Generator, n: int, *, xlim=(0.42, 0.62), ylim=(-0.22, 0.22),
               min_gap: float = 0.11, avoid=()) -> list[np.ndarray]:
    """n random table positions at least min_gap apart (rejection sampling, deterministic per rng)."""
    out: list[np.ndarray] = []
    taken = [np.asarray(a, float) for a in avoid]
    for _ in range(2000):
        xy = np.array([rng.uniform(*xlim), rng.uniform(*ylim)])
        if all(np.linalg.norm(xy - q) >= min_gap for q in taken):
            out.append(xy)
            taken.append(xy)
            if len(out) == n:
                return out
    raise RuntimeError("could not place objects")


def _colors(rng, n: int) -> list[str]:
    return [PALETTE[i] for i in rng.permutation(len(PALETTE))[:n]]


def _yaw(rng) -> float:
    return float(rng.uniform(-math.pi / 4, math.pi / 4))


def _cubes(world, rng, names, colors, positions, yaws=None):
    for i, (name, color, xy) in enumerate(zip(names, colors, positions, strict=True)):
        yaw = _yaw(rng) if yaws is None else yaws[i]
        world.add_box(name, [xy[0], xy[1], CUBE[2] / 2], yaw=yaw, color=color)


def _st(skill: str, obj: str, target: str | None, words: dict[str, str], rng, **params) -> Subtask:
    texts = tuple(t.format(o=words.get(obj, obj), t=words.get(target, target or "")) for t in TEXTS[skill])
    order = rng.permutation(len(texts))
    return Subtask(skill, obj, target, tuple(texts[i] for i in order), params)


def _distinct_yaws(rng, n: int, gap: float = 0.3) -> list[float]:
    """Box yaws whose pairwise quarter-turn difference is at least `gap` (so no_rotation matters)."""
    for _ in range(1000):
        yaws = [_yaw(rng) for _ in range(n)]
        if all(abs(geo.wrap_quarter(a - b)) >= gap for i, a in enumerate(yaws) for b in yaws[i + 1:]):
            return yaws
    raise RuntimeError("could not draw yaws")


# ---- the tasks ----------------------------------------------------------------------------------
def build_stack(world, rng) -> Scene:
    colors = _colors(rng, 3)
    _cubes(world, rng, ["cube", "base", "other"], colors, _positions(rng, 3), _distinct_yaws(rng, 3))
    words = {"cube": f"{colors[0]} cube", "base": f"{colors[1]} cube", "other": f"{colors[2]} cube"}
    subs = [_st("pick", "cube", None, words, rng), _st("place_on", "cube", "base", words, rng)]
    return Scene(subs, lambda w: sk.on_top(w, "cube", "base") and not sk.held(w, "cube"), words, {"cube": "other"})


def build_stack_tower(world, rng) -> Scene:
    colors = _colors(rng, 4)
    names = ["base", "middle", "top", "other"]
    _cubes(world, rng, names, colors, _positions(rng, 4, min_gap=0.14), _distinct_yaws(rng, 4, 0.2))
    words = {n: f"{c} cube" for n, c in zip(names, colors, strict=True)}
    subs = [_st("pick", "middle", None, words, rng), _st("place_on", "middle", "base", words, rng),
            _st("pick", "top", None, words, rng), _st("place_on", "top", "middle", words, rng)]

    def success(w) -> bool:
        return sk.on_top(w, "middle", "base") and sk.on_top(w, "top", "middle") and not sk.held(w, "top")

    return Scene(subs, success, words, {"middle": "other", "top": "other"})


def build_pick_place(world, rng) -> Scene:
    colors = _colors(rng, 2)
    side = float(rng.choice([-1.0, 1.0]))
    tray_xy = np.array([rng.uniform(0.52, 0.6), side * rng.uniform(0.16, 0.19)])
    # the cubes go on the other side, clear of the tray walls (an open gripper needs ~5 cm around a cube)
    cube_xy, other_xy = _positions(rng, 2, ylim=(-0.24, -0.09) if side > 0 else (0.09, 0.24), min_gap=0.1)
    tray = world.add_urdf("tray", "tray/traybox.urdf", [tray_xy[0], tray_xy[1], 0.0],
                          yaw=float(rng.uniform(-0.3, 0.3)), scale=0.45, kind="zone")
    tray.extra["radius"] = 0.08
    _cubes(world, rng, ["cube", "other"], colors, [cube_xy, other_xy])
    words = {"cube": f"{colors[0]} cube", "other": f"{colors[1]} cube", "tray": "tray"}
    subs = [_st("pick", "cube", None, words, rng), _st("place_at", "cube", "tray", words, rng, floor=0.01)]
    return Scene(subs, lambda w: sk.in_zone(w, "cube", "tray", floor=0.01) and not sk.held(w, "cube"), words,
                 {"cube": "other"})


def build_push(world, rng) -> Scene:
    colors = _colors(rng, 3)
    cube_xy = np.array([rng.uniform(0.4, 0.46), rng.uniform(-0.15, 0.15)])
    goal_xy = cube_xy + np.array([rng.uniform(0.14, 0.18), rng.uniform(-0.05, 0.05)])
    side = 1.0 if cube_xy[1] < 0 else -1.0
    other_xy = cube_xy + np.array([rng.uniform(-0.02, 0.02), side * rng.uniform(0.12, 0.15)])
    _cubes(world, rng, ["cube", "other"], colors[:2], [cube_xy, other_xy], [0.0, 0.0])
    world.add_zone("zone", goal_xy, 0.045, colors[2])
    words = {"cube": f"{colors[0]} cube", "other": f"{colors[1]} cube", "zone": f"{colors[2]} target zone"}
    subs = [_st("push", "cube", "zone", words, rng)]
    return Scene(subs, lambda w: sk.in_zone(w, "cube", "zone"), words, {"cube": "other"})


def build_sort(world, rng) -> Scene:
    colors = _colors(rng, 2)
    pos = _positions(rng, 4, min_gap=0.12)
    _cubes(world, rng, ["cube_a", "cube_b"], colors, pos[:2])
    world.add_zone("zone_a", pos[2], 0.05, colors[0])
    world.add_zone("zone_b", pos[3], 0.05, colors[1])
    words = {"cube_a": f"{colors[0]} cube", "cube_b": f"{colors[1]} cube",
             "zone_a": f"{colors[0]} zone", "zone_b": f"{colors[1]} zone"}
    subs = [_st("pick", "cube_a", None, words, rng), _st("place_at", "cube_a", "zone_a", words, rng),
            _st("pick", "cube_b", None, words, rng), _st("place_at", "cube_b", "zone_b", words, rng)]

    def success(w) -> bool:
        return sk.in_zone(w, "cube_a", "zone_a") and sk.in_zone(w, "cube_b", "zone_b")

    return Scene(subs, success, words, {"cube_a": "cube_b", "cube_b": "cube_a"})


def build_rotate(world, rng) -> Scene:
    colors = _colors(rng, 2)
    block_xy, goal_xy, other_xy = _positions(rng, 3, min_gap=0.13)
    size = (0.09, 0.035, 0.04)
    yaw0 = float(rng.uniform(-0.3, 0.3))
    turn = float(rng.choice([-1.0, 1.0]) * rng.uniform(0.7, 1.2))
    world.add_box("block", [block_xy[0], block_xy[1], size[2] / 2], yaw=yaw0, size=size, color=colors[0])
    world.add_box("other", [other_xy[0], other_xy[1], size[2] / 2], yaw=_yaw(rng), size=size, color=colors[1])
    outline = world.add_outline("outline", goal_xy, yaw0 + turn, size[:2])
    outline.extra["radius"] = 0.025
    words = {"block": f"{colors[0]} block", "other": f"{colors[1]} block", "outline": "outline on the table"}
    subs = [_st("pick", "block", None, words, rng), _st("turn", "block", "outline", words, rng),
            _st("lower", "block", "outline", words, rng)]

    def success(w) -> bool:
        return sk.in_zone(w, "block", "outline") and sk.yaw_matches(w, "block", "outline", 0.2)

    return Scene(subs, success, words, {"block": "other"})


def build_open_drawer(world, rng) -> Scene:
    yaw = float(rng.uniform(-0.35, 0.35))
    centre = np.array([rng.uniform(0.66, 0.7), rng.uniform(-0.06, 0.06)])
    colors = _colors(rng, 2)
    side = np.array([-math.sin(yaw), math.cos(yaw)])
    world.add_drawer("drawer_a", centre + side * 0.11, yaw, colors[0])
    world.add_drawer("drawer_b", centre - side * 0.11, yaw, colors[1])
    target = "drawer_a" if rng.uniform() < 0.5 else "drawer_b"
    other = "drawer_b" if target == "drawer_a" else "drawer_a"
    words = {"drawer_a": f"{colors[0]} drawer", "drawer_b": f"{colors[1]} drawer"}
    subs = [_st("grasp_handle", target, None, words, rng), _st("pull", target, None, words, rng)]

    def success(w) -> bool:
        return sk.drawer_open(w, target) and not sk.drawer_open(w, other, 0.04)

    return Scene(subs, success, words, {target: other})


def build_unstack(world, rng) -> Scene:
    colors = _colors(rng, 4)
    base_xy, other_xy, zone_xy = _positions(rng, 3, min_gap=0.13)
    yaw = _yaw(rng)
    world.add_box("base", [base_xy[0], base_xy[1], 0.025], yaw=yaw, color=colors[0])
    world.add_box("cube", [base_xy[0], base_xy[1], 0.0755], yaw=yaw, color=colors[1])
    world.add_box("other", [other_xy[0], other_xy[1], 0.025], yaw=_yaw(rng), color=colors[2])
    world.add_zone("zone", zone_xy, 0.05, colors[3])
    words = {"base": f"{colors[0]} cube", "cube": f"{colors[1]} cube", "other": f"{colors[2]} cube",
             "zone": f"{colors[3]} zone"}
    subs = [_st("pick", "cube", None, words, rng), _st("place_at", "cube", "zone", words, rng)]
    return Scene(subs, lambda w: sk.in_zone(w, "cube", "zone") and not sk.held(w, "cube"), words,
                 {"cube": "other"})


ALL_MODES = ("grasp", "slip", "translation_x", "translation_y", "translation_z", "rotation_x", "rotation_y",
             "rotation_z", "no_rotation", "wrong_sequence", "wrong_object")
PICK_PLACE_MODES = ("grasp", "slip", "translation_x", "translation_y", "translation_z", "rotation_x", "rotation_y",
                    "wrong_sequence", "wrong_object")
PICK, PLACE_ON, PLACE_AT = "pick up cube A", "place cube A on cube B", "place cube A in the zone"

# Modes per task: the ones whose sites exist in the task's skills AND were checked to make it fail.
TASKS: dict[str, Task] = {t.name: t for t in (
    Task("stack", "put one cube on another, faces aligned", build_stack, ALL_MODES, (PICK, PLACE_ON)),
    Task("stack-tower", "build a tower of three cubes", build_stack_tower, ALL_MODES,
         ("pick up cube B", "place cube B on cube A", "pick up cube C", "place cube C on cube B")),
    Task("pick-place", "put a cube into a tray", build_pick_place, PICK_PLACE_MODES,
         (PICK, "place cube A in the tray")),
    Task("push", "push a cube into a target zone", build_push,
         ("translation_x", "translation_y", "translation_z", "wrong_sequence", "wrong_object"),
         ("push cube A into the zone",)),
    Task("sort", "put two cubes into the zones of their colours", build_sort, PICK_PLACE_MODES,
         (PICK, "place cube A in zone A", "pick up cube B", "place cube B in zone B")),
    Task("rotate", "turn a block to the yaw of an outline and set it down there", build_rotate, ALL_MODES,
         ("pick up the block", "turn the block to match the outline", "lower the block onto the outline")),
    Task("open-drawer", "open one of two drawers by its handle", build_open_drawer,
         ("grasp", "slip", "translation_x", "translation_y", "translation_z", "rotation_z", "wrong_sequence",
          "wrong_object"),
         ("grasp the drawer handle", "pull the drawer open")),
    Task("unstack", "take the top cube off a stack and put it in a zone", build_unstack, PICK_PLACE_MODES,
         ("pick up the top cube", PLACE_AT)),
)}


def sites(task: Task, scene: Scene, mode: str) -> list[tuple[int, int]]:
    """Where `mode` can be injected in this scene: (sub-task index, keyframe index) pairs."""
    if mode not in task.modes:
        return []
    out = []
    for i, st in enumerate(scene.subtasks):
        j = SKILL_SITES[st.skill].get(mode)
        if j is None or (mode == "wrong_object" and st.obj not in scene.others):
            continue
        out.append((i, j))
    return out
