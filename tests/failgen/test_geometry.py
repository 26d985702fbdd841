"""Quaternion helpers agree with PyBullet's own conversions."""

import math

import numpy as np
import pybullet as p

from toolkit.failgen import geometry as geo


def test_down_yaw_matches_pybullet_euler():
    for yaw in (-1.0, -0.3, 0.0, 0.7):
        ours = geo.down_yaw(yaw)
        ref = np.array(p.getQuaternionFromEuler([math.pi, 0.0, yaw]))
        assert min(np.abs(ours - ref).max(), np.abs(ours + ref).max()) < 1e-9


def test_matrix_and_yaw_roundtrip():
    q = geo.normalize(geo.mul(geo.axis_quat([0, 0, 1], 0.4), geo.axis_quat([1, 0, 0], 0.2)))
    ref = np.array(p.getMatrixFromQuaternion(q.tolist())).reshape(3, 3)
    assert np.allclose(geo.quat_matrix(q), ref)
    assert abs(geo.yaw_of(geo.yaw_quat(0.9)) - 0.9) < 1e-12
    assert abs(geo.up_tilt(geo.axis_quat([1, 0, 0], 0.3)) - 0.3) < 1e-9


def test_slerp_endpoints_and_midpoint():
    a, b = geo.axis_quat([0, 0, 1], 0.0), geo.axis_quat([0, 0, 1], 1.0)
    assert np.allclose(geo.slerp(a, b, 0.0), a) and np.allclose(geo.slerp(a, b, 1.0), b)
    assert abs(geo.angle_between(a, geo.slerp(a, b, 0.5)) - 0.5) < 1e-9


def test_wrap_quarter():
    assert abs(geo.wrap_quarter(math.pi / 2 + 0.1) - 0.1) < 1e-12
    assert abs(geo.wrap_quarter(-math.pi / 2 - 0.1) + 0.1) < 1e-12
