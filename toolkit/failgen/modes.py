"""The failure modes (the AHA paper's seven, as eleven variants) and how each perturbs keyframes."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from toolkit.failgen import geometry as geo
from toolkit.failgen.skills import Keyframe

MODES = (
    "grasp", "slip", "translation_x", "translation_y", "translation_z", "rotation_x", "rotation_y",
    "rotation_z", "no_rotation", "wrong_sequence", "wrong_object",
)
NOMINAL = "nominal"

DESCRIPTIONS = {
    "grasp": "incomplete grasp: the gripper close at the grasp keyframe is dropped",
    "slip": "inadequate grip retention: the gripper opens a few steps into the motion after grasping",
    "translation_x": "misaligned keyframe: translation noise along x",
    "translation_y": "misaligned keyframe: translation noise along y",
    "translation_z": "misaligned keyframe: translation noise along z (upwards)",
    "rotation_x": "incorrect rotation: roll noise",
    "rotation_y": "incorrect rotation: pitch noise",
    "rotation_z": "incorrect rotation: yaw noise",
    "no_rotation": "no rotation: the keyframe keeps the previous gripper orientation",
    "wrong_sequence": "wrong action sequence: two keyframes are swapped",
    "wrong_object": "wrong target object: the sub-task's keyframes are re-anchored on another object",
}


@dataclass(frozen=True)
class Magnitudes:
    """How strong each perturbation is. Translations in metres, rotations in radians, slip in steps."""

    translation: float = 0.06
    rotation: float = 0.6       # yaw noise (rotation_z)
    tilt: float = 1.2           # roll / pitch noise (rotation_x, rotation_y): a pinch grasp tolerates less
    slip_steps: int = 15

    @classmethod
    def from_options(cls, translation: float | None = None, rotation_deg: float | None = None,
                     slip_steps: int | None = None, tilt_deg: float | None = None) -> Magnitudes:
        base = cls()
        return cls(translation if translation is not None else base.translation,
                   math.radians(rotation_deg) if rotation_deg is not None else base.rotation,
                   math.radians(tilt_deg) if tilt_deg is not None else base.tilt,
                   slip_steps if slip_steps is not None else base.slip_steps)


@dataclass(frozen=True)
class Perturbation:
    """One concrete perturbation: a mode applied at keyframe `keyframe` of sub-task `subtask`."""

    mode: str
    subtask: int
    keyframe: int             # index within the sub-task's keyframes
    sign: float = 1.0
    scale: float = 1.0        # multiplies the magnitude (retries grow it by 0.25 each)
    other: str | None = None  # wrong_object: the object used instead

    def describe(self) -> dict:
        return {"mode": self.mode, "subtask": self.subtask, "keyframe": self.keyframe, "sign": self.sign,
                "scale": round(self.scale, 4), "other": self.other}


AXES = {"x": 0, "y": 1, "z": 2}


def apply(kfs: list[Keyframe], pert: Perturbation, mags: Magnitudes) -> list[Keyframe]:
    """Return the sub-task's keyframes with the perturbation applied (wrong_object is applied at planning)."""
    kfs = [Keyframe(k.name, np.array(k.pos, float), np.array(k.orn, float), k.gripper, k.slip_after, k.hold_orn)
           for k in kfs]
    j, mode = pert.keyframe, pert.mode
    kf = kfs[j]
    if mode == "grasp":
        kf.gripper = None
    elif mode == "slip":
        kf.slip_after = max(1, int(mags.slip_steps / pert.scale))   # retries slip earlier
    elif mode.startswith("translation_"):
        axis = AXES[mode[-1]]
        sign = 1.0 if axis == 2 else pert.sign
        kf.pos[axis] += sign * mags.translation * pert.scale
    elif mode.startswith("rotation_"):
        axis = np.eye(3)[AXES[mode[-1]]]
        angle = (mags.rotation if mode == "rotation_z" else mags.tilt) * pert.scale
        kf.orn = geo.normalize(geo.mul(geo.axis_quat(axis, pert.sign * angle), kf.orn))
    elif mode == "no_rotation":
        for later in kfs[j:]:
            later.hold_orn = True
    elif mode == "wrong_sequence":
        kfs[j], kfs[j + 1] = kfs[j + 1], kfs[j]
    elif mode != "wrong_object":
        raise ValueError(mode)
    return kfs
