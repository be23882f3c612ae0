"""Fast CPU renderer: Open3D (Embree) ray casting plus a few numpy gathers.

Every box becomes 12 triangles of one merged triangle mesh; a hit's primitive
(triangle) id then indexes small per-triangle tables holding the instance id
and the already shaded colour (Lambert with a fixed light is view independent,
so shading is baked per triangle). Per frame the work is: rotate the
precomputed camera rays, cast them, and do two table lookups.

Open3D cannot move geometry in a ``RaycastingScene``, so ``set_dynamic``
rebuilds the scene (static triangles are cached; the rebuild of a ~150 box
scene costs well under a millisecond, see ``benchmarks/bench_render.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import open3d as o3d

from ..geometry import Box
from .camera import CameraSpec

# Unit-cube corners, index = 4*ix + 2*iy + iz with coordinates in {-1, +1}.
_CORNERS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)],
                    np.float64)
# Faces as (local outward normal, 4 corner indices in cyclic order).
_FACES = [((1, 0, 0), (4, 6, 7, 5)), ((-1, 0, 0), (0, 1, 3, 2)),
          ((0, 1, 0), (2, 3, 7, 6)), ((0, -1, 0), (0, 4, 5, 1)),
          ((0, 0, 1), (1, 5, 7, 3)), ((0, 0, -1), (0, 2, 6, 4))]


def _box_template():
    """(12, 3) triangle corner indices wound counter-clockwise seen from outside,
    and the (12, 3) local outward normal of each triangle."""
    tris, normals = [], []
    for n, (a, b, c, d) in _FACES:
        for tri in ((a, b, c), (a, c, d)):
            p = _CORNERS[list(tri)]
            if np.dot(np.cross(p[1] - p[0], p[2] - p[0]), n) < 0:
                tri = tri[::-1]
            tris.append(tri)
            normals.append(n)
    return np.array(tris, np.int32), np.array(normals, np.float64)


_TRIS, _NORMALS = _box_template()
TRIS_PER_BOX = len(_TRIS)

# Fixed light (world frame, pointing towards the light) and shading weights.
LIGHT_DIR = np.array([0.35, 0.25, 1.0]) / np.linalg.norm([0.35, 0.25, 1.0])
AMBIENT = 0.45
DIFFUSE = 0.55
BACKGROUND = np.array([0, 0, 0], np.uint8)  # colour where nothing is hit


def boxes_to_mesh(boxes: Sequence[Box]):
    """Vertices (8N, 3) float32, triangles (12N, 3) uint32, world normals (12N, 3)."""
    n = len(boxes)
    if n == 0:
        return (np.zeros((0, 3), np.float32), np.zeros((0, 3), np.uint32),
                np.zeros((0, 3)))
    centers = np.array([b.center for b in boxes], float)
    halves = np.array([b.half for b in boxes], float)
    rots = np.array([b.rot for b in boxes], float)
    local = _CORNERS[None] * halves[:, None, :]                       # (N, 8, 3)
    verts = np.einsum("nij,nkj->nki", rots, local) + centers[:, None]  # (N, 8, 3)
    tris = _TRIS[None] + 8 * np.arange(n, dtype=np.int32)[:, None, None]
    normals = np.einsum("nij,kj->nki", rots, _NORMALS)                # (N, 12, 3)
    return (verts.reshape(-1, 3).astype(np.float32), tris.reshape(-1, 3).astype(np.uint32),
            normals.reshape(-1, 3))


def _lambert(normals: np.ndarray) -> np.ndarray:
    return AMBIENT + DIFFUSE * np.clip(normals @ LIGHT_DIR, 0.0, None)


@dataclass
class WaterSurface:
    """A translucent water surface: a height field ``z = height_at(xy)``.

    The default model is a flat pool at height ``level`` behind the source
    (``dot(xy - origin, direction) <= 0``) that slopes down with angle
    ``slope_rad`` away from it: ``h = level - tan(slope_rad) * d`` with
    ``d = max(0, dot(xy - origin, direction))``, clipped at ``h >= 0`` (no
    water where it would be <= 0). ``direction`` is normalised on creation.
    Subclasses with another height field must override both ``height_at`` and
    ``intersect``.
    """

    level: float
    origin: np.ndarray = field(default_factory=lambda: np.zeros(2))
    direction: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0]))
    slope_rad: float = 0.0
    color: np.ndarray = field(default_factory=lambda: np.array([40, 90, 160], np.uint8))
    alpha: float = 0.5

    def __post_init__(self):
        self.origin = np.asarray(self.origin, float).reshape(2)
        d = np.asarray(self.direction, float).reshape(2)
        self.direction = d / np.linalg.norm(d)
        self.color = np.asarray(self.color, np.uint8).reshape(3)

    def height_at(self, xy: np.ndarray) -> np.ndarray:
        """Water surface height (m, >= 0) at points ``xy`` of shape (..., 2)."""
        xy = np.asarray(xy)
        ox, oy = self.origin
        dx, dy = self.direction
        d = (xy[..., 0] - ox) * dx + (xy[..., 1] - oy) * dy
        h = self.level - np.tan(self.slope_rad) * np.maximum(d, 0.0)
        return np.maximum(h, 0.0)

    def intersect(self, origin: np.ndarray, dirs: np.ndarray) -> np.ndarray:
        """Ray parameter ``t > 0`` of the first crossing of the surface by rays
        ``origin + t * dirs`` (one origin (3,), directions (..., 3)); inf if none.

        Analytic: the surface is the union of the flat piece (d <= 0) and the
        sloped plane (d >= 0, h > 0); take the nearest valid crossing.
        """
        if self.level <= 0.0:
            return np.full(dirs.shape[:-1], np.inf, np.float32)
        ox, oy, oz = (float(v) for v in origin)
        px, py = self.origin
        ux, uy = self.direction
        k = np.float32(np.tan(self.slope_rad))
        d0 = (ox - px) * ux + (oy - py) * uy                # distance of the ray origin
        dd = dirs[..., 0] * np.float32(ux) + dirs[..., 1] * np.float32(uy)  # its rate
        dz = dirs[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = (self.level - oz) / dz                     # flat piece, valid where d <= 0
            t1[~((t1 > 0) & (d0 + t1 * dd <= 0))] = np.inf
            t2 = (self.level - oz - k * d0) / (dz + k * dd)  # sloped piece
            d2 = d0 + t2 * dd
            t2[~((t2 > 0) & (d2 >= 0) & (self.level - k * d2 > 0))] = np.inf
        return np.minimum(t1, t2)


@dataclass
class Frame:
    """One rendered view (H rows, W columns).

    * ``rgb`` (H, W, 3) uint8.
    * ``depth`` (H, W) float32 z-depth along the optical axis (REP 118), +inf
      where nothing was hit within [near, far].
    * ``seg`` (H, W) int32 instance id of the hit, 0 where nothing was hit.
    * ``points`` (H, W, 3) float32 world coordinates of the hit, nan if none.
    * ``water_depth`` (H, W) float32 water height above the hit point (>= 0,
      0 where nothing was hit) when rendered with water, else None.

    Depth, seg and points always describe the solid hit: water is translucent.
    """

    rgb: np.ndarray
    depth: np.ndarray
    seg: np.ndarray
    points: np.ndarray
    water_depth: np.ndarray | None = None


class _Part:
    """Cached mesh and per-triangle attributes of a group of boxes."""

    def __init__(self, boxes: Sequence[Box], ids, colors):
        ids = np.asarray(ids, np.int32).reshape(-1)
        colors = np.asarray(colors, np.uint8).reshape(-1, 3)
        if not (len(boxes) == len(ids) == len(colors)):
            raise ValueError(f"{len(boxes)} boxes, {len(ids)} ids, {len(colors)} colors")
        if np.any(ids <= 0):
            raise ValueError("instance ids must be > 0 (0 means 'nothing hit')")
        self.verts, self.tris, normals = boxes_to_mesh(boxes)
        self.tri_ids = np.repeat(ids, TRIS_PER_BOX)
        self.tri_base = np.repeat(colors, TRIS_PER_BOX, axis=0)
        self.tri_shade = _lambert(normals)

    def recolor(self, ids: np.ndarray, colors: np.ndarray) -> None:
        for i, c in zip(ids, colors):
            self.tri_base[self.tri_ids == i] = c


class RaycastRenderer:
    """Renders RGB, z-depth, instance segmentation and world points of boxes.

    Usage::

        r = RaycastRenderer(CameraSpec(256, 256, 90.0))
        r.set_static(walls_and_furniture, ids, colors)
        r.set_dynamic(objects_and_flames, ids, colors)      # whenever they change
        frame = r.render(position, optical_rotation(yaw, pitch), water=None)

    Instance ids must be > 0; the same id may be used by several boxes (e.g. a
    multi-box object) and ``set_colors`` recolours all of them.
    """

    def __init__(self, camera: CameraSpec = CameraSpec(), nthreads: int = 0):
        self.camera = camera
        self.nthreads = nthreads
        self._dirs_cam = camera.ray_directions().reshape(-1, 3)  # (HW, 3), z = 1
        self._rays = np.empty((camera.height, camera.width, 6), np.float32)
        self._rays_t = o3d.core.Tensor.from_numpy(self._rays)  # shares memory
        self._static = _Part([], [], np.zeros((0, 3)))
        self._dynamic = _Part([], [], np.zeros((0, 3)))
        self._scene = None
        self._tables()

    # ---------------------------------------------------------------- scene
    def set_static(self, boxes: Sequence[Box], ids, colors) -> None:
        """Parts that never move (floor, walls, furniture)."""
        self._static = _Part(boxes, ids, colors)
        self._scene = None
        self._tables()

    def set_dynamic(self, boxes: Sequence[Box], ids, colors) -> None:
        """Parts that move or change (objects, flames); rebuilds the scene."""
        self._dynamic = _Part(boxes, ids, colors)
        self._scene = None
        self._tables()

    def set_colors(self, ids, colors) -> None:
        """Recolour instances (all boxes with these ids) without touching geometry."""
        ids = np.asarray(ids, np.int32).reshape(-1)
        colors = np.asarray(colors, np.uint8).reshape(-1, 3)
        self._static.recolor(ids, colors)
        self._dynamic.recolor(ids, colors)
        self._tables()

    def _tables(self) -> None:
        """Per-triangle lookup tables, with a trailing 'no hit' entry."""
        s, d = self._static, self._dynamic
        self._ntri = len(s.tris) + len(d.tris)
        self._seg_lut = np.concatenate([s.tri_ids, d.tri_ids, [0]]).astype(np.int32)
        base = np.concatenate([s.tri_base, d.tri_base]).astype(np.float32)
        shade = np.concatenate([s.tri_shade, d.tri_shade]).astype(np.float32)
        rgb = np.clip(base * shade[:, None] + 0.5, 0, 255).astype(np.uint8)
        self._rgb_lut = np.concatenate([rgb, BACKGROUND[None]])

    def _build(self) -> None:
        scene = o3d.t.geometry.RaycastingScene()
        s, d = self._static, self._dynamic
        if self._ntri:
            verts = np.concatenate([s.verts, d.verts])
            tris = np.concatenate([s.tris, d.tris + np.uint32(len(s.verts))])
            scene.add_triangles(o3d.core.Tensor.from_numpy(verts),
                                o3d.core.Tensor.from_numpy(tris))
        self._scene = scene

    # --------------------------------------------------------------- render
    def render(self, position, rot, water: WaterSurface | None = None) -> Frame:
        """Render from optical-frame origin ``position`` (world, (3,)) with
        world-from-optical rotation ``rot`` (3x3, see ``optical_rotation``)."""
        if self._scene is None:
            self._build()
        cam = self.camera
        h, w = cam.height, cam.width
        pos = np.asarray(position, np.float32).reshape(3)
        rays = self._rays.reshape(-1, 6)
        dirs = rays[:, 3:]
        np.matmul(self._dirs_cam, np.asarray(rot, np.float32).T, out=dirs)
        # Rays start on the near plane (z = near, as directions have unit z).
        np.multiply(dirs, np.float32(cam.near), out=rays[:, :3])
        rays[:, :3] += pos

        ans = self._scene.cast_rays(self._rays_t, nthreads=self.nthreads)
        depth = ans["t_hit"].numpy()                        # (H, W) float32, fresh
        prim = ans["primitive_ids"].numpy().astype(np.intp)  # INVALID_ID -> huge
        np.minimum(prim, self._ntri, out=prim)               # -> 'no hit' entry
        far = depth > np.float32(cam.far - cam.near)
        if far.any():                                        # beyond the far plane
            prim[far] = self._ntri
            depth[far] = np.inf
        depth += np.float32(cam.near)
        hit = prim < self._ntri

        seg = self._seg_lut[prim]
        # Points are the ray at t = depth (z-depth) from the camera position.
        points = dirs.reshape(h, w, 3) * depth[..., None]
        points += pos
        points[~hit] = np.nan

        water_depth = None
        lut = self._rgb_lut
        if water is not None:
            t_w = self._water_hits(water, pos, dirs.reshape(h, w, 3))
            under = t_w < depth                              # crosses before the hit
            prim += under * (self._ntri + 1)                 # -> blended table half
            lut = np.concatenate([lut, _blend(lut, water.color, water.alpha)])
            water_depth = water.height_at(points[..., :2]) - points[..., 2]
            water_depth[~hit] = 0.0
            np.maximum(water_depth, 0.0, out=water_depth)
            water_depth = water_depth.astype(np.float32, copy=False)
        rgb = lut[prim]
        return Frame(rgb, depth, seg, points, water_depth)

    @staticmethod
    def _water_hits(water: WaterSurface, pos: np.ndarray, dirs: np.ndarray) -> np.ndarray:
        """Ray parameter (= z-depth) of the first water crossing, inf if none;
        0 everywhere when the camera itself is under water."""
        if water.height_at(pos[:2]) > pos[2]:
            return np.zeros(dirs.shape[:-1], np.float32)
        return water.intersect(pos, dirs)


def _blend(rgb: np.ndarray, color, alpha: float) -> np.ndarray:
    out = rgb.astype(np.float32) * (1.0 - alpha) + np.asarray(color, np.float32) * alpha
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)
