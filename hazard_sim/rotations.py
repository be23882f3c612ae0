"""Quaternion and rotation maths, on scipy's :class:`~scipy.spatial.transform.Rotation`.

Quaternions are (x, y, z, w) as in ROS messages and scipy, unless ``scalar_first`` (MuJoCo's
(w, x, y, z)). Every copy of this maths in the stack imports it from here.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.spatial.transform import Rotation, Slerp


def _rotation(q, scalar_first: bool = False) -> Rotation:
    q = np.asarray(q, float)
    if np.linalg.norm(q) < 1e-12:
        raise ValueError("zero quaternion is not a rotation")
    return Rotation.from_quat(q, scalar_first=scalar_first)


def quaternion_to_matrix(q, scalar_first: bool = False) -> np.ndarray:
    """3x3 rotation of a quaternion (normalised first)."""
    return _rotation(q, scalar_first).as_matrix()


def matrix_to_quaternion(R: np.ndarray) -> np.ndarray:
    """(x, y, z, w) unit quaternion with w >= 0 of a 3x3 rotation matrix."""
    return Rotation.from_matrix(np.asarray(R, float)[:3, :3]).as_quat(canonical=True)


def slerp(q0, q1, a: float) -> np.ndarray:
    """Spherical interpolation between (x, y, z, w) quaternions, ``a`` in [0, 1]."""
    rots = Rotation.concatenate([_rotation(q0), _rotation(q1)])
    return Slerp([0.0, 1.0], rots)(float(a)).as_quat()


def yaw_to_quaternion(yaw: float) -> np.ndarray:
    """(x, y, z, w) of a rotation of ``yaw`` radians about +z."""
    return np.array([0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0)])


def quaternion_to_yaw(q) -> float:
    """Heading (rotation about +z, ZYX convention) of an (x, y, z, w) quaternion."""
    x, y, z, w = (float(c) for c in q)
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
