"""Pinhole camera model and the REP 103 / REP 103-optical frame conventions.

Conventions
-----------
* World and camera *body* frames follow REP 103: x forward, y left, z up.
* The *optical* frame (what ``render`` takes) is x right, y down, z forward.
* Pixel ``(u, v)`` = (column, row); pixel centres sit at integer coordinates
  (OpenCV convention), so the principal point of ``intrinsics()`` is
  ``((w - 1) / 2, (h - 1) / 2)``: the optical axis passes through the exact
  middle of the image (between the two middle pixels for even sizes).
* ``fx = fy = (w / 2) / tan(hfov / 2)`` (square pixels); the horizontal field
  of view spans the full width from the left edge of pixel 0 to the right edge
  of pixel ``w - 1``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Columns are the optical axes expressed in the body frame:
# optical x (right) = -body y, optical y (down) = -body z, optical z = body x.
BODY_FROM_OPTICAL = np.array([[0.0, 0.0, 1.0],
                              [-1.0, 0.0, 0.0],
                              [0.0, -1.0, 0.0]])


@dataclass(frozen=True)
class CameraSpec:
    """Image size (pixels), horizontal field of view (degrees) and clip range (m).

    ``near``/``far`` clip on z-depth, like an OpenGL frustum: surfaces closer
    than ``near`` are invisible (rays start on the near plane), hits beyond
    ``far`` count as "nothing hit".
    """

    width: int = 256
    height: int = 256
    hfov_deg: float = 90.0
    near: float = 0.05
    far: float = 50.0

    @property
    def focal(self) -> float:
        """Focal length in pixels (fx = fy)."""
        return (self.width / 2.0) / np.tan(np.radians(self.hfov_deg) / 2.0)

    @property
    def vfov_deg(self) -> float:
        return float(np.degrees(2.0 * np.arctan((self.height / 2.0) / self.focal)))

    def intrinsics(self) -> np.ndarray:
        """3x3 K with principal point ((w-1)/2, (h-1)/2); see module docstring."""
        f = self.focal
        return np.array([[f, 0.0, (self.width - 1) / 2.0],
                         [0.0, f, (self.height - 1) / 2.0],
                         [0.0, 0.0, 1.0]])

    def ray_directions(self) -> np.ndarray:
        """(H, W, 3) float32 optical-frame ray directions scaled to unit z.

        With z = 1 the ray parameter of a hit *is* its z-depth (REP 118).
        """
        k = self.intrinsics()
        u = (np.arange(self.width) - k[0, 2]) / k[0, 0]
        v = (np.arange(self.height) - k[1, 2]) / k[1, 1]
        d = np.empty((self.height, self.width, 3), np.float32)
        d[..., 0] = u[None, :]
        d[..., 1] = v[:, None]
        d[..., 2] = 1.0
        return d


def body_rotation(yaw: float, pitch: float = 0.0) -> np.ndarray:
    """World-from-body rotation Rz(yaw) @ Ry(pitch); positive pitch looks down."""
    cy, sy = np.cos(yaw), np.sin(yaw)
    cp, sp = np.cos(pitch), np.sin(pitch)
    rz = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]])
    ry = np.array([[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]])
    return rz @ ry


def optical_rotation(yaw: float, pitch: float = 0.0) -> np.ndarray:
    """World-from-optical rotation of a camera with body yaw and pitch (rad).

    The body looks along +x rotated by ``yaw`` about +z (z up) and is pitched
    down by ``pitch`` (positive = look down). The result maps optical-frame
    vectors (x right, y down, z forward) to world vectors.
    """
    return body_rotation(yaw, pitch) @ BODY_FROM_OPTICAL
