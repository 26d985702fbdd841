"""A headless PyBullet scene: table, Franka Panda with a geared two-finger gripper, boxes, cameras.

Everything is driven through one physics client id, so several worlds can live in one process.
Motion is a Cartesian straight line to a keyframe pose, with inverse kinematics re-solved every few
physics steps (arm in position control), then a short settle; gripper commands run after arrival.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from toolkit.failgen import geometry as geo

ARM_JOINTS = list(range(7))
FINGERS = (9, 10)
GRASP_LINK = 11
HOME_JOINTS = [0.0, -0.35, 0.0, -2.3, 0.0, 1.95, 0.785]
LOWER = [-2.9671, -1.8326, -2.9671, -3.1416, -2.9671, -0.0873, -2.9671]
UPPER = [2.9671, 1.8326, 2.9671, 0.0, 2.9671, 3.8223, 2.9671]
TIMESTEP = 1.0 / 240.0
IK_EVERY = 4          # physics steps between IK solves while moving
SPEED = 0.5           # m/s along the straight line to a keyframe
SETTLE = 30           # steps after arrival
GRIP_STEPS = 50       # steps to open or close the gripper
FINGER_FORCE = 25.0
OPEN_WIDTH = 0.04
VIEWS = ("front", "overhead", "wrist")


@dataclass
class Body:
    """An object in the scene: a pybullet body id plus what the task needs to know about it."""

    name: str
    uid: int
    size: tuple[float, float, float] = (0.05, 0.05, 0.05)
    color: str = "red"
    kind: str = "box"
    extra: dict = field(default_factory=dict)


COLORS = {
    "red": (0.85, 0.15, 0.15, 1), "blue": (0.15, 0.3, 0.9, 1), "green": (0.15, 0.7, 0.2, 1),
    "yellow": (0.95, 0.85, 0.1, 1), "purple": (0.6, 0.2, 0.8, 1), "orange": (1.0, 0.5, 0.05, 1),
    "cyan": (0.1, 0.8, 0.85, 1), "white": (0.95, 0.95, 0.95, 1), "brown": (0.55, 0.35, 0.2, 1),
    "grey": (0.5, 0.5, 0.5, 1),
}


def import_pybullet():
    """Import pybullet without its 'build time' banner on stderr (it would clutter the summary)."""
    import sys

    if "pybullet" in sys.modules:
        import pybullet

        return pybullet
    from toolkit.core.extras import require

    require("sim")
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            import pybullet
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    return pybullet


class World:
    """One physics client with the Panda on a table. Use `add_box`, `move`, `grip`, `render`."""

    def __init__(self, image_size: int = 128) -> None:
        import pybullet_data

        p = import_pybullet()

        self.p = p
        self.image_size = image_size
        self.cid = p.connect(p.DIRECT)
        c = self.cid
        p.setAdditionalSearchPath(pybullet_data.getDataPath(), physicsClientId=c)
        p.setGravity(0, 0, -9.81, physicsClientId=c)
        p.setTimeStep(TIMESTEP, physicsClientId=c)
        self.table = p.loadURDF("table/table.urdf", [0.5, 0, -0.625], physicsClientId=c)
        self.robot = p.loadURDF("franka_panda/panda.urdf", [0, 0, 0], useFixedBase=True, physicsClientId=c)
        for j, q in enumerate(HOME_JOINTS):
            p.resetJointState(self.robot, j, q, physicsClientId=c)
        for f in FINGERS:
            p.resetJointState(self.robot, f, OPEN_WIDTH, physicsClientId=c)
            p.changeDynamics(self.robot, f, lateralFriction=1.0, spinningFriction=0.001, physicsClientId=c)
        gear = p.createConstraint(self.robot, FINGERS[0], self.robot, FINGERS[1], p.JOINT_GEAR, [1, 0, 0],
                                  [0, 0, 0], [0, 0, 0], physicsClientId=c)
        p.changeConstraint(gear, gearRatio=-1, erp=0.1, maxForce=50, physicsClientId=c)
        self.bodies: dict[str, Body] = {}
        self.steps = 0
        self.renders = 0
        self.finger_target = OPEN_WIDTH
        self.slip_at: int | None = None
        self.record_every: int | None = None      # also keep a front-view frame every N steps (GIF)
        self.recorded: list[np.ndarray] = []
        state = p.getLinkState(self.robot, GRASP_LINK, computeForwardKinematics=True, physicsClientId=c)
        self.target_pos = np.array(state[4], dtype=float)
        self.target_orn = np.array(state[5], dtype=float)
        self._arm_cmd(HOME_JOINTS)
        self._fingers(OPEN_WIDTH)
        self._proj = p.computeProjectionMatrixFOV(55, 1.0, 0.02, 3.0, physicsClientId=c)
        self._fixed_views = {
            "front": p.computeViewMatrix([0.92, 0.0, 0.34], [0.42, 0.0, 0.03], [0, 0, 1], physicsClientId=c),
            "overhead": p.computeViewMatrix([0.74, 0.0, 0.82], [0.5, 0.0, 0.0], [-1, 0, 0], physicsClientId=c),
        }

    # ---- scene -------------------------------------------------------------------------------
    def add_box(self, name: str, pos, yaw: float = 0.0, size=(0.05, 0.05, 0.05), color: str = "red",
                mass: float = 0.1, fixed: bool = False) -> Body:
        p, c = self.p, self.cid
        half = [s / 2 for s in size]
        col = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=c)
        vis = p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=COLORS[color], physicsClientId=c)
        uid = p.createMultiBody(0.0 if fixed else mass, col, vis, list(pos), geo.yaw_quat(yaw), physicsClientId=c)
        p.changeDynamics(uid, -1, lateralFriction=1.0, spinningFriction=0.001, physicsClientId=c)
        body = Body(name, uid, tuple(size), color)
        self.bodies[name] = body
        return body

    def add_zone(self, name: str, pos, radius: float, color: str = "green") -> Body:
        """A flat coloured disc on the table (visual only), used as a target region."""
        p, c = self.p, self.cid
        rgba = list(COLORS[color][:3]) + [0.6]
        vis = p.createVisualShape(p.GEOM_CYLINDER, radius=radius, length=0.002, rgbaColor=rgba, physicsClientId=c)
        uid = p.createMultiBody(0, -1, vis, [pos[0], pos[1], 0.001], physicsClientId=c)
        body = Body(name, uid, (2 * radius, 2 * radius, 0.002), color, kind="zone", extra={"radius": radius})
        self.bodies[name] = body
        return body

    def add_outline(self, name: str, xy, yaw: float, size, color: str = "grey") -> Body:
        """A flat, visual-only footprint of a box at a given yaw (where and how to set a block down)."""
        p, c = self.p, self.cid
        vis = p.createVisualShape(p.GEOM_BOX, halfExtents=[size[0] / 2 + 0.004, size[1] / 2 + 0.004, 0.001],
                                  rgbaColor=list(COLORS[color][:3]) + [0.8], physicsClientId=c)
        uid = p.createMultiBody(0, -1, vis, [xy[0], xy[1], 0.001], geo.yaw_quat(yaw), physicsClientId=c)
        body = Body(name, uid, (size[0], size[1], 0.002), color, kind="zone")
        self.bodies[name] = body
        return body

    def add_drawer(self, name: str, xy, yaw: float, color: str) -> Body:
        """A small fixed cabinet with one drawer on a prismatic joint; the handle sticks out towards the robot.

        The drawer slides along the cabinet's local -x axis (`extra['out']` in world coordinates).
        """
        p, c = self.p, self.cid
        carcass = [0.09, 0.085, 0.07]
        box = p.createCollisionShape(p.GEOM_BOX, halfExtents=carcass, collisionFramePosition=[0.0, 0, 0.07],
                                     physicsClientId=c)
        box_vis = p.createVisualShape(p.GEOM_BOX, halfExtents=carcass, visualFramePosition=[0.0, 0, 0.07],
                                      rgbaColor=COLORS[color], physicsClientId=c)
        front = [0.06, 0.075, 0.045]
        handle = [0.02, 0.013, 0.01]
        handle_at = [-front[0] - handle[0], 0, 0.0]
        shapes = dict(shapeTypes=[p.GEOM_BOX, p.GEOM_BOX], halfExtents=[front, handle],
                      physicsClientId=c)
        col = p.createCollisionShapeArray(collisionFramePositions=[[0, 0, 0], handle_at], **shapes)
        vis = p.createVisualShapeArray(visualFramePositions=[[0, 0, 0], handle_at],
                                       rgbaColors=[COLORS[color], COLORS["grey"]], **shapes)
        uid = p.createMultiBody(
            0, box, box_vis, [xy[0], xy[1], 0.0], geo.yaw_quat(yaw),
            linkMasses=[0.3], linkCollisionShapeIndices=[col], linkVisualShapeIndices=[vis],
            linkPositions=[[-carcass[0] + front[0] - 0.005, 0, 0.07]], linkOrientations=[[0, 0, 0, 1]],
            linkInertialFramePositions=[[0, 0, 0]], linkInertialFrameOrientations=[[0, 0, 0, 1]],
            linkParentIndices=[0], linkJointTypes=[p.JOINT_PRISMATIC], linkJointAxis=[[-1, 0, 0]],
            physicsClientId=c)
        p.changeDynamics(uid, 0, lateralFriction=1.0, jointLowerLimit=0.0, jointUpperLimit=0.2,
                         physicsClientId=c)
        p.setJointMotorControl2(uid, 0, p.VELOCITY_CONTROL, targetVelocity=0, force=3.0, physicsClientId=c)
        out = np.array([-np.cos(yaw), -np.sin(yaw), 0.0])
        rot = geo.quat_matrix(geo.yaw_quat(yaw))

        def handle_pos(world) -> np.ndarray:
            state = world.p.getLinkState(uid, 0, physicsClientId=world.cid)
            return np.array(state[4]) + rot @ np.array(handle_at)

        def opening(world) -> float:
            return float(world.p.getJointState(uid, 0, physicsClientId=world.cid)[0])

        def touching(world) -> bool:
            """The handle is between closed fingers: gripper at the handle, fingers stopped by it, in contact."""
            near = np.linalg.norm(world.gripper_pos() - handle_pos(world)) < 0.03
            width = world.finger_width()
            contact = any(world.p.getContactPoints(uid, world.robot, 0, f, physicsClientId=world.cid)
                          for f in FINGERS)
            return bool(near and 0.01 < width < 0.06 and contact)

        body = Body(name, uid, (0.18, 0.17, 0.14), color, kind="drawer",
                    extra={"out": out, "yaw": yaw, "handle": handle_pos, "opening": opening, "touching": touching})
        self.bodies[name] = body
        return body

    def add_urdf(self, name: str, path: str, pos, yaw: float = 0.0, fixed: bool = True, kind: str = "urdf",
                 scale: float = 1.0) -> Body:
        uid = self.p.loadURDF(path, list(pos), geo.yaw_quat(yaw), useFixedBase=fixed, globalScaling=scale,
                              physicsClientId=self.cid)
        body = Body(name, uid, (0, 0, 0), "grey", kind=kind)
        self.bodies[name] = body
        return body

    def pose(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        pos, orn = self.p.getBasePositionAndOrientation(self.bodies[name].uid, physicsClientId=self.cid)
        return np.array(pos), np.array(orn)

    def object_poses(self) -> dict[str, list[float]]:
        out = {}
        for name, body in self.bodies.items():
            if body.kind == "zone":
                continue
            pos, orn = self.pose(name)
            out[name] = [round(float(v), 5) for v in (*pos, *orn)]
        return out

    def joint_states(self) -> dict[str, float]:
        """Openings of articulated objects (drawers), in metres."""
        return {n: round(b.extra["opening"](self), 5) for n, b in self.bodies.items() if b.kind == "drawer"}

    def gripper_pos(self) -> np.ndarray:
        state = self.p.getLinkState(self.robot, GRASP_LINK, computeForwardKinematics=True, physicsClientId=self.cid)
        return np.array(state[4])

    def finger_width(self) -> float:
        return float(sum(self.p.getJointState(self.robot, f, physicsClientId=self.cid)[0] for f in FINGERS))

    def contacts(self, a: str, b: str | None = None) -> bool:
        """Whether body `a` touches body `b` (or the gripper fingers when b is None)."""
        ua = self.bodies[a].uid
        if b is None:
            return any(self.p.getContactPoints(ua, self.robot, -1, f, physicsClientId=self.cid) for f in FINGERS)
        return bool(self.p.getContactPoints(ua, self.bodies[b].uid, physicsClientId=self.cid))

    # ---- control -----------------------------------------------------------------------------
    def _arm_cmd(self, joints) -> None:
        p = self.p
        p.setJointMotorControlArray(self.robot, ARM_JOINTS, p.POSITION_CONTROL, targetPositions=list(joints)[:7],
                                    forces=[240.0] * 7, physicsClientId=self.cid)

    def _fingers(self, width: float) -> None:
        p = self.p
        self.finger_target = width
        p.setJointMotorControlArray(self.robot, list(FINGERS), p.POSITION_CONTROL, targetPositions=[width, width],
                                    forces=[FINGER_FORCE, FINGER_FORCE], physicsClientId=self.cid)

    def _ik(self, pos, orn):
        return self.p.calculateInverseKinematics(
            self.robot, GRASP_LINK, list(pos), list(orn), lowerLimits=LOWER, upperLimits=UPPER,
            jointRanges=[u - lo for lo, u in zip(LOWER, UPPER, strict=True)], restPoses=HOME_JOINTS,
            maxNumIterations=20, physicsClientId=self.cid)

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            if self.slip_at is not None and self.steps >= self.slip_at:
                self._fingers(OPEN_WIDTH)
                self.slip_at = None
            self.p.stepSimulation(physicsClientId=self.cid)
            self.steps += 1
            if self.record_every and self.steps % self.record_every == 0:
                self.recorded.append(self.render("front"))

    def move(self, pos, orn, *, slip_after: int | None = None) -> None:
        """Straight-line Cartesian motion from the last commanded pose to (pos, orn), then settle.

        slip_after: open the gripper that many steps into the motion (the slip failure).
        """
        pos, orn = np.asarray(pos, float), geo.normalize(np.asarray(orn, float))
        start_pos, start_orn = self.target_pos, self.target_orn
        dist = float(np.linalg.norm(pos - start_pos))
        turn = geo.angle_between(start_orn, orn)
        n = max(24, int(max(dist / SPEED, turn / 2.0) / TIMESTEP))
        if slip_after is not None:
            self.slip_at = self.steps + slip_after
        for k in range(0, n, IK_EVERY):
            t = min(1.0, (k + IK_EVERY) / n)
            s = 0.5 - 0.5 * np.cos(np.pi * t)
            self._arm_cmd(self._ik(start_pos + s * (pos - start_pos), geo.slerp(start_orn, orn, s)))
            self.step(IK_EVERY)
        self.target_pos, self.target_orn = pos, orn
        self._arm_cmd(self._ik(pos, orn))
        self.step(SETTLE)
        if self.slip_at is not None:   # slip scheduled later than the motion lasted: open now
            self.slip_at = self.steps
            self.step(GRIP_STEPS)

    def grip(self, action: str | None) -> None:
        if action is None:
            return
        self._fingers(0.0 if action == "close" else OPEN_WIDTH)
        self.step(GRIP_STEPS)

    def settle(self, n: int = 60) -> None:
        self.step(n)

    # ---- cameras -----------------------------------------------------------------------------
    def _wrist_view(self):
        state = self.p.getLinkState(self.robot, GRASP_LINK, computeForwardKinematics=True, physicsClientId=self.cid)
        pos, orn = np.array(state[4]), np.array(state[5])
        rot = geo.quat_matrix(orn)
        eye = pos + rot @ np.array([0.06, 0.0, -0.10])     # behind the fingers, along the hand's z axis
        target = pos + rot @ np.array([0.0, 0.0, 0.12])
        up = rot @ np.array([1.0, 0.0, 0.0])
        return self.p.computeViewMatrix(eye.tolist(), target.tolist(), up.tolist(), physicsClientId=self.cid)

    def render(self, view: str) -> np.ndarray:
        """An RGB uint8 image (H, W, 3) from one of VIEWS."""
        p = self.p
        matrix = self._wrist_view() if view == "wrist" else self._fixed_views[view]
        size = self.image_size
        _, _, rgba, _, _ = p.getCameraImage(size, size, matrix, self._proj, renderer=p.ER_TINY_RENDERER,
                                            flags=p.ER_NO_SEGMENTATION_MASK, physicsClientId=self.cid)
        self.renders += 1
        return np.asarray(rgba, dtype=np.uint8).reshape(size, size, 4)[:, :, :3].copy()

    def snapshot(self) -> dict[str, np.ndarray]:
        return {v: self.render(v) for v in VIEWS}

    def close(self) -> None:
        if self.cid is not None:
            self.p.disconnect(physicsClientId=self.cid)
            self.cid = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
