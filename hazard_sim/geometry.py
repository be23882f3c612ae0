"""Small geometric primitives shared by scenes, physics and rendering.

Everything is in SI units in a right-handed world frame with z up (REP 103).
A scene is described by oriented boxes: walls, furniture, objects and carts are
all boxes, which keeps the physics engine (MuJoCo box geoms) and the ray caster
(Open3D triangle meshes) fed from the same description.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hazard_sim.rotations import quaternion_to_matrix


def yaw_to_matrix(yaw: float) -> np.ndarray:
    """Rotation matrix for a rotation of ``yaw`` radians about +z."""
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrix from a unit quaternion (w, x, y, z), MuJoCo's order."""
    return quaternion_to_matrix(q, scalar_first=True)


def wrap_angle(a: float) -> float:
    """Wrap an angle to [-pi, pi)."""
    return (a + np.pi) % (2 * np.pi) - np.pi


@dataclass
class Box:
    """An oriented box: ``center`` (m), ``half`` extents (m), rotation ``rot`` (3x3)."""

    center: np.ndarray
    half: np.ndarray
    rot: np.ndarray = field(default_factory=lambda: np.eye(3))

    @classmethod
    def from_yaw(cls, center, half, yaw: float = 0.0) -> "Box":
        return cls(np.asarray(center, float), np.asarray(half, float), yaw_to_matrix(yaw))

    @property
    def volume(self) -> float:
        return float(8.0 * np.prod(self.half))

    def corners(self) -> np.ndarray:
        """The 8 corners in world coordinates, shape (8, 3)."""
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
        return self.center + (signs * self.half) @ self.rot.T

    def footprint(self) -> np.ndarray:
        """The 4 corners of the box's xy footprint (4, 2), counter-clockwise."""
        hx, hy = self.half[0], self.half[1]
        local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
        return self.center[:2] + local @ self.rot[:2, :2].T

    @property
    def top(self) -> float:
        return float(self.center[2] + np.abs(self.rot[2]) @ self.half)

    @property
    def bottom(self) -> float:
        return float(self.center[2] - np.abs(self.rot[2]) @ self.half)
