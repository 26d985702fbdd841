"""Small quaternion helpers (x, y, z, w order, as PyBullet uses), pure numpy."""

from __future__ import annotations

import math

import numpy as np

DOWN = np.array([1.0, 0.0, 0.0, 0.0])   # gripper pointing down (180 deg about x)


def normalize(q) -> np.ndarray:
    q = np.asarray(q, dtype=float)
    return q / np.linalg.norm(q)


def yaw_quat(yaw: float) -> list[float]:
    return [0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)]


def axis_quat(axis, angle: float) -> np.ndarray:
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    return np.array([*(axis * math.sin(angle / 2)), math.cos(angle / 2)])


def mul(a, b) -> np.ndarray:
    x1, y1, z1, w1 = a
    x2, y2, z2, w2 = b
    return np.array([
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
    ])


def down_yaw(yaw: float) -> np.ndarray:
    """Gripper pointing down, turned by `yaw` about the world z axis."""
    return normalize(mul(axis_quat([0, 0, 1], yaw), DOWN))


def quat_matrix(q) -> np.ndarray:
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def yaw_of(q) -> float:
    x, y, z, w = q
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def angle_between(a, b) -> float:
    d = abs(float(np.dot(normalize(a), normalize(b))))
    return 2 * math.acos(min(1.0, d))


def slerp(a, b, t: float) -> np.ndarray:
    a, b = normalize(a), normalize(b)
    d = float(np.dot(a, b))
    if d < 0:
        b, d = -b, -d
    if d > 0.9995:
        return normalize(a + t * (b - a))
    theta = math.acos(d)
    return (math.sin((1 - t) * theta) * a + math.sin(t * theta) * b) / math.sin(theta)


def wrap_quarter(yaw: float) -> float:
    """A box's yaw is symmetric under quarter turns: map to [-pi/4, pi/4)."""
    return (yaw + math.pi / 4) % (math.pi / 2) - math.pi / 4


def up_tilt(q) -> float:
    """Angle between the body's z axis and world z (how far a box is tipped over)."""
    return math.acos(max(-1.0, min(1.0, float(quat_matrix(q)[2, 2]))))


def face_down_tilt(q) -> float:
    """Smallest angle between world z and any body axis (a cube lying on any face is flat)."""
    col = np.abs(quat_matrix(q)[2, :])
    return math.acos(max(-1.0, min(1.0, float(col.max()))))
