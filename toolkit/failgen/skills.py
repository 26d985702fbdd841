"""Skills: each turns the CURRENT world state into keyframes, and checks its own outcome.

Planning from the current state (not from the episode's start) is what lets a caller retry a
sub-task after a failure: the same skill re-reads object poses and plans again.
Finger axis: with `geo.down_yaw(yaw)` the fingers close along the world y axis turned by `yaw`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from toolkit.failgen import geometry as geo

HOVER = 0.12       # approach height above a grasp or place point
LIFT = 0.14        # lift height above the table for carried objects


@dataclass
class Keyframe:
    """A gripper pose to reach in a straight line, then an optional gripper command."""

    name: str
    pos: np.ndarray
    orn: np.ndarray
    gripper: str | None = None          # "open", "close" or None (keep)
    slip_after: int | None = None       # open the gripper this many steps into the motion
    hold_orn: bool = False               # keep the orientation already held (no_rotation)


@dataclass
class Subtask:
    """One segment of a task: a skill applied to an object (and a target), described in words."""

    skill: str
    obj: str
    target: str | None = None
    texts: tuple[str, ...] = ()
    params: dict = field(default_factory=dict)


def box_grasp_yaw(world, name: str) -> float:
    """Yaw that closes the fingers across the box's short horizontal side, nearest to zero."""
    body = world.bodies[name]
    yaw = geo.yaw_of(world.pose(name)[1])
    if body.size[0] < body.size[1] - 1e-6:
        yaw += math.pi / 2
    if abs(body.size[0] - body.size[1]) < 1e-6:
        return geo.wrap_quarter(yaw)
    return (yaw + math.pi / 2) % math.pi - math.pi / 2


def top_z(world, name: str) -> float:
    pos, _ = world.pose(name)
    return float(pos[2] + world.bodies[name].size[2] / 2)


# ---- planners ------------------------------------------------------------------------------------
def plan_pick(world, st: Subtask, obj: str) -> list[Keyframe]:
    pos, _ = world.pose(obj)
    orn = geo.down_yaw(box_grasp_yaw(world, obj))
    grasp = pos + np.array([0, 0, 0.005])
    return [
        Keyframe("approach", grasp + [0, 0, HOVER], orn, "open"),
        Keyframe("grasp", grasp, orn, "close"),
        Keyframe("lift", np.array([grasp[0], grasp[1], LIFT + pos[2]]), orn),
    ]


def _carry_height(world, obj: str) -> float:
    return world.bodies[obj].size[2] / 2 + 0.005


def plan_place_on(world, st: Subtask, obj: str) -> list[Keyframe]:
    target = st.target
    tpos, _ = world.pose(target)
    orn = geo.down_yaw(box_grasp_yaw(world, target))
    z = top_z(world, target) + _carry_height(world, obj)
    return [
        Keyframe("carry", np.array([tpos[0], tpos[1], z + HOVER]), orn),
        Keyframe("lower", np.array([tpos[0], tpos[1], z]), orn, "open"),
        Keyframe("retreat", np.array([tpos[0], tpos[1], z + HOVER]), orn),
    ]


def plan_place_at(world, st: Subtask, obj: str) -> list[Keyframe]:
    """Put the held object down at the target's xy (a zone or a tray), grasp yaw kept or st.params yaw."""
    tpos, _ = world.pose(st.target)
    yaw = st.params.get("yaw")
    orn = world.target_orn if yaw is None else geo.down_yaw(yaw)
    z = float(st.params.get("floor", 0.0)) + _carry_height(world, obj)
    xy = np.array(tpos[:2])
    return [
        Keyframe("carry", np.array([*xy, z + HOVER]), orn),
        Keyframe("lower", np.array([*xy, z]), orn, "open"),
        Keyframe("retreat", np.array([*xy, z + HOVER]), orn),
    ]


def plan_turn(world, st: Subtask, obj: str) -> list[Keyframe]:
    """Carry the held object over the target outline and turn it to the outline's yaw."""
    tpos, torn = world.pose(st.target)
    yaw = (geo.yaw_of(torn) + math.pi / 2) % math.pi - math.pi / 2
    return [Keyframe("turn", np.array([tpos[0], tpos[1], LIFT + 0.02]), geo.down_yaw(yaw))]


def plan_lower(world, st: Subtask, obj: str) -> list[Keyframe]:
    """Lower the held object straight down onto the table and let go."""
    pos = world.target_pos
    z = _carry_height(world, obj)
    return [
        Keyframe("lower", np.array([pos[0], pos[1], z]), world.target_orn, "open"),
        Keyframe("retreat", np.array([pos[0], pos[1], z + HOVER]), world.target_orn),
    ]


def plan_push(world, st: Subtask, obj: str) -> list[Keyframe]:
    """Push the object along the line from where it is to the target zone with closed fingers."""
    pos, _ = world.pose(obj)
    goal, _ = world.pose(st.target)
    d = np.array(goal[:2]) - pos[:2]
    d = d / max(np.linalg.norm(d), 1e-6)
    yaw = (math.atan2(d[1], d[0]) + math.pi / 2) % math.pi - math.pi / 2
    orn = geo.down_yaw(yaw)
    back = world.bodies[obj].size[0] / 2 + 0.045
    start = np.array([*(pos[:2] - d * back), 0.02])
    end = np.array([*(np.array(goal[:2]) - d * (back - 0.01)), 0.02])
    return [
        Keyframe("behind", start + [0, 0, HOVER], orn, "close"),
        Keyframe("lower", start, orn),
        Keyframe("push", end, orn),
        Keyframe("retreat", end + [0, 0, HOVER], orn),
    ]


def plan_grasp_handle(world, st: Subtask, obj: str) -> list[Keyframe]:
    cab = world.bodies[obj]
    handle, out, yaw = cab.extra["handle"](world), cab.extra["out"], cab.extra["yaw"]
    orn = geo.down_yaw((yaw + math.pi / 2) % math.pi - math.pi / 2)
    return [
        Keyframe("approach", handle + [0, 0, HOVER], orn, "open"),
        Keyframe("grasp", handle - out * 0.005, orn, "close"),
    ]


def plan_pull(world, st: Subtask, obj: str) -> list[Keyframe]:
    cab = world.bodies[obj]
    out = cab.extra["out"]
    start = world.target_pos
    end = start + out * st.params.get("distance", 0.16)
    return [
        Keyframe("pull", end, world.target_orn, "open"),
        Keyframe("retreat", end + np.array([0, 0, HOVER]), world.target_orn),
    ]


PLANNERS = {
    "pick": plan_pick, "place_on": plan_place_on, "place_at": plan_place_at, "turn": plan_turn,
    "lower": plan_lower, "push": plan_push, "grasp_handle": plan_grasp_handle, "pull": plan_pull,
}


def plan(world, st: Subtask, obj: str | None = None) -> list[Keyframe]:
    return PLANNERS[st.skill](world, st, obj or st.obj)


# ---- checks (ground truth on the simulator state) ------------------------------------------------
def held(world, obj: str) -> bool:
    pos, _ = world.pose(obj)
    grip = world.gripper_pos()
    rest = world.bodies[obj].size[2] / 2
    return bool(pos[2] > rest + 0.04 and np.linalg.norm(pos - grip) < 0.04)


def lies_flat(world, obj: str, tol: float = 0.15) -> bool:
    """Resting on its bottom face (or, for a cube, on any face)."""
    _, orn = world.pose(obj)
    size = world.bodies[obj].size
    cube = max(size) - min(size) < 1e-6
    return bool((geo.face_down_tilt(orn) if cube else geo.up_tilt(orn)) < tol)


def on_top(world, obj: str, base: str, *, xy_tol: float = 0.02, yaw_tol: float | None = 0.2) -> bool:
    pos, orn = world.pose(obj)
    bpos, born = world.pose(base)
    want_z = bpos[2] + (world.bodies[obj].size[2] + world.bodies[base].size[2]) / 2
    ok = np.linalg.norm(pos[:2] - bpos[:2]) < xy_tol and abs(pos[2] - want_z) < 0.012
    ok = ok and lies_flat(world, obj)
    if yaw_tol is not None:
        ok = ok and abs(geo.wrap_quarter(geo.yaw_of(orn) - geo.yaw_of(born))) < yaw_tol
    return bool(ok)


def in_zone(world, obj: str, zone: str, *, floor: float = 0.0, z_tol: float = 0.015) -> bool:
    pos, orn = world.pose(obj)
    zpos, _ = world.pose(zone)
    radius = world.bodies[zone].extra.get("radius", 0.06)
    rest = floor + world.bodies[obj].size[2] / 2
    return bool(np.linalg.norm(pos[:2] - zpos[:2]) < radius and abs(pos[2] - rest) < z_tol
                and lies_flat(world, obj))


def yaw_matches(world, obj: str, ref: str, tol: float = 0.2) -> bool:
    _, orn = world.pose(obj)
    _, rorn = world.pose(ref)
    diff = (geo.yaw_of(orn) - geo.yaw_of(rorn) + math.pi / 2) % math.pi - math.pi / 2
    return bool(abs(diff) < tol)


def drawer_open(world, cab: str, amount: float = 0.1) -> bool:
    return bool(world.bodies[cab].extra["opening"](world) > amount)


def check(world, st: Subtask) -> bool:
    """Did this sub-task reach its goal? (evaluated right after it ran)"""
    s, o, t = st.skill, st.obj, st.target
    if s == "pick":
        return held(world, o)
    if s == "place_on":
        return on_top(world, o, t, yaw_tol=st.params.get("yaw_tol", 0.2)) and not held(world, o)
    if s == "place_at":
        return in_zone(world, o, t, floor=st.params.get("floor", 0.0)) and not held(world, o)
    if s == "turn":
        return held(world, o) and yaw_matches(world, o, t, 0.2) and _near_xy(world, o, t, 0.03)
    if s == "lower":
        return in_zone(world, o, t) and yaw_matches(world, o, t, 0.2) and not held(world, o)
    if s == "push":
        return in_zone(world, o, t)
    if s == "grasp_handle":
        return world.bodies[o].extra["touching"](world)
    if s == "pull":
        return drawer_open(world, o)
    raise ValueError(s)


def _near_xy(world, a: str, b: str, tol: float) -> bool:
    return bool(np.linalg.norm(world.pose(a)[0][:2] - world.pose(b)[0][:2]) < tol)
